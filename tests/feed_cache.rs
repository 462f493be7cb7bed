//! Watch feeds answered from the feed stamp: a 304 while nothing the feed shows changed,
//! a 200 with a new ETag and the new content after a new item, a retitled item, an edit
//! of the watch and a failing watch (the in-memory copy of the feed is never served
//! stale). A local site on 127.0.0.1:0; nothing leaves the machine.

mod common;

use common::Site;
use reqwest::{Client, StatusCode};

struct Feed {
    status: StatusCode,
    etag: String,
    body: String,
}

async fn get(c: &Client, url: &str, etag: Option<&str>) -> Feed {
    let mut req = c.get(url);
    if let Some(e) = etag {
        req = req.header("if-none-match", e);
    }
    let r = req.send().await.expect("feed");
    let status = r.status();
    let etag = r
        .headers()
        .get("etag")
        .expect("an ETag on every answer")
        .to_str()
        .expect("etag text")
        .to_owned();
    let body = r.text().await.expect("body");
    Feed { status, etag, body }
}

/// The feed changed: a conditional GET with the old ETag is a 200 with a new ETag and
/// `want` in its body; a second one with the new ETag is a 304.
async fn changed(c: &Client, url: &str, old: &str, want: &str) -> String {
    let f = get(c, url, Some(old)).await;
    assert_eq!(f.status, StatusCode::OK, "{want}");
    assert_ne!(f.etag, old, "{want}");
    assert!(f.body.contains(want), "{want} not in {}", f.body);
    let again = get(c, url, Some(&f.etag)).await;
    assert_eq!(again.status, StatusCode::NOT_MODIFIED, "{want}");
    assert!(again.body.is_empty());
    f.etag
}

#[tokio::test]
async fn a_feed_is_a_304_until_what_it_shows_changes() {
    let site = Site::start(&[("First story", "/n/1"), ("Second story", "/n/2")]).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, clock) = common::app_with(dir.path(), |c| {
        c.fetch.per_host_delay = std::time::Duration::ZERO;
        // One interval: the feed's <ttl> stays what it is.
        c.schedule.min_interval = std::time::Duration::from_secs(3600);
        c.schedule.max_interval = std::time::Duration::from_secs(3600);
    });
    let base = common::serve(app.clone()).await;
    let c = Client::new();
    let id = common::add_watch(&c, &base, &site.url()).await;
    let w = app.find(&id).expect("watch");
    app.check(&w, false).await.expect("baseline");
    let url = format!("{base}/feed/{id}.xml");

    // Twice the same feed (the second from memory), then a 304.
    let first = get(&c, &url, None).await;
    assert_eq!(first.status, StatusCode::OK);
    let second = get(&c, &url, None).await;
    assert_eq!(
        (second.etag.as_str(), second.body.as_str()),
        (first.etag.as_str(), first.body.as_str())
    );
    assert_eq!(
        get(&c, &url, Some(&first.etag)).await.status,
        StatusCode::NOT_MODIFIED
    );
    // Each format and each base URL has its own ETag.
    let atom = get(&c, &format!("{base}/feed/{id}.atom"), None).await;
    assert_ne!(atom.etag, first.etag);
    let other_base = c
        .get(&url)
        .header("host", "feeds.example")
        .send()
        .await
        .expect("feed");
    let other_etag = other_base.headers()["etag"]
        .to_str()
        .expect("etag")
        .to_owned();
    let other_body = other_base.text().await.expect("body");
    if other_body.contains("feeds.example") {
        assert_ne!(other_etag, first.etag, "a feed rendered for another host");
    }

    // A check that finds nothing new: still a 304.
    clock.advance(3600);
    app.check(&w, false).await.expect("check");
    assert_eq!(
        get(&c, &url, Some(&first.etag)).await.status,
        StatusCode::NOT_MODIFIED
    );

    // A new item.
    site.set(&[
        ("Third story", "/n/3"),
        ("First story", "/n/1"),
        ("Second story", "/n/2"),
    ]);
    clock.advance(3600);
    let report = app.check(&w, false).await.expect("check");
    assert_eq!(report.new_items.len(), 1, "{report:?}");
    let etag = changed(&c, &url, &first.etag, "Third story").await;

    // A retitled item (what a check commits when a title is edited on the page).
    let prev = app.store().state(&w.id).expect("state").expect("present");
    let mut retitled = app.store().items(&w.id, 10).expect("items")[0].clone();
    retitled.title = "Third story, updated".into();
    let record = sitefeed::store::CheckRecord {
        retitled: vec![retitled],
        ..Default::default()
    };
    app.store()
        .commit_check(&w.id, &prev, &prev, &record)
        .expect("commit");
    let etag = changed(&c, &url, &etag, "Third story, updated").await;

    // An edit of the watch: its title.
    let r = c
        .patch(format!("{base}/api/watches/{id}"))
        .json(&serde_json::json!({"title": "My board"}))
        .send()
        .await
        .expect("edit");
    assert!(r.status().is_success(), "{}", r.status());
    let etag = changed(&c, &url, &etag, "My board").await;

    // The page fails: a new ETag at once (the state shown changed), and the error item
    // when it is due (a day later by default), with no check in between.
    site.set_raw("application/pdf", b"%PDF-1.4".to_vec());
    clock.advance(3600);
    app.check(&w, false).await.expect("check");
    let failing = get(&c, &url, Some(&etag)).await;
    assert_eq!(failing.status, StatusCode::OK);
    assert!(!failing.body.contains("cannot read this page"));
    clock.advance(2 * 86_400);
    changed(&c, &url, &failing.etag, "cannot read this page").await;

    // Removed: a 404, whatever the client holds.
    let r = c
        .delete(format!("{base}/api/watches/{id}"))
        .send()
        .await
        .expect("remove");
    assert!(r.status().is_success());
    let gone = c
        .get(&url)
        .header("if-none-match", &etag)
        .send()
        .await
        .expect("feed");
    assert_eq!(gone.status(), StatusCode::NOT_FOUND);
}

/// What a client that sends `accept` (and `if_none_match`) gets at `url`: the status,
/// the `Content-Encoding`, the `Vary` headers, the ETag and the raw body.
async fn fetch(
    c: &Client,
    url: &str,
    accept: Option<&str>,
    if_none_match: Option<&str>,
) -> (StatusCode, Option<String>, String, String, Vec<u8>) {
    let mut req = c.get(url);
    if let Some(a) = accept {
        req = req.header("accept-encoding", a);
    }
    if let Some(e) = if_none_match {
        req = req.header("if-none-match", e);
    }
    let r = req.send().await.expect("answer");
    let text = |name: &str| {
        r.headers()
            .get_all(name)
            .iter()
            .map(|v| v.to_str().expect("header text").to_owned())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let encoding = r
        .headers()
        .get("content-encoding")
        .map(|v| v.to_str().expect("encoding").to_owned());
    let (vary, etag) = (text("vary"), text("etag"));
    let status = r.status();
    let body = r.bytes().await.expect("body").to_vec();
    (status, encoding, vary, etag, body)
}

#[tokio::test]
async fn readers_that_accept_gzip_get_the_same_feeds_compressed_under_their_own_etag() {
    use std::io::Read;
    let site = Site::start(&[("First story", "/n/1"), ("Second story", "/n/2")]).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, clock) = common::app_with(dir.path(), |c| {
        c.fetch.per_host_delay = std::time::Duration::ZERO;
    });
    let base = common::serve(app.clone()).await;
    let (w, _) = app
        .add_watch(&sitefeed::app::NewWatch {
            url: site.url(),
            tags: vec!["news".into()],
            ..Default::default()
        })
        .expect("add");
    app.check(&w, false).await.expect("baseline");
    site.set(&[
        ("Third story about the river", "/n/3"),
        ("First story", "/n/1"),
        ("Second story", "/n/2"),
    ]);
    clock.advance(3600);
    let report = app.check(&w, false).await.expect("check");
    assert_eq!(report.new_items.len(), 1, "{report:?}");
    // A client that leaves Accept-Encoding and the body as they are.
    let c = Client::builder().no_gzip().build().expect("client");
    for path in [
        format!("/feed/{}.xml", w.id),
        format!("/feed/{}.atom", w.id),
        format!("/feed/{}.json", w.id),
        "/feed/tag/news.xml".to_owned(),
        "/opml".to_owned(),
    ] {
        let url = format!("{base}{path}");
        let (status, encoding, vary, plain_etag, plain) = fetch(&c, &url, None, None).await;
        assert_eq!((status, encoding), (StatusCode::OK, None), "{path}");
        assert!(vary.contains("Accept-Encoding"), "{path}: vary {vary}");
        let plain = String::from_utf8(plain).expect("utf-8");
        assert!(
            plain.contains("Third story about the river") || path == "/opml",
            "{path}: {plain}"
        );

        let (status, encoding, vary, gz_etag, packed) =
            fetch(&c, &url, Some("deflate, gzip;q=0.8, br"), None).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        assert_eq!(encoding.as_deref(), Some("gzip"), "{path}");
        assert!(vary.contains("Accept-Encoding"), "{path}: vary {vary}");
        let mut unpacked = String::new();
        flate2::read::GzDecoder::new(packed.as_slice())
            .read_to_string(&mut unpacked)
            .expect("a gzip body");
        assert_eq!(unpacked, plain, "{path}: the same document");
        assert_ne!(gz_etag, plain_etag, "{path}: a representation of its own");

        // gzip refused: the plain document under the plain ETag.
        let (_, encoding, _, etag, body) = fetch(&c, &url, Some("gzip;q=0"), None).await;
        assert_eq!((encoding, etag.as_str()), (None, plain_etag.as_str()));
        assert_eq!(body, plain.as_bytes());

        // Each ETag revalidates its own representation only.
        let (status, _, vary, _, body) = fetch(&c, &url, Some("gzip"), Some(&gz_etag)).await;
        assert_eq!(status, StatusCode::NOT_MODIFIED, "{path}");
        assert!(
            vary.contains("Accept-Encoding") && body.is_empty(),
            "{path}"
        );
        let (status, ..) = fetch(&c, &url, None, Some(&plain_etag)).await;
        assert_eq!(status, StatusCode::NOT_MODIFIED, "{path}");
        let (status, encoding, ..) = fetch(&c, &url, None, Some(&gz_etag)).await;
        assert_eq!((status, encoding), (StatusCode::OK, None), "{path}");
    }
}
