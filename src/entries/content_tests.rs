use std::fmt::Write;

use super::*;
use crate::analysis::{analyse, Analysis, Changed, History, PageInput, Params};
use crate::fetch::Validators;
use crate::model::Watch;
use crate::schedule::Adaptive;
use crate::state::WatchState;

/// The check time of these tests: 2024-05-03 12:00:00 UTC.
const NOW: i64 = 1_714_737_600;
const PAGE: &str = "https://example.org/news/";

fn utc(s: &str) -> i64 {
    chrono::DateTime::parse_from_rfc3339(s).unwrap().timestamp()
}

/// The content of each entry of `html`, by main link text, read from the entry's
/// element alone; each the same as read from the facts of the whole page.
fn contents(html: &str, tz: Tz) -> Vec<(String, Content)> {
    contents_at(html, &Url::parse(PAGE).unwrap(), tz)
}

fn contents_at(html: &str, page: &Url, tz: Tz) -> Vec<(String, Content)> {
    use crate::extract::structure::EntryFacts;
    use crate::extract::{parse, Gather};
    let parsed = parse(html, page, None, Gather::Content).unwrap();
    let (links, st) = (parsed.page.links, parsed.structure);
    assert!(
        matches!(st.entry_facts, Some(EntryFacts::Places(_))),
        "a check's pass notes places, not facts"
    );
    // A deep watch's own page too, with its visible text.
    let deep = parse(html, page, None, Gather::ContentAndText).unwrap();
    assert!(deep.text.is_some());
    assert_eq!(deep.structure.entry_facts, st.entry_facts);
    // The facts of the whole page, gathered as the pass goes (as with a selector).
    let whole = crate::extract::page::parse_gathering_facts(html, page).unwrap();
    let Some(EntryFacts::Gathered(all)) = &whole.structure.entry_facts else {
        panic!("facts gathered");
    };
    let entries = super::super::group(&links, &st.ctx);
    let mut out = Vec::new();
    for (e, &main) in entries.main.iter().enumerate() {
        // The entry in its block, and its main link read alone.
        for block in [entries.container[e], None] {
            let r = EntryRef {
                main,
                block,
                links: &links,
                ctx: &st.ctx,
                page,
            };
            let c = match element(&r).and_then(|id| st.facts_for(html, id)) {
                Some(facts) => content(&facts, &r, NOW, tz),
                None => Content::default(),
            };
            assert_eq!(
                c,
                content(all, &r, NOW, tz),
                "{:?} in {block:?}",
                links[main].text
            );
            if block == entries.container[e] {
                out.push((links[main].text.clone(), c));
            }
        }
    }
    out
}

/// On every page of the snapshot corpus, each entry's content read from its element
/// alone is what the facts of the whole page give.
#[test]
fn corpus_entries_read_alone_say_what_the_whole_page_says() {
    let Some(dir) = crate::extract::corpus_tests::corpus_dir() else {
        return;
    };
    let mut sites: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("meta.json").is_file())
        .collect();
    sites.sort();
    let (mut pages, mut with_summary) = (0, 0);
    for site in &sites {
        let meta: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(site.join("meta.json")).unwrap())
                .unwrap();
        let page = Url::parse(meta["url"].as_str().unwrap()).unwrap();
        let mut files: Vec<_> = std::fs::read_dir(site)
            .unwrap()
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "html"))
            .collect();
        files.sort();
        // The first and the last capture of each site.
        for file in [files.first(), files.last()].into_iter().flatten() {
            let body = std::fs::read(file).unwrap();
            let decoded = crate::extract::charset::decode_for_url(&body, None, &page);
            let all = contents_at(&decoded.text, &page, Tz::UTC);
            with_summary += all.iter().filter(|(_, c)| c.summary.is_some()).count();
            pages += 1;
        }
    }
    assert!(
        pages >= 2 * sites.len() && sites.len() >= 5,
        "{pages} pages of {} sites",
        sites.len()
    );
    // (entries that say something: the comparison is not of empty contents alone)
    println!("{pages} pages, {with_summary} entries with a summary");
    assert!(with_summary > 60, "{with_summary} entries with a summary");
}

fn of<'a>(all: &'a [(String, Content)], title: &str) -> &'a Content {
    &all.iter()
        .find(|(t, _)| t == title)
        .unwrap_or_else(|| panic!("no entry {title:?} in {all:#?}"))
        .1
}

const NEWS: &str = r#"<html><body><nav><a href="/">Home</a> <a href="/about">About</a></nav>
<main>
<article class="post">
  <h2><a href="/2024/council-budget">Council approves the budget</a></h2>
  <p class="meta"><time datetime="2024-05-02T09:30:00+02:00">2 May</time>
     <span class="author">By Jane Roe</span></p>
  <img src="/img/blank.gif" data-src="/img/budget.jpg" width="640" height="360" alt="">
  <p>The city council voted seven to two on Thursday to approve a budget that adds
     two libraries and repairs the harbour bridge.</p>
  <a href="/2024/council-budget">Read more</a> <a href="/2024/council-budget#comments">12 comments</a>
</article>
<article class="post">
  <h2><a href="/2024/river-festival">River festival returns in June</a></h2>
  <p class="meta"><span>1 May 2024</span> <a rel="author" href="/u/kim">Kim Lee</a></p>
  <img src="https://track.example.net/pixel.gif" width="1" height="1">
  <img srcset="/img/river-320.jpg 320w, /img/river-1024.jpg 1024w" alt="">
  <p>After two years away the river festival is back, with boats, music and food stalls
     along the whole east bank.</p>
  <a href="/2024/river-festival">Read more</a> <a href="/2024/river-festival#comments">3 comments</a>
</article>
<article class="post">
  <h2><a href="/2024/short">Library hours change</a></h2>
  <p>Open late.</p>
  <img src="/icons/sprite.png"><img src="/img/logo.svg">
  <a href="/2024/short">Read more</a> <a href="/2024/short#comments">0 comments</a>
</article>
</main></body></html>"#;

#[test]
fn summary_date_image_and_author_of_news_entries() {
    let all = contents(NEWS, Tz::UTC);
    let a = of(&all, "Council approves the budget");
    assert_eq!(
        a.summary.as_deref(),
        Some(
            "The city council voted seven to two on Thursday to approve a budget that adds \
             two libraries and repairs the harbour bridge."
        ),
        "no title, no date line words, no Read more or comments"
    );
    assert_eq!(a.published, Some(utc("2024-05-02T07:30:00Z")));
    assert_eq!(
        a.image.as_deref(),
        Some("https://example.org/img/budget.jpg")
    );
    assert_eq!(a.author.as_deref(), Some("Jane Roe"));

    let b = of(&all, "River festival returns in June");
    assert!(b
        .summary
        .as_deref()
        .is_some_and(|s| s.starts_with("After two years away") && !s.contains("comments")));
    assert_eq!(b.published, Some(utc("2024-05-01T00:00:00Z")));
    assert_eq!(
        b.image.as_deref(),
        Some("https://example.org/img/river-1024.jpg"),
        "the tracking pixel is skipped, the widest candidate taken"
    );
    assert_eq!(b.author.as_deref(), Some("Kim Lee"));

    let c = of(&all, "Library hours change");
    assert_eq!(c.summary, None, "two words are not a summary");
    assert_eq!(c.published, None, "no date stated, none made up");
    assert_eq!(
        c.image, None,
        "a sprite and an SVG logo are not the entry's picture"
    );
    assert_eq!(c.author, None);
}

#[test]
fn forum_rows_cjk_dates_and_avatars() {
    let row = |id: u32, when: &str| {
        format!(
            r#"<div class="cell item"><table><tr>
            <td><a href="/member/u{id}"><img src="/avatar/{id}.png" width="48" height="48"></a></td>
            <td><span class="item_title"><a href="/t/{id}">关于举办第{id}届校园运动会的通知和报名安排</a></span>
            <span class="topic_info"><a class="node" href="/go/news">新闻</a> • <strong><a href="/member/u{id}">u{id}</a></strong> • <span>{when}</span></span></td>
            <td><a href="/t/{id}#reply" class="count">5</a></td></tr></table></div>"#
        )
    };
    let html = format!(
        "<div id=main>{}{}{}</div>",
        row(1, "3 小时 5 分钟前"),
        row(2, "2024年4月30日 18:00"),
        row(3, "5月2日")
    );
    let sh: Tz = "Asia/Shanghai".parse().unwrap();
    let all = contents(&html, sh);
    let t1 = of(&all, "关于举办第1届校园运动会的通知和报名安排");
    assert_eq!(t1.published, Some(NOW - 3 * 3600 - 5 * 60));
    assert_eq!(t1.summary, None, "a line of metadata is not a summary");
    assert_eq!(t1.image, None, "a 48 px avatar is not the entry's picture");
    let t2 = of(&all, "关于举办第2届校园运动会的通知和报名安排");
    assert_eq!(t2.published, Some(utc("2024-04-30T10:00:00Z")));
    let t3 = of(&all, "关于举办第3届校园运动会的通知和报名安排");
    assert_eq!(t3.published, Some(utc("2024-05-01T16:00:00Z")));
}

#[test]
fn dates_in_the_future_or_long_ago_are_dropped() {
    let html = r#"<ul>
      <li><a href="/a">Annual report for the coming year published</a> <span>2024-12-01</span></li>
      <li><a href="/b">Historic photos of the old harbour bridge</a> <span>1999-05-01</span></li>
      <li><a href="/c">New timetable for the summer season</a> <span>2024-05-03</span></li>
    </ul>"#;
    let all = contents(html, Tz::UTC);
    assert_eq!(
        of(&all, "Annual report for the coming year published").published,
        None
    );
    assert_eq!(
        of(&all, "Historic photos of the old harbour bridge").published,
        None
    );
    assert_eq!(
        of(&all, "New timetable for the summer season").published,
        Some(utc("2024-05-03T00:00:00Z"))
    );
}

/// A hidden picture before an entry (a tracking pixel, an icon for later) hides nothing
/// of the entry's text.
#[test]
fn a_hidden_picture_hides_nothing_after_it() {
    let html = r#"<ul>
      <li><img src="/px.gif" hidden><a href="/a">Ferry timetable changes for the winter</a>
        <p>The ferry runs on the winter schedule from Monday, with fewer crossings on weekends.</p></li>
      <li><img src="/px.gif" hidden><a href="/b">Library closes for roof repairs</a>
        <p>The old library closes for repairs of its roof and reopens in the autumn with longer hours.</p></li>
    </ul>"#;
    let all = contents(html, Tz::UTC);
    for (title, c) in &all {
        assert!(c.summary.is_some(), "{title}: {c:?}");
    }
}

/// A date line of [`SHORT`] characters at the start of an entry's block is a date line,
/// whatever stood before the block; and an entry inside an element whose text the facts
/// leave out says the same read alone as read with the whole page.
#[test]
fn a_date_line_at_the_start_of_a_block_and_a_block_in_hiding() {
    let line = "Posted 3 hours ago by the editors of the desk UK";
    assert_eq!(line.chars().count(), SHORT);
    let html = format!(
        r#"<p>Latest news</p><ul>
      <li><span>{line}</span> <a href="/a">Ferry timetable changes for the winter</a></li>
      <li><span>{line}</span> <a href="/b">Library closes for roof repairs in May</a></li>
    </ul>"#
    );
    let all = contents(&html, Tz::UTC);
    assert_eq!(all.len(), 2, "{all:?}");
    for (title, c) in &all {
        assert_eq!(c.published, Some(NOW - 3 * 3600), "{title}");
    }
    let html = r#"<desc><ul>
      <li><a href="/a">Ferry timetable changes for the winter</a>
        <p>The ferry runs on the winter schedule from Monday, with fewer crossings on weekends.</p></li>
      <li><a href="/b">Library closes for roof repairs</a>
        <p>The old library closes for repairs of its roof and reopens in the autumn with longer hours.</p></li>
    </ul></desc>"#;
    let all = contents(html, Tz::UTC);
    assert_eq!(all.len(), 2, "{all:?}");
    for (title, c) in &all {
        assert_eq!(c.summary, None, "{title}");
    }
}

#[test]
fn summaries_are_cut_at_a_word_or_a_character() {
    let long = "word ".repeat(200);
    let cut = cut_at(long.trim(), 300);
    assert!(
        cut.ends_with("word…") && cut.chars().count() <= 301,
        "{cut}"
    );
    let cjk = "中文字符".repeat(200);
    let cut = cut_at(&cjk, 300);
    assert_eq!(cut.chars().count(), 301);
    assert!(cut.ends_with('…'));
    assert_eq!(cut_at("short text", 300), "short text");
}

/// A fake history: the last page's links, nothing seen before them.
struct Past(Vec<Link>);

impl History for Past {
    type Error = std::convert::Infallible;
    fn links(&self) -> Result<Vec<Link>, Self::Error> {
        Ok(self.0.clone())
    }
    fn is_seen(&self, _url: &str) -> Result<bool, Self::Error> {
        Ok(false)
    }
}

fn watch() -> Watch {
    Watch::of_url(PAGE, 0)
}

/// The check of `new` after a check of `old` (`None`: nothing changed).
fn second_check(old: &str, new: &str) -> Option<Changed> {
    let url = Url::parse(PAGE).unwrap();
    let run = |prev: &WatchState, past: &Past, html: &str| -> Option<Changed> {
        let input = PageInput {
            body: html.as_bytes(),
            content_type: Some("text/html; charset=utf-8"),
            url: &url,
            validators: Validators::default(),
            template: None,
            force: false,
            tracking: &crate::entries::hygiene::Tracking::default(),
            keep_pass: crate::analysis::Keep::Nothing,
        };
        match analyse(
            past,
            &watch(),
            &prev.prev(),
            &input,
            &Params::default(),
            NOW,
        )
        .unwrap()
        .expect("a usable page")
        {
            Analysis::Changed(c) => Some(*c),
            Analysis::Unchanged { .. } => None,
        }
    };
    let fresh = WatchState::new(
        0,
        Adaptive::initial(&crate::config::ScheduleConfig::default()),
    );
    let first = run(&fresh, &Past(Vec::new()), old).expect("a first page");
    let mut prev = fresh;
    prev.raw_fingerprint = Some(first.raw_fingerprint);
    prev.link_fingerprint = Some(first.link_fingerprint);
    prev.entry_roles = first.entry_roles;
    run(&prev, &Past(first.links), new)
}

fn list(entries: &[(&str, &str, &str)]) -> String {
    let mut h = String::from("<html><body><ul class=news>");
    for (href, title, text) in entries {
        let _ = write!(
            h,
            "<li class=entry><h3><a href=\"{href}\">{title}</a></h3><p>{text}</p>\
             <span class=date>2024-05-02</span></li>"
        );
    }
    h.push_str("</ul></body></html>");
    h
}

const OLD: &[(&str, &str, &str)] = &[
    (
        "/n/1?utm_source=feed&id=1",
        "Council approves the budget for next year",
        "The council voted on the budget after a long debate about the libraries.",
    ),
    (
        "/n/2?fbclid=abc",
        "River festival returns to the east bank",
        "Boats, music and food stalls are back along the river for a whole week.",
    ),
];

#[test]
fn a_new_entry_becomes_an_item_with_its_content_and_tracking_parameters_go() {
    let mut new = vec![(
        "/n/3?utm_campaign=x&utm_medium=y",
        "Harbour bridge reopens after repairs",
        "<b onclick=\"steal()\">Traffic</b> returns to the bridge <script>alert(1)</script>on \
         Monday, the city says, two weeks earlier than planned by the engineers.",
    )];
    new.extend_from_slice(OLD);
    let c = second_check(&list(OLD), &list(&new)).expect("a change");
    assert_eq!(c.new_items.len(), 1, "{:?}", c.new_items);
    let item = &c.new_items[0];
    assert_eq!(item.link, "https://example.org/n/3");
    assert_eq!(item.published, Some(utc("2024-05-02T00:00:00Z")));
    let summary = item.summary.as_deref().unwrap_or("");
    assert!(
        summary.starts_with("Traffic returns to the bridge on Monday"),
        "{summary}"
    );
    assert!(
        !summary.contains("alert") && !summary.contains("steal"),
        "{summary}"
    );
    // what the feeds make of it: no script, no handler, whatever the page held
    let w = watch();
    let items = vec![item.clone()];
    let view = crate::render::FeedView {
        self_path: None,
        watch: &w,
        title: "t",
        items: &items,
        base_url: "http://127.0.0.1:8080",
        key_query: "",
        updated: NOW,
        ttl_minutes: None,
        icon: None,
    };
    for feed in [
        crate::render::rss(&view),
        crate::render::atom(&view),
        crate::render::json_feed(&view),
    ] {
        assert!(feed.contains("Traffic returns"), "{feed}");
        for bad in ["<script", "alert(", "onclick", "<b"] {
            assert!(!feed.contains(bad), "{bad} in {feed}");
        }
    }
}

#[test]
fn the_same_entry_under_another_campaign_is_not_new() {
    let mut again: Vec<(&str, &str, &str)> = OLD.to_vec();
    again[0].0 = "/n/1?id=1&utm_source=newsletter";
    again[1].0 = "/n/2?fbclid=zzz";
    // the links are the same once cleaned: the page did not change
    assert!(second_check(&list(OLD), &list(&again)).is_none());
    // and beside a real change, they are not new either
    again.insert(
        0,
        (
            "/n/9",
            "Museum opens a new wing for the city collection",
            "The wing holds paintings that were kept in storage for twenty years.",
        ),
    );
    let c = second_check(&list(OLD), &list(&again)).expect("a change");
    let links: Vec<&str> = c.new_items.iter().map(|i| i.link.as_str()).collect();
    assert_eq!(links, ["https://example.org/n/9"]);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// Whatever dates the entries state, no item is dated after the check.
    #[test]
    fn never_a_date_in_the_future(
        dates in proptest::collection::vec(
            (2020i32..2030, 1u32..13, 1u32..29, 0u32..24, proptest::bool::ANY, 0u32..100),
            2..5,
        ),
    ) {
        let mut html = String::from("<ul>");
        for (k, (y, m, d, h, relative, n)) in dates.iter().enumerate() {
            let when = if *relative {
                format!("in {n} hours, {n} hours ago, vor {n} Tagen, {n}小时前")
            } else {
                format!("{y}-{m:02}-{d:02} {h:02}:00, {d}.{m}.{y}, {y}年{m}月{d}日, {m}月{d}日")
            };
            let _ = write!(
                html,
                "<li><a href=/e/{k}>Entry number {k} of the list</a> <span>{when}</span></li>"
            );
        }
        html.push_str("</ul>");
        for tz in [Tz::UTC, "Asia/Tokyo".parse().unwrap(), "America/New_York".parse().unwrap()] {
            for (_, c) in contents(&html, tz) {
                if let Some(t) = c.published {
                    proptest::prop_assert!(t <= NOW, "{} after the check", t);
                }
            }
        }
    }
}

#[test]
fn cards_inside_one_link_give_their_text_but_not_their_headline() {
    let card = |id: u32, heading: bool| {
        let head = if heading {
            format!("<h3>Notice number {id} for all members</h3>")
        } else {
            format!("<div class=headline>Notice number {id} for all members of the club</div>")
        };
        format!(
            "<article><a href=/n/{id}><div class=pic style=\"background-image: url('/img/{id}.jpg')\"></div>\
             <p>#members</p>{head}<p>The annual meeting moves to the town hall this year, \
             and members are asked to register by the end of the month.</p>\
             <p>2024/04/0{id}</p></a></article>"
        )
    };
    let html = format!(
        "<main>{}{}{}</main>",
        card(1, true),
        card(2, true),
        card(3, false)
    );
    let all = contents(&html, Tz::UTC);
    for (title, c) in &all {
        assert_eq!(
            c.summary.as_deref(),
            Some(
                "The annual meeting moves to the town hall this year, and members are asked \
                 to register by the end of the month."
            ),
            "{title}"
        );
        assert!(c
            .image
            .as_deref()
            .is_some_and(|u| u.starts_with("https://example.org/img/")));
        assert!(c.published.is_some());
    }
    assert_eq!(all.len(), 3);
}

/// A list item inside a paragraph left open (sloppy markup): a block in the item closes
/// nothing outside it, so each item keeps its own date line.
#[test]
fn a_block_in_a_list_item_does_not_close_a_paragraph_around_the_list() {
    let mut html = String::from("<div id=main><p>Latest notices from the registry office");
    for (k, day) in [(1, 29), (2, 30), (3, 1), (4, 2)] {
        let month = if day > 20 { 4 } else { 5 };
        write!(
            html,
            "<li><a href=/notices/{k}>Notice {k} on the timetable of the spring examinations</a>\
             <div class=when>2024-0{month}-{day:02}</div></li>"
        )
        .unwrap();
    }
    html.push_str("</p></div>");
    let all = contents(&html, Tz::UTC);
    for (k, day) in [(1, "04-29"), (2, "04-30"), (3, "05-01"), (4, "05-02")] {
        let c = of(
            &all,
            &format!("Notice {k} on the timetable of the spring examinations"),
        );
        assert_eq!(
            c.published,
            Some(utc(&format!("2024-{day}T00:00:00Z"))),
            "notice {k}"
        );
    }
}
