//! How a watch reads its page (`render`: plain, browser, auto) through every way a watch
//! is made and shown: the API, the web form, the CLI, OPML, the watch's page and
//! `/metrics`. No browser is started here (nothing is checked); rendering itself is
//! tested in `src/fetch/browser/tests.rs` with Chromium.

mod common;

use reqwest::header::{COOKIE, SET_COOKIE};
use reqwest::{redirect, Client};
use serde_json::{json, Value};

fn client() -> Client {
    Client::builder()
        .redirect(redirect::Policy::none())
        .build()
        .expect("client")
}

async fn post_json(c: &Client, base: &str, body: &Value) -> (u16, Value) {
    let r = c
        .post(format!("{base}/api/watches"))
        .json(body)
        .send()
        .await
        .expect("post");
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
#[allow(
    clippy::too_many_lines,
    clippy::many_single_char_names,
    reason = "one walk through every surface"
)]
async fn render_mode_through_api_form_page_metrics_and_opml() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, _clock) = common::app(dir.path());
    let base = common::serve(app.clone()).await;
    let c = client();

    let (code, w) = post_json(
        &c,
        &base,
        &json!({"url": "https://a.example/app", "render": "browser"}),
    )
    .await;
    assert_eq!(code, 201, "{w}");
    assert_eq!(w["render"], "browser");
    let (code, w) = post_json(&c, &base, &json!({"url": "https://b.example/"})).await;
    assert_eq!(code, 201);
    assert_eq!(w["render"], "plain", "plain is the default");
    assert!(w.get("last_render").is_none(), "never rendered");
    let (code, err) = post_json(
        &c,
        &base,
        &json!({"url": "https://c.example/", "render": "js"}),
    )
    .await;
    assert_eq!(code, 400);
    assert!(
        err["error"]
            .as_str()
            .unwrap_or("")
            .contains("plain, browser, auto"),
        "{err}"
    );

    // The web form: a CSRF cookie and field, then render = auto.
    let r = c.get(format!("{base}/")).send().await.expect("index");
    let cookie = r
        .headers()
        .get(SET_COOKIE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .expect("csrf cookie")
        .to_owned();
    let page = r.text().await.expect("page");
    assert!(page.contains("name=\"render\""), "the form offers the mode");
    let at = page.find("name=\"csrf\" value=\"").expect("csrf field") + 19;
    let csrf = page[at..at + 32].to_owned();
    let r = c
        .post(format!("{base}/watches"))
        .header(COOKIE, &cookie)
        .form(&[
            ("url", "https://d.example/spa"),
            ("render", "auto"),
            ("csrf", &csrf),
        ])
        .send()
        .await
        .expect("form");
    assert_eq!(r.status(), 303, "{:?}", r.text().await);
    let r = c
        .post(format!("{base}/watches"))
        .header(COOKIE, &cookie)
        .form(&[
            ("url", "https://e.example/"),
            ("render", "magic"),
            ("csrf", &csrf),
        ])
        .send()
        .await
        .expect("form");
    assert_eq!(r.status(), 400);
    assert!(r
        .text()
        .await
        .expect("page")
        .contains("read <code>magic</code>"));
    let watches = app.store().watches().expect("watches");
    let mode = |host: &str| {
        watches
            .iter()
            .find(|w| w.url.contains(host))
            .map(|w| w.render.as_str())
    };
    assert_eq!(mode("a.example"), Some("browser"));
    assert_eq!(mode("b.example"), Some("plain"));
    assert_eq!(mode("d.example"), Some("auto"));
    assert_eq!(mode("e.example"), None);

    // The index marks the rendering watches and shows the browser, not started.
    let page = common::get_text(&c, &format!("{base}/")).await;
    assert!(
        page.contains("[browser]") && page.contains("[auto]"),
        "{page}"
    );
    assert!(page.contains("id=\"browser\""), "{page}");
    assert!(page.contains("not started"), "{page}");
    let a = watches
        .iter()
        .find(|w| w.url.contains("a.example"))
        .expect("a");
    let page = common::get_text(&c, &format!("{base}/watches/{}", a.id)).await;
    assert!(page.contains("id=\"render\""), "{page}");

    // Metrics: watches by mode, and a browser that is not up yet.
    let m = common::get_text(&c, &format!("{base}/metrics")).await;
    for line in [
        "sitefeed_watches_by_render{render=\"plain\"} 1",
        "sitefeed_watches_by_render{render=\"browser\"} 1",
        "sitefeed_watches_by_render{render=\"auto\"} 1",
        "sitefeed_browser_up 0",
        "sitefeed_browser_renders_total 0",
    ] {
        assert!(m.lines().any(|l| l == line), "{line} missing in\n{m}");
    }

    // OPML: the mode goes out with the watch and comes back in.
    let opml = common::get_text(&c, &format!("{base}/opml")).await;
    assert_eq!(opml.matches("render=\"browser\"").count(), 1, "{opml}");
    assert_eq!(opml.matches("render=\"auto\"").count(), 1, "{opml}");
    assert_eq!(opml.matches("render=").count(), 2, "plain is not written");
    let dir2 = tempfile::tempdir().expect("tempdir");
    let (app2, _clock) = common::app(dir2.path());
    let report = app2.import_opml(&opml).expect("import");
    assert_eq!(report.added, 3);
    let back = app2.store().watches().expect("watches");
    assert!(back
        .iter()
        .any(|w| w.url.contains("a.example") && w.render.as_str() == "browser"));
    assert!(back
        .iter()
        .any(|w| w.url.contains("d.example") && w.render.as_str() == "auto"));
    let bad = "<opml version=\"2.0\"><body><outline htmlUrl=\"https://f.example/\" render=\"js\"/></body></opml>";
    let report = app2.import_opml(bad).expect("import");
    assert_eq!(report.added, 0);
    assert!(report.rejected[0].error.contains("render `js`"));
}

#[test]
fn cli_add_takes_a_render_mode() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cfg = dir.path().join("c.toml");
    std::fs::write(&cfg, "").expect("config");
    let run = |args: &[&str]| {
        assert_cmd::Command::cargo_bin("sitefeed")
            .expect("binary")
            .env("SITEFEED_DATA", dir.path().join("data"))
            .env("SITEFEED_CONFIG", &cfg)
            .env_remove("SITEFEED_LISTEN")
            .args(args)
            .output()
            .expect("run")
    };
    let out = run(&["add", "https://a.example/", "--render", "browser"]);
    assert!(out.status.success(), "{out:?}");
    let out = run(&["add", "https://b.example/", "--render", "js"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("auto"));
    let config = sitefeed::Config::from_toml(
        &format!(
            "[storage]\npath = {:?}\n",
            dir.path().join("data").display().to_string()
        ),
        std::path::Path::new("c.toml"),
        &|_| None,
    )
    .expect("config");
    let store = sitefeed::store::Store::open(&config.storage.path, 1 << 20).expect("store");
    let w = store.watches().expect("watches");
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].render, sitefeed::model::Render::Browser);
}
