//! A deep watch remembers at most `deep.max_pages` pages of its site. Once it knows that
//! many it fetches no page it does not know, keeps no candidates waiting for later, and
//! still finds the new entries of the lists it knows.

mod common;

use common::{list, Canned, Site};

/// A list page of these (text, href) links.
fn page(links: &[(String, String)]) -> String {
    let links: Vec<(&str, &str)> = links
        .iter()
        .map(|(t, h)| (t.as_str(), h.as_str()))
        .collect();
    list(&links)
}

/// Section `n`: a list of notices, newest first (`extra` more on top of the first eight).
fn section(n: u32, extra: u32) -> String {
    let notices: Vec<(String, String)> = (1..=8 + extra)
        .rev()
        .map(|k| (format!("Notice {k} of section {n}"), format!("/s{n}/{k}")))
        .collect();
    page(&notices)
}

/// A front page linking to sections `1..=n`.
fn front(n: u32) -> String {
    let sections: Vec<(String, String)> = (1..=n)
        .map(|k| (format!("Section {k}"), format!("/s{k}/")))
        .collect();
    page(&sections)
}

#[tokio::test]
async fn a_full_watch_discovers_no_more_and_keeps_reading_its_lists() {
    let site = Site::empty().await;
    site.set_raw("text/html; charset=utf-8", front(4));
    for n in 1..=5 {
        site.route(&format!("/s{n}/"), vec![Canned::html(section(n, 0))]);
    }
    let dir = tempfile::tempdir().expect("tmp");
    let (app, _clock) = common::app_with(dir.path(), |c| {
        c.deep.max_pages = 2;
    });
    let watch = common::deep_watch(&app, site.url(), &[]);
    common::check_ok(&app, &watch).await;
    let fetched = |site: &Site| -> Vec<u32> {
        (1..=5)
            .filter(|n| site.hits(&format!("/s{n}/")) > 0)
            .collect()
    };
    let known = fetched(&site);
    assert_eq!(known.len(), 2, "as many pages as it may know: {known:?}");
    let state = app.store().crawl(&watch.id).expect("crawl state");
    assert_eq!(state.pages.len(), 2);
    assert!(
        state.frontier.is_empty(),
        "a full watch keeps no candidates: {:?}",
        state.frontier
    );

    // The front page links to a new section; a known section has a new notice.
    site.set_raw("text/html; charset=utf-8", front(5));
    let changed = known[0];
    site.route(
        &format!("/s{changed}/"),
        vec![Canned::html(section(changed, 1))],
    );
    common::check_ok(&app, &watch).await;
    assert_eq!(fetched(&site), known, "no page beyond the two it knows");
    for n in &known {
        assert_eq!(site.hits(&format!("/s{n}/")), 2, "list {n} read again");
    }
    let state = app.store().crawl(&watch.id).expect("crawl state");
    assert_eq!(state.pages.len(), 2);
    assert!(state.frontier.is_empty(), "{:?}", state.frontier);
    let items = app.store().items(&watch.id, 100).expect("items");
    let new = site.url_of(&format!("/s{changed}/9"));
    assert!(
        items.iter().any(|i| i.link == new),
        "the new notice {new} is an item: {:?}",
        items.iter().map(|i| &i.link).collect::<Vec<_>>()
    );
}
