//! Issue 5: per-watch strategies through the API, probable losses on the watch's record,
//! and the learned schedule surviving a restart. No sleeping: the clock is manual.

mod common;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use common::Site;
use http_body_util::BodyExt;
use tower::ServiceExt;

async fn call(
    app: &std::sync::Arc<sitefeed::App>,
    method: &str,
    uri: &str,
    body: Option<serde_json::Value>,
) -> (StatusCode, serde_json::Value) {
    let req = Request::builder()
        .method(method)
        .uri(uri)
        .header("content-type", "application/json")
        .body(body.map_or_else(Body::empty, |b| Body::from(b.to_string())))
        .expect("request");
    let resp = sitefeed::server::router(app.clone())
        .oneshot(req)
        .await
        .expect("response");
    let status = resp.status();
    let bytes = resp.into_body().collect().await.expect("body").to_bytes();
    let json = serde_json::from_slice(&bytes).unwrap_or(serde_json::Value::Null);
    (status, json)
}

fn entries(range: std::ops::Range<u32>) -> Vec<(String, String)> {
    range
        .rev()
        .map(|i| (format!("Thread {i}"), format!("/t/{i}")))
        .collect()
}

fn set(site: &Site, range: std::ops::Range<u32>) {
    let e = entries(range);
    let refs: Vec<(&str, &str)> = e.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    site.set(&refs);
}

#[tokio::test]
async fn per_watch_strategy_loss_record_and_restart() {
    let site = Site::start(&[]).await;
    set(&site, 0..10);
    let dir = tempfile::tempdir().expect("tempdir");
    let id;
    {
        let (app, clock) = common::app(dir.path());
        let (code, err) = call(
            &app,
            "POST",
            "/api/watches",
            Some(serde_json::json!({"url": site.url(), "strategy": "daily"})),
        )
        .await;
        assert_eq!(code, StatusCode::BAD_REQUEST);
        assert!(
            err["error"].as_str().unwrap_or("").contains("strategy"),
            "{err}"
        );

        let (code, w) = call(
            &app,
            "POST",
            "/api/watches",
            Some(serde_json::json!({"url": site.url(), "strategy": "periodic"})),
        )
        .await;
        assert_eq!(code, StatusCode::CREATED, "{w}");
        assert_eq!(w["schedule"]["strategy"], "periodic");
        assert_eq!(w["schedule"]["in_force"], "adaptive");
        id = w["id"].as_str().expect("id").to_owned();
        let watch = app.find(&id).expect("find");

        app.check(&watch, false).await.expect("baseline");
        clock.advance(600);
        set(&site, 4..14);
        app.check(&watch, false).await.expect("four new");
        // Twelve more on a page of ten: the whole previous list is gone.
        clock.advance(600);
        set(&site, 26..36);
        let r = app.check(&watch, false).await.expect("loss");
        assert_eq!(r.new_items.len(), 10);

        let (code, w) = call(&app, "GET", &format!("/api/watches/{id}"), None).await;
        assert_eq!(code, StatusCode::OK);
        let s = &w["schedule"];
        assert_eq!(s["probable_losses"], 1, "{w}");
        assert!(s["last_probable_loss"].is_string(), "{w}");
        assert_eq!(s["effective_links"], 10, "{w}");
        assert!(
            s["reason"]
                .as_str()
                .unwrap_or("")
                .contains("days of history"),
            "{w}"
        );
        // The loss shortened the interval at once: a quarter of the last 600s, clamped
        // to the 5-minute minimum.
        let st = app.store.state(&watch.id).expect("state").expect("present");
        assert_eq!(st.next_check - st.last_check.expect("checked"), 300);

        // Another watch without a strategy follows the config's default.
        let (_, other) = call(
            &app,
            "POST",
            "/api/watches",
            Some(serde_json::json!({"url": format!("{}?p=2", site.url())})),
        )
        .await;
        assert_eq!(other["schedule"]["strategy"], "adaptive");
    }
    // Reopen the same store: the learned state is still there.
    let (app, _) = common::app(dir.path());
    let (_, w) = call(&app, "GET", &format!("/api/watches/{id}"), None).await;
    assert_eq!(w["schedule"]["strategy"], "periodic");
    assert_eq!(w["schedule"]["probable_losses"], 1);
    assert_eq!(w["schedule"]["effective_links"], 10);
    let watch = app.find(&id).expect("find");
    let st = app.store.state(&watch.id).expect("state").expect("present");
    assert!(st.learned.history.since.is_some());
}
