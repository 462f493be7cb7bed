//! Every URL a deep check reads joins its watch's seen set, the links of the site's
//! template (its menu and footer, on every page) as well as its entries, so that a URL
//! that was on a page once cannot come back as a new item later, should the template
//! that hid it change. (What is checked here is the seen set.)

mod common;

use std::fmt::Write;

use common::{Canned, Site};

/// A page of the site's layout: a menu of these (text, href) links, a list of these
/// entries, a footer.
fn page(menu: &[(&str, &str)], entries: &[(String, String)]) -> String {
    let mut s = String::from(
        "<!doctype html><html><head><meta charset=utf-8><title>Board</title></head><body><nav>",
    );
    for (text, href) in menu {
        let _ = write!(s, "<a href=\"{href}\">{text}</a> ");
    }
    s.push_str("</nav><ul>");
    for (text, href) in entries {
        let _ = write!(s, "<li><a href=\"{href}\">{text}</a></li>");
    }
    s.push_str("</ul><footer><a href=\"/contact\">Contact</a></footer></body></html>");
    s
}

/// Serves the front page (listing sections 1 to 4) and the sections (six notices each),
/// all under `menu`.
fn publish(site: &Site, menu: &[(&str, &str)]) {
    let sections: Vec<(String, String)> = (1..=4)
        .map(|n| (format!("Section {n}"), format!("/s{n}/")))
        .collect();
    site.set_raw("text/html; charset=utf-8", page(menu, &sections));
    for n in 1..=4 {
        let notices: Vec<(String, String)> = (1..=6)
            .rev()
            .map(|k| (format!("Notice {k} of section {n}"), format!("/s{n}/{k}")))
            .collect();
        site.route(&format!("/s{n}/"), vec![Canned::html(page(menu, &notices))]);
    }
}

#[tokio::test]
async fn template_links_and_entries_of_every_page_read_are_seen() {
    let site = Site::empty().await;
    let menu = [("Home", "/"), ("About", "/about"), ("Library", "/library")];
    publish(&site, &menu);
    let dir = tempfile::tempdir().expect("tmp");
    let (app, _clock) = common::app(dir.path());
    let watch = common::deep_watch(&app, site.url(), &[]);
    common::check_ok(&app, &watch).await;
    for n in 1..=4 {
        assert_eq!(site.hits(&format!("/s{n}/")), 1, "section {n} read");
    }
    let seen = |path: &str| {
        app.store()
            .is_seen(&watch.id, &site.url_of(path))
            .expect("seen set")
    };
    for n in 1..=4 {
        for k in 1..=6 {
            let path = format!("/s{n}/{k}");
            assert!(seen(&path), "the notice {path} is seen");
        }
    }
    assert!(!seen("/jobs"), "a URL never on a page is not seen");

    // A menu entry appears on every page: by now the site's template knows the menu, so
    // the new entry is template from its first sight, and seen all the same.
    let menu = [
        ("Home", "/"),
        ("About", "/about"),
        ("Library", "/library"),
        ("Jobs", "/jobs"),
    ];
    publish(&site, &menu);
    common::check_ok(&app, &watch).await;
    assert_eq!(site.hits("/s1/"), 2, "the lists are read again");
    for path in ["/about", "/contact", "/jobs"] {
        assert!(seen(path), "the template link {path} is seen");
    }
    let items = app.store().items(&watch.id, 100).expect("items");
    assert!(
        items.iter().all(|i| !i.link.ends_with("/jobs")),
        "a menu entry is no item: {:?}",
        items.iter().map(|i| &i.link).collect::<Vec<_>>()
    );
}
