//! SIGKILL a running `sitefeed serve` between checks and restart it on the same data
//! directory: every item served before the kill is served after, none twice.

mod common;

use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::SeqCst};
use std::sync::Arc;
use std::time::Duration;

use common::Site;

async fn feed_links(client: &reqwest::Client, base: &str, id: &str) -> Vec<String> {
    common::parsed_feed(client, &format!("{base}/feed/{id}.xml"))
        .await
        .entries
        .iter()
        .map(|e| e.links[0].href.clone())
        .collect()
}

async fn check(client: &reqwest::Client, base: &str, id: &str) -> serde_json::Value {
    client
        .post(format!("{base}/api/watches/{id}/check"))
        .send()
        .await
        .expect("check")
        .json()
        .await
        .expect("json")
}

/// SIGKILL, then `sitefeed serve` again on the same data directory.
async fn kill_and_restart(
    mut server: common::ServeProcess,
    dir: &std::path::Path,
) -> common::ServeProcess {
    server.child.kill().expect("SIGKILL");
    server.child.wait().expect("wait");
    drop(server);
    common::start_serve(dir).await
}

/// `sitefeed serve` checking every second, with a watch on `site` (and `webhook`, when
/// given) whose page is recorded as it is: a second fetch came, so the first check has
/// committed. Returns the server and the watch's id.
async fn checked_every_second(
    site: &Site,
    dir: &std::path::Path,
    client: &reqwest::Client,
    webhook: Option<&str>,
) -> (common::ServeProcess, String) {
    let every_second = "initial_interval = \"1s\"\nmin_interval = \"1s\"\nmax_interval = \"1s\"\n";
    let server = common::start_serve_with(dir, every_second).await;
    let id = common::add_watch(client, &server.base, &site.url()).await;
    if let Some(url) = webhook {
        let r = client
            .patch(format!("{}/api/watches/{id}", server.base))
            .json(&serde_json::json!({ "webhook": url }))
            .send()
            .await
            .expect("patch");
        assert_eq!(r.status(), 200);
    }
    for _ in 0..200 {
        if site.requests() >= 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert!(site.requests() >= 2, "the scheduler checks every second");
    (server, id)
}

#[tokio::test]
async fn items_survive_sigkill_and_are_not_emitted_twice() {
    let site = Site::start(&[("A", "/n/1"), ("B", "/n/2")]).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let client = reqwest::Client::new();

    let server = common::start_serve(dir.path()).await;
    let id = common::add_watch(&client, &server.base, &site.url()).await;
    check(&client, &server.base, &id).await; // baseline (or already done by the scheduler)
                                             // The scheduler checks the new watch too, one host turn (fetch.per_host_delay) apart
                                             // from ours: let both fetch the old page, or the scheduler may be the one that sees
                                             // the change below and leave our check nothing new.
    for _ in 0..100 {
        if site.requests() >= 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    site.set(&[("C", "/n/3"), ("A", "/n/1"), ("B", "/n/2")]);
    let r = check(&client, &server.base, &id).await;
    assert_eq!(r["new_items"], 1, "{r}");
    // The check's answer served the item: no feed is read before the kill.
    let before = vec![r["items"][0]["link"].as_str().expect("link").to_owned()];
    assert_eq!(before, [site.url_of("/n/3")]);

    // Kill without warning, and restart on the same data directory.
    let server = kill_and_restart(server, dir.path()).await;
    assert_eq!(
        feed_links(&client, &server.base, &id).await,
        before,
        "served items survive"
    );

    // The same page again: nothing new. Then one more entry: only it is new.
    let r = check(&client, &server.base, &id).await;
    assert_eq!(r["new_items"], 0, "{r}");
    site.set(&[("D", "/n/4"), ("C", "/n/3"), ("A", "/n/1"), ("B", "/n/2")]);
    let r = check(&client, &server.base, &id).await;
    assert_eq!(r["new_items"], 1, "{r}");
    let after = feed_links(&client, &server.base, &id).await;
    assert_eq!(after.len(), 2);
    assert_eq!(after[1..], before[..]);
    let mut dedup = after.clone();
    dedup.sort();
    dedup.dedup();
    assert_eq!(dedup.len(), after.len(), "no item twice");
}

/// The scheduler's check does not wait for the disk; the feed that first shows its item
/// does. Killed right after that feed, the item is there after the restart, although
/// the page no longer holds it (a lost item could not be found again).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_item_a_feed_showed_survives_sigkill_when_the_scheduler_found_it() {
    let site = Site::start(&[("A", "/n/1"), ("B", "/n/2")]).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let client = reqwest::Client::new();
    let (server, id) = checked_every_second(&site, dir.path(), &client, None).await;
    site.set(&[("C", "/n/3"), ("A", "/n/1"), ("B", "/n/2")]);
    // (before its first item, a feed shows one that points at the page)
    let mut shown = Vec::new();
    for _ in 0..500 {
        shown = feed_links(&client, &server.base, &id).await;
        if shown.iter().any(|l| l.ends_with("/n/3")) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(
        shown,
        [site.url_of("/n/3")],
        "the scheduler found the new entry"
    );
    site.set(&[("A", "/n/1"), ("B", "/n/2")]);
    let server = kill_and_restart(server, dir.path()).await;
    assert_eq!(feed_links(&client, &server.base, &id).await, shown);
}

/// A webhook receiver that SIGKILLs the process whose id is in `pid` (0: none yet) the
/// moment a delivery arrives, before it answers: the process has no time left to make
/// anything durable after sending (sled's own flush comes every half second; this leaves
/// it a millisecond or two). Returns the URL and whether a delivery came.
async fn hook_that_kills(pid: Arc<AtomicU32>) -> (String, Arc<AtomicBool>) {
    use axum::routing::post;
    let came = Arc::new(AtomicBool::new(false));
    let c = came.clone();
    let app = axum::Router::new().route(
        "/hook",
        post(move |_body: String| {
            let (pid, came) = (pid.clone(), c.clone());
            async move {
                // Noted before the kill, so whoever sees the process gone sees it.
                came.store(true, SeqCst);
                // Once: a later delivery (of the process started again) kills nothing.
                let target = pid.swap(0, SeqCst);
                if target != 0 {
                    let _ = Command::new("kill")
                        .args(["-KILL", &target.to_string()])
                        .status();
                }
                axum::http::StatusCode::OK
            }
        }),
    );
    (format!("{}/hook", common::serve_router(app).await), came)
}

/// A webhook is sent only once its items are on disk: killed the moment the delivery
/// arrives (before it is answered), the process comes back with the item, which the page
/// no longer holds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_item_a_webhook_sent_survives_sigkill() {
    let site = Site::start(&[("A", "/n/1"), ("B", "/n/2")]).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let client = reqwest::Client::new();
    let pid = Arc::new(AtomicU32::new(0));
    let (url, came) = hook_that_kills(pid.clone()).await;
    let (mut server, id) = checked_every_second(&site, dir.path(), &client, Some(&url)).await;
    pid.store(server.child.id(), SeqCst);
    site.set(&[("C", "/n/3"), ("A", "/n/1"), ("B", "/n/2")]);
    let mut exited = None;
    for _ in 0..1000 {
        exited = server.child.try_wait().expect("try_wait");
        if exited.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert!(came.load(SeqCst), "delivered");
    assert!(exited.is_some(), "killed when the delivery came");
    site.set(&[("A", "/n/1"), ("B", "/n/2")]);
    drop(server);
    let server = common::start_serve(dir.path()).await;
    assert_eq!(
        feed_links(&client, &server.base, &id).await,
        [site.url_of("/n/3")]
    );
}

#[tokio::test]
async fn sigterm_shuts_down_cleanly_and_keeps_data() {
    let site = Site::start(&[("A", "/n/1")]).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let client = reqwest::Client::new();
    let mut server = common::start_serve(dir.path()).await;
    let id = common::add_watch(&client, &server.base, &site.url()).await;
    let status = Command::new("kill")
        .args(["-TERM", &server.child.id().to_string()])
        .status()
        .expect("kill -TERM");
    assert!(status.success());
    let mut exited = None;
    for _ in 0..100 {
        if let Some(s) = server.child.try_wait().expect("try_wait") {
            exited = Some(s);
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let exited = exited.expect("sitefeed serve exits on SIGTERM within 5 s");
    assert!(exited.success(), "clean exit, got {exited:?}");
    drop(server);
    let server = common::start_serve(dir.path()).await;
    let resp = client
        .get(format!("{}/api/watches/{id}", server.base))
        .send()
        .await
        .expect("show");
    assert_eq!(resp.status(), 200, "the watch survives a clean restart");
}

fn cli(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_sitefeed"))
        .arg("--config")
        .arg(dir.join("sitefeed.toml"))
        .args(args)
        .env("RUST_LOG", "warn")
        .output()
        .expect("run sitefeed")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn store_commands_go_through_a_running_server() {
    let site = Site::start(&[("A", "/n/1"), ("B", "/n/2")]).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let _server = common::start_serve(dir.path()).await;
    let d = dir.path().to_path_buf();
    let url = site.url();
    let (add, again, list, bad) = tokio::task::spawn_blocking(move || {
        (
            cli(&d, &["add", &url]),
            cli(&d, &["add", &url]),
            cli(&d, &["list"]),
            cli(&d, &["add", "ftp://x/"]),
        )
    })
    .await
    .expect("cli");
    assert!(
        add.status.success(),
        "{}",
        String::from_utf8_lossy(&add.stderr)
    );
    let line = String::from_utf8_lossy(&add.stdout).to_string();
    let id = line.split('\t').next().expect("id").to_owned();
    assert!(line.trim_end().ends_with("added"), "{line}");
    assert!(String::from_utf8_lossy(&again.stdout).starts_with(&format!("{id}\t")));
    assert!(String::from_utf8_lossy(&again.stdout)
        .trim_end()
        .ends_with("exists"));
    assert!(String::from_utf8_lossy(&list.stdout).contains(&id));
    assert_eq!(
        bad.status.code(),
        Some(2),
        "bad input stays exit 2 through the server"
    );

    // A check before the page changes: the baseline (or, if the scheduler set it
    // already, an unchanged page). Then C appears and the next check reports it.
    let d = dir.path().to_path_buf();
    let id2 = id.clone();
    let before = tokio::task::spawn_blocking(move || cli(&d, &["check", &id2]))
        .await
        .expect("cli");
    assert!(
        before.status.success(),
        "{}",
        String::from_utf8_lossy(&before.stderr)
    );
    assert!(before.stdout.is_empty());
    site.set(&[("C", "/n/3"), ("A", "/n/1"), ("B", "/n/2")]);
    let d = dir.path().to_path_buf();
    let (check, remove) = tokio::task::spawn_blocking(move || {
        (cli(&d, &["check", &id]), cli(&d, &["remove", "--yes", &id]))
    })
    .await
    .expect("cli");
    let out = String::from_utf8_lossy(&check.stdout);
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(out.contains("\"title\":\"C\""), "{out}");
    assert!(remove.status.success());
}
