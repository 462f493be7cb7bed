//! Many nodes on one PostgreSQL, with the built binary: two `sitefeed serve` processes
//! on one fresh database check local sites whose lists gain entries. Every new entry
//! appears exactly once in its feed, served by either node; one node is killed
//! (SIGKILL) in the middle of its checks and the other takes its hosts when their leases
//! expire, losing and doubling nothing; no host sees two requests closer than the
//! per-host delay across both nodes. A `Retry-After` one node got holds for the next node
//! that takes the host, even for a check by hand. Also `sitefeed migrate` from sled to PostgreSQL and
//! back. Needs the PostgreSQL server of the machine (`SITEFEED_TEST_DATABASE_URL`,
//! default `postgres://postgres@127.0.0.1:5432/test`): without one the tests print
//! `SKIPPED:` and pass, and fail under `CI=true`.

mod common;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::State;
use axum::routing::get;
use axum::Router;

const PER_HOST_DELAY_MS: u64 = 400;
const LEASE_SECS: u64 = 2;

fn server_url() -> String {
    std::env::var("SITEFEED_TEST_DATABASE_URL")
        .ok()
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| "postgres://postgres@127.0.0.1:5432/test".into())
}

/// A fresh database on the test server, dropped with the value.
struct TestDatabase {
    admin: tokio_postgres::Client,
    name: String,
    url: String,
}

impl TestDatabase {
    async fn create(test: &str) -> Option<Self> {
        let admin = match tokio_postgres::connect(&server_url(), tokio_postgres::NoTls).await {
            Ok((client, conn)) => {
                tokio::spawn(conn);
                client
            }
            Err(e) => {
                assert!(
                    std::env::var("CI").as_deref() != Ok("true"),
                    "PostgreSQL is needed under CI: {e}"
                );
                println!("SKIPPED: no PostgreSQL at {}: {e}", server_url());
                return None;
            }
        };
        let name = format!(
            "sitefeed_{test}_{}_{:08x}",
            std::process::id(),
            fastrand::u32(..)
        );
        admin
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .await
            .expect("create database");
        let base = server_url();
        let (prefix, query) = match base.split_once('?') {
            Some((p, q)) => (p.to_owned(), format!("?{q}")),
            None => (base.clone(), String::new()),
        };
        let root = prefix.rsplit_once('/').map_or(prefix.as_str(), |(r, _)| r);
        let url = format!("{root}/{name}{query}");
        Some(Self { admin, name, url })
    }

    async fn drop_now(self) {
        let _ = self
            .admin
            .batch_execute(&format!(
                "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                self.name
            ))
            .await;
    }
}

/// A local site whose list gains entries; it logs when each request came.
#[derive(Clone)]
struct Site {
    base: String,
    entries: Arc<Mutex<Vec<(String, String)>>>,
    log: Arc<Mutex<Vec<Instant>>>,
}

async fn page(State(site): State<Site>) -> axum::response::Html<String> {
    site.log.lock().expect("log").push(Instant::now());
    let entries = site.entries.lock().expect("entries").clone();
    axum::response::Html(common::list_page(&entries, 0))
}

impl Site {
    async fn start(name: &str) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let base = format!("http://{}", listener.local_addr().expect("addr"));
        let site = Self {
            base,
            entries: Arc::default(),
            log: Arc::default(),
        };
        for n in 0..3 {
            site.add(&format!("{name} old {n}"));
        }
        let app = Router::new().route("/", get(page)).with_state(site.clone());
        tokio::spawn(async move { axum::serve(listener, app).await.expect("site") });
        site
    }

    /// Adds an entry at the top; returns its absolute URL.
    fn add(&self, title: &str) -> String {
        let path = format!("/e/{}", title.replace(' ', "-"));
        self.entries
            .lock()
            .expect("entries")
            .insert(0, (title.to_owned(), path.clone()));
        format!("{}{path}", self.base)
    }

    /// The smallest gap between two requests, if two came.
    fn min_gap(&self) -> Option<Duration> {
        let log = self.log.lock().expect("log");
        log.windows(2).map(|w| w[1] - w[0]).min()
    }
}

/// A `sitefeed serve` node on the database, killed when dropped.
struct Node {
    child: std::process::Child,
    base: String,
}

impl Drop for Node {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn start_node(dir: &std::path::Path, name: &str, db_url: &str) -> Node {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    let cfg = dir.join(format!("{name}.toml"));
    std::fs::write(
        &cfg,
        format!(
            "[server]\nlisten = \"127.0.0.1:{port}\"\nbase_url = \"http://127.0.0.1:{port}\"\n\
             [storage]\nbackend = \"postgres\"\nurl = {db_url:?}\nlease_secs = {LEASE_SECS}\n\
             [fetch]\nallow_private_addresses = true\nrespect_robots = false\n\
             per_host_delay_ms = {PER_HOST_DELAY_MS}\n\
             [schedule]\nstrategy = \"fixed\"\ninitial_interval = \"1s\"\nmin_interval = \"1s\"\n"
        ),
    )
    .expect("config");
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_sitefeed"))
        .arg("--config")
        .arg(&cfg)
        .arg("serve")
        .env("RUST_LOG", "warn")
        .env_remove("SITEFEED_DATABASE_URL")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::inherit())
        .spawn()
        .expect("spawn sitefeed serve");
    let node = Node {
        child,
        base: format!("http://127.0.0.1:{port}"),
    };
    let client = reqwest::Client::new();
    for _ in 0..300 {
        if let Ok(r) = client.get(format!("{}/healthz", node.base)).send().await {
            if r.status() == 200 {
                return node;
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("sitefeed serve ({name}) did not come up");
}

/// How many times each of `urls` is in the JSON feed of `id` served by `base`.
async fn counts_in_feed(
    client: &reqwest::Client,
    base: &str,
    id: &str,
    urls: &[String],
) -> Vec<usize> {
    let feed: serde_json::Value = client
        .get(format!("{base}/feed/{id}.json"))
        .send()
        .await
        .expect("feed")
        .json()
        .await
        .expect("json feed");
    let links: Vec<&str> = feed["items"]
        .as_array()
        .map(|a| a.iter().filter_map(|i| i["url"].as_str()).collect())
        .unwrap_or_default();
    urls.iter()
        .map(|u| links.iter().filter(|l| *l == u).count())
        .collect()
}

/// Waits until every entry of `wanted` (watch id, entry URLs) is in its feed on `base`;
/// returns the counts seen last.
async fn wait_for_entries(
    client: &reqwest::Client,
    base: &str,
    wanted: &[(String, Vec<String>)],
    within: Duration,
) -> Vec<Vec<usize>> {
    let until = Instant::now() + within;
    loop {
        let mut all = Vec::new();
        for (id, urls) in wanted {
            all.push(counts_in_feed(client, base, id, urls).await);
        }
        if all.iter().flatten().all(|&n| n >= 1) || Instant::now() > until {
            return all;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// `sitefeed_checks_total` of the node at `base`.
async fn checks_run(client: &reqwest::Client, base: &str) -> u64 {
    let text = common::get_text(client, &format!("{base}/metrics")).await;
    text.lines()
        .find_map(|l| l.strip_prefix("sitefeed_checks_total "))
        .and_then(|v| v.trim().parse().ok())
        .expect("sitefeed_checks_total")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_nodes_share_the_hosts_lose_nothing_double_nothing_and_stay_polite() {
    let Some(db) = TestDatabase::create("twonodes").await else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let a = start_node(dir.path(), "a", &db.url).await;
    let b = start_node(dir.path(), "b", &db.url).await;
    let client = reqwest::Client::new();
    let mut sites = Vec::new();
    let mut ids = Vec::new();
    for n in 0..4 {
        let site = Site::start(&format!("site{n}")).await;
        // Watches are added on either node: both see them.
        let node = if n % 2 == 0 { &a } else { &b };
        ids.push(common::add_watch(&client, &node.base, &format!("{}/", site.base)).await);
        sites.push(site);
    }
    // Let the baselines be taken.
    tokio::time::sleep(Duration::from_secs(3)).await;

    // Round 1, both nodes up: new entries everywhere.
    let mut wanted: Vec<(String, Vec<String>)> =
        ids.iter().map(|id| (id.clone(), Vec::new())).collect();
    for (n, site) in sites.iter().enumerate() {
        wanted[n].1.push(site.add(&format!("site{n} new 1")));
    }
    for base in [&a.base, &b.base] {
        let got = wait_for_entries(&client, base, &wanted, Duration::from_secs(20)).await;
        for counts in &got {
            assert!(
                counts.iter().all(|&c| c == 1),
                "each entry once, on {base}: {got:?}"
            );
        }
    }

    // Both nodes did checks: the hosts are shared out, not all taken by one.
    for node in [&a, &b] {
        let checks = checks_run(&client, &node.base).await;
        assert!(checks > 0, "{} ran no check", node.base);
        eprintln!("{} ran {checks} checks", node.base);
    }

    // Round 2: kill one node in the middle of its checks (they run every second).
    for (n, site) in sites.iter().enumerate() {
        wanted[n].1.push(site.add(&format!("site{n} new 2")));
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    drop(a); // SIGKILL: no release of its leases
    for (n, site) in sites.iter().enumerate() {
        wanted[n].1.push(site.add(&format!("site{n} new 3")));
    }
    // Its hosts move to the survivor once their leases expire.
    let got = wait_for_entries(
        &client,
        &b.base,
        &wanted,
        Duration::from_secs(LEASE_SECS * 3 + 15),
    )
    .await;
    for counts in &got {
        assert!(
            counts.iter().all(|&c| c == 1),
            "after the kill every entry is in its feed once: {got:?}"
        );
    }
    // Nothing doubled later either: a few more checks of every host.
    tokio::time::sleep(Duration::from_secs(3)).await;
    for (id, urls) in &wanted {
        let counts = counts_in_feed(&client, &b.base, id, urls).await;
        assert!(counts.iter().all(|&c| c == 1), "{id}: {counts:?}");
    }
    for (n, site) in sites.iter().enumerate() {
        let gap = site.min_gap().expect("the site was checked more than once");
        eprintln!(
            "site {n}: {} requests, closest two {gap:?} apart",
            site.log.lock().expect("log").len()
        );
        assert!(
            gap >= Duration::from_millis(PER_HOST_DELAY_MS),
            "site {n} saw two requests {gap:?} apart, closer than the per-host delay"
        );
    }
    drop(b);
    db.drop_now().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn migrate_copies_a_store_to_postgres_and_back() {
    let Some(db) = TestDatabase::create("migrate").await else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let url = "http://127.0.0.1:9/list";
    let wid = sitefeed::model::WatchId::for_url(url);
    let items = {
        use sitefeed::state::WatchState;
        use sitefeed::store::{CheckRecord, Store};
        let store = Store::open(&data, 1 << 20).expect("sled store");
        let watch: sitefeed::model::Watch = serde_json::from_value(serde_json::json!({
            "id": wid, "url": url, "title": null, "depth": 1, "select": null,
            "keywords": [], "created": 100, "strategy": null, "render": "plain",
            "options": {}
        }))
        .expect("a watch");
        let fresh = WatchState::new(
            10,
            sitefeed::schedule::Adaptive {
                a: 60.0,
                b: 60.0,
                c: 0.0,
            },
        );
        store.insert_watch(&watch, &fresh).expect("insert");
        let mut next = fresh.clone();
        next.last_check = Some(20);
        next.next_check = 80;
        next.item_seq = 2;
        let item = |u: &str| -> sitefeed::model::Item {
            serde_json::from_value(serde_json::json!({
                "id": sitefeed::model::Item::id_for(u), "title": format!("title of {u}"),
                "link": u, "first_seen": 20
            }))
            .expect("an item")
        };
        let record = CheckRecord {
            seen_urls: vec!["http://127.0.0.1:9/a".into(), "http://127.0.0.1:9/b".into()],
            new_items: vec![item("http://127.0.0.1:9/a"), item("http://127.0.0.1:9/b")],
            ..CheckRecord::default()
        };
        store
            .commit_check(&wid, &fresh, &next, &record)
            .expect("commit");
        store.items(&wid, 10).expect("items")
    };
    assert_eq!(items.len(), 2);
    let run = |from: &str, to: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_sitefeed"))
            .args(["migrate", "--from", from, "--to", to])
            .output()
            .expect("run migrate")
    };
    let data_s = data.display().to_string();
    let out = run(&data_s, &db.url);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(said.contains("1 watches, 2 items, 2 seen URLs"), "{said}");
    // Again into the same database: refused (exit 2), nothing changed.
    let again = run(&data_s, &db.url);
    assert_eq!(again.status.code(), Some(2));
    // And back into a new sled directory: the same counts.
    let back = dir.path().join("back");
    let out = run(&db.url, &back.display().to_string());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).split(" from ").next(),
        said.split(" from ").next()
    );
    let store = sitefeed::store::Store::open(&back, 1 << 20).expect("open copy");
    assert_eq!(
        store.items(&wid, 10).expect("items"),
        items,
        "the items came back as they were"
    );
    // A missing source: exit 2.
    let missing = run(&dir.path().join("nothing").display().to_string(), &db.url);
    assert_eq!(missing.status.code(), Some(2));
    db.drop_now().await;
}

/// A site that answers every request `429 Too Many Requests` with `Retry-After: 120`,
/// counting them.
async fn slow_down_site() -> (String, Arc<Mutex<u32>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let hits = Arc::new(Mutex::new(0u32));
    let app = Router::new()
        .route(
            "/",
            get(|State(hits): State<Arc<Mutex<u32>>>| async move {
                *hits.lock().expect("hits") += 1;
                (
                    axum::http::StatusCode::TOO_MANY_REQUESTS,
                    [("retry-after", "120")],
                    "slow down",
                )
            }),
        )
        .with_state(hits.clone());
    tokio::spawn(async move { axum::serve(listener, app).await.expect("site") });
    (base, hits)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retry_after_holds_on_the_next_node_even_for_a_check_by_hand() {
    let Some(db) = TestDatabase::create("retryafter").await else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let (site, hits) = slow_down_site().await;
    let client = reqwest::Client::new();
    // Node a checks the watch at once and is told to wait two minutes; then it dies.
    let a = start_node(dir.path(), "a", &db.url).await;
    let id = common::add_watch(&client, &a.base, &format!("{site}/")).await;
    for _ in 0..200 {
        if *hits.lock().expect("hits") > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(*hits.lock().expect("hits"), 1, "node a checked the watch");
    let (c, conn) = tokio_postgres::connect(&db.url, tokio_postgres::NoTls)
        .await
        .expect("connect");
    tokio::spawn(conn);
    // Node a dies once it has written the pause into the host's lease (the site's
    // answer comes before that write).
    for _ in 0..200 {
        let paused: bool = c
            .query_opt(
                "SELECT coalesce(not_before > now(), false) FROM host_leases",
                &[],
            )
            .await
            .expect("lease")
            .is_some_and(|row| row.get(0));
        if paused {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    drop(a);
    let left: f64 = c
        .query_one(
            "SELECT extract(epoch FROM not_before - now())::float8 FROM host_leases",
            &[],
        )
        .await
        .expect("lease")
        .get(0);
    assert!(
        (100.0..=120.0).contains(&left),
        "the lease carries the pause: {left} s left"
    );
    // Node b, once a's lease has run out, is asked to check now: it holds the host but
    // waits out the pause instead of asking the site again.
    tokio::time::sleep(Duration::from_secs(LEASE_SECS) + Duration::from_millis(500)).await;
    let b = start_node(dir.path(), "b", &db.url).await;
    let r = client
        .post(format!("{}/api/watches/{id}/check", b.base))
        .send()
        .await
        .expect("check now");
    assert_eq!(r.status(), 200);
    let body: serde_json::Value = r.json().await.expect("json");
    let error = body["error"].as_str().unwrap_or_default();
    assert!(error.contains("Retry-After"), "{body}");
    assert_eq!(
        *hits.lock().expect("hits"),
        1,
        "the site was not asked again"
    );
    drop(b);
    db.drop_now().await;
}
