//! The web page in a real browser: headless Chromium driven through chromedriver's
//! WebDriver protocol (plain HTTP, no extra crate). Add a watch through the form, see it
//! listed, open its page and its preview, follow its feed link; screenshots of the list
//! and of the preview are saved as `<target>/tmp/browser-{list,preview}.png`.
//!
//! Missing `chromium` or `chromedriver` skips with a printed reason; in CI (`CI=true`) it
//! fails, since `.ci/run` installs them.

mod common;

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use common::Site;
use serde_json::{json, Value};

const CHROMIUM: &str = "/usr/bin/chromium";
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

struct Driver {
    child: Child,
    url: String,
    session: String,
    http: reqwest::Client,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Driver {
    async fn start(profile: &std::path::Path) -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .expect("bind")
            .local_addr()
            .expect("addr")
            .port();
        let child = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn chromedriver");
        let url = format!("http://127.0.0.1:{port}");
        let http = reqwest::Client::new();
        let mut up = false;
        for _ in 0..100 {
            if let Ok(r) = http.get(format!("{url}/status")).send().await {
                if r.status() == 200 {
                    up = true;
                    break;
                }
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let mut d = Self {
            child,
            url,
            session: String::new(),
            http,
        };
        assert!(up, "chromedriver did not come up");
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": CHROMIUM,
                "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                         "--no-first-run", "--disable-background-networking",
                         "--disable-component-update", "--disable-sync",
                         "--disable-dev-shm-usage", "--window-size=1280,900",
                         format!("--user-data-dir={}", profile.display())]
            }
        }}});
        let v = d.call(reqwest::Method::POST, "/session", Some(caps)).await;
        v["sessionId"]
            .as_str()
            .expect("session id")
            .clone_into(&mut d.session);
        d
    }

    async fn call(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Value {
        let mut req = self.http.request(method, format!("{}{path}", self.url));
        if let Some(b) = body {
            req = req.json(&b);
        }
        let r = req.send().await.expect("webdriver");
        let status = r.status();
        let v: Value = r.json().await.expect("webdriver json");
        assert!(status.is_success(), "webdriver {path}: {status} {v}");
        v["value"].clone()
    }

    async fn s(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Value {
        self.call(method, &format!("/session/{}{path}", self.session), body)
            .await
    }

    async fn goto(&self, url: &str) {
        self.s(reqwest::Method::POST, "/url", Some(json!({ "url": url })))
            .await;
    }

    /// The first element matching `css`, waiting up to 5 s for it.
    async fn find(&self, css: &str) -> String {
        for _ in 0..50 {
            let r = self
                .http
                .post(format!("{}/session/{}/element", self.url, self.session))
                .json(&json!({"using": "css selector", "value": css}))
                .send()
                .await
                .expect("find");
            if r.status().is_success() {
                let v: Value = r.json().await.expect("json");
                return v["value"][ELEMENT].as_str().expect("element id").to_owned();
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("no element {css} in {}", self.source().await);
    }

    /// Every element matching `css` (none is no error).
    async fn find_all(&self, css: &str) -> Vec<String> {
        let v = self
            .s(
                reqwest::Method::POST,
                "/elements",
                Some(json!({"using": "css selector", "value": css})),
            )
            .await;
        v.as_array()
            .into_iter()
            .flatten()
            .filter_map(|e| e[ELEMENT].as_str().map(str::to_owned))
            .collect()
    }

    async fn text(&self, el: &str) -> String {
        self.s(reqwest::Method::GET, &format!("/element/{el}/text"), None)
            .await
            .as_str()
            .unwrap_or("")
            .to_owned()
    }

    /// The text of the first element matching `css` now, `None` while there is none or it
    /// goes stale (the page is navigating).
    async fn text_of(&self, css: &str) -> Option<String> {
        let r = self
            .http
            .post(format!("{}/session/{}/element", self.url, self.session))
            .json(&json!({"using": "css selector", "value": css}))
            .send()
            .await
            .ok()?;
        let v: Value = r.json().await.ok()?;
        let el = v["value"][ELEMENT].as_str()?.to_owned();
        let r = self
            .http
            .get(format!(
                "{}/session/{}/element/{el}/text",
                self.url, self.session
            ))
            .send()
            .await
            .ok()?;
        if !r.status().is_success() {
            return None;
        }
        let v: Value = r.json().await.ok()?;
        v["value"].as_str().map(str::to_owned)
    }

    async fn attr(&self, el: &str, name: &str) -> String {
        self.s(
            reqwest::Method::GET,
            &format!("/element/{el}/attribute/{name}"),
            None,
        )
        .await
        .as_str()
        .unwrap_or("")
        .to_owned()
    }

    async fn click(&self, el: &str) {
        self.s(
            reqwest::Method::POST,
            &format!("/element/{el}/click"),
            Some(json!({})),
        )
        .await;
    }

    async fn type_in(&self, el: &str, text: &str) {
        self.s(
            reqwest::Method::POST,
            &format!("/element/{el}/value"),
            Some(json!({ "text": text })),
        )
        .await;
    }

    async fn clear(&self, el: &str) {
        self.s(
            reqwest::Method::POST,
            &format!("/element/{el}/clear"),
            Some(json!({})),
        )
        .await;
    }

    /// Runs `script` (a function body) in the page and returns its value.
    async fn js(&self, script: &str) -> Value {
        self.s(
            reqwest::Method::POST,
            "/execute/sync",
            Some(json!({ "script": script, "args": [] })),
        )
        .await
    }

    async fn window_size(&self, width: u32, height: u32) {
        self.s(
            reqwest::Method::POST,
            "/window/rect",
            Some(json!({ "width": width, "height": height })),
        )
        .await;
    }

    async fn source(&self) -> String {
        self.s(reqwest::Method::GET, "/source", None)
            .await
            .as_str()
            .unwrap_or("")
            .to_owned()
    }

    async fn current_url(&self) -> String {
        self.s(reqwest::Method::GET, "/url", None)
            .await
            .as_str()
            .unwrap_or("")
            .to_owned()
    }

    async fn screenshot(&self) -> Vec<u8> {
        let v = self.s(reqwest::Method::GET, "/screenshot", None).await;
        base64_decode(v.as_str().expect("base64 png"))
    }

    async fn quit(&self) {
        let _ = self
            .http
            .delete(format!("{}/session/{}", self.url, self.session))
            .send()
            .await;
    }
}

fn base64_decode(s: &str) -> Vec<u8> {
    let val = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => u32::from(c - b'A'),
            b'a'..=b'z' => u32::from(c - b'a') + 26,
            b'0'..=b'9' => u32::from(c - b'0') + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("not base64: {c}"),
        }
    };
    let clean: Vec<u8> = s
        .bytes()
        .filter(|b| !b.is_ascii_whitespace() && *b != b'=')
        .collect();
    let mut out = Vec::with_capacity(clean.len() * 3 / 4);
    for chunk in clean.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= val(c) << (18 - 6 * i);
        }
        out.push((n >> 16) as u8);
        if chunk.len() > 2 {
            out.push((n >> 8) as u8);
        }
        if chunk.len() > 3 {
            out.push(n as u8);
        }
    }
    out
}

fn have_browser() -> bool {
    let driver = Command::new("chromedriver")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    let ok = driver && std::path::Path::new(CHROMIUM).exists();
    if !ok {
        let msg = "browser test: chromium or chromedriver is missing; `.ci/run` installs them";
        assert!(std::env::var("CI").as_deref() != Ok("true"), "{msg}");
        eprintln!("SKIPPED: {msg}");
    }
    ok
}

#[tokio::test]
async fn add_list_preview_and_follow_the_feed_in_chromium() {
    if !have_browser() {
        return;
    }
    let entries: Vec<(String, String)> = (1..=6)
        .rev()
        .map(|i| (format!("Notice {i}"), format!("/n/{i}")))
        .collect();
    let refs: Vec<(&str, &str)> = entries
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let site = Site::start(&refs).await;
    let dir = tempfile::tempdir().expect("tempdir");
    // The page's feed links use `server.base_url`: make it this server's address.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let (app, _clock) = common::app_with(dir.path(), |c| c.server.base_url = Some(base.clone()));
    let cancel = tokio_util::sync::CancellationToken::new();
    tokio::spawn(sitefeed::server::serve(app.clone(), listener, cancel));
    let profile = tempfile::tempdir().expect("profile dir");
    let d = Driver::start(profile.path()).await;

    // Add through the form.
    d.goto(&format!("{base}/")).await;
    let url_input = d.find("#add input[name=url]").await;
    d.type_in(&url_input, &site.url()).await;
    let title_input = d.find("#add input[name=title]").await;
    d.type_in(&title_input, "Browser board").await;
    let submit = d.find("#add button[type=submit]").await;
    d.click(&submit).await;

    // Listed, with its feed links.
    let link = d.find("#watches a.watch").await;
    assert_eq!(d.text(&link).await, "Browser board");
    let note = d.find("p.note").await;
    assert!(d.text(&note).await.contains("Watching"));
    let tmp = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    std::fs::write(tmp.join("browser-list.png"), d.screenshot().await).expect("save screenshot");

    // A first check sets the baseline; then the page gets a new entry.
    let w = app.store().watches().expect("watches").remove(0);
    app.check(&w, false).await.expect("check");
    let mut v2 = refs.clone();
    v2.insert(0, ("Fresh notice", "/n/7"));
    site.set(&v2);

    // Its page, then its preview with the new entry marked.
    d.click(&link).await;
    let preview = d.find("#preview").await;
    d.click(&preview).await;
    let summary = d.find("#summary").await;
    let text = d.text(&summary).await;
    assert!(text.contains("links extracted"), "{text}");
    assert!(text.contains("1 would be new"), "{text}");
    let marked = d.find("#links tr.new").await;
    assert!(d.text(&marked).await.contains("Fresh notice"));
    let mut marked = Vec::new();
    for row in d.find_all("#links tr.new").await {
        marked.push(d.text(&row).await);
    }
    let png = d.screenshot().await;
    assert!(png.starts_with(b"\x89PNG"), "a PNG screenshot");
    let shot = tmp.join("browser-preview.png");
    std::fs::write(&shot, &png).expect("save screenshot");
    eprintln!("browser test: screenshot saved to {}", shot.display());
    // The preview marks exactly what the next check emits.
    let r = app.check(&w, false).await.expect("check after the preview");
    assert_eq!(r.new_items.len(), marked.len(), "{marked:?}");
    for item in &r.new_items {
        assert!(
            marked.iter().any(|row| row.contains(&item.title)),
            "{} not marked in {marked:?}",
            item.title
        );
    }

    // Back to the list; follow the RSS link.
    d.goto(&format!("{base}/")).await;
    let rss = d.find("#watches a.feed").await;
    let href = d.attr(&rss, "href").await;
    assert!(href.contains("/feed/") && href.contains(".xml"), "{href}");
    d.click(&rss).await;
    for _ in 0..50 {
        if d.current_url().await == href {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(d.current_url().await, href);
    let src = d.source().await;
    assert!(src.contains("Browser board"), "{src}");
    d.quit().await;
}

/// Rows of the watch list now shown, by title.
async fn listed(d: &Driver) -> Vec<String> {
    d.js("return Array.from(document.querySelectorAll('#watches a.watch')).map(a => a.textContent)")
        .await
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
#[allow(clippy::too_many_lines, reason = "one user story, step by step")]
async fn search_tag_filter_edit_pause_and_a_narrow_screen_in_chromium() {
    if !have_browser() {
        return;
    }
    let site = Site::start(&[("Notice 1", "/n/1"), ("Notice 2", "/n/2")]).await;
    let dir = tempfile::tempdir().expect("tempdir");
    // No base_url: the page's feed URLs are the address the browser used.
    let (app, _clock) = common::app(dir.path());
    let base = common::serve(app.clone()).await;
    let add = |q: &str, title: &str, tags: &[&str]| {
        app.add_watch(&sitefeed::app::NewWatch {
            url: format!("{}?{q}", site.url()),
            title: Some(title.to_owned()),
            tags: tags.iter().map(|t| (*t).to_owned()).collect(),
            ..Default::default()
        })
        .expect("add")
        .0
    };
    let alpha = add("a", "Alpha board", &["news"]);
    add("b", "Beta list", &["uni"]);
    add(
        &format!(
            "gamma={}",
            "a-very-long-query-value-without-any-break".repeat(4)
        ),
        "Gamma",
        &[],
    );
    let profile = tempfile::tempdir().expect("profile dir");
    let d = Driver::start(profile.path()).await;

    // Search.
    d.goto(&format!("{base}/")).await;
    assert_eq!(listed(&d).await.len(), 3);
    let q = d.find("#filter input[name=q]").await;
    d.type_in(&q, "beta").await;
    let show = d.find("#filter button[type=submit]").await;
    d.click(&show).await;
    d.find("#filter a[href='/']").await;
    assert_eq!(listed(&d).await, ["Beta list"]);

    // Tag filter: the list and the tag's feed.
    d.goto(&format!("{base}/")).await;
    let news = d.find("#filter select[name=tag] option[value=news]").await;
    d.click(&news).await;
    let show = d.find("#filter button[type=submit]").await;
    d.click(&show).await;
    let feeds = d.find("#tagfeeds a").await;
    assert!(d.attr(&feeds, "href").await.ends_with("/feed/tag/news.xml"));
    assert_eq!(listed(&d).await, ["Alpha board"]);
    let rss = d.find("#watches a.feed").await;
    assert!(
        d.attr(&rss, "href").await.starts_with(&base),
        "feed URLs from the address the browser used"
    );

    // Edit: title and tags.
    let link = d.find("#watches a.watch").await;
    d.click(&link).await;
    let title = d.find("#edit input[name=title]").await;
    d.clear(&title).await;
    d.type_in(&title, "Renamed board").await;
    let tags = d.find("#edit input[name=tags]").await;
    d.clear(&tags).await;
    d.type_in(&tags, "news, Research").await;
    let save = d.find("#edit button[type=submit]").await;
    d.click(&save).await;
    // The form posts and the page reloads: wait for the new heading (the old one goes
    // stale on the way).
    for _ in 0..50 {
        if d.text_of("h1").await.as_deref() == Some("Renamed board") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let h1 = d.find("h1").await;
    assert_eq!(d.text(&h1).await, "Renamed board");
    let w = app.find(alpha.id.as_str()).expect("watch");
    assert_eq!(w.title.as_deref(), Some("Renamed board"));
    assert_eq!(w.options.tags, ["news", "research"]);

    // Pause, then resume.
    let pause = d.find("#pause").await;
    assert_eq!(d.text(&pause).await, "Pause");
    d.click(&pause).await;
    d.find("#paused").await;
    assert!(app.find(alpha.id.as_str()).expect("watch").options.paused);
    let resume = d.find("#pause").await;
    assert_eq!(d.text(&resume).await, "Resume");
    d.click(&resume).await;
    for _ in 0..50 {
        if !app.find(alpha.id.as_str()).expect("watch").options.paused {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(!app.find(alpha.id.as_str()).expect("watch").options.paused);

    // 400 px wide: nothing overflows sideways, on the list and on a watch's page.
    d.window_size(400, 900).await;
    let tmp = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    for (path, shot) in [
        ("/".to_owned(), "browser-narrow-list.png"),
        (format!("/watches/{}", alpha.id), "browser-narrow-watch.png"),
    ] {
        d.goto(&format!("{base}{path}")).await;
        d.find("h1").await;
        let inner = d.js("return window.innerWidth").await;
        let scroll = d.js("return document.documentElement.scrollWidth").await;
        let (inner, scroll) = (
            inner.as_u64().expect("innerWidth"),
            scroll.as_u64().expect("scrollWidth"),
        );
        assert!(inner <= 420, "the window is narrow: {inner}");
        assert!(
            scroll <= inner,
            "{path}: scrollWidth {scroll} > innerWidth {inner}"
        );
        std::fs::write(tmp.join(shot), d.screenshot().await).expect("save screenshot");
    }
    d.quit().await;
}
