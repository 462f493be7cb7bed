//! Whole-check-path harness: fetch, extract, fingerprint, diff and store, for many
//! watches against a local site of evolving ~55 KB pages. Reports CPU time per check,
//! checks per second and peak RSS of the sitefeed process. The site runs in a child
//! process (this binary, re-executed with `--site`) so its CPU is not counted.
//!
//! The site listens on [`HOSTS`] ports, one host each to the fetcher's per-host gate
//! (which allows one request in flight per host and defers checks when a host's queue is
//! full), and each round runs until every watch was checked once.
//!
//! `cargo bench --bench checkpath` runs the full measure (1,000 watches, 5 rounds);
//! under `cargo test` it runs a small smoke version. Options after `--`:
//! `--watches N --rounds R --cache-mb M`.

use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Write as _};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use sitefeed::app::NewWatch;
use sitefeed::runner::Runner;
use sitefeed::schedule::clock::{Clock, ManualClock};
use sitefeed::{App, Config};

/// Entries shown per page; with the padding below a page weighs about 55 KB.
const ENTRIES: u64 = 240;
/// Ports (hosts) the site listens on; watch n is on port n mod HOSTS.
const HOSTS: usize = 50;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--site") {
        let pages: u64 = args.get(i + 1).and_then(|s| s.parse().ok()).unwrap_or(1000);
        site(pages);
        return;
    }
    let full = args.iter().any(|a| a == "--bench");
    let opt = |name: &str, default: u64| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .and_then(|s| s.parse().ok())
            .unwrap_or(default)
    };
    let watches = opt("--watches", if full { 1000 } else { 20 });
    let rounds = opt("--rounds", if full { 5 } else { 2 });
    let cache_mb = opt("--cache-mb", 8);
    run(watches, rounds, cache_mb);
}

/// A page of the evolving site: one new entry at the top every second request.
fn page(p: u64, version: u64) -> String {
    let first = version / 2;
    let mut s = String::with_capacity(60_000);
    s.push_str(
        "<!doctype html><html><head><meta charset=utf-8><title>Board</title></head><body><nav>",
    );
    for i in 0..15 {
        let _ = write!(s, "<a href=\"/s/{i}\">Section {i}</a> ");
    }
    s.push_str("</nav><ul>");
    for e in (first..first + ENTRIES).rev() {
        let _ = write!(
            s,
            "<li class=\"entry\"><span>2026-11-{:02}</span> <a href=\"/p/{p}/e/{e}\">Notice {e} of board {p} about the weekly schedule</a> <a href=\"/p/{p}/e/{e}#c\">Read more</a><p>Summary {e}.</p></li>",
            e % 28 + 1
        );
    }
    let _ = write!(
        s,
        "</ul><footer><a href=\"/contact\">Contact</a> Visits: {version}</footer></body></html>"
    );
    s
}

fn site(pages: u64) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async move {
        let counters: Arc<Vec<AtomicU64>> =
            Arc::new((0..pages).map(|_| AtomicU64::new(0)).collect());
        let app = axum::Router::new().route(
            "/p/{n}",
            axum::routing::get(move |axum::extract::Path(n): axum::extract::Path<u64>| {
                let counters = counters.clone();
                async move {
                    let v = counters
                        .get(n as usize)
                        .map_or(0, |c| c.fetch_add(1, Ordering::Relaxed));
                    ([("content-type", "text/html; charset=utf-8")], page(n, v))
                }
            }),
        );
        let mut ports = Vec::new();
        for _ in 0..HOSTS {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("bind");
            ports.push(listener.local_addr().expect("addr").port().to_string());
            let app = app.clone();
            tokio::spawn(async move { axum::serve(listener, app).await.expect("serve") });
        }
        println!("{}", ports.join(" "));
        std::io::stdout().flush().expect("flush");
        std::future::pending::<()>().await;
    });
}

fn cpu_secs() -> f64 {
    // utime and stime are fields 14 and 15 of /proc/self/stat, in clock ticks (100/s);
    // after the ")" that ends the command name they are the 12th and 13th.
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = after.split_whitespace().collect();
    let tick = |i: usize| f.get(i).and_then(|x| x.parse::<u64>().ok()).unwrap_or(0);
    (tick(11) + tick(12)) as f64 / 100.0
}

fn peak_rss_mb() -> f64 {
    status_mb("VmHWM:")
}

fn rss_mb() -> f64 {
    status_mb("VmRSS:")
}

fn status_mb(field: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

#[allow(clippy::too_many_lines, reason = "one measurement, start to end")]
fn run(watches: u64, rounds: u64, cache_mb: u64) {
    let exe = std::env::current_exe().expect("current exe");
    let mut child = Command::new(exe)
        .args(["--site", &watches.to_string()])
        .stdout(Stdio::piped())
        .spawn()
        .expect("start site");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("site stdout"))
        .read_line(&mut line)
        .expect("site port");
    let ports: Vec<u16> = line
        .split_whitespace()
        .map(|p| p.parse().expect("port number"))
        .collect();
    let _site = KillOnDrop(child);

    let dir = tempfile::tempdir().expect("tempdir");
    let text = format!(
        "[storage]\npath = {:?}\ncache_bytes = {}\n[fetch]\nallow_private_addresses = true\nglobal_concurrency = 16\nper_host_delay_ms = 0\n",
        dir.path().join("data").display().to_string(),
        cache_mb * 1024 * 1024
    );
    let cfg =
        Config::from_toml(&text, std::path::Path::new("bench.toml"), &|_| None).expect("config");
    let store =
        sitefeed::store::Store::open(&cfg.storage.path, cfg.storage.cache_bytes).expect("store");
    let clock = ManualClock::new(1_700_000_000);
    let app = Arc::new(App::new(cfg, store, Arc::new(clock.clone())).expect("app"));
    for n in 0..watches {
        app.add_watch(&NewWatch {
            url: format!("http://127.0.0.1:{}/p/{n}", ports[n as usize % ports.len()]),
            ..NewWatch::default()
        })
        .expect("add");
    }
    let rss_added = rss_mb();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let runner = Runner::new(app.clone());
    // A round runs until every watch was checked once: checks deferred because their
    // host was busy are due again a few (manual) seconds later.
    let checked = || -> u64 {
        app.store()
            .watches()
            .expect("watches")
            .iter()
            .map(|w| {
                app.store()
                    .state(&w.id)
                    .ok()
                    .flatten()
                    .map_or(0, |s| s.checks)
            })
            .sum()
    };
    let round = || {
        let target = checked() + watches;
        rt.block_on(async {
            loop {
                runner.dispatch(clock.now()).await;
                runner.wait_idle().await;
                if checked() >= target {
                    break;
                }
                clock.advance(5);
            }
        });
    };
    // Round 0 sets the baselines; it is not measured.
    round();
    let rss_baseline = rss_mb();
    let cpu0 = cpu_secs();
    let t0 = Instant::now();
    let before = checked();
    for _ in 0..rounds {
        clock.advance(7 * 86_400);
        round();
    }
    let checks = checked() - before;
    let wall = t0.elapsed().as_secs_f64();
    let cpu = cpu_secs() - cpu0;
    let items: u64 = app
        .store()
        .watches()
        .expect("watches")
        .iter()
        .map(|w| {
            app.store()
                .state(&w.id)
                .ok()
                .flatten()
                .map_or(0, |s| s.item_count)
        })
        .sum();
    let errors = app
        .store()
        .watches()
        .expect("watches")
        .iter()
        .filter(|w| {
            app.store()
                .state(&w.id)
                .ok()
                .flatten()
                .is_some_and(|s| s.error.is_some())
        })
        .count();
    println!(
        "RSS after adding watches {rss_added:.1} MB, after baselines {rss_baseline:.1} MB, at the end {:.1} MB",
        rss_mb()
    );
    println!("watches {watches}, rounds {rounds}, checks {checks}, items found {items}, watches in error {errors}");
    println!(
        "CPU per check {:.3} ms; checks/s {:.0} (wall, 2 cores, site in another process); peak RSS {:.1} MB; store on disk {:.1} MB",
        cpu * 1000.0 / checks.max(1) as f64,
        checks as f64 / wall,
        peak_rss_mb(),
        app.store().size_on_disk() as f64 / 1e6
    );
    assert_eq!(errors, 0, "every check must succeed");
    // Fetch r of a page (r = 0 for the baseline) shows entries from r/2 on: the even
    // rounds each bring one new entry.
    assert_eq!(
        items,
        watches * (rounds / 2),
        "each page gains an entry every second fetch"
    );
}

/// Ends the site process however the measure ends (a panic included).
struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
