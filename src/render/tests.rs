use quick_xml::events::Event;
use quick_xml::Reader;

use super::*;
use crate::model::{Item, Watch, WatchId};

const BASE: &str = "http://127.0.0.1:8080";

fn watch(url: &str) -> Watch {
    Watch::of_url(url, 1_700_000_000)
}

fn item(title: &str, link: &str, first_seen: i64) -> Item {
    Item {
        id: Item::id_for(link),
        title: title.to_owned(),
        link: link.to_owned(),
        first_seen,
        ..Item::default()
    }
}

fn view<'a>(
    watch: &'a Watch,
    title: &'a str,
    items: &'a [Item],
    key_query: &'a str,
) -> FeedView<'a> {
    FeedView {
        self_path: None,
        watch,
        title,
        items,
        base_url: BASE,
        key_query,
        updated: items.first().map_or(watch.created, |i| i.first_seen),
        ttl_minutes: Some(60),
        icon: None,
    }
}

/// Titles a page may contain that break careless writers.
fn adversarial_titles() -> Vec<String> {
    vec![
        "Fish & Chips".to_owned(),
        "<script>alert('x')</script>".to_owned(),
        "end of CDATA ]]> in the middle".to_owned(),
        "<![CDATA[ a CDATA section ]]>".to_owned(),
        "already escaped &amp; stays &lt;b&gt;".to_owned(),
        "NUL\u{0}BEL\u{7}VT\u{b}FF\u{c}ESC\u{1b}[0m US\u{1f} end".to_owned(),
        "non-characters \u{FFFE}\u{FFFF} gone".to_owned(),
        "emoji 🦀🎉 and a family 👩\u{200d}👩\u{200d}👧".to_owned(),
        "right-to-left: שלום עולם / مرحبا بالعالم \u{202e}reversed\u{202c}".to_owned(),
        "\"double\" and 'single' quotes".to_owned(),
        "tab\tinside".to_owned(),
        "x".repeat(5000),
    ]
}

fn adversarial_items() -> Vec<Item> {
    adversarial_titles()
        .iter()
        .zip(0_i64..)
        .map(|(t, i)| {
            // Absolute and normalized, as the extractor hands them over, but with characters
            // that need escaping in XML.
            let link = format!("https://example.org/news/{i}?a=1&b=%3C%27%22&c=]]%3E&d=x");
            item(t, &link, 1_700_000_000 - i * 60)
        })
        .collect()
}

/// The title each format must carry for `item`: sanitized, or the link when blank.
fn expected_title(item: &Item) -> String {
    let t = sanitize(&item.title);
    if t.trim().is_empty() {
        item.link.clone()
    } else {
        t
    }
}

/// Parses `xml` strictly enough to prove it is well-formed: one root, matching end tags,
/// valid attributes and entity references, only XML 1.0 characters. Returns the
/// unescaped text of every element named `text_of`, in document order.
fn well_formed(xml: &str, text_of: &str) -> Vec<String> {
    if let Some(bad) = xml.chars().find(|&c| !is_xml_char(c)) {
        panic!("character U+{:04X} is not allowed in XML", bad as u32);
    }
    let mut reader = Reader::from_str(xml);
    let mut open: Vec<Vec<u8>> = Vec::new();
    let mut roots = 0;
    let mut texts = Vec::new();
    let mut current: Option<String> = None;
    loop {
        match reader.read_event() {
            Err(e) => panic!("not well-formed at {}: {e}\n{xml}", reader.error_position()),
            Ok(Event::Eof) => break,
            Ok(Event::Start(e)) => {
                if open.is_empty() {
                    roots += 1;
                }
                for a in e.attributes() {
                    a.expect("attribute")
                        .unescape_value()
                        .expect("attribute value");
                }
                if e.name().as_ref() == text_of.as_bytes() {
                    current = Some(String::new());
                }
                open.push(e.name().as_ref().to_vec());
            }
            Ok(Event::Empty(e)) => {
                if open.is_empty() {
                    roots += 1;
                }
                for a in e.attributes() {
                    a.expect("attribute")
                        .unescape_value()
                        .expect("attribute value");
                }
            }
            Ok(Event::End(e)) => {
                assert_eq!(open.pop().as_deref(), Some(e.name().as_ref()));
                if e.name().as_ref() == text_of.as_bytes() {
                    texts.extend(current.take());
                }
            }
            Ok(Event::Text(t)) => {
                let s = t.unescape().expect("text");
                if open.is_empty() {
                    assert!(s.trim().is_empty(), "text outside the root: {s:?}");
                } else if let Some(c) = current.as_mut() {
                    c.push_str(&s);
                }
            }
            Ok(Event::CData(t)) => {
                if let Some(c) = current.as_mut() {
                    c.push_str(std::str::from_utf8(&t).expect("utf-8"));
                }
            }
            Ok(_) => {}
        }
    }
    assert!(open.is_empty(), "unclosed elements: {open:?}");
    assert_eq!(roots, 1, "exactly one root element");
    texts
}

fn parse_feed(text: &str) -> feed_rs::model::Feed {
    feed_rs::parser::parse(text.as_bytes()).unwrap_or_else(|e| panic!("feed-rs: {e}\n{text}"))
}

/// Asserts that feed-rs reads exactly `items` (titles sanitized, links, order) from `text`.
fn assert_items(text: &str, items: &[Item]) {
    let feed = parse_feed(text);
    assert_eq!(feed.entries.len(), items.len());
    for (entry, item) in feed.entries.iter().zip(items) {
        let title = entry.title.as_ref().map(|t| t.content.as_str());
        assert_eq!(title, Some(expected_title(item).as_str()));
        let links: Vec<&str> = entry.links.iter().map(|l| l.href.as_str()).collect();
        assert_eq!(links, [item.link.as_str()]);
    }
}

// ---- sanitize, etag, feed_path ----

#[test]
fn sanitize_drops_only_forbidden_and_control_characters() {
    assert_eq!(sanitize("a\u{0}b\u{8}c\u{1f}d"), "abcd");
    assert_eq!(sanitize("tab\tlf\ncr\r"), "tab\tlf\ncr\r");
    assert_eq!(sanitize("x\u{FFFE}\u{FFFF}y"), "xy");
    // DEL and C1 controls: discouraged by XML 1.0 and unreadable in feed readers.
    assert_eq!(sanitize("a\u{7f}b\u{85}c\u{9f}d\u{a0}"), "abcd\u{a0}");
    let kept = "é 🦀 שלום \u{D7FF}\u{E000}\u{FFFD}\u{10000}\u{10FFFF} ~\u{a0}";
    assert_eq!(sanitize(kept), kept);
}

#[test]
fn etag_is_a_quoted_md5() {
    assert_eq!(etag(b""), "\"d41d8cd98f00b204e9800998ecf8427e\"");
    assert_ne!(etag(b"a"), etag(b"b"));
}

#[test]
fn feed_path_shape() {
    let id = WatchId::parse("0123456789ab").expect("id");
    assert_eq!(feed_path(&id, "xml"), "/feed/0123456789ab.xml");
    assert_eq!(feed_path(&id, "atom"), "/feed/0123456789ab.atom");
}

// ---- the three feed formats with adversarial content ----

#[test]
fn rss_with_adversarial_titles_is_valid_and_complete() {
    let w = watch("https://example.org/news/?a=1&b=2");
    let items = adversarial_items();
    let out = rss(&view(&w, "News & <Views> ]]>", &items, "?key=a&b"));
    let titles = well_formed(&out, "title");
    assert_eq!(titles[0], "News & <Views> ]]>");
    let expected: Vec<String> = items.iter().map(expected_title).collect();
    assert_eq!(titles[1..], expected[..]);
    assert!(
        titles.iter().any(|t| t.contains("&amp; stays")),
        "&amp; escaped once more"
    );
    let links = well_formed(&out, "link");
    let expected_links: Vec<&str> = items.iter().map(|i| i.link.as_str()).collect();
    assert_eq!(links[1..], expected_links[..]);
    assert_items(&out, &items);
    assert!(!out.contains("<![CDATA["), "no CDATA sections");
}

#[test]
fn atom_with_adversarial_titles_is_valid_and_complete() {
    let w = watch("https://example.org/news/?a=1&b=2");
    let items = adversarial_items();
    let out = atom(&view(&w, "News & <Views> ]]>", &items, "?key=a&b"));
    let titles = well_formed(&out, "title");
    assert_eq!(titles[0], "News & <Views> ]]>");
    let expected: Vec<String> = items.iter().map(expected_title).collect();
    assert_eq!(titles[1..], expected[..]);
    assert_items(&out, &items);
    assert!(!out.contains("<![CDATA["), "no CDATA sections");
}

#[test]
fn json_feed_with_adversarial_titles_is_valid_and_complete() {
    let w = watch("https://example.org/news/?a=1&b=2");
    let items = adversarial_items();
    let out = json_feed(&view(&w, "News & <Views> ]]>", &items, "?key=a&b"));
    let value: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
    assert_eq!(value["title"], "News & <Views> ]]>");
    let titles: Vec<&str> = value["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| i["title"].as_str().expect("title"))
        .collect();
    let expected: Vec<String> = items.iter().map(expected_title).collect();
    assert_eq!(titles, expected);
    assert_items(&out, &items);
}

#[test]
fn blank_titles_fall_back_to_the_link() {
    let w = watch("https://example.org/");
    let items = [item(" \u{0}\u{1} ", "https://example.org/a", 1_700_000_000)];
    for out in [
        rss(&view(&w, "", &items, "")),
        atom(&view(&w, "", &items, "")),
    ] {
        let titles = well_formed(&out, "title");
        assert_eq!(titles, ["https://example.org/", "https://example.org/a"]);
    }
    let value: serde_json::Value =
        serde_json::from_str(&json_feed(&view(&w, "", &items, ""))).expect("json");
    assert_eq!(value["title"], "https://example.org/");
    assert_eq!(value["items"][0]["title"], "https://example.org/a");
}

#[test]
fn empty_feeds_are_valid() {
    let w = watch("https://example.org/");
    let v = view(&w, "Empty", &[], "");
    for out in [rss(&v), atom(&v)] {
        well_formed(&out, "title");
        assert!(parse_feed(&out).entries.is_empty());
    }
    assert!(parse_feed(&json_feed(&v)).entries.is_empty());
}

#[test]
fn dates_out_of_range_do_not_panic() {
    let w = watch("https://example.org/");
    let items = [item("t", "https://example.org/a", i64::MAX)];
    let mut v = view(&w, "T", &items, "");
    v.updated = i64::MIN;
    well_formed(&rss(&v), "title");
    well_formed(&atom(&v), "title");
    serde_json::from_str::<serde_json::Value>(&json_feed(&v)).expect("json");
}

// ---- format specifics ----

#[test]
fn rss_has_guid_self_link_and_ttl() {
    let w = watch("https://example.org/news/");
    let items = [item("One", "https://example.org/1", 1_700_000_000)];
    let out = rss(&view(&w, "News", &items, "?key=a&b=c"));
    let self_url = format!("{BASE}/feed/{}.xml?key=a&amp;b=c", w.id);
    assert!(
        out.contains(&format!(
            "<atom:link href=\"{self_url}\" rel=\"self\" type=\"application/rss+xml\">"
        )),
        "{out}"
    );
    assert!(out.contains("xmlns:atom=\"http://www.w3.org/2005/Atom\""));
    assert!(out.contains(&format!(
        "<guid isPermaLink=\"false\">{}</guid>",
        items[0].id
    )));
    assert!(out.contains("<ttl>60</ttl>"));
    assert!(out.contains("<pubDate>Tue, 14 Nov 2023 22:13:20 +0000</pubDate>"));

    let feed = parse_feed(&out);
    assert_eq!(feed.entries[0].id, items[0].id);
    assert_eq!(feed.ttl, Some(60));

    let mut no_ttl = view(&w, "News", &items, "");
    no_ttl.ttl_minutes = None;
    assert!(!rss(&no_ttl).contains("<ttl>"));
}

#[test]
fn atom_has_self_and_alternate_links_ids_and_dates() {
    let w = watch("https://example.org/news/");
    let items = [
        item("Two", "https://example.org/2", 1_700_000_060),
        item("One", "https://example.org/1", 1_700_000_000),
    ];
    let out = atom(&view(&w, "News", &items, "?key=k"));
    let feed = parse_feed(&out);
    let rel = |rel: &str| {
        feed.links
            .iter()
            .find(|l| l.rel.as_deref() == Some(rel))
            .map(|l| l.href.clone())
    };
    assert_eq!(
        rel("self"),
        Some(format!("{BASE}/feed/{}.atom?key=k", w.id))
    );
    assert_eq!(rel("alternate"), Some(w.url.clone()));
    assert_eq!(feed.id, format!("urn:sitefeed:{}", w.id));
    assert_eq!(
        feed.entries[1].id,
        format!("urn:sitefeed:{}:{}", w.id, items[1].id)
    );
    assert_eq!(
        feed.updated.map(|d| d.timestamp()),
        Some(1_700_000_060),
        "feed <updated>"
    );
    assert_eq!(
        feed.entries[0].published.map(|d| d.timestamp()),
        Some(1_700_000_060)
    );
    assert!(out.contains("<updated>2023-11-14T22:14:20+00:00</updated>"));
}

#[test]
fn json_feed_has_version_feed_url_and_items() {
    let w = watch("https://example.org/news/");
    let items = [item("One", "https://example.org/1", 1_700_000_000)];
    let out = json_feed(&view(&w, "News", &items, "?key=k"));
    let value: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(value["version"], "https://jsonfeed.org/version/1.1");
    assert_eq!(
        value["feed_url"],
        format!("{BASE}/feed/{}.json?key=k", w.id)
    );
    assert_eq!(value["home_page_url"], "https://example.org/news/");
    let first = &value["items"][0];
    assert_eq!(first["id"], items[0].id);
    assert_eq!(first["url"], "https://example.org/1");
    assert_eq!(first["title"], "One");
    assert_eq!(first["date_published"], "2023-11-14T22:13:20Z");
    assert_eq!(first["content_text"], "https://example.org/1");
}

#[test]
fn rss_snapshot() {
    let w = Watch {
        id: WatchId::parse("0123456789ab").expect("id"),
        url: "https://example.org/news/".to_owned(),
        title: Some("Example news".to_owned()),
        depth: 1,
        select: None,
        keywords: Vec::new(),
        created: 1_699_000_000,
        strategy: None,
        options: crate::model::WatchOptions::default(),
        render: crate::model::Render::Plain,
    };
    let items = [
        Item {
            id: "00112233445566aa".to_owned(),
            title: "Second & <last>".to_owned(),
            link: "https://example.org/news/2?a=1&b=2".to_owned(),
            first_seen: 1_700_000_060,
            ..Item::default()
        },
        Item {
            id: "00112233445566bb".to_owned(),
            title: "First".to_owned(),
            link: "https://example.org/news/1".to_owned(),
            first_seen: 1_700_000_000,
            ..Item::default()
        },
    ];
    let v = FeedView {
        self_path: None,
        watch: &w,
        title: "Example news",
        items: &items,
        base_url: "http://127.0.0.1:8080",
        key_query: "?key=abc",
        updated: 1_700_000_060,
        ttl_minutes: Some(30),
        icon: None,
    };
    let expected = r#"<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">
  <channel>
    <title>Example news</title>
    <link>https://example.org/news/</link>
    <description>Links newly added to https://example.org/news/</description>
    <lastBuildDate>Tue, 14 Nov 2023 22:14:20 +0000</lastBuildDate>
    <generator>sitefeed</generator>
    <docs>https://www.rssboard.org/rss-specification</docs>
    <ttl>30</ttl>
    <atom:link href="http://127.0.0.1:8080/feed/0123456789ab.xml?key=abc" rel="self" type="application/rss+xml"></atom:link>
    <item>
      <title>Second &amp; &lt;last&gt;</title>
      <link>https://example.org/news/2?a=1&amp;b=2</link>
      <guid isPermaLink="false">00112233445566aa</guid>
      <pubDate>Tue, 14 Nov 2023 22:14:20 +0000</pubDate>
    </item>
    <item>
      <title>First</title>
      <link>https://example.org/news/1</link>
      <guid isPermaLink="false">00112233445566bb</guid>
      <pubDate>Tue, 14 Nov 2023 22:13:20 +0000</pubDate>
    </item>
  </channel>
</rss>"#;
    assert_eq!(rss(&v), expected);
}

// ---- OPML ----

#[test]
fn opml_export_round_trips() {
    let a = watch("https://example.org/news/?a=1&b=2");
    let b = watch("https://example.com/blog");
    let watches = vec![
        (
            a.clone(),
            "News & <Views> \"quoted\"\tand\nlines\u{0}".to_owned(),
        ),
        (b.clone(), String::new()),
    ];
    let out = opml_export(&watches, BASE, "?key=a&b");
    well_formed(&out, "title");
    let entries = opml_parse(&out).expect("parse");
    assert_eq!(
        entries,
        [
            OpmlEntry {
                url: a.url.clone(),
                title: Some("News & <Views> \"quoted\"\tand\nlines".to_owned()),
                tags: Vec::new(),
                render: None,
                content: None,
            },
            OpmlEntry {
                url: b.url.clone(),
                title: Some(b.url.clone()),
                tags: Vec::new(),
                render: None,
                content: None,
            },
        ]
    );
    assert!(out.contains(&format!("xmlUrl=\"{BASE}/feed/{}.xml?key=a&amp;b\"", a.id)));
    assert!(out.contains("type=\"rss\""));
}

#[test]
fn opml_tags_are_folders_and_categories_both_ways() {
    let mut a = watch("https://a.example/");
    a.options.tags = vec!["news".into(), "uni".into()];
    let mut b = watch("https://b.example/");
    b.options.tags = vec!["uni".into()];
    let c = watch("https://c.example/");
    let out = opml_export(
        &[
            (a.clone(), "A".into()),
            (b.clone(), "B".into()),
            (c.clone(), "C".into()),
        ],
        BASE,
        "",
    );
    well_formed(&out, "title");
    assert!(
        out.contains("<outline text=\"news\" title=\"news\">"),
        "{out}"
    );
    assert!(out.contains("category=\"/news,/uni\""), "{out}");
    let entries = opml_parse(&out).expect("parse");
    let tags = |url: &str| {
        entries
            .iter()
            .find(|e| e.url == url)
            .map(|e| e.tags.clone())
            .expect("entry")
    };
    // Folder, then category (the caller makes them distinct).
    assert_eq!(tags(&a.url), ["news", "news", "uni"]);
    assert_eq!(tags(&b.url), ["uni", "uni"]);
    assert!(tags(&c.url).is_empty());
}

#[test]
fn opml_export_of_nothing_is_valid() {
    let out = opml_export(&[], BASE, "");
    well_formed(&out, "title");
    assert_eq!(opml_parse(&out), Ok(Vec::new()));
}

#[test]
fn opml_parse_finds_nested_outlines_and_skips_folders() {
    let text = r#"<?xml version="1.0" encoding="UTF-8"?>
<!-- exported by a reader -->
<opml version="1.0">
  <head><title>Subscriptions</title></head>
  <body>
    <outline text="Tech">
      <outline text="A feed" type="rss" xmlUrl="https://a.example/feed.xml"/>
      <outline text="Deeper">
        <outline title="B" text="b text" xmlurl="https://b.example/rss" htmlurl=" https://b.example/ "/>
      </outline>
    </outline>
    <outline text="Separator only"/>
    <outline text="Blank urls" xmlUrl="  " htmlUrl=""/>
    <outline text="C &amp; D" xmlUrl="https://c.example/?x=1&amp;y=2"></outline>
  </body>
</opml>"#;
    let entries = opml_parse(text).expect("parse");
    assert_eq!(
        entries,
        [
            OpmlEntry {
                url: "https://a.example/feed.xml".to_owned(),
                title: Some("A feed".to_owned()),
                tags: vec!["Tech".to_owned()],
                render: None,
                content: None,
            },
            OpmlEntry {
                url: "https://b.example/".to_owned(),
                title: Some("B".to_owned()),
                tags: vec!["Tech".to_owned(), "Deeper".to_owned()],
                render: None,
                content: None,
            },
            OpmlEntry {
                url: "https://c.example/?x=1&y=2".to_owned(),
                title: Some("C & D".to_owned()),
                tags: Vec::new(),
                render: None,
                content: None,
            },
        ]
    );
}

#[test]
fn opml_parse_ignores_outlines_outside_body() {
    let text = r#"<opml version="2.0"><head><outline xmlUrl="https://no.example/"/></head><body><outline htmlUrl="https://yes.example/"/></body></opml>"#;
    let entries = opml_parse(text).expect("parse");
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].url, "https://yes.example/");
    assert_eq!(entries[0].title, None);
}

#[test]
fn opml_parse_accepts_a_byte_order_mark() {
    let text = "\u{FEFF}<opml version=\"2.0\"><body><outline xmlUrl=\"https://a.example/\"/></body></opml>";
    assert_eq!(opml_parse(text).expect("parse").len(), 1);
}

#[test]
fn opml_parse_rejects_malformed_documents() {
    let good = opml_export(&[(watch("https://example.org/"), "E".to_owned())], BASE, "");
    let truncated = &good[..good.find("</body>").expect("</body>")];
    assert!(
        matches!(opml_parse(truncated), Err(OpmlError::Truncated { ref open, .. }) if open == "body"),
        "{:?}",
        opml_parse(truncated)
    );
    // Cut anywhere before its end, the document is an error, never a partial list.
    let end = good.trim_end().len();
    for cut in (0..end).filter(|&c| good.is_char_boundary(c)) {
        assert!(
            opml_parse(&good[..cut]).is_err(),
            "cut at {cut}: {:?}",
            &good[..cut]
        );
    }
    assert!(opml_parse(&good[..end]).is_ok());
    let mid_tag = &good[..good.find("xmlUrl").expect("xmlUrl") + 10];
    assert!(matches!(opml_parse(mid_tag), Err(OpmlError::Xml { .. })));

    assert_eq!(opml_parse(""), Err(OpmlError::NoRoot));
    assert_eq!(opml_parse("  \n "), Err(OpmlError::NoRoot));
    assert_eq!(
        opml_parse("just some text"),
        Err(OpmlError::NotXml { line: 1, column: 1 })
    );
    assert_eq!(
        opml_parse("\n  {\"feeds\": []}"),
        Err(OpmlError::NotXml { line: 2, column: 3 })
    );
    assert_eq!(
        opml_parse("<html><body></body></html>"),
        Err(OpmlError::NotOpml {
            found: "html".to_owned()
        })
    );
    assert_eq!(
        opml_parse("<opml version=\"2.0\"><head/></opml>"),
        Err(OpmlError::NoBody)
    );
    assert_eq!(opml_parse("<opml/>"), Err(OpmlError::NoBody));

    let mismatched = "<opml>\n<body>\n<outline xmlUrl=\"https://a.example/\">\n</body></opml>";
    let err = opml_parse(mismatched).expect_err("mismatched end tag");
    assert!(matches!(err, OpmlError::Xml { line: 4, .. }), "{err:?}");
    assert!(err.to_string().contains("line 4"), "{err}");

    let bad_entity = "<opml><body><outline xmlUrl=\"https://a.example/?a=1&b=2\"/></body></opml>";
    assert!(matches!(
        opml_parse(bad_entity),
        Err(OpmlError::Xml { line: 1, .. })
    ));
    let bad_attr = "<opml><body><outline xmlUrl=https://a.example/ /></body></opml>";
    assert!(matches!(opml_parse(bad_attr), Err(OpmlError::Xml { .. })));
    let two_roots = "<opml><body/></opml><opml><body/></opml>";
    assert!(matches!(opml_parse(two_roots), Err(OpmlError::Xml { .. })));
    let text_after = "<opml><body/></opml> trailing";
    assert!(matches!(
        opml_parse(text_after),
        Err(OpmlError::NotXml { .. })
    ));
}

#[test]
fn opml_errors_say_what_is_wrong() {
    let msg = opml_parse("<rss/>").expect_err("rss").to_string();
    assert!(msg.contains("<rss>") && msg.contains("<opml>"), "{msg}");
    let msg = opml_parse("<opml><body>")
        .expect_err("truncated")
        .to_string();
    assert!(msg.contains("truncated"), "{msg}");
}

#[test]
fn site_icon_becomes_rss_image_atom_icon_and_json_favicon() {
    let w = watch("https://example.org/news/");
    let items = [item("One", "https://example.org/1", 1_700_000_000)];
    let mut v = view(&w, "News & more", &items, "");
    assert!(!rss(&v).contains("<image>"));
    assert!(!atom(&v).contains("<icon>"));
    assert!(!json_feed(&v).contains("favicon"));
    v.icon = Some("https://example.org/favicon.ico?a=1&b=2");
    let out = rss(&v);
    assert!(
        out.contains("<url>https://example.org/favicon.ico?a=1&amp;b=2</url>"),
        "{out}"
    );
    assert!(out.contains("<title>News &amp; more</title>"));
    let feed = parse_feed(&out);
    assert_eq!(
        feed.logo.map(|l| l.uri).as_deref(),
        Some("https://example.org/favicon.ico?a=1&b=2")
    );
    let out = atom(&v);
    assert!(
        out.contains("<icon>https://example.org/favicon.ico?a=1&amp;b=2</icon>"),
        "{out}"
    );
    let json: serde_json::Value = serde_json::from_str(&json_feed(&v)).expect("json");
    assert_eq!(json["favicon"], "https://example.org/favicon.ico?a=1&b=2");
}
