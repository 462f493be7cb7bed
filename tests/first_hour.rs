//! The first hour of a new user, end to end: feed URLs that work beyond localhost, check
//! now, editing a watch, failures visible in the feed, logs, read-only commands. Local
//! servers on 127.0.0.1:0; nothing leaves the machine.

mod common;

use common::Site;
use reqwest::Client;
use serde_json::Value;

fn entries(n: usize) -> Vec<(String, String)> {
    (1..=n)
        .rev()
        .map(|i| (format!("Notice {i}"), format!("/n/{i}")))
        .collect()
}

fn refs(v: &[(String, String)]) -> Vec<(&str, &str)> {
    v.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect()
}

async fn json(r: reqwest::RequestBuilder) -> Value {
    r.send().await.expect("request").json().await.expect("json")
}

#[tokio::test]
async fn feed_urls_follow_the_request_and_trusted_proxies_only() {
    let site = Site::start(&refs(&entries(3))).await;
    let dir = tempfile::tempdir().expect("tempdir");
    // No base_url: URLs come from the request.
    let (app, _clock) = common::app(dir.path());
    assert!(app.config.server.base_url.is_none());
    let base = common::serve(app).await;
    let c = Client::new();
    let id = common::add_watch(&c, &base, &site.url()).await;

    let w = json(
        c.get(format!("{base}/api/watches/{id}"))
            .header("host", "feeds.lan:8080"),
    )
    .await;
    assert_eq!(
        w["feed_url"].as_str(),
        Some(format!("http://feeds.lan:8080/feed/{id}.xml").as_str()),
        "{w}"
    );
    // Forwarding headers of a client that is not a trusted proxy are ignored.
    let w = json(
        c.get(format!("{base}/api/watches/{id}"))
            .header("host", "feeds.lan:8080")
            .header("x-forwarded-proto", "https")
            .header("x-forwarded-host", "evil.example"),
    )
    .await;
    assert_eq!(
        w["feed_url"].as_str(),
        Some(format!("http://feeds.lan:8080/feed/{id}.xml").as_str())
    );
    // The OPML and the web page carry the same address.
    let opml = c
        .get(format!("{base}/opml"))
        .header("host", "feeds.lan:8080")
        .send()
        .await
        .expect("opml")
        .text()
        .await
        .expect("text");
    assert!(
        opml.contains(&format!("xmlUrl=\"http://feeds.lan:8080/feed/{id}.xml\"")),
        "{opml}"
    );
    let page = c
        .get(format!("{base}/"))
        .header("host", "feeds.lan:8080")
        .send()
        .await
        .expect("page")
        .text()
        .await
        .expect("text");
    assert!(page.contains(&format!("http://feeds.lan:8080/feed/{id}.atom")));
    assert!(!page.contains("127.0.0.1:8080/feed"));
}

#[tokio::test]
async fn a_trusted_proxy_sets_scheme_and_host() {
    let site = Site::start(&refs(&entries(3))).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, _clock) = common::app_with(dir.path(), |c| {
        c.server.trusted_proxies =
            vec![sitefeed::config::IpRange::parse("127.0.0.0/8").expect("range")];
    });
    let base = common::serve(app.clone()).await;
    let c = Client::new();
    let id = common::add_watch(&c, &base, &site.url()).await;
    let w = json(
        c.get(format!("{base}/api/watches/{id}"))
            .header("x-forwarded-proto", "https")
            .header("x-forwarded-host", "feeds.example.org"),
    )
    .await;
    assert_eq!(
        w["feeds"]["atom"].as_str(),
        Some(format!("https://feeds.example.org/feed/{id}.atom").as_str())
    );
    let w = json(c.get(format!("{base}/api/watches/{id}")).header(
        "forwarded",
        "for=10.0.0.1;proto=https;host=\"pub.example:8443\"",
    ))
    .await;
    assert_eq!(
        w["feed_url"].as_str(),
        Some(format!("https://pub.example:8443/feed/{id}.xml").as_str())
    );
    // The feed's own self link follows too, once the watch has a baseline.
    app.check(&app.find(&id).expect("watch"), false)
        .await
        .expect("check");
    let rss = c
        .get(format!("{base}/feed/{id}.xml"))
        .header("x-forwarded-proto", "https")
        .header("x-forwarded-host", "feeds.example.org")
        .send()
        .await
        .expect("feed")
        .text()
        .await
        .expect("text");
    assert!(
        rss.contains(&format!("https://feeds.example.org/feed/{id}.xml")),
        "{rss}"
    );
    // A forged host with a path is not written into URLs.
    let w = json(
        c.get(format!("{base}/api/watches/{id}"))
            .header("x-forwarded-host", "evil.example/phish"),
    )
    .await;
    assert!(
        !w["feed_url"].as_str().expect("url").contains("evil"),
        "{w}"
    );
}

#[tokio::test]
async fn sitefeed_base_url_from_the_environment_reaches_cli_and_server() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("c.toml"), "").expect("config");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sitefeed"))
        .args(["--config"])
        .arg(dir.path().join("c.toml"))
        .args(["add", "https://example.org/news/"])
        .env("SITEFEED_DATA", dir.path().join("data"))
        .env("SITEFEED_BASE_URL", "https://feeds.example.org/")
        .env("RUST_LOG", "warn")
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("\thttps://feeds.example.org/feed/"),
        "{stdout}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr
            .contains("Paste this feed URL into your feed reader: https://feeds.example.org/feed/"),
        "{stderr}"
    );
    // Without it, the CLI says what to set.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sitefeed"))
        .args(["--config"])
        .arg(dir.path().join("c.toml"))
        .args(["add", "https://example.org/other/"])
        .env("SITEFEED_DATA", dir.path().join("data"))
        .env_remove("SITEFEED_BASE_URL")
        .env("RUST_LOG", "warn")
        .output()
        .expect("run");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("SITEFEED_BASE_URL"), "{stderr}");
}
