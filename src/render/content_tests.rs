//! Items with every content field, in each format, read back by `feed-rs`.

use super::*;
use crate::model::{Item, Watch};

fn watch() -> Watch {
    Watch::of_url("https://example.org/news/", 1_700_000_000)
}

/// A full item (an edited title, a full text with script in it) and a bare one.
fn items() -> Vec<Item> {
    let full = Item {
        id: Item::id_for("https://example.org/news/1"),
        title: "Council approves budget".into(),
        link: "https://example.org/news/1".into(),
        first_seen: 1_700_000_600,
        summary: Some("The council <voted> 7 to 2 & adjourned.".into()),
        published: Some(1_699_990_000),
        updated: Some(1_700_001_000),
        image: Some("https://img.example.org/a.jpg?w=640&h=480".into()),
        author: Some("Jane Roe".into()),
        content: Some(
            "<p onclick=\"x()\">Full <b>text</b><script>alert(1)</script> \
             <a href=\"/more\">more</a> <a href=\"javascript:alert(2)\">js</a></p>"
                .into(),
        ),
    };
    let bare = Item {
        id: Item::id_for("https://example.org/news/0"),
        title: "Older".into(),
        link: "https://example.org/news/0".into(),
        first_seen: 1_700_000_000,
        ..Item::default()
    };
    vec![full, bare]
}

fn render_all() -> Vec<(&'static str, String)> {
    let w = watch();
    let items = items();
    let v = FeedView {
        self_path: None,
        watch: &w,
        title: "News",
        items: &items,
        base_url: "http://127.0.0.1:8080",
        key_query: "",
        updated: 1_700_001_000,
        ttl_minutes: None,
        icon: None,
    };
    vec![
        ("rss", rss(&v)),
        ("atom", atom(&v)),
        ("json", json_feed(&v)),
    ]
}

#[test]
fn every_field_reaches_every_format() {
    for (name, body) in render_all() {
        let feed = feed_rs::parser::parse(body.as_bytes())
            .unwrap_or_else(|e| panic!("{name}: {e}\n{body}"));
        assert_eq!(feed.entries.len(), 2, "{name}: order and count kept");
        let e = &feed.entries[0];
        assert_eq!(
            e.title.as_ref().map(|t| t.content.as_str()),
            Some("Council approves budget"),
            "{name}"
        );
        // the stated date, not when it was first seen
        assert_eq!(
            e.published.map(|d| d.timestamp()),
            Some(1_699_990_000),
            "{name}: published\n{body}"
        );
        let summary = e.summary.as_ref().map(|t| t.content.clone());
        assert!(
            summary
                .as_deref()
                .is_some_and(|s| s.contains("7 to 2") && s.contains("adjourned")),
            "{name}: summary {summary:?}"
        );
        if name == "rss" {
            // the description is HTML: the summary's text is escaped in it
            assert!(body.contains("&lt;voted&gt;"), "{body}");
        }
        assert_eq!(
            e.authors.first().map(|p| p.name.as_str()),
            Some("Jane Roe"),
            "{name}: author\n{body}"
        );
        let thumb = e
            .media
            .iter()
            .flat_map(|m| m.thumbnails.iter().map(|t| t.image.uri.clone()))
            .chain(
                e.media
                    .iter()
                    .flat_map(|m| m.content.iter().filter_map(|c| c.url.clone()))
                    .map(|u| u.to_string()),
            )
            .next();
        if name != "json" {
            // (feed-rs does not read JSON Feed's `image`; the JSON test checks it)
            assert_eq!(
                thumb.as_deref(),
                Some("https://img.example.org/a.jpg?w=640&h=480"),
                "{name}: image\n{body}"
            );
        }
        let content = e
            .content
            .as_ref()
            .and_then(|c| c.body.clone())
            .unwrap_or_default();
        assert!(content.contains("Full <b>text</b>"), "{name}: {content}");
        for bad in ["script", "alert", "onclick", "javascript:"] {
            assert!(!content.contains(bad), "{name}: {bad} in {content}");
        }
        assert!(
            content.contains("https://example.org/more"),
            "{name}: {content}"
        );
        // the bare item keeps its first-seen date
        assert_eq!(
            feed.entries[1].published.map(|d| d.timestamp()),
            Some(1_700_000_000),
            "{name}"
        );
    }
}

#[test]
fn edits_are_dated_and_json_carries_the_1_1_fields() {
    let body = &render_all()[2].1;
    let v: serde_json::Value = serde_json::from_str(body).unwrap();
    let i = &v["items"][0];
    assert_eq!(i["date_published"], "2023-11-14T19:26:40Z");
    assert_eq!(i["date_modified"], "2023-11-14T22:30:00Z");
    assert_eq!(i["image"], "https://img.example.org/a.jpg?w=640&h=480");
    assert_eq!(i["authors"][0]["name"], "Jane Roe");
    assert_eq!(i["summary"], "The council <voted> 7 to 2 & adjourned.");
    assert!(i.get("content_text").is_none());
    // without a full text, the summary is the content text; without one, the link
    let bare = &v["items"][1];
    assert_eq!(bare["content_text"], "https://example.org/news/0");
    assert!(bare.get("date_modified").is_none() && bare.get("authors").is_none());

    let atom = &render_all()[1].1;
    assert!(
        atom.contains("<updated>2023-11-14T22:30:00+00:00</updated>"),
        "{atom}"
    );
}
