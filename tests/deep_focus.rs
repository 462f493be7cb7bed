//! A focused deep watch reads the text around each link (Shark-Search's anchor context):
//! with a budget of one page per check, the page it fetches first is the one whose link
//! stands beside the watch's keyword, though neither link's own text nor its URL names it.

mod common;

use common::{list, Canned, Site};

/// The sections a deep watch with the keyword fetched in its first check, on a front page
/// of two sections with the keyword beside the link to section `on_topic` (1 or 2).
async fn first_fetched(on_topic: u8) -> Vec<&'static str> {
    let about = |n: u8| {
        if n == on_topic {
            "notices on scholarship applications and grants for students"
        } else {
            "notices on bus timetables and parking for visitors"
        }
    };
    let site = Site::empty().await;
    site.set_raw(
        "text/html; charset=utf-8",
        format!(
            "<!doctype html><html><head><title>Office</title></head><body><ul>\
             <li><a href=\"/one/\">Section one</a> <p>{}</p></li>\
             <li><a href=\"/two/\">Section two</a> <p>{}</p></li></ul></body></html>",
            about(1),
            about(2)
        ),
    );
    for section in ["/one/", "/two/"] {
        let notices = list(&[
            ("First notice of this section", "n1"),
            ("Second notice of this section", "n2"),
        ]);
        site.route(section, vec![Canned::html(notices)]);
    }
    let dir = tempfile::tempdir().expect("tmp");
    let (app, _clock) = common::app_with(dir.path(), |c| {
        c.deep.max_pages_per_check = 1;
    });
    let watch = common::deep_watch(&app, site.url(), &["scholarship"]);
    common::check_ok(&app, &watch).await;
    ["/one/", "/two/"]
        .into_iter()
        .filter(|s| site.hits(s) > 0)
        .collect()
}

#[tokio::test]
async fn the_first_page_fetched_is_the_one_whose_link_stands_beside_the_keyword() {
    // Both orders on the page: a crawl blind to the context could pass one of them by
    // the order it breaks ties in, not both.
    assert_eq!(first_fetched(2).await, ["/two/"]);
    assert_eq!(first_fetched(1).await, ["/one/"]);
}
