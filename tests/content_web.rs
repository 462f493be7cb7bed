//! What an entry says besides its title reaches every place an item is shown: a check of
//! a local site whose entries have a date line, a teaser (with script and handlers in
//! it) and a picture stores the item with them; the API's items, the watch's page, the
//! preview and the feeds show them, sanitized.

mod common;

use std::fmt::Write;

use common::Site;

/// A news list: one article per `(slug, title, date, teaser)`.
fn page(entries: &[(&str, &str, &str, &str)]) -> String {
    let mut h = String::from("<html><head><title>News</title></head><body><main>");
    for (slug, title, date, teaser) in entries {
        let _ = write!(
            h,
            "<article class=post><h2><a href=\"/news/{slug}?utm_source=home\">{title}</a></h2>\
             <p class=meta><time datetime=\"{date}\">{date}</time></p>\
             <img data-src=\"/img/{slug}.jpg\" width=\"640\" height=\"360\" alt=\"\">\
             <p>{teaser}</p><a href=\"/news/{slug}\">Read more</a></article>"
        );
    }
    h.push_str("</main></body></html>");
    h
}

const OLD: &[(&str, &str, &str, &str)] = &[
    (
        "budget",
        "Council approves the budget for next year",
        "2023-11-10",
        "The council voted on the budget after a long debate about the new libraries.",
    ),
    (
        "festival",
        "River festival returns to the east bank",
        "2023-11-09",
        "Boats, music and food stalls are back along the river for a whole week.",
    ),
];

#[tokio::test]
#[allow(clippy::too_many_lines, reason = "one scenario, place by place")]
async fn the_api_the_watch_page_the_preview_and_the_feeds_show_summary_date_and_picture() {
    let site = Site::start(&[]).await;
    site.set_raw("text/html; charset=utf-8", page(OLD));
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, _clock) = common::app(dir.path());
    let base = common::serve(app).await;
    let c = reqwest::Client::new();
    let id = common::add_watch(&c, &base, &site.url()).await;
    let check = || async {
        let r: serde_json::Value = c
            .post(format!("{base}/api/watches/{id}/check"))
            .send()
            .await
            .expect("check")
            .json()
            .await
            .expect("json");
        r
    };
    check().await;
    let mut v2 = vec![(
        "bridge",
        "Harbour bridge reopens after repairs",
        "2023-11-13T08:00:00Z",
        "<b onclick=\"steal()\">Traffic</b> returns to the bridge <script>alert(1)</script>on \
         Monday, the city says, two weeks earlier than planned by the engineers.",
    )];
    v2.extend_from_slice(OLD);
    site.set_raw("text/html; charset=utf-8", page(&v2));
    let r = check().await;
    assert_eq!(r["new_items"], 1, "{r}");

    let items: Vec<serde_json::Value> = c
        .get(format!("{base}/api/watches/{id}/items"))
        .send()
        .await
        .expect("items")
        .json()
        .await
        .expect("json");
    let item = &items[0];
    assert!(
        item["link"]
            .as_str()
            .is_some_and(|l| l.ends_with("/news/bridge")),
        "tracking parameters dropped: {item}"
    );
    assert_eq!(item["published"], "2023-11-13T08:00:00Z", "{item}");
    assert!(
        item["summary"]
            .as_str()
            .is_some_and(|s| s.starts_with("Traffic returns to the bridge on Monday")),
        "{item}"
    );
    assert!(
        item["image"]
            .as_str()
            .is_some_and(|s| s.ends_with("/img/bridge.jpg")),
        "{item}"
    );

    let html = common::get_text(&c, &format!("{base}/watches/{id}")).await;
    assert!(
        html.contains("Traffic returns to the bridge on Monday"),
        "{html}"
    );
    assert!(html.contains("/img/bridge.jpg"), "{html}");
    assert!(html.contains("class=\"published\""), "{html}");
    assert!(
        !html.contains("alert(1)") && !html.contains("steal()"),
        "{html}"
    );

    // the preview shows what the next check's item will carry
    let mut v3 = vec![(
        "museum",
        "Museum opens a new wing for the city collection",
        "2023-11-14",
        "The wing holds paintings that were kept in storage for twenty years and more.",
    )];
    v3.extend_from_slice(&v2);
    site.set_raw("text/html; charset=utf-8", page(&v3));
    let html = common::get_text(&c, &format!("{base}/watches/{id}/preview")).await;
    assert!(html.contains("The wing holds paintings"), "{html}");
    assert!(html.contains("/img/museum.jpg"), "{html}");

    for ext in ["xml", "atom", "json"] {
        let feed = common::get_text(&c, &format!("{base}/feed/{id}.{ext}")).await;
        assert!(
            feed.contains("Traffic returns to the bridge"),
            "{ext}: {feed}"
        );
        assert!(feed.contains("/img/bridge.jpg"), "{ext}: {feed}");
        for bad in ["<script", "alert(", "onclick"] {
            assert!(!feed.contains(bad), "{ext}: {bad} in {feed}");
        }
    }
}

/// `[items]`: the configured list of tracking parameters is the one item links lose: extra
/// names join the built-in list, and an empty list keeps links as the page wrote them.
#[tokio::test]
async fn item_links_lose_the_configured_tracking_parameters() {
    let list = |n: usize| {
        let mut h = String::from("<html><body><main><ul>");
        for i in (0..n).rev() {
            let _ = write!(
                h,
                "<li><a href=\"/news/story-{i}?id={i}&ref=home&utm_source=front\">\
                 The story number {i} of the local paper, with a long title</a></li>"
            );
        }
        h.push_str("</ul></main></body></html>");
        h
    };
    let site = Site::start(&[]).await;
    let new_link = |app: std::sync::Arc<sitefeed::app::App>| {
        let site = &site;
        async move {
            site.set_raw("text/html", list(4));
            let id = common::watch(&app, &site.url());
            let w = app.store().watch(&id).expect("watch").expect("present");
            app.check(&w, false).await.expect("baseline");
            site.set_raw("text/html", list(5));
            let r = app.check(&w, false).await.expect("check");
            assert_eq!(r.new_items.len(), 1, "{:?}", r.new_items);
            let stored = app.store().items(&id, 10).expect("items");
            assert_eq!(stored.len(), 1);
            assert_eq!(stored[0].link, r.new_items[0].link);
            stored[0].link.clone()
        }
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, _clock) = common::app_with(dir.path(), |c| {
        c.items.extra_tracking_params = vec!["ref".into()];
    });
    assert_eq!(new_link(app).await, site.url_of("/news/story-4?id=4"));

    let dir = tempfile::tempdir().expect("tempdir");
    let (app, _clock) = common::app_with(dir.path(), |c| {
        c.items.tracking_params = Some(Vec::new());
    });
    assert_eq!(
        new_link(app).await,
        site.url_of("/news/story-4?id=4&ref=home&utm_source=front")
    );

    let dir = tempfile::tempdir().expect("tempdir");
    let (app, _clock) = common::app(dir.path());
    assert_eq!(
        new_link(app).await,
        site.url_of("/news/story-4?id=4&ref=home"),
        "by default the built-in list: utm_* goes, ref stays"
    );
}
