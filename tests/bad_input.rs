//! Bad input gets a clear error, and never costs stored data.

mod common;

use common::Site;

#[tokio::test]
async fn api_rejects_bad_urls_with_400_json() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, _) = common::app(dir.path());
    let base = common::serve(app).await;
    let client = reqwest::Client::new();
    for body in [
        serde_json::json!({"url": "not a url"}),
        serde_json::json!({"url": "ftp://example.org/"}),
        serde_json::json!({"url": "file:///etc/passwd"}),
        serde_json::json!({"url": "http://example.org/", "depth": 9}),
        serde_json::json!({"url": "http://example.org/", "select": "div[["}),
        serde_json::json!({"nope": 1}),
    ] {
        let resp = client
            .post(format!("{base}/api/watches"))
            .json(&body)
            .send()
            .await
            .expect("post");
        assert_eq!(resp.status(), 400, "{body}");
        let v: serde_json::Value = resp.json().await.expect("json error body");
        let msg = v["error"].as_str().expect("error string");
        assert!(!msg.is_empty(), "{body}");
    }
    let resp = client
        .post(format!("{base}/api/watches"))
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .expect("post");
    assert_eq!(resp.status(), 400);
    assert!(resp.json::<serde_json::Value>().await.expect("json")["error"].is_string());
    assert_eq!(
        client
            .get(format!("{base}/api/watches/zzz"))
            .send()
            .await
            .expect("get")
            .status(),
        404
    );
}

#[tokio::test]
async fn broken_pages_set_an_error_and_keep_items() {
    let site = Site::start(&[("A", "/n/1"), ("B", "/n/2")]).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, clock) = common::app_with(dir.path(), |c| c.fetch.max_body_bytes = 20_000);
    let (w, _) = app
        .add_watch(&sitefeed::app::NewWatch {
            url: site.url(),
            ..Default::default()
        })
        .expect("add");
    app.check(&w, false).await.expect("baseline");
    site.set(&[("C", "/n/3"), ("A", "/n/1"), ("B", "/n/2")]);
    clock.advance(60);
    let r = app.check(&w, false).await.expect("check");
    assert_eq!(r.new_items.len(), 1);
    let before = app.store().items(&w.id, 100).expect("items");
    let links_before = app.store().links(&w.id).expect("links");

    let big = format!(
        "<html><body>{}</body></html>",
        "<a href=/x>x</a>".repeat(5000)
    );
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "application/pdf",
            b"%PDF-1.4 ...".to_vec(),
            "not an HTML page",
        ),
        (
            "text/plain; charset=utf-8",
            b"hello".to_vec(),
            "not an HTML page",
        ),
        ("text/html", b"".to_vec(), "empty"),
        (
            "text/html",
            b"<html><body>nothing here</body></html>".to_vec(),
            "no links",
        ),
        ("text/html", big.into_bytes(), "larger than"),
    ];
    for (ct, body, expect) in cases {
        site.set_raw(ct, body);
        clock.advance(60);
        let r = app.check(&w, false).await.expect("check runs");
        let err = r.error.expect("an error");
        assert!(err.contains(expect), "{ct}: `{err}` should say `{expect}`");
        let st = app.store().state(&w.id).expect("state").expect("present");
        assert_eq!(st.status, sitefeed::model::Status::Error);
        assert_eq!(st.error.as_deref(), Some(err.as_str()));
        assert_eq!(
            app.store().items(&w.id, 100).expect("items"),
            before,
            "{ct}: items untouched"
        );
        assert_eq!(
            app.store().links(&w.id).expect("links"),
            links_before,
            "{ct}: baseline untouched"
        );
    }

    // After the failures, the page comes back with one more entry: only it is new.
    site.set(&[("D", "/n/4"), ("C", "/n/3"), ("A", "/n/1"), ("B", "/n/2")]);
    clock.advance(60);
    let r = app.check(&w, false).await.expect("check");
    assert_eq!(r.error, None);
    assert_eq!(
        r.new_items
            .iter()
            .map(|i| i.title.as_str())
            .collect::<Vec<_>>(),
        ["D"]
    );
    let st = app.store().state(&w.id).expect("state").expect("present");
    assert_eq!(st.status, sitefeed::model::Status::Ok);
    assert_eq!(st.consecutive_errors, 0);
}

#[tokio::test]
async fn a_truncated_page_does_not_make_everything_new() {
    let entries: Vec<(String, String)> = (0..30)
        .map(|i| (format!("Entry {i}"), format!("/e/{i}")))
        .collect();
    let refs: Vec<(&str, &str)> = entries
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let site = Site::start(&refs).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, clock) = common::app(dir.path());
    let (w, _) = app
        .add_watch(&sitefeed::app::NewWatch {
            url: site.url(),
            ..Default::default()
        })
        .expect("add");
    app.check(&w, false).await.expect("baseline");
    // Half-loaded: only the first 3 entries.
    site.set(&refs[..3]);
    clock.advance(60);
    assert!(app
        .check(&w, false)
        .await
        .expect("check")
        .new_items
        .is_empty());
    // Back to the full page plus one new entry.
    let mut full = refs.clone();
    full.insert(0, ("Fresh", "/e/fresh"));
    site.set(&full);
    clock.advance(60);
    let r = app.check(&w, false).await.expect("check");
    assert_eq!(
        r.new_items
            .iter()
            .map(|i| i.title.as_str())
            .collect::<Vec<_>>(),
        ["Fresh"]
    );
}
