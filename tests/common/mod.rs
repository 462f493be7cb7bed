//! Shared test fixtures: an evolving local web site on 127.0.0.1:0 and sitefeed apps on
//! temporary stores. Nothing here touches the internet.
#![allow(dead_code, reason = "each test binary uses a different part")]

use std::fmt::Write;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use sitefeed::schedule::clock::ManualClock;
use sitefeed::{App, Config};

/// What the test site answers on `/`.
#[derive(Debug, Clone)]
pub enum Reply {
    /// A list page with these (title, path) entries, top first.
    List(Vec<(String, String)>),
    /// Any body with this content type.
    Raw { content_type: String, body: Vec<u8> },
}

#[derive(Debug)]
pub struct SiteState {
    pub reply: Reply,
    pub requests: u64,
    /// Each answer waits this long (to observe concurrency).
    pub delay: std::time::Duration,
    pub in_flight: u64,
    pub max_in_flight: u64,
}

/// A local site whose front page changes when the test says so.
#[derive(Debug, Clone)]
pub struct Site {
    pub addr: SocketAddr,
    pub state: Arc<Mutex<SiteState>>,
}

impl Site {
    pub async fn start(entries: &[(&str, &str)]) -> Self {
        let state = Arc::new(Mutex::new(SiteState {
            reply: Reply::List(own(entries)),
            requests: 0,
            delay: std::time::Duration::ZERO,
            in_flight: 0,
            max_in_flight: 0,
        }));
        let app = Router::new()
            .route("/", get(front))
            .with_state(state.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        tokio::spawn(async move { axum::serve(listener, app).await.expect("site serve") });
        Self { addr, state }
    }

    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    pub fn set(&self, entries: &[(&str, &str)]) {
        self.state.lock().expect("site lock").reply = Reply::List(own(entries));
    }

    pub fn set_raw(&self, content_type: &str, body: impl Into<Vec<u8>>) {
        self.state.lock().expect("site lock").reply = Reply::Raw {
            content_type: content_type.to_owned(),
            body: body.into(),
        };
    }

    pub fn requests(&self) -> u64 {
        self.state.lock().expect("site lock").requests
    }
}

fn own(entries: &[(&str, &str)]) -> Vec<(String, String)> {
    entries
        .iter()
        .map(|(t, p)| ((*t).to_owned(), (*p).to_owned()))
        .collect()
}

async fn front(State(state): State<Arc<Mutex<SiteState>>>) -> Response {
    let (reply, n, delay) = {
        let mut s = state.lock().expect("site lock");
        s.requests += 1;
        s.in_flight += 1;
        s.max_in_flight = s.max_in_flight.max(s.in_flight);
        (s.reply.clone(), s.requests, s.delay)
    };
    if !delay.is_zero() {
        tokio::time::sleep(delay).await;
    }
    state.lock().expect("site lock").in_flight -= 1;
    match reply {
        Reply::Raw { content_type, body } => {
            (StatusCode::OK, [(header::CONTENT_TYPE, content_type)], body).into_response()
        }
        Reply::List(entries) => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "text/html; charset=utf-8".to_owned())],
            list_page(&entries, n),
        )
            .into_response(),
    }
}

/// A notice-board page: a menu, the entries (each with a "Read more" link), a footer,
/// and a visit counter that changes on every request.
pub fn list_page(entries: &[(String, String)], visits: u64) -> String {
    let mut s = String::from(
        "<!doctype html><html><head><meta charset=utf-8><title>Notice board</title><link rel=\"icon\" href=\"/favicon.png\">\
         <script>var x = '<a href=\"/script-link\">not a link</a>';</script></head><body>\
         <nav><a href=\"/\">Home</a> <a href=\"/about\">About</a></nav><ul id=\"list\">",
    );
    for (title, path) in entries {
        let _ = write!(
            s,
            "<li><a href=\"{path}\">{}</a> <a href=\"{path}#more\">Read more</a></li>",
            escape(title)
        );
    }
    let _ = write!(
        s,
        "</ul><footer><a href=\"/contact\">Contact</a> Visits: {visits}</footer></body></html>"
    );
    s
}

/// HTML-escapes text the way a site would (control characters are left as they are).
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

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
             per_host_delay_ms = 0\n[schedule]\ninitial_interval = \"1d\"\nmin_interval = \"1d\"\n",
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
