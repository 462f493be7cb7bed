//! A rendered check beside a plain one: wall time, CPU (sitefeed's process and the
//! browser's processes apart) and memory per check, against a local site whose list is
//! served as HTML on one page and built by a script from JSON on its twin. The site runs
//! in a child process (this binary, re-executed with `--site`) so its CPU is not counted.
//!
//! `cargo bench --bench render` runs 20 checks per row; under `cargo test` it runs a smoke
//! version of 2. Needs Chromium (`/usr/bin/chromium`): without it this prints `SKIPPED:`
//! (and fails with `CI=true`).

use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Write as _};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use sitefeed::app::NewWatch;
use sitefeed::fetch::browser::launch;
use sitefeed::model::Render;
use sitefeed::schedule::clock::ManualClock;
use sitefeed::{App, Config};

/// Entries on the list.
const ENTRIES: u64 = 100;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--site") {
        site();
        return;
    }
    let checks = if args.iter().any(|a| a == "--bench") {
        20
    } else {
        2
    };
    let Some(chromium) = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists())
    else {
        let msg = "render bench: chromium is missing; `.ci/run` installs it";
        assert!(std::env::var("CI").as_deref() != Ok("true"), "{msg}");
        println!("SKIPPED: {msg}");
        return;
    };
    let exe = std::env::current_exe().expect("own path");
    let mut child = Command::new(exe)
        .arg("--site")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("site");
    let mut out = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    out.read_line(&mut line).expect("port");
    let port: u16 = line.trim().parse().expect("port number");
    let mut bump = child.stdin.take().expect("stdin");
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    println!(
        "{:<36} {:>6} {:>10} {:>12} {:>12} {:>14} {:>14}",
        "row", "checks", "wall ms", "sitefeed CPU", "browser CPU", "sitefeed RSS", "browser PSS"
    );
    for (name, path, render, delay_ms) in [
        ("plain check", "static", Render::Plain, 0),
        ("rendered check", "app", Render::Browser, 0),
        (
            "rendered, per_host_delay_ms 1000",
            "app",
            Render::Browser,
            1000,
        ),
        (
            "auto on the static page (no render)",
            "static",
            Render::Auto,
            0,
        ),
        ("auto on the app shell (renders)", "app", Render::Auto, 0),
    ] {
        rt.block_on(row(
            name,
            path,
            render,
            delay_ms,
            chromium,
            port,
            checks,
            (&mut bump, &mut out),
        ));
    }
    drop(bump);
    let _ = child.wait();
}

#[allow(clippy::too_many_arguments, reason = "one row of the table")]
async fn row(
    name: &str,
    path: &str,
    render: Render,
    delay_ms: u64,
    chromium: &str,
    port: u16,
    checks: u32,
    (bump, ack): (
        &mut std::process::ChildStdin,
        &mut BufReader<std::process::ChildStdout>,
    ),
) {
    let mut config = Config::default();
    config.fetch.allow_private_addresses = true;
    config.fetch.per_host_delay = Duration::from_millis(delay_ms);
    config.browser.path = chromium.into();
    let store = sitefeed::store::Store::temporary().expect("store");
    let clock = Arc::new(ManualClock::new(1_700_000_000));
    let app = App::new(config, store, clock.clone()).expect("app");
    let (w, _) = app
        .add_watch(&NewWatch {
            url: format!("http://127.0.0.1:{port}/{path}"),
            render: Some(render),
            ..NewWatch::default()
        })
        .expect("add");
    // The baseline check (and the browser's start) is not measured.
    let started = Instant::now();
    let r = app.check(&w, false).await.expect("check");
    assert!(r.error.is_none(), "{name}: {:?}", r.error);
    let first = started.elapsed();
    let browser_pid = match app.fetcher().browser() {
        Some(b) => b.pid().await,
        None => None,
    };
    let (mut wall, mut own_cpu, mut browser_cpu) = (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    for _ in 0..checks {
        writeln!(bump, "bump").expect("bump");
        bump.flush().expect("flush");
        let mut ok = String::new();
        ack.read_line(&mut ok).expect("the site took the new entry");
        clock.advance(3600);
        let cpu0 = own_cpu_now();
        let b0 = browser_pid.and_then(launch::tree_usage).map(|u| u.cpu);
        let t0 = Instant::now();
        let r = app.check(&w, false).await.expect("check");
        wall += t0.elapsed();
        own_cpu += own_cpu_now().saturating_sub(cpu0);
        if let (Some(b0), Some(b1)) = (b0, browser_pid.and_then(launch::tree_usage)) {
            browser_cpu += b1.cpu.saturating_sub(b0);
        }
        assert!(r.error.is_none(), "{name}: {:?}", r.error);
        assert_eq!(
            r.new_items.len(),
            1,
            "{name}: one new entry per check: {r:?}"
        );
    }
    let per = |d: Duration| format!("{:.1} ms", d.as_secs_f64() * 1000.0 / f64::from(checks));
    let pss = browser_pid
        .and_then(launch::tree_usage)
        .map_or_else(|| "-".into(), |u| format!("{} MiB", u.rss_bytes >> 20));
    println!(
        "{:<36} {:>6} {:>10} {:>12} {:>12} {:>14} {:>14}",
        name,
        checks,
        per(wall),
        per(own_cpu),
        if browser_pid.is_some() {
            per(browser_cpu)
        } else {
            "-".into()
        },
        format!("{} MiB", own_rss_kib() >> 10),
        pss,
    );
    if browser_pid.is_some() {
        println!(
            "    first check with the browser's start: {} ms",
            first.as_millis()
        );
    }
}

/// CPU time of this process so far (user + system), from `/proc/self/stat`.
fn own_cpu_now() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<u64> = rest
        .split_whitespace()
        .map(|v| v.parse().unwrap_or(0))
        .collect();
    let ticks = f.get(11).copied().unwrap_or(0) + f.get(12).copied().unwrap_or(0);
    Duration::from_millis(ticks * 10)
}

/// Resident memory of this process now, KiB.
fn own_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// The local site: `/static` (the list in HTML), `/app` (an empty shell whose script
/// builds the same list from `/items.json`). A line on stdin adds an entry.
fn site() {
    use axum::extract::State;
    use axum::http::header;
    use axum::routing::get;
    let version = Arc::new(AtomicU64::new(0));
    let v = version.clone();
    std::thread::spawn(move || {
        for _ in std::io::stdin().lock().lines() {
            v.fetch_add(1, Ordering::SeqCst);
            println!("ok");
        }
        std::process::exit(0);
    });
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        println!("{}", listener.local_addr().expect("addr").port());
        let items = |v: u64| (v..v + ENTRIES).rev().collect::<Vec<u64>>();
        let shell = |body: &str| {
            format!(
                "<!doctype html><html><head><meta charset=utf-8><title>Board</title>\
                 <link rel=stylesheet href=/style.css></head><body><header><a href=/>Home</a>\
                 <img src=/logo.png></header><main><ul id=list>{body}</ul></main>\
                 <footer>{}</footer></body></html>",
                "Padding text of the page footer. ".repeat(100)
            )
        };
        let html = |s: String| ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], s);
        let app = axum::Router::new()
            .route(
                "/static",
                get(move |State(v): State<Arc<AtomicU64>>| async move {
                    let mut list = String::new();
                    for i in items(v.load(Ordering::SeqCst)) {
                        let _ = write!(list, "<li><a href=/t/{i}>Thread number {i} of the board</a> <span>by user {i}</span></li>");
                    }
                    html(shell(&list))
                }),
            )
            .route(
                "/app",
                get(move || async move {
                    html(shell("").replace(
                        "</body>",
                        "<noscript>Enable JavaScript.</noscript><script src=/app.js></script></body>",
                    ))
                }),
            )
            .route(
                "/app.js",
                get(|| async {
                    (
                        [(header::CONTENT_TYPE, "text/javascript")],
                        "fetch('/items.json').then(r => r.json()).then(items => {\
                           document.getElementById('list').innerHTML = items.map(i =>\
                             `<li><a href=/t/${i}>Thread number ${i} of the board</a> <span>by user ${i}</span></li>`).join('');\
                         });",
                    )
                }),
            )
            .route(
                "/items.json",
                get(move |State(v): State<Arc<AtomicU64>>| async move {
                    axum::Json(items(v.load(Ordering::SeqCst)))
                }),
            )
            .route(
                "/style.css",
                get(|| async { ([(header::CONTENT_TYPE, "text/css")], "li{margin:0}") }),
            )
            .with_state(version);
        axum::serve(listener, app).await.expect("serve");
    });
}
