//! The one test harness of the integration tests, on 127.0.0.1 only (nothing here
//! touches the internet): the scripted test site ([`site`]), raw servers that misbehave
//! ([`raw`]), what a test does over HTTP (a client, a browser-ish session with cookies
//! and CSRF, JSON calls, feeds read back: [`http`]), and sitefeed apps on temporary
//! stores with a manual clock and no per-host delay (the politeness tests set the delay
//! they test).
#![allow(
    dead_code,
    unused_imports,
    reason = "each test binary uses a different part"
)]

mod http;
mod raw;
mod site;

use std::sync::Arc;

use sitefeed::app::NewWatch;
use sitefeed::model::WatchId;
use sitefeed::schedule::clock::ManualClock;
use sitefeed::{App, Config};

pub use http::{
    client, csrf_field, feed_entries, feed_titles, get_text, hook, json, notices, parsed_feed,
    post_json, refs, serve_router, Answer, Browser,
};
pub use raw::{raw_server, raw_server_logged, Misbehave};
pub use site::{escape, list, list_page, Canned, Hit, Site};

/// A config for tests: private addresses allowed, no delay between two requests to one
/// host (the politeness tests set the delay they test), a temporary data directory.
pub fn config(data: &std::path::Path) -> Config {
    let text = format!(
        "[storage]\npath = {:?}\n[fetch]\nallow_private_addresses = true\ntimeout_secs = 5\n\
         per_host_delay_ms = 0\n[schedule]\ninitial_interval = \"1h\"\n",
        data.display().to_string()
    );
    Config::from_toml(&text, std::path::Path::new("test.toml"), &|_| None).expect("test config")
}

/// An app on a temporary store with a manual clock.
pub fn app(data: &std::path::Path) -> (Arc<App>, ManualClock) {
    app_with(data, |_| {})
}

/// An app on a temporary store with a manual clock and a config changed by `tweak`.
pub fn app_with(
    data: &std::path::Path,
    tweak: impl FnOnce(&mut Config),
) -> (Arc<App>, ManualClock) {
    let mut cfg = config(data);
    tweak(&mut cfg);
    let store =
        sitefeed::store::Store::open(&cfg.storage.path, cfg.storage.cache_bytes).expect("store");
    let clock = ManualClock::new(1_700_000_000);
    let app = App::new(cfg, store, Arc::new(clock.clone())).expect("app");
    (Arc::new(app), clock)
}

/// Serves `app` on 127.0.0.1:0; returns its base URL.
pub async fn serve(app: Arc<App>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let cancel = tokio_util::sync::CancellationToken::new();
    tokio::spawn(sitefeed::server::serve(app, listener, cancel));
    format!("http://{addr}")
}

/// A `sitefeed serve` child process on a free port of 127.0.0.1, killed when dropped.
pub struct ServeProcess {
    pub child: std::process::Child,
    /// `http://127.0.0.1:<port>`.
    pub base: String,
}

impl Drop for ServeProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `sitefeed serve` with a config written to `dir/sitefeed.toml` (data in
/// `dir/data`, private addresses allowed, no per-host delay, checks a day apart) and waits
/// until it answers.
pub async fn start_serve(dir: &std::path::Path) -> ServeProcess {
    start_serve_with(dir, "initial_interval = \"1d\"\nmin_interval = \"1d\"\n").await
}

/// [`start_serve`] with these lines of the `[schedule]` table instead.
pub async fn start_serve_with(dir: &std::path::Path, schedule: &str) -> ServeProcess {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    let cfg = dir.join("sitefeed.toml");
    std::fs::write(
        &cfg,
        format!(
            "[server]\nlisten = \"127.0.0.1:{port}\"\nbase_url = \"http://127.0.0.1:{port}\"\n\
             [storage]\npath = {:?}\n[fetch]\nallow_private_addresses = true\n\
             per_host_delay_ms = 0\n[schedule]\n{schedule}",
            dir.join("data").display().to_string()
        ),
    )
    .expect("config");
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_sitefeed"))
        .arg("--config")
        .arg(&cfg)
        .arg("serve")
        .env("RUST_LOG", "warn")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::inherit())
        .spawn()
        .expect("spawn sitefeed serve");
    let server = ServeProcess {
        child,
        base: format!("http://127.0.0.1:{port}"),
    };
    let client = reqwest::Client::new();
    for _ in 0..200 {
        if let Ok(r) = client.get(format!("{}/healthz", server.base)).send().await {
            if r.status() == 200 {
                return server;
            }
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("sitefeed serve did not come up");
}

/// Adds a watch on `url` through the API at `base`; returns its id.
pub async fn add_watch(client: &reqwest::Client, base: &str, url: &str) -> String {
    let w: serde_json::Value = client
        .post(format!("{base}/api/watches"))
        .json(&serde_json::json!({ "url": url }))
        .send()
        .await
        .expect("add")
        .json()
        .await
        .expect("json");
    w["id"].as_str().expect("id").to_owned()
}

/// Adds a watch on `url`; returns its id.
pub fn watch(app: &App, url: &str) -> WatchId {
    app.add_watch(&NewWatch {
        url: url.to_owned(),
        ..Default::default()
    })
    .expect("add watch")
    .0
    .id
}

/// Adds a watch of depth 2 on `url`, with these keywords (none: a plain deep watch).
pub fn deep_watch(app: &App, url: String, keywords: &[&str]) -> sitefeed::model::Watch {
    app.add_watch(&NewWatch {
        url,
        depth: Some(2),
        keywords: keywords.iter().map(|k| (*k).to_owned()).collect(),
        ..NewWatch::default()
    })
    .expect("add deep watch")
    .0
}

/// Checks `watch` once and asserts the check reported no error.
pub async fn check_ok(app: &App, watch: &sitefeed::model::Watch) {
    let report = app.check(watch, false).await.expect("check");
    assert!(report.error.is_none(), "{:?}", report.error);
}
