//! The first hour of a new user, end to end: feed URLs that work beyond localhost, check
//! now, editing a watch, failures visible in the feed, logs, read-only commands. Local
//! servers on 127.0.0.1:0; nothing leaves the machine.

mod common;

use common::{feed_entries, get_text, hook, json, notices, parsed_feed, refs, Site};
use reqwest::Client;
use serde_json::Value;
use sitefeed::schedule::clock::Clock;

/// An app on a temporary store with a manual clock and no per-host delay.
fn fast_app(
    dir: &std::path::Path,
) -> (
    std::sync::Arc<sitefeed::App>,
    sitefeed::schedule::clock::ManualClock,
) {
    common::app(dir)
}

#[tokio::test]
async fn feed_urls_follow_the_request_and_trusted_proxies_only() {
    let site = Site::start(&refs(&notices(3))).await;
    let dir = tempfile::tempdir().expect("tempdir");
    // No base_url: URLs come from the request.
    let (app, _clock) = fast_app(dir.path());
    assert!(app.config().server.base_url.is_none());
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
    let r = c
        .get(format!("{base}/feed/{id}.xml"))
        .send()
        .await
        .expect("feed");
    // Every `Vary` header counts (a feed also varies with `Accept-Encoding`).
    let vary: Vec<&str> = r
        .headers()
        .get_all("vary")
        .iter()
        .flat_map(|v| v.to_str().expect("vary text").split(','))
        .map(str::trim)
        .collect();
    assert!(
        vary.contains(&"Host"),
        "caches keep one answer per host: {vary:?}"
    );
    assert!(!page.contains("127.0.0.1:8080/feed"));
}

#[tokio::test]
async fn a_trusted_proxy_sets_scheme_and_host() {
    let site = Site::start(&refs(&notices(3))).await;
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

async fn check_now(c: &Client, base: &str, id: &str) -> Value {
    json(c.post(format!("{base}/api/watches/{id}/check"))).await
}

#[tokio::test]
async fn check_now_after_a_fix_and_failing_watches_are_rechecked_at_start() {
    let site = Site::start(&refs(&notices(3))).await;
    site.set_raw("application/pdf", b"%PDF-1.4".to_vec());
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, clock) = fast_app(dir.path());
    let base = common::serve(app.clone()).await;
    let c = Client::new();
    let id = common::add_watch(&c, &base, &site.url()).await;
    let r = check_now(&c, &base, &id).await;
    assert!(
        r["error"]
            .as_str()
            .expect("error")
            .contains("not an HTML page"),
        "{r}"
    );
    let w = json(c.get(format!("{base}/api/watches/{id}"))).await;
    assert_eq!(w["status"], "error");
    assert_eq!(w["consecutive_errors"], 1);
    assert!(w["error_since"].is_string(), "{w}");
    // The site is fixed: a check now sees it at once.
    site.set(&refs(&notices(3)));
    let r = check_now(&c, &base, &id).await;
    assert!(r["error"].is_null(), "{r}");
    assert_eq!(r["baseline"], true);
    let w = json(c.get(format!("{base}/api/watches/{id}"))).await;
    assert_eq!(w["status"], "ok");
    assert!(w["error_since"].is_null());

    // Failing again, many times: the backoff is capped (error_backoff_max, 6h).
    site.set_raw("application/pdf", b"%PDF-1.4".to_vec());
    let wid = app.find(&id).expect("watch");
    for _ in 0..8 {
        clock.advance(3600);
        let r = app.check(&wid, false).await.expect("check");
        assert!(r.error.is_some());
        assert!(r.next_check - clock.now() <= 6 * 3600, "capped backoff");
    }
    // A restart (or a config fix) re-checks failing watches within a minute.
    let before = app.store().state(&wid.id).expect("state").expect("some");
    assert!(before.next_check > clock.now() + 3600);
    assert_eq!(app.recheck_failing().expect("recheck"), 1);
    let after = app.store().state(&wid.id).expect("state").expect("some");
    assert!(
        after.next_check <= clock.now() + 60,
        "{}",
        after.next_check - clock.now()
    );
    let due = app.store().due(clock.now() + 60, 10).expect("due");
    assert_eq!(due.len(), 1, "one due entry, at the new time");
    assert_eq!(due[0].0, after.next_check);
}

#[tokio::test]
async fn check_dry_run_through_the_api_stores_nothing() {
    let site = Site::start(&refs(&notices(3))).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, _clock) = fast_app(dir.path());
    let base = common::serve(app.clone()).await;
    let c = Client::new();
    let id = common::add_watch(&c, &base, &site.url()).await;
    let r = json(c.post(format!("{base}/api/watches/{id}/check?dry_run=true"))).await;
    assert_eq!(r["baseline"], true, "{r}");
    let w = json(c.get(format!("{base}/api/watches/{id}"))).await;
    assert_eq!(w["checks"], 0, "a dry run is not stored");
    assert_eq!(w["status"], "new");
}

#[tokio::test]
async fn patch_a_watch_then_its_feed_follows_without_a_flood() {
    let site = Site::start(&refs(&notices(10))).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, clock) = fast_app(dir.path());
    let base = common::serve(app.clone()).await;
    let c = Client::new();
    let id = common::add_watch(&c, &base, &site.url()).await;
    check_now(&c, &base, &id).await;
    let mut page = notices(11);
    site.set(&refs(&page));
    clock.advance(600);
    let r = check_now(&c, &base, &id).await;
    assert_eq!(r["new_items"], 1, "{r}");

    // PUT is not an edit; PATCH is.
    let put = c
        .put(format!("{base}/api/watches/{id}"))
        .json(&serde_json::json!({"title": "x"}))
        .send()
        .await
        .expect("put");
    assert_eq!(put.status(), 405);
    let patch = |body: Value| {
        c.patch(format!("{base}/api/watches/{id}"))
            .json(&body)
            .send()
    };
    let r = patch(serde_json::json!({"title": "Board", "select": "#list", "tags": ["News", "uni"], "min_interval": "10m", "max_interval": "2h"}))
        .await
        .expect("patch");
    assert_eq!(r.status(), 200);
    let w: Value = r.json().await.expect("json");
    assert_eq!(w["title"], "Board");
    assert_eq!(w["select"], "#list");
    assert_eq!(w["tags"], serde_json::json!(["news", "uni"]));
    assert_eq!(w["min_interval"], 600);
    assert_eq!(w["max_interval"], 7200);
    assert!(w["note"].as_str().unwrap_or("").contains("selector"), "{w}");

    // The next check is a baseline: nothing from the page is new, though the region
    // changed the link array.
    page.insert(0, ("Notice 12".into(), "/n/12".into()));
    site.set(&refs(&page));
    clock.advance(600);
    let r = check_now(&c, &base, &id).await;
    assert_eq!(r["baseline"], true, "{r}");
    assert_eq!(r["new_items"], 0, "{r}");
    assert!(r["next_check"].as_str().is_some(), "{r}");
    // After it, a new entry is one item; the feed has the title and two items.
    page.insert(0, ("Notice 13".into(), "/n/13".into()));
    site.set(&refs(&page));
    clock.advance(600);
    let r = check_now(&c, &base, &id).await;
    assert_eq!(r["new_items"], 1, "{r}");
    let next = chrono::DateTime::parse_from_rfc3339(r["next_check"].as_str().expect("next"))
        .expect("date")
        .timestamp();
    assert!(next - clock.now() <= 7200, "the watch's max_interval holds");
    let items = feed_entries(&c, &format!("{base}/feed/{id}.xml")).await;
    let titles: Vec<&str> = items.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(titles, ["Notice 13", "Notice 11"], "{items:?}");
    let feed = get_text(&c, &format!("{base}/feed/{id}.xml")).await;
    assert!(feed.contains("<title>Board</title>"));

    // Bad edits are 400 with a JSON error and change nothing.
    for bad in [
        serde_json::json!({"depth": 7}),
        serde_json::json!({"select": "div[["}),
        serde_json::json!({"min_interval": "soon"}),
        serde_json::json!({"min_interval": "3h", "max_interval": "1h"}),
        serde_json::json!({"tags": ["a/b"]}),
        serde_json::json!({"colour": "red"}),
        serde_json::json!({"webhook": "ftp://x"}),
    ] {
        let r = patch(bad.clone()).await.expect("patch");
        assert_eq!(r.status(), 400, "{bad}");
        let v: Value = r.json().await.expect("json error");
        assert!(v["error"].is_string(), "{bad}: {v}");
    }
    let w = json(c.get(format!("{base}/api/watches/{id}"))).await;
    assert_eq!(w["select"], "#list");
    assert_eq!(w["depth"], 1);

    // Paused: out of the due index, not checked by the scheduler; resumed: due now.
    patch(serde_json::json!({"paused": true}))
        .await
        .expect("pause");
    assert!(app.store().due(i64::MAX - 1, 10).expect("due").is_empty());
    check_now(&c, &base, &id).await;
    assert!(
        app.store().due(i64::MAX - 1, 10).expect("due").is_empty(),
        "a check by hand does not put a paused watch back on the schedule"
    );
    let w: Value = patch(serde_json::json!({"paused": false}))
        .await
        .expect("resume")
        .json()
        .await
        .expect("json");
    assert_eq!(w["paused"], false);
    let due = app.store().due(clock.now(), 10).expect("due");
    assert_eq!(due.len(), 1, "resumed: due now");
}

#[tokio::test]
async fn a_failing_watch_says_so_in_its_feed_after_a_day_and_not_after_it_recovers() {
    let site = Site::start(&refs(&notices(3))).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, clock) = fast_app(dir.path());
    let base = common::serve(app.clone()).await;
    let c = Client::new();
    let id = common::add_watch(&c, &base, &site.url()).await;
    let w = app.find(&id).expect("watch");
    let feed = format!("{base}/feed/{id}.xml");
    app.check(&w, false).await.expect("baseline");
    let error_items = |items: &[(String, String)]| {
        items
            .iter()
            .filter(|(guid, _)| guid.starts_with("error-"))
            .cloned()
            .collect::<Vec<_>>()
    };

    site.set_raw("application/pdf", b"%PDF-1.4".to_vec());
    clock.advance(3600);
    app.check(&w, false).await.expect("check");
    clock.advance(22 * 3600);
    app.check(&w, false).await.expect("check");
    assert!(
        error_items(&feed_entries(&c, &feed).await).is_empty(),
        "not before a day (feed.error_item_after)"
    );
    clock.advance(2 * 3600);
    let items = feed_entries(&c, &feed).await;
    let errs = error_items(&items);
    assert_eq!(errs.len(), 1, "{items:?}");
    assert_eq!(items[0], errs[0], "at the top of the feed");
    assert!(errs[0].1.contains("not an HTML page"), "{errs:?}");
    assert!(errs[0].1.contains("since 2023-11-14 23:13 UTC"), "{errs:?}");
    // Same episode, same guid, one item, whatever further checks say.
    clock.advance(3600);
    app.check(&w, false).await.expect("check");
    let again = error_items(&feed_entries(&c, &feed).await);
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].0, errs[0].0);
    // Atom and JSON carry it too, and parse.
    for ext in ["atom", "json"] {
        let f = parsed_feed(&c, &format!("{base}/feed/{id}.{ext}")).await;
        assert!(f.entries[0].id.contains("error-"), "{ext}");
    }
    // A watch may turn it off.
    c.patch(format!("{base}/api/watches/{id}"))
        .json(&serde_json::json!({"error_item": false}))
        .send()
        .await
        .expect("patch");
    assert!(error_items(&feed_entries(&c, &feed).await).is_empty());
    c.patch(format!("{base}/api/watches/{id}"))
        .json(&serde_json::json!({"error_item": true}))
        .send()
        .await
        .expect("patch");
    assert_eq!(error_items(&feed_entries(&c, &feed).await).len(), 1);

    // Recovered: gone.
    site.set(&refs(&notices(3)));
    clock.advance(3600);
    let r = app.check(&w, false).await.expect("check");
    assert!(r.error.is_none(), "{r:?}");
    assert!(error_items(&feed_entries(&c, &feed).await).is_empty());
    // A new run of failures is a new item, with a new guid.
    site.set_raw("application/pdf", b"%PDF-1.4".to_vec());
    clock.advance(3600);
    app.check(&w, false).await.expect("check");
    clock.advance(25 * 3600);
    let next = error_items(&feed_entries(&c, &feed).await);
    assert_eq!(next.len(), 1);
    assert_ne!(next[0].0, errs[0].0);
}

#[tokio::test]
async fn connection_refused_is_reported_as_such_not_as_robots_txt() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    // Nothing listens there now.
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, _clock) = fast_app(dir.path());
    let (w, _) = app
        .add_watch(&sitefeed::app::NewWatch {
            url: format!("http://127.0.0.1:{port}/"),
            ..Default::default()
        })
        .expect("add");
    let r = app.check(&w, false).await.expect("check");
    let e = r.error.expect("fails");
    assert!(e.contains("connection refused"), "{e}");
    assert!(!e.contains("robots"), "{e}");
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port()
}

#[test]
fn read_only_commands_in_an_empty_directory_create_nothing_and_say_where_they_looked() {
    let dir = tempfile::tempdir().expect("tempdir");
    for args in [
        &["list"][..],
        &["export-opml"][..],
        &["check", "--dry-run", "0123456789ab"][..],
        &["remove", "--yes", "0123456789ab"][..],
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_sitefeed"))
            .current_dir(dir.path())
            .args(args)
            .env_remove("SITEFEED_DATA")
            .env_remove("SITEFEED_CONFIG")
            .env("SITEFEED_LISTEN", format!("127.0.0.1:{}", free_port()))
            .env("RUST_LOG", "warn")
            .output()
            .expect("run");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("no store at "), "{args:?}: {err}");
        assert!(
            err.contains(&dir.path().join("data").display().to_string()),
            "names the absolute path it looked at: {err}"
        );
        assert_eq!(
            out.status.code(),
            Some(if args[0] == "list" { 0 } else { 2 }),
            "{args:?}"
        );
        assert_eq!(
            std::fs::read_dir(dir.path()).expect("dir").count(),
            0,
            "{args:?} created nothing"
        );
    }
}

#[tokio::test]
async fn serve_logs_each_check_at_info_without_colours_and_says_where_its_files_are() {
    let site = Site::start(&refs(&notices(3))).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let port = free_port();
    let cfg = dir.path().join("sitefeed.toml");
    std::fs::write(
        &cfg,
        format!(
            "[server]\nlisten = \"127.0.0.1:{port}\"\n[storage]\npath = {:?}\n\
             [fetch]\nallow_private_addresses = true\nper_host_delay_ms = 0\n",
            dir.path().join("data").display().to_string()
        ),
    )
    .expect("config");
    let log = dir.path().join("log.txt");
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_sitefeed"))
        .arg("--config")
        .arg(&cfg)
        .arg("serve")
        .env_remove("RUST_LOG")
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(&log).expect("log file"))
        .spawn()
        .expect("spawn");
    let _server = common::ServeProcess {
        child,
        base: format!("http://127.0.0.1:{port}"),
    };
    let c = Client::new();
    let base = format!("http://127.0.0.1:{port}");
    let mut up = false;
    for _ in 0..200 {
        if c.get(format!("{base}/healthz")).send().await.is_ok() {
            up = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(up, "serve came up");
    let id = common::add_watch(&c, &base, &site.url()).await;
    let mut text = String::new();
    for _ in 0..200 {
        text = std::fs::read_to_string(&log).expect("log");
        if text.contains("checked") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(
        !text.contains('\u{1b}'),
        "no escape codes in a file: {text}"
    );
    let line = text
        .lines()
        .find(|l| l.contains("checked") && l.contains(&id))
        .unwrap_or_else(|| panic!("one INFO line per check: {text}"));
    assert!(line.contains("INFO"), "{line}");
    assert!(line.contains("new_items=0"), "{line}");
    assert!(line.contains("baseline=true"), "{line}");
    assert!(
        text.contains(&cfg.display().to_string()),
        "the config path: {text}"
    );
    assert!(
        text.contains(&dir.path().join("data").display().to_string()),
        "the data directory: {text}"
    );
    assert!(
        !text
            .lines()
            .any(|l| l.contains("INFO") && l.contains("sled")),
        "sled's internals stay below INFO: {text}"
    );
}

#[test]
fn log_format_json_writes_one_object_per_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    // A busy port: serve logs its start, then fails to listen.
    let busy = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sitefeed"))
        .args(["--log-format", "json", "serve"])
        .current_dir(dir.path())
        .env("SITEFEED_DATA", dir.path().join("data"))
        .env_remove("SITEFEED_CONFIG")
        .env(
            "SITEFEED_LISTEN",
            busy.local_addr().expect("addr").to_string(),
        )
        .env("RUST_LOG", "info")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    let objects: Vec<Value> = err
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).expect("a JSON object per line"))
        .collect();
    assert!(
        objects
            .iter()
            .any(|o| o["fields"]["message"] == "starting" && o["level"] == "INFO"),
        "{err}"
    );
}

#[tokio::test]
#[allow(clippy::too_many_lines, reason = "one user story, step by step")]
async fn tags_filters_tag_feeds_and_opml_folders() {
    let site = Site::start(&refs(&notices(3))).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, clock) = fast_app(dir.path());
    let base = common::serve(app.clone()).await;
    let c = Client::new();
    let add = |q: &str, title: &str, tags: Vec<&str>| {
        c.post(format!("{base}/api/watches"))
            .json(&serde_json::json!({"url": format!("{}?{q}", site.url()), "title": title, "tags": tags}))
            .send()
    };
    let alpha: Value = add("a", "Alpha board", vec!["News", "uni"])
        .await
        .expect("add")
        .json()
        .await
        .expect("json");
    let beta: Value = add("b", "Beta board", vec!["news"])
        .await
        .expect("add")
        .json()
        .await
        .expect("json");
    add("c", "Gamma", vec![]).await.expect("add");
    assert_eq!(alpha["tags"], serde_json::json!(["news", "uni"]));
    let (ida, idb) = (
        alpha["id"].as_str().expect("id").to_owned(),
        beta["id"].as_str().expect("id").to_owned(),
    );

    // The plain list is still an array of all; query parameters narrow it.
    let all = json(c.get(format!("{base}/api/watches"))).await;
    assert_eq!(all.as_array().expect("array").len(), 3);
    let ids = |v: &Value| -> Vec<String> {
        v.as_array()
            .expect("array")
            .iter()
            .map(|w| w["title"].as_str().expect("title").to_owned())
            .collect()
    };
    let v = json(c.get(format!("{base}/api/watches?tag=news&sort=title"))).await;
    assert_eq!(ids(&v), ["Alpha board", "Beta board"]);
    let v = json(c.get(format!("{base}/api/watches?q=BOARD%20beta"))).await;
    assert_eq!(ids(&v), ["Beta board"]);
    let r = c
        .get(format!("{base}/api/watches?sort=-title&per_page=2&page=2"))
        .send()
        .await
        .expect("list");
    assert_eq!(r.headers()["x-total-count"], "3");
    assert_eq!(ids(&r.json().await.expect("json")), ["Alpha board"]);
    for bad in ["status=broken", "sort=colour", "page=first"] {
        let r = c
            .get(format!("{base}/api/watches?{bad}"))
            .send()
            .await
            .expect("list");
        assert_eq!(r.status(), 400, "{bad}");
        let v: Value = r.json().await.expect("json error");
        assert!(v["error"].is_string(), "{bad}");
    }

    // A check of each: the tag's feed carries the items of both tagged watches, once.
    for id in [&ida, &idb] {
        check_now(&c, &base, id).await;
    }
    site.set(&refs(&notices(4)));
    clock.advance(600);
    for id in [&ida, &idb] {
        let r = check_now(&c, &base, id).await;
        assert_eq!(r["new_items"], 1, "{r}");
    }
    let items = feed_entries(&c, &format!("{base}/feed/tag/news.xml")).await;
    assert_eq!(
        items.len(),
        1,
        "the same link in two watches is one item: {items:?}"
    );
    assert_eq!(items[0].1, "Notice 4");
    let rss = get_text(&c, &format!("{base}/feed/tag/news.xml")).await;
    assert!(
        rss.contains(&format!("{base}/feed/tag/news.xml")),
        "self link: {rss}"
    );
    assert!(rss.contains("<title>sitefeed: news</title>"));
    let missing = c
        .get(format!("{base}/feed/tag/nothing.xml"))
        .send()
        .await
        .expect("feed");
    assert_eq!(missing.status(), 404);

    // OPML: folders out, one OPML per tag, and folders back in as tags.
    let opml = get_text(&c, &format!("{base}/opml")).await;
    assert!(opml.contains("<outline text=\"news\""), "{opml}");
    let news = get_text(&c, &format!("{base}/opml?tag=uni")).await;
    assert_eq!(news.matches("xmlUrl=").count(), 1, "{news}");
    let dir2 = tempfile::tempdir().expect("tempdir");
    let (app2, _) = fast_app(dir2.path());
    let report = app2.import_opml(&opml).expect("import");
    assert_eq!(report.added, 3);
    let tagged: Vec<Vec<String>> = app2
        .store()
        .watches()
        .expect("watches")
        .iter()
        .map(|w| w.options.tags.clone())
        .filter(|t| !t.is_empty())
        .collect();
    assert_eq!(tagged.len(), 2, "{tagged:?}");
    assert!(tagged.contains(&vec!["news".to_owned(), "uni".to_owned()]));
    // A reader's folder names become tags.
    let foreign = r#"<opml version="2.0"><body><outline text="Tech &amp; Science"><outline text="X" xmlUrl="https://x.example/feed"/></outline></body></opml>"#;
    app2.import_opml(foreign).expect("import");
    let x = app2.find("https://x.example/feed").expect("x");
    assert_eq!(x.options.tags, ["tech science"]);

    // The web list: filter by tag; adding an existing URL says so and links it.
    let page = get_text(&c, &format!("{base}/?tag=uni")).await;
    assert_eq!(page.matches("class=\"watchrow\"").count(), 1, "{page}");
    assert!(page.contains("/feed/tag/uni.xml"));
    let page = get_text(&c, &format!("{base}/?exists={ida}")).await;
    assert!(page.contains("Already watched"), "{page}");
    assert!(page.contains(&format!("href=\"/watches/{ida}\"")));
}

async fn webhook_outcome(c: &Client, base: &str, id: &str) -> Value {
    for _ in 0..100 {
        let w = json(c.get(format!("{base}/api/watches/{id}"))).await;
        if w["webhook_at"].is_string() {
            return w;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("no webhook outcome recorded");
}

#[tokio::test]
async fn a_webhook_gets_new_items_as_json_feed_retried_and_failures_show() {
    let site = Site::start(&refs(&notices(3))).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, clock) = fast_app(dir.path());
    let base = common::serve(app.clone()).await;
    let c = Client::new();
    let id = common::add_watch(&c, &base, &site.url()).await;
    let (url, got) = hook(vec![503, 200]).await;
    let r = c
        .patch(format!("{base}/api/watches/{id}"))
        .json(&serde_json::json!({"webhook": url}))
        .send()
        .await
        .expect("patch");
    assert_eq!(r.status(), 200);
    check_now(&c, &base, &id).await;
    site.set(&refs(&notices(4)));
    clock.advance(600);
    assert_eq!(check_now(&c, &base, &id).await["new_items"], 1);
    let w = webhook_outcome(&c, &base, &id).await;
    assert!(w["webhook_error"].is_null(), "delivered on the retry: {w}");
    let bodies = got.lock().expect("lock").clone();
    assert_eq!(bodies.len(), 2, "one 503, then one delivery");
    let feed: Value = serde_json::from_str(&bodies[1]).expect("a JSON Feed");
    assert_eq!(feed["version"], "https://jsonfeed.org/version/1.1");
    assert_eq!(feed["items"][0]["title"], "Notice 4");
    assert_eq!(feed["items"].as_array().expect("items").len(), 1);

    // A webhook that keeps failing: the failure shows on the watch and its page.
    let (bad, got_bad) = hook(vec![500]).await;
    c.patch(format!("{base}/api/watches/{id}"))
        .json(&serde_json::json!({"webhook": bad}))
        .send()
        .await
        .expect("patch");
    site.set(&refs(&notices(5)));
    clock.advance(600);
    check_now(&c, &base, &id).await;
    let mut w = webhook_outcome(&c, &base, &id).await;
    for _ in 0..100 {
        if w["webhook_error"].is_string() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        w = json(c.get(format!("{base}/api/watches/{id}"))).await;
    }
    assert!(
        w["webhook_error"].as_str().expect("error").contains("500"),
        "{w}"
    );
    assert_eq!(got_bad.lock().expect("lock").len(), 3, "three attempts");
    let page = get_text(&c, &format!("{base}/watches/{id}")).await;
    assert!(page.contains("id=\"webhook\""), "{page}");
    assert!(page.contains("the webhook answered 500"));
}

/// A check that waited to start while the webhook and the title were changed sends its
/// items to the new webhook, under the new title, not as the record its caller read
/// before the edit says.
#[tokio::test]
async fn a_webhook_changed_before_a_check_starts_gets_its_items() {
    let site = Site::start(&refs(&notices(3))).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, clock) = fast_app(dir.path());
    let (old, got_old) = hook(vec![200]).await;
    let (new, got_new) = hook(vec![200]).await;
    let id = common::watch(&app, &site.url());
    let set = |url: String, title: &str| sitefeed::app::WatchEdit {
        webhook: Some(Some(url)),
        title: Some(Some(title.to_owned())),
        ..Default::default()
    };
    app.edit(&id, &set(old, "Old board")).await.expect("edit");
    let first = app.store().watch(&id).expect("read").expect("watch");
    let r = app.check(&first, false).await.expect("baseline");
    assert!(r.baseline);
    site.set(&refs(&notices(4)));
    clock.advance(600);
    // The scheduler's record, read before the edit.
    let stale = app.store().watch(&id).expect("read").expect("watch");
    app.edit(&id, &set(new, "New board")).await.expect("edit");
    let r = app.check(&stale, false).await.expect("check");
    assert_eq!(r.new_items.len(), 1);
    app.notify(&stale, &r);
    for _ in 0..100 {
        if !got_new.lock().expect("lock").is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let bodies = got_new.lock().expect("lock").clone();
    assert_eq!(bodies.len(), 1, "the new webhook got the item");
    let feed: Value = serde_json::from_str(&bodies[0]).expect("a JSON Feed");
    assert_eq!(feed["items"][0]["title"], "Notice 4");
    assert_eq!(feed["title"], "New board", "the watch's title as it stands");
    assert!(
        got_old.lock().expect("lock").is_empty(),
        "nothing went to the old webhook"
    );
}

// Multi-threaded: the test site must answer while a blocking CLI call waits.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sitefeed_edit_and_check_dry_run_work_alone_and_beside_the_service() {
    let site = Site::start(&refs(&notices(3))).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let cli = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_sitefeed"))
            .arg("--config")
            .arg(dir.path().join("sitefeed.toml"))
            .args(args)
            .env_remove("SITEFEED_DATA")
            .env_remove("SITEFEED_LISTEN")
            .env("RUST_LOG", "warn")
            .output()
            .expect("run");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    // Beside a running service first (start_serve writes the config the CLI reads).
    let server = common::start_serve(dir.path()).await;
    let base = server.base.clone();
    let c = Client::new();
    let id = common::add_watch(&c, &base, &site.url()).await;
    // Beside the service: through its API.
    let (code, out, err) = cli(&[
        "edit", &id, "--title", "Board", "--tags", "News,uni", "--pause",
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.starts_with(&format!("edited {id}\ttitle: Board")),
        "{out}"
    );
    assert!(
        out.contains("tags: news,uni") && out.contains("paused"),
        "{out}"
    );
    let w = json(c.get(format!("{base}/api/watches/{id}"))).await;
    assert_eq!(w["paused"], true);
    let (_, list, _) = cli(&["list"]);
    let line = list.lines().find(|l| l.starts_with(&id)).expect("listed");
    assert!(
        line.contains("\tpaused, ") && line.ends_with("\tnews,uni"),
        "{line}"
    );
    let (code, out, err) = cli(&["edit", &id, "--select", "#list", "--resume"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("re-baselined"), "{out}");
    let (code, _, err) = cli(&["edit", &id, "--depth", "9"]);
    assert_eq!(code, Some(2), "{err}");
    let (code, _, err) = cli(&["edit", &id, "--min-interval", "soon"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("soon"), "{err}");
    // The re-baseline check the edit asked for (the scheduler runs it at once).
    let mut checks_before = Value::Null;
    for _ in 0..200 {
        let w = json(c.get(format!("{base}/api/watches/{id}"))).await;
        if w["checks"].as_u64() >= Some(2) {
            assert_eq!(w["recent_checks"][0]["new_items"], 0, "{w}");
            checks_before = w["checks"].clone();
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(
        !checks_before.is_null(),
        "the scheduler re-baselined the watch"
    );
    let (code, _, err) = cli(&["check", "--dry-run", &id]);
    assert_eq!(code, Some(0), "{err}");
    let w = json(c.get(format!("{base}/api/watches/{id}"))).await;
    assert_eq!(w["checks"], checks_before, "a dry run stores nothing");
    drop(server);
    // The store alone: the same command opens it directly.
    let (code, out, err) = cli(&["edit", &id, "--title", "", "--tags", ""]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("tags: \t"), "{out}");
    let (_, list, _) = cli(&["list"]);
    assert!(list.contains(&id), "{list}");
}

#[tokio::test]
async fn times_are_shown_in_the_watch_or_server_time_zone() {
    let site = Site::start(&refs(&notices(3))).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, _clock) = common::app_with(dir.path(), |c| {
        c.server.timezone = chrono_tz::Tz::America__New_York;
    });
    let base = common::serve(app.clone()).await;
    let c = Client::new();
    let id = common::add_watch(&c, &base, &site.url()).await;
    check_now(&c, &base, &id).await;
    let page = |c: Client, base: String, id: String| async move {
        c.get(format!("{base}/watches/{id}"))
            .send()
            .await
            .expect("page")
            .text()
            .await
            .expect("text")
    };
    // 1_700_000_000 is 2023-11-14 22:13 UTC: 17:13 in New York (EST).
    let p = page(c.clone(), base.clone(), id.clone()).await;
    assert!(p.contains("2023-11-14 17:13 EST"), "{p}");
    let r = c
        .patch(format!("{base}/api/watches/{id}"))
        .json(&serde_json::json!({"timezone": "Europe/Berlin"}))
        .send()
        .await
        .expect("patch");
    let w: Value = r.json().await.expect("json");
    assert_eq!(w["timezone"], "Europe/Berlin");
    let p = page(c.clone(), base.clone(), id.clone()).await;
    assert!(p.contains("2023-11-14 23:13 CET"), "{p}");
    let r = c
        .patch(format!("{base}/api/watches/{id}"))
        .json(&serde_json::json!({"timezone": "Mars/Olympus"}))
        .send()
        .await
        .expect("patch");
    assert_eq!(r.status(), 400);
    // null: back to the server's.
    let w: Value = c
        .patch(format!("{base}/api/watches/{id}"))
        .json(&serde_json::json!({"timezone": null}))
        .send()
        .await
        .expect("patch")
        .json()
        .await
        .expect("json");
    assert_eq!(w["timezone"], "America/New_York");
}

/// `sitefeed serve` moves failing watches to be checked within a minute of its start (a
/// site back up, a config fixed), also now that it does so while it already answers: a
/// watch that failed, with its next check hours away, is due within a minute.
#[tokio::test]
async fn serve_checks_failing_watches_again_within_a_minute_of_its_start() {
    let site = Site::start(&refs(&notices(3))).await;
    site.set_raw("application/pdf", b"%PDF-1.4".to_vec());
    let dir = tempfile::tempdir().expect("tempdir");
    let now = chrono::Utc::now().timestamp();
    let id = {
        let (app, clock) = fast_app(&dir.path().join("data"));
        clock.set(now);
        let (w, _) = app
            .add_watch(&sitefeed::app::NewWatch {
                url: site.url(),
                ..Default::default()
            })
            .expect("add");
        for _ in 0..3 {
            let r = app.check(&w, false).await.expect("check");
            assert!(r.error.is_some(), "the page is not HTML");
        }
        let s = app.state(&w.id).expect("state").expect("a state");
        assert!(
            s.next_check > now + 3600,
            "backed off: {}",
            s.next_check - now
        );
        w.id.to_string()
    };
    // The app is gone (and the store's lock with it): the service starts on its data.
    let server = common::start_serve(dir.path()).await;
    let base = server.base.clone();
    let c = Client::new();
    let mut next = None;
    for _ in 0..200 {
        if let Ok(r) = c.get(format!("{base}/api/watches/{id}")).send().await {
            if r.status() == 200 {
                let w: Value = r.json().await.expect("json");
                let at = w["next_check"].as_str().expect("next_check").to_owned();
                let at = chrono::DateTime::parse_from_rfc3339(&at)
                    .expect("a time")
                    .timestamp();
                next = Some(at);
                if at <= now + 120 {
                    break;
                }
            }
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let next = next.expect("the service answered");
    // Within a minute of the start (which came a few seconds after `now`).
    assert!(
        next <= now + 120,
        "the failing watch is due soon after the start, not in {} s",
        next - now
    );
}
