//! Metamorphic tests of the one analysis: for any page built from a random list layout
//! (tags, class names, wrappers, what each entry block holds), a change a person would
//! read one way is read that way: more entries in the list's own template are those
//! entries, a list that turns over completely is all new, a new menu or footer is
//! nothing, new permalinks for old titles are nothing, one entry shown in a ticker, a
//! sidebar and the list is one item, an entry block with five links is one item.

use proptest::prelude::*;
use url::Url;

use super::*;
use crate::schedule::Adaptive;
use crate::state::WatchState;

/// A fake history: the last page's links, and nothing seen before them.
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

/// How a generated page lays out its list.
#[derive(Debug, Clone)]
#[allow(
    clippy::struct_excessive_bools,
    reason = "each bool is one thing an entry may hold"
)]
struct Layout {
    wrappers: Vec<String>,
    item_tag: &'static str,
    item_class: String,
    heading: bool,
    date: bool,
    summary: bool,
    image: bool,
    /// Further links of each entry block (comments, category, other formats).
    extra: usize,
}

const WORDS: &[&str] = &[
    "council", "approves", "budget", "river", "library", "students", "festival", "release",
    "winter", "schedule", "research", "bridge", "museum", "election", "harbour", "program",
];

/// A title a person would give entry `id`: several words, unique per id.
fn title(id: u32) -> String {
    let w = |k: u32| WORDS[(id.wrapping_mul(7).wrapping_add(k * 5) % WORDS.len() as u32) as usize];
    format!("{} {} the {} plan no. {id}", w(0), w(1), w(2))
}

fn layout() -> impl Strategy<Value = Layout> {
    (
        proptest::collection::vec(
            prop::sample::select(vec!["div", "section", "main", "div class=content"]),
            0..3,
        ),
        prop::sample::select(vec!["li", "div", "article", "tr"]),
        prop::sample::select(vec!["item", "post", "news-entry", "row", ""]),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        0usize..5,
    )
        .prop_map(
            |(wrappers, item_tag, class, heading, date, summary, image, extra)| Layout {
                wrappers: wrappers.into_iter().map(str::to_owned).collect(),
                item_tag,
                item_class: class.to_owned(),
                heading,
                date,
                summary,
                image,
                extra,
            },
        )
}

/// What a generated page shows.
#[derive(Debug, Clone, Default)]
struct Content {
    /// Entry ids, top first.
    entries: Vec<u32>,
    /// Path prefix of the permalinks.
    prefix: String,
    /// Menu labels (short words) and footer labels.
    menu: Vec<&'static str>,
    footer: Vec<&'static str>,
    /// An entry also shown in a ticker above the page and in a "latest" sidebar.
    ticker: Option<u32>,
    /// Entries with this many further links instead of the layout's.
    extra_for: Option<(u32, usize)>,
    /// Entries shown under the title of another id (`(id, title id)`): a recurring
    /// entry, or a site that renumbered its entries.
    titled: Vec<(u32, u32)>,
}

impl Content {
    fn title_of(&self, id: u32) -> String {
        let t = self
            .titled
            .iter()
            .find(|&&(e, _)| e == id)
            .map_or(id, |&(_, t)| t);
        title(t)
    }
}

#[allow(
    clippy::many_single_char_names,
    clippy::format_push_string,
    reason = "layout, content and the HTML being built, in a test"
)]
fn render(l: &Layout, c: &Content) -> String {
    let mut h = String::from("<html><head><title>Notices</title></head><body>");
    h.push_str("<div class=top><a href=/>Home</a></div>");
    if let Some(t) = c.ticker {
        h.push_str(&format!(
            "<div class=ticker><span>Breaking:</span> <a href='/{}/{t}'>{}</a></div>",
            c.prefix,
            title(t)
        ));
    }
    h.push_str("<div class=menu><ul>");
    for m in &c.menu {
        h.push_str(&format!("<li><a href='/section/{m}'>{m}</a></li>"));
    }
    h.push_str("</ul></div>");
    for w in &l.wrappers {
        h.push_str(&format!("<{w}>"));
    }
    let (open, close) = if l.item_tag == "tr" {
        ("<table>", "</table>")
    } else if l.item_tag == "li" {
        ("<ul class=list>", "</ul>")
    } else {
        ("<div class=list>", "</div>")
    };
    h.push_str(open);
    for &id in &c.entries {
        let url = format!("/{}/{id}", c.prefix);
        let cell = if l.item_tag == "tr" { "<td>" } else { "" };
        h.push_str(&format!("<{} class='{}'>{cell}", l.item_tag, l.item_class));
        if l.image {
            h.push_str(&format!("<img src='/img/{id}.jpg' alt=''>"));
        }
        let a = format!("<a href='{url}'>{}</a>", c.title_of(id));
        if l.heading {
            h.push_str(&format!("<h3>{a}</h3>"));
        } else {
            h.push_str(&a);
        }
        if l.date {
            h.push_str(&format!(" <span>2024-05-{:02}</span>", id % 28 + 1));
        }
        if l.summary {
            h.push_str("<p>What was decided and what follows from it.</p>");
        }
        let extra = match c.extra_for {
            Some((e, n)) if e == id => n,
            _ => l.extra,
        };
        for k in 0..extra {
            h.push_str(&format!(
                " <a href='{url}/part-{k}'>{}</a>",
                ["Comments", "Category", "zip", "tar.gz", "Notes"][k % 5]
            ));
        }
        if l.item_tag == "tr" {
            h.push_str("</td>");
        }
        h.push_str(&format!("</{}>", l.item_tag));
    }
    h.push_str(close);
    for w in l.wrappers.iter().rev() {
        let tag = w.split(' ').next().unwrap_or("div");
        h.push_str(&format!("</{tag}>"));
    }
    if let Some(t) = c.ticker {
        h.push_str(&format!(
            "<div class=latest><ul><li><a href='/{}/{t}'>{}</a></li></ul></div>",
            c.prefix,
            title(t)
        ));
    }
    h.push_str("<div class=foot>");
    for f in &c.footer {
        h.push_str(&format!("<a href='/about/{f}'>{f}</a> "));
    }
    h.push_str("</div></body></html>");
    h
}

fn watch() -> Watch {
    Watch::of_url("https://example.org/news/", 0)
}

fn changed(a: Analysis) -> Changed {
    match a {
        Analysis::Changed(c) => *c,
        Analysis::Unchanged { .. } => panic!("the page did not change"),
    }
}

fn run(prev: &WatchState, past: &Past, html: &str) -> Changed {
    run_keeping(prev, past, html, Keep::Nothing)
}

/// [`run`], keeping what `keep_pass` says of the pass (a deep watch's own page).
fn run_keeping(prev: &WatchState, past: &Past, html: &str, keep_pass: Keep) -> Changed {
    changed(analysed(&watch(), prev, past, html, keep_pass).expect("a usable page"))
}

/// The analysis of `html` for `w` after the check that left `prev` and `past`.
fn analysed(
    w: &Watch,
    prev: &WatchState,
    past: &Past,
    html: &str,
    keep_pass: Keep,
) -> Result<Analysis, Unusable> {
    let url = Url::parse("https://example.org/news/").unwrap();
    let input = PageInput {
        body: html.as_bytes(),
        content_type: Some("text/html; charset=utf-8"),
        url: &url,
        validators: Validators::default(),
        template: None,
        force: false,
        tracking: &crate::entries::hygiene::Tracking::default(),
        keep_pass,
    };
    analyse(past, w, &prev.prev(), &input, &Params::default(), 1).unwrap()
}

/// The state and history of `w` after a first check of `old` (a baseline).
fn after_first(w: &Watch, old: &str) -> (WatchState, Past) {
    let fresh = WatchState::new(
        0,
        Adaptive::initial(&crate::config::ScheduleConfig::default()),
    );
    let first =
        changed(analysed(w, &fresh, &Past(Vec::new()), old, Keep::Nothing).expect("a usable page"));
    assert!(first.baseline && first.new_items.is_empty());
    let mut prev = fresh;
    prev.raw_fingerprint = Some(first.raw_fingerprint);
    prev.link_fingerprint = Some(first.link_fingerprint);
    prev.entry_roles = first.entry_roles;
    (prev, Past(first.links))
}

/// The titles of the items that a check of `new` emits after a check of `old`.
fn items(old: &str, new: &str) -> Vec<String> {
    let (mut prev, past) = after_first(&watch(), old);
    let titles = |c: Changed| -> Vec<String> { c.new_items.into_iter().map(|i| i.title).collect() };
    let second = titles(run(&prev, &past, new));
    // Reading the links alone first ends the same (here the links changed: the whole
    // page is read after them).
    prev.link_change_share = 0;
    let again = titles(run(&prev, &past, new));
    assert_eq!(
        again, second,
        "the same items after reading the links first"
    );
    second
}

/// How an analysis of `new` after a check of `old` ended, in a form to compare, with the
/// links read alone first or not, for a watch with the selector `select` or none.
fn ending(old: &str, new: &str, links_first: bool, select: Option<&str>) -> String {
    let w = Watch {
        select: select.map(str::to_owned),
        ..watch()
    };
    let (mut prev, past) = after_first(&w, old);
    if links_first {
        prev.link_change_share = 0;
    }
    assert_eq!(prev.prev().links_first, links_first);
    match analysed(&w, &prev, &past, new, Keep::Nothing) {
        Ok(Analysis::Unchanged {
            raw_fingerprint, ..
        }) => format!("unchanged, body {raw_fingerprint:?}"),
        Ok(Analysis::Changed(c)) => {
            let t = |items: &[Item]| items.iter().map(|i| i.title.clone()).collect::<Vec<_>>();
            format!(
                "changed, links {}, new {:?}, retitled {:?}, gone {:?}",
                c.link_fingerprint,
                t(&c.new_items),
                t(&c.retitled),
                c.seen_urls
            )
        }
        Err(e) => format!("unusable: {e}"),
    }
}

fn base(n: u32) -> Content {
    Content {
        entries: (1..=n).rev().collect(),
        prefix: "notice".into(),
        menu: vec!["News", "Events", "About", "Contact"],
        footer: vec!["Imprint", "Privacy"],
        ..Content::default()
    }
}

fn titles(ids: impl IntoIterator<Item = u32>) -> Vec<String> {
    ids.into_iter().map(title).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn more_entries_in_the_lists_own_template_are_those_entries(l in layout(), n in 3u32..12, add in 1u32..30) {
        let old = base(n);
        let mut new = old.clone();
        new.entries = (1..=n + add).rev().collect();
        prop_assert_eq!(items(&render(&l, &old), &render(&l, &new)), titles((n + 1..=n + add).rev()));
    }

    #[test]
    fn a_list_that_turns_over_completely_is_all_new(l in layout(), n in 3u32..15) {
        let old = base(n);
        let mut new = old.clone();
        new.entries = (n + 1..=2 * n).rev().collect();
        prop_assert_eq!(items(&render(&l, &old), &render(&l, &new)), titles((n + 1..=2 * n).rev()));
    }

    #[test]
    fn a_new_menu_and_footer_are_nothing(l in layout(), n in 3u32..12) {
        let old = base(n);
        let mut new = old.clone();
        new.menu = vec!["Home", "Studies", "Research", "Campus", "Jobs", "Press", "Alumni"];
        new.footer = vec!["Imprint", "Privacy", "Accessibility", "Cookies", "Sitemap"];
        prop_assert_eq!(items(&render(&l, &old), &render(&l, &new)), Vec::<String>::new());
    }

    #[test]
    fn new_permalinks_for_old_titles_are_nothing(l in layout(), n in 3u32..12) {
        let old = base(n);
        let mut new = old.clone();
        new.prefix = "archive/2024/posts".into();
        prop_assert_eq!(items(&render(&l, &old), &render(&l, &new)), Vec::<String>::new());
    }

    #[test]
    fn new_permalinks_and_a_real_new_entry_give_that_entry(l in layout(), n in 3u32..12) {
        let old = base(n);
        let mut new = old.clone();
        new.prefix = "archive/2024/posts".into();
        new.entries.insert(0, n + 1);
        prop_assert_eq!(items(&render(&l, &old), &render(&l, &new)), titles([n + 1]));
    }

    #[test]
    fn an_entry_in_a_ticker_a_sidebar_and_the_list_is_one_item(l in layout(), n in 3u32..12) {
        let old = base(n);
        let mut new = old.clone();
        new.entries.insert(0, n + 1);
        new.ticker = Some(n + 1);
        prop_assert_eq!(items(&render(&l, &old), &render(&l, &new)), titles([n + 1]));
    }

    #[test]
    fn the_next_instance_of_a_recurring_entry_is_new(l in layout(), n in 3u32..12) {
        // The newest entry is replaced by its next instance: the same title under a new
        // number (a weekly event, a monthly report), beside one other new entry.
        let old = base(n);
        let mut new = old.clone();
        new.entries[0] = n + 1;
        new.entries.insert(0, n + 2);
        new.titled = vec![(n + 1, n)];
        prop_assert_eq!(
            items(&render(&l, &old), &render(&l, &new)),
            vec![title(n + 2), title(n)]
        );
    }

    #[test]
    fn a_site_that_renumbers_every_entry_emits_nothing(l in layout(), n in 3u32..12) {
        let old = base(n);
        let mut new = old.clone();
        new.entries = old.entries.iter().map(|&id| id + 1000).collect();
        new.titled = old.entries.iter().map(|&id| (id + 1000, id)).collect();
        prop_assert_eq!(items(&render(&l, &old), &render(&l, &new)), Vec::<String>::new());
    }

    /// A check that reads the page's links alone first ends as one that reads the whole
    /// page: a new body with the same links (a visit counter, a form's token) is
    /// unchanged; a new entry, links hidden by an attribute on an element around them, or
    /// an entry's title edited change the links.
    #[test]
    fn reading_the_links_first_ends_as_reading_the_whole_page(l in layout(), n in 3u32..12, change in 0usize..4) {
        let old = base(n);
        let old_html = render(&l, &old);
        let mut new = old.clone();
        let new_html = match change {
            0 => old_html.replace(
                "<div class=foot>",
                "<div class=foot><span>Visits: 48213</span><input type=hidden name=t value=9f2c>",
            ),
            1 => {
                new.entries.insert(0, n + 1);
                render(&l, &new)
            }
            2 => old_html.replace("<div class=foot>", "<div class=foot hidden>"),
            _ => {
                new.titled = vec![(n, n + 50)];
                render(&l, &new)
            }
        };
        for select in [None, Some("body")] {
            let whole = ending(&old_html, &new_html, false, select);
            prop_assert_eq!(whole.starts_with("unchanged"), change == 0, "{}", whole);
            prop_assert_eq!(ending(&old_html, &new_html, true, select), whole);
        }
    }

    #[test]
    fn an_entry_block_with_five_links_is_one_item(l in layout(), n in 3u32..12) {
        let old = base(n);
        let mut new = old.clone();
        new.entries.insert(0, n + 1);
        new.extra_for = Some((n + 1, 4));
        prop_assert_eq!(items(&render(&l, &old), &render(&l, &new)), titles([n + 1]));
    }
}

#[test]
fn a_title_edit_on_a_known_url_is_no_new_item_but_a_retitle() {
    let l = Layout {
        wrappers: vec!["main".into()],
        item_tag: "li",
        item_class: "item".into(),
        heading: false,
        date: true,
        summary: false,
        image: false,
        extra: 0,
    };
    let old = render(&l, &base(5));
    let new = old.replace(
        &title(3),
        "council approves the budget plan no. 3 (updated)",
    );
    let fresh = WatchState::new(
        0,
        Adaptive::initial(&crate::config::ScheduleConfig::default()),
    );
    let first = run(&fresh, &Past(Vec::new()), &old);
    let mut prev = fresh;
    prev.link_fingerprint = Some(first.link_fingerprint);
    prev.entry_roles = first.entry_roles;
    let second = run(&prev, &Past(first.links), &new);
    assert!(second.new_items.is_empty());
    let retitled: Vec<&str> = second.retitled.iter().map(|i| i.title.as_str()).collect();
    assert_eq!(
        retitled,
        ["council approves the budget plan no. 3 (updated)"]
    );
    assert!(second.retitled[0].link.ends_with("/notice/3"));
}

#[test]
fn a_backfill_is_the_first_entries_not_the_menu() {
    let l = Layout {
        wrappers: vec![],
        item_tag: "div",
        item_class: "post".into(),
        heading: true,
        date: false,
        summary: true,
        image: false,
        extra: 1,
    };
    let mut fresh = WatchState::new(
        0,
        Adaptive::initial(&crate::config::ScheduleConfig::default()),
    );
    fresh.backfill = 3;
    let first = run(&fresh, &Past(Vec::new()), &render(&l, &base(6)));
    let got: Vec<String> = first.new_items.into_iter().map(|i| i.title).collect();
    assert_eq!(got, titles([6, 5, 4]));
}

#[test]
fn a_read_more_link_to_the_same_story_is_no_title_edit() {
    let row = |n: u32, t: &str| {
        format!(
            "<li class=n><a href='/n/{n}'>{t}</a> <a href='/n/{n}'>Read more</a> 2024-05-0{n}</li>"
        )
    };
    let page = |rows: &[String]| format!("<html><body><ul>{}</ul></body></html>", rows.concat());
    let old = page(&[
        row(2, "Second story of the week"),
        row(1, "First story of the week"),
    ]);
    let new = page(&[
        row(3, "Third story of the week"),
        row(2, "Second story of the week"),
        row(1, "First story of the week, corrected"),
    ]);
    let fresh = WatchState::new(
        0,
        Adaptive::initial(&crate::config::ScheduleConfig::default()),
    );
    let first = run(&fresh, &Past(Vec::new()), &old);
    let mut prev = fresh;
    prev.link_fingerprint = Some(first.link_fingerprint);
    prev.entry_roles = first.entry_roles;
    let second = run(&prev, &Past(first.links), &new);
    let titles: Vec<&str> = second.new_items.iter().map(|i| i.title.as_str()).collect();
    assert_eq!(titles, ["Third story of the week"]);
    let retitled: Vec<&str> = second.retitled.iter().map(|i| i.title.as_str()).collect();
    assert_eq!(retitled, ["First story of the week, corrected"]);
}

#[test]
fn the_urls_that_leave_the_page_join_the_seen_set_once_each_in_page_order() {
    let row = |n: u32| {
        format!("<li><a href='/n/{n}'>Story {n} of the week</a> <a href='/n/{n}'>More</a>")
    };
    let page = |ns: &[u32]| {
        format!(
            "<ul>{}</ul><a href='/about'>About</a>",
            ns.iter().map(|&n| row(n)).collect::<String>()
        )
    };
    let (prev, past) = after_first(&watch(), &page(&[5, 4, 3, 2, 1]));
    let second = run(&prev, &past, &page(&[7, 6, 5, 3, 1]));
    assert_eq!(
        second.seen_urls,
        ["https://example.org/n/4", "https://example.org/n/2"]
    );
    let titles: Vec<&str> = second.new_items.iter().map(|i| i.title.as_str()).collect();
    assert_eq!(titles, ["Story 7 of the week", "Story 6 of the week"]);
}

/// A deep watch's crawl reads its own page from the analysis's pass: what the analysis
/// keeps is what a pass of the crawl's own would give (links as the page wrote them,
/// before link hygiene; their contexts, the blocks, and the text when asked for), and
/// nothing is kept when no crawl asks.
#[test]
fn the_kept_pass_is_the_crawls_own_reading_of_the_page() {
    let html = "<html><body><nav><a href=\"/about\">About us</a></nav><main><ul>\
        <li><a href=\"/a?utm_source=x\">The first story of the day, told at length</a> \
        <span>a line of teaser text</span></li>\
        <li><a href=\"/b\">The second story of the day, told at length</a></li>\
        </ul></main><footer>Footer words</footer></body></html>";
    let url = Url::parse("https://example.org/news/").unwrap();
    let fresh = WatchState::new(
        0,
        Adaptive::initial(&crate::config::ScheduleConfig::default()),
    );
    let past = Past(Vec::new());
    assert!(run_keeping(&fresh, &past, html, Keep::Nothing)
        .pass
        .is_none());
    let own = extract::parse(html, &url, None, extract::Gather::Text).expect("parses");
    for keep in [Keep::Pass, Keep::PassAndText] {
        let kept = run_keeping(&fresh, &past, html, keep)
            .pass
            .expect("the pass is kept");
        assert_eq!(kept.page, own.page);
        assert!(
            kept.page.links.iter().any(|l| l.url.contains("utm_source")),
            "the links as the page wrote them"
        );
        assert_eq!(kept.structure.ctx, own.structure.ctx);
        assert_eq!(kept.structure.blocks, own.structure.blocks);
        assert_eq!(kept.structure.main, own.structure.main);
        assert!(
            kept.structure.entry_facts.is_none(),
            "what entry facts are read from is not kept"
        );
        if keep == Keep::Pass {
            assert!(
                kept.text.is_none(),
                "no text gathered when none is asked for"
            );
            continue;
        }
        let text = kept.text.expect("the text");
        assert_eq!(Some(&text), own.text.as_ref());
        assert!(
            text.content.contains("a line of teaser text"),
            "{}",
            text.content
        );
    }
}
