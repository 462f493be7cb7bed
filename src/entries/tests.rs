use super::*;
use crate::extract;
use url::Url;

/// The links the decision makes items of, when the URLs `new` are the unseen ones.
fn items_of(html: &str, new: &dyn Fn(&str) -> bool) -> Vec<String> {
    let (links, st) = parsed(html);
    let d = decide::decide(
        &decide::Prior::default(),
        &links,
        &st,
        false,
        &decide::Params::default(),
        &mut |u: &str| Ok::<bool, ()>(!new(u)),
    )
    .unwrap();
    d.items.into_iter().map(|i| links[i].text.clone()).collect()
}

/// The links of a page and their structure, from the one pass.
fn parsed(html: &str) -> (Vec<Link>, Structure) {
    let base = Url::parse("https://example.com/").unwrap();
    let p = extract::parse(html, &base, None, extract::Gather::Structure).unwrap();
    (p.page.links, p.structure)
}

fn page(html: &str) -> (Vec<Link>, Vec<Option<Context>>) {
    let (links, st) = parsed(html);
    (links, st.ctx)
}

/// The main links' URL paths, per entry, and the URL paths of each entry's links.
fn entries(html: &str) -> Vec<(String, Vec<String>)> {
    let (links, ctx) = page(html);
    let e = group(&links, &ctx);
    let path = |i: usize| {
        links[i]
            .url
            .trim_start_matches("https://example.com")
            .to_owned()
    };
    let mut out: Vec<(String, Vec<String>)> =
        e.main.iter().map(|&m| (path(m), Vec::new())).collect();
    for (i, &k) in e.entry_of.iter().enumerate() {
        out[k].1.push(path(i));
    }
    out.sort_by_key(|(_, members)| members.first().cloned());
    out
}

fn forum_row(t: u32, author: &str, replier: &str) -> String {
    format!(
        "<div class='cell item'><table><tr><td><a href='/member/{author}'><img alt='{author}'></a></td>\
         <td><span class='item_title'><a href='/t/{t}' class='topic-link'>Topic number {t} is about a thing</a></span>\
         <span class='topic_info'><a class='node' href='/go/dev'>dev</a> <strong><a href='/member/{author}'>{author}</a></strong>\
         last reply <strong><a href='/member/{replier}'>{replier}</a></strong></span></td>\
         <td><a href='/t/{t}' class='count'>{t}</a></td></tr></table></div>"
    )
}

#[test]
fn forum_rows_are_one_entry_each_with_the_topic_as_main() {
    let html = format!(
        "<nav><a href='/'>Home</a><a href='/about'>About</a></nav><div class=box>{}{}{}</div>",
        forum_row(1, "ann", "bob"),
        forum_row(2, "cid", "dan"),
        forum_row(3, "eve", "fay")
    );
    let e = entries(&html);
    let mains: Vec<&str> = e.iter().map(|(m, _)| m.as_str()).collect();
    assert_eq!(mains, ["/", "/about", "/t/1", "/t/2", "/t/3"]);
    assert_eq!(
        e[2].1,
        [
            "/member/ann",
            "/t/1",
            "/go/dev",
            "/member/ann",
            "/member/bob",
            "/t/1"
        ]
    );
}

#[test]
fn a_bumped_thread_is_not_new_but_a_new_topic_is() {
    let html = format!(
        "<div class=box>{}{}{}</div>",
        forum_row(4, "new", "gus"),
        forum_row(1, "ann", "zed"),
        forum_row(2, "cid", "dan")
    );
    // the differ found: the new topic's links and the bumped row's new replier
    let new = |u: &str| {
        u.ends_with("/t/4")
            || u.ends_with("/member/new")
            || u.ends_with("/member/gus")
            || u.ends_with("/member/zed")
    };
    assert_eq!(items_of(&html, &new), ["Topic number 4 is about a thing"]);
}

#[test]
fn offer_cards_with_generic_texts_group_details_and_order() {
    let card = |n: u32| {
        format!(
            "<div class='card card--number-{n}'><div class=title>VPS {n}</div>\
             <div class=push><a class=details href='/offer/{n}/'>Details &gt;</a></div>\
             <div class=footer><a class=button href='/order/{n}'>Order now &gt;</a></div></div>"
        )
    };
    let e = entries(&format!("{}{}{}", card(1), card(2), card(3)));
    assert_eq!(e.len(), 3);
    assert_eq!(
        e[0],
        (
            "/offer/1/".to_owned(),
            vec!["/offer/1/".to_owned(), "/order/1".to_owned()]
        )
    );
}

#[test]
fn news_items_keep_read_more_and_comments_with_the_heading() {
    let item = |n: u32| {
        format!(
            "<article><p class=meta><a href='/cat/world'>World</a></p><h2><a href='/n/{n}'>Headline {n} of the day</a></h2>\
             <p>Summary.</p><a class=more href='/n/{n}'>Read more</a> <a href='/n/{n}#comments'>{n} comments</a>\
             <a href='/n/{n}/comments'>Comments</a></article>"
        )
    };
    let e = entries(&format!("<main>{}{}</main>", item(1), item(2)));
    assert_eq!(e.len(), 2);
    assert_eq!(e[0].0, "/n/1");
    assert_eq!(
        e[0].1,
        ["/cat/world", "/n/1", "/n/1", "/n/1", "/n/1/comments"]
    );
}

/// A label that leads its entry (a category before each title) stays in that entry: only
/// a label standing alone joins the link before it.
#[test]
fn a_label_in_an_entry_of_its_own_stays_there() {
    let item = |n: u32| {
        format!("<li><a href='/notices'>Notice</a> <a href='/n/{n}'>Closure of building {n} for repairs</a></li>")
    };
    let e = entries(&format!(
        "<ul>{}</ul>",
        (1..=4).map(item).collect::<String>()
    ));
    let want: Vec<(String, Vec<String>)> = (1..=4)
        .map(|n| {
            (
                format!("/n/{n}"),
                vec!["/notices".to_string(), format!("/n/{n}")],
            )
        })
        .collect();
    assert_eq!(e, want);
}

#[test]
fn plain_lists_and_lists_split_by_day_give_one_entry_per_link() {
    let html = "<div class=day><h3>Monday</h3><ul><li><a href=/a>Alpha notice</a><li><a href=/b>Beta notice</a></ul></div>\
                <div class=day><h3>Tuesday</h3><ul><li><a href=/c>Gamma notice</a><li><a href=/d>Delta notice</a></ul></div>\
                <p><a href=/x>One</a><br><a href=/y>Two</a><br><a href=/z>Three</a></p>";
    let e = entries(html);
    let mains: Vec<&str> = e.iter().map(|(m, _)| m.as_str()).collect();
    assert_eq!(mains, ["/a", "/b", "/c", "/d", "/x", "/y", "/z"]);
}

#[test]
fn chrome_and_image_only_links_are_not_items() {
    let html = "<header><a href=/h1>Menu one</a><a href=/h2>Menu two</a></header>\
                <ul><li><a href=/n1>Notice on the spring enrolment</a><li><a href=/n2>Notice on the library hours</a>\
                <li><a href=/b><img alt=banner></a></ul>\
                <div role=navigation><a href=/r>Side</a></div>";
    assert_eq!(
        items_of(html, &|_| true),
        [
            "Notice on the spring enrolment",
            "Notice on the library hours"
        ]
    );
    // A bare list of one-word labels outside any chrome region is navigation too; the
    // same labels with a date beside each are entries.
    let bare = "<ul class=x><li><a href=/sport>Sport</a><li><a href=/politics>Politics</a><li><a href=/culture>Culture</a></ul>";
    assert!(items_of(bare, &|_| true).is_empty());
    let dated = "<ul class=x><li><a href=/sport>Sport</a> 2024-05-01<li><a href=/politics>Politics</a> 2024-05-02</ul>";
    assert_eq!(items_of(dated, &|_| true), ["Sport", "Politics"]);
}

#[test]
fn lists_outside_the_main_element_are_chrome_but_a_lone_banner_teaser_is_not() {
    // A box of service links after `main`, in plain `div`s (no `footer` element): wide
    // titles and slugs of several words, as an entry list would have.
    let services = "<div class=box><p>Services</p><div class=row>\
        <a href=/guides/best-coffee-machines-tested/>The best coffee machines tested</a>\
        <a href=/guides/best-office-laptops-compared/>The best office laptops compared</a>\
        <a href=/guides/cheap-electricity-providers-list/>Cheap electricity providers listed</a>\
        </div></div>";
    let list = "<ul class=news>\
        <li><a href=/news/2024/council-approves-the-budget-9123>Council approves the budget</a> 1 May\
        <li><a href=/news/2024/library-opens-on-sundays-9124>Library opens on Sundays</a> 2 May</ul>";
    let banner = "<div class=breaking><a href=/news/2024/storm-closes-the-harbour-9125>\
        <b>Breaking</b> Storm closes the harbour</a></div>";
    let with_main = format!("{banner}<main>{list}</main>{services}");
    assert_eq!(
        items_of(&with_main, &|_| true),
        [
            "Breaking Storm closes the harbour",
            "Council approves the budget",
            "Library opens on Sundays"
        ]
    );
    // Without a `main` element nothing says where the page's content ends: the box is
    // judged as a list like any other.
    let without = format!("{banner}<div>{list}</div>{services}");
    assert_eq!(items_of(&without, &|_| true).len(), 6);
    // A `main` that holds no entry list (the list stands beside it) decides nothing.
    let empty_main = format!("<main><h1>News</h1></main>{list}{services}");
    assert_eq!(items_of(&empty_main, &|_| true).len(), 5);
}

#[test]
fn a_folder_above_the_entries_is_an_index_not_an_entry() {
    // A blog whose sidebar (a plain `div`, no `aside`) lists its archive months: the
    // new month's link names a folder above the new posts' permalinks.
    let post = |m: u32, slug: &str, title: &str| {
        format!(
            "<article><h2><a href=/2024/{m:02}/{slug}/>{title}</a></h2>\
             <p>Posted on {m} May 2024. Some words about it, and more words.</p></article>"
        )
    };
    let html = format!(
        "<div id=content>{}{}{}</div><div id=sidebar><div class=widget><h3>Archives</h3><ul>\
         <li><a href=/2024/06/>June 2024</a></li><li><a href=/2024/05/>May 2024</a></li>\
         <li><a href=/2024/04/>April 2024</a></li></ul></div></div>",
        post(
            6,
            "roses-in-june-and-their-care",
            "Roses in June and their care"
        ),
        post(5, "tomatoes-on-the-balcony", "Tomatoes on the balcony"),
        post(5, "compost-for-beginners", "Compost for beginners"),
    );
    let new = |u: &str| u.contains("/06/");
    assert_eq!(items_of(&html, &new), ["Roses in June and their care"]);
    // A folder that holds no entry of the page is judged as any link.
    let other = html.replace("/2024/06/roses", "/2024/05/roses");
    assert_eq!(items_of(&other, &new), ["June 2024"]);
}

#[test]
fn a_release_whose_files_stand_in_list_items_is_one_entry() {
    // The release's name is a heading without a link; its files stand one per list
    // item, its notes in a paragraph of their own.
    let release = |v: &str| {
        format!(
            "<div class=release><h2>Version {v}</h2><p>Released in May. Fixes bugs.</p><ul>\
             <li><a href=/dl/tool-{v}.tar.gz>tool-{v}.tar.gz</a> (1.2 MB)</li>\
             <li><a href=/dl/tool-{v}.tar.xz>tool-{v}.tar.xz</a> (0.9 MB)</li>\
             <li><a href=/dl/tool-{v}.zip>tool-{v}.zip</a></li>\
             <li><a href=/dl/tool-{v}.tar.gz.asc>signature</a></li></ul>\
             <p><a href=/notes/release-{v}.html>Release notes</a></p></div>"
        )
    };
    let html = format!(
        "{}{}{}",
        release("2.7.0"),
        release("2.6.0"),
        release("2.5.0")
    );
    assert_eq!(
        items_of(&html, &|u: &str| u.contains("2.7.0")),
        ["tool-2.7.0.tar.gz"]
    );
    // Files of different names side by side stay apart: a list of documents.
    let docs = "<ul><li><a href=/docs/budget-2024.pdf>Budget 2024</a></li>\
        <li><a href=/docs/minutes-may.pdf>Minutes of the May meeting</a></li>\
        <li><a href=/docs/minutes-june.pdf>Minutes of the June meeting</a></li></ul>";
    assert_eq!(items_of(docs, &|u: &str| u.contains("minutes")).len(), 2);
    // Nor are notices of one script told apart by their query.
    let notices = "<table><tr><td><a href=/show.asp?id=12>The council approves the budget</a></td>\
        <td>2024-05-02</td></tr><tr><td><a href=/show.asp?id=11>The library opens on Sundays</a>\
        </td><td>2024-05-01</td></tr><tr><td><a href=/show.asp?id=10>Road works on the bridge</a>\
        </td><td>2024-04-30</td></tr></table>";
    assert_eq!(items_of(notices, &|u: &str| !u.ends_with("10")).len(), 2);
}

#[test]
fn a_new_page_number_is_no_entry_but_a_numbered_notice_is() {
    // A list that grows past another page: its pager gains the link "11".
    let list = "<ul class=news><li><a href=/n/council-approves-the-budget>Council approves the budget</a></li>\
        <li><a href=/n/library-opens-on-sundays>Library opens on Sundays</a></li></ul>";
    let pager = (2..=11)
        .map(|k| format!("<a href=/news/page/{k}/>{k}</a>"))
        .collect::<Vec<_>>()
        .join(" ");
    let html = format!("{list}<div class=pages>{pager}</div>");
    assert!(items_of(&html, &|u: &str| u.ends_with("/11/")).is_empty());
    // A table of documents whose number is the link and whose subject stands beside it.
    let docs = "<table><tr><td><a href=/doc/2024-0123>2024/0123</a></td><td>Budget of the year</td></tr>\
        <tr><td><a href=/doc/2024-0122>2024/0122</a></td><td>Minutes of the May meeting</td></tr>\
        <tr><td><a href=/doc/2024-0121>2024/0121</a></td><td>Road works on the bridge</td></tr></table>";
    assert_eq!(
        items_of(docs, &|u: &str| u.ends_with("0123")),
        ["2024/0123"]
    );
}

#[test]
fn grouping_never_panics_on_mismatched_contexts() {
    let (links, _) = page("<a href=/a>a</a><a href=/b>b</a>");
    let e = group(&links, &[None, None]);
    assert_eq!(e.main, [0, 1]);
}

// The proptest version of `fuzz/fuzz_targets/extract.rs`: pages built from fragments that
// real list pages are made of, nested and cut anywhere.
const FRAGMENTS: &[&str] = &[
    "<ul>",
    "</ul>",
    "<li>",
    "</li>",
    "<div class='cell item'>",
    "<div class=card>",
    "</div>",
    "<table><tr><td>",
    "<td>",
    "</td></tr></table>",
    "<nav>",
    "</nav>",
    "<footer>",
    "<h2>",
    "</h2>",
    "<p>",
    "<br>",
    "<a href=/t/1>Topic one</a>",
    "<a href=/t/2 class=t>Topic two</a>",
    "<a href=/member/x>x</a>",
    "<a href='/q?a=1&amp;b=2'>Read more</a>",
    "<a href=#top>top</a>",
    "<a href=/img><img alt=pic></a>",
    "<a href=/n/",
    "1>",
    "News</a>",
    "<a href=/t/1>",
    "</a>",
    "<span>",
    "</span>",
    "<base href=/sub/>",
    "<script>var a='<a href=/js>x</a>'</script>",
    "<div hidden><a href=/h>hidden</a></div>",
    "<area href=/map alt=map>",
    "text ",
    "&amp;",
];

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(400))]

    #[test]
    fn grouping_and_selection_hold_their_invariants(
        parts in proptest::collection::vec(0..FRAGMENTS.len(), 0..80),
        old_parts in proptest::collection::vec(0..FRAGMENTS.len(), 0..40),
    ) {
        let html: String = parts.iter().map(|&i| FRAGMENTS[i]).collect();
        let old_html: String = old_parts.iter().map(|&i| FRAGMENTS[i]).collect();
        let (links, st) = parsed(&html);
        let ctx = st.ctx.clone();
        let (old, _) = page(&old_html);
        proptest::prop_assert_eq!(ctx.len(), links.len());
        let e = group(&links, &ctx);
        proptest::prop_assert_eq!(e.entry_of.len(), links.len());
        for &k in &e.entry_of {
            proptest::prop_assert_eq!(e.entry_of[e.main[k]], k);
        }
        let last = super::LastPage::new(&old);
        let prior = decide::Prior { last: Some(&last), on_last: None, entry_roles: &[] };
        let d = decide::decide(&prior, &links, &st, false, &decide::Params::default(), &mut |_: &str| Ok::<bool, ()>(false)).unwrap();
        // The slots the caller asked already, or slots of another page (asked again),
        // decide alike.
        let slots = last.slots(&links);
        for on_last in [&slots[..], &slots[..slots.len().saturating_sub(1)]] {
            let given = decide::Prior { on_last: Some(on_last), ..prior };
            let g = decide::decide(&given, &links, &st, false, &decide::Params::default(), &mut |_: &str| Ok::<bool, ()>(false)).unwrap();
            proptest::prop_assert_eq!(&g.verdicts, &d.verdicts);
            proptest::prop_assert_eq!(&g.items, &d.items);
        }
        let items = d.items;
        proptest::prop_assert_eq!(d.verdicts.len(), links.len());
        proptest::prop_assert!(items.windows(2).all(|w| w[0] < w[1]));
        let mut urls = std::collections::HashSet::new();
        for &i in &items {
            proptest::prop_assert!(ctx[i].as_ref().is_none_or(|c| !c.chrome && c.has_text));
            proptest::prop_assert_eq!(d.verdicts[i], decide::Verdict::Item);
            proptest::prop_assert!(urls.insert(links[i].url.as_str()), "one item per URL");
        }
        // every link the extractor kept is located by the structural pass
        proptest::prop_assert!(ctx.iter().all(Option::is_some));
    }
}

/// [`file_stem`] as it was written with `str` searches, before it read bytes.
fn file_stem_by_find(url: &str) -> Option<&str> {
    if url.contains('?') {
        return None;
    }
    let u = &url[..url.find('#').unwrap_or(url.len())];
    let seg = u.rfind('/')? + 1;
    let mut stem = u;
    while let Some(p) = stem[seg..].rfind('.') {
        let ext = &stem[seg + p + 1..];
        if !(1..=4).contains(&ext.len())
            || !ext.starts_with(|c: char| c.is_ascii_alphabetic())
            || !ext.chars().all(|c| c.is_ascii_alphanumeric())
        {
            break;
        }
        stem = &stem[..seg + p];
    }
    (stem.len() < u.len() && stem.len() > seg).then_some(stem)
}

#[test]
fn file_stems_drop_the_extensions_of_the_last_segment() {
    for (url, stem) in [
        (
            "https://h/d/tool-2.5.0.tar.gz",
            Some("https://h/d/tool-2.5.0"),
        ),
        (
            "https://h/d/tool-2.5.0.zip#top",
            Some("https://h/d/tool-2.5.0"),
        ),
        ("https://h/d/report.pdf.asc", Some("https://h/d/report")),
        ("https://h/show.asp?id=512", None),
        ("https://h/a.b/page", None),
        ("https://h/d/.profile", None),
        ("https://h/d/x#frag/y.pdf", None),
        ("https://h/d/v1.toolong", None),
    ] {
        assert_eq!(file_stem(url), stem, "{url}");
        assert_eq!(file_stem(url), file_stem_by_find(url), "{url}");
    }
}

proptest::proptest! {
    #[test]
    fn file_stems_read_by_bytes_agree_with_str_searches(
        url in "(https://h)?[a-z./#?é0-9]{0,16}"
    ) {
        proptest::prop_assert_eq!(file_stem(&url), file_stem_by_find(&url));
    }
}

/// [`moved_slots`] as it was written, every map built before the first question.
fn moved_slots_eager<'a>(old: &[Link], new: &'a [Link]) -> crate::hash::HashSet<&'a str> {
    use crate::hash::{HashMap, HashSet};
    let mut old_texts: HashMap<&str, (usize, &str)> = HashMap::default();
    for l in old {
        old_texts
            .entry(l.text.as_str())
            .or_insert((0, l.url.as_str()))
            .0 += 1;
    }
    let mut new_texts: HashMap<&str, usize> = HashMap::default();
    for l in new {
        *new_texts.entry(l.text.as_str()).or_default() += 1;
    }
    let new_urls: HashSet<&str> = new.iter().map(|l| l.url.as_str()).collect();
    let candidates: Vec<&Link> = new
        .iter()
        .filter(|l| !l.text.is_empty() && new_texts.get(l.text.as_str()) == Some(&1))
        .filter(|l| {
            old_texts.get(l.text.as_str()).is_some_and(|&(count, url)| {
                count == 1 && url != l.url && !new_urls.contains(url) && shape(url) == shape(&l.url)
            })
        })
        .collect();
    let mut per_shape: HashMap<String, usize> = HashMap::default();
    for l in &candidates {
        *per_shape.entry(shape(&l.url)).or_default() += 1;
    }
    candidates
        .into_iter()
        .filter(|l| per_shape.get(&shape(&l.url)).is_some_and(|&c| c >= 2))
        .map(|l| l.text.as_str())
        .collect()
}

#[test]
fn a_pager_that_moved_as_a_block_is_found() {
    let l = |t: &str, u: &str| Link {
        text: t.into(),
        url: u.into(),
    };
    let old = [
        l("1", "https://h/list?before=500"),
        l("2", "https://h/list?before=480"),
        l("Story", "https://h/s/1"),
        l("Add to calendar", "https://h/cal?t=100"),
    ];
    let new = [
        l("1", "https://h/list?before=520"),
        l("2", "https://h/list?before=500"),
        l("Story", "https://h/s/1"),
        l("Add to calendar", "https://h/cal?t=200"),
    ];
    // "1"'s old URL is still on the page (now under "2"), so only "2" moved, alone, and
    // so did the calendar link, alone: a lone moved link is no pager.
    assert!(moved_slots(&old, &new).is_empty());
    let new = [
        l("1", "https://h/list?before=540"),
        l("2", "https://h/list?before=520"),
        l("Story", "https://h/s/1"),
    ];
    let slots = moved_slots(&old, &new);
    assert_eq!(slots.len(), 2);
    assert!(slots.contains("1") && slots.contains("2"));
    assert_eq!(slots, moved_slots_eager(&old, &new));
}

proptest::proptest! {
    #[test]
    fn moved_slots_gathered_on_demand_are_the_eager_ones(
        old in proptest::collection::vec((0usize..4, 0usize..6), 0..10),
        new in proptest::collection::vec((0usize..4, 0usize..6), 0..10),
    ) {
        const TEXTS: [&str; 4] = ["", "1", "2", "Next"];
        const URLS: [&str; 6] = [
            "https://h/l?p=1", "https://h/l?p=2", "https://h/l?p=3", "https://h/x/1",
            "https://h/x/2", "https://g/l?p=4",
        ];
        let page = |v: &[(usize, usize)]| -> Vec<Link> {
            v.iter()
                .map(|&(t, u)| Link { text: TEXTS[t].into(), url: URLS[u].into() })
                .collect()
        };
        let (old, new) = (page(&old), page(&new));
        proptest::prop_assert_eq!(moved_slots(&old, &new), moved_slots_eager(&old, &new));
    }
}

proptest::proptest! {
    /// The grouped links' counts answer as the set of them would: whether a range of
    /// links holds a grouped one, after any sequence of links grouped.
    #[test]
    fn grouped_ranges_answer_as_the_set(
        n in 1usize..80,
        picks in proptest::collection::vec(0usize..80, 0..60),
        asks in proptest::collection::vec((0usize..80, 0usize..80), 1..40),
    ) {
        let mut grouped = Grouped::new(n);
        let mut set = std::collections::BTreeSet::new();
        for i in picks.into_iter().map(|i| i % n) {
            if set.insert(i) {
                grouped.insert(i);
            }
        }
        for (a, b) in asks {
            let (lo, hi) = ((a % n).min(b % n), (a % n).max(b % n));
            proptest::prop_assert_eq!(grouped.any_in(lo, hi), set.range(lo..=hi).next().is_some());
        }
    }
}

proptest::proptest! {
    /// Width and title-likeness read an ASCII text a byte at a time, and give what the
    /// character reading gives, on ASCII (control characters and all) and on any text.
    #[test]
    fn ascii_texts_read_as_characters_do(s in "[\\x00-\\x7f]{0,40}|[ a-z\\t\\x0b]{0,60}|.{0,30}") {
        let by_chars: usize = s
            .chars()
            .filter(|c| !c.is_whitespace())
            .map(|c| if u32::from(c) >= 0x2E80 { 2 } else { 1 })
            .sum();
        proptest::prop_assert_eq!(width(&s), by_chars);
        let chars = s.chars().count();
        let title = by_chars >= 20
            && (s.split_whitespace().count() >= 3
                || s.chars().filter(|c| !c.is_ascii()).count() * 2 > chars);
        proptest::prop_assert_eq!(title_like(&s), title);
    }
}
