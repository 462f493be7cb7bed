//! Whole checks through the polite fetcher: 1,000 watches spread over 50 local hosts
//! (50 servers on 127.0.0.1, one port each, in a child process so that their memory is
//! not counted), run by the real scheduler with the real store. Reports checks per
//! second for a first round (baselines: robots.txt, extraction, first commit) and a
//! second round (unchanged pages), and the peak resident memory of this process.
//!
//! `cargo bench --bench fetch_load` (defaults: no per-host delay, 32 workers), or with
//! `-- --delay-ms 1000` for the default politeness (then a host gets one request a
//! second, so 50 hosts bound the rate at 50 checks per second). Under `cargo test`
//! (no `--bench` argument) it runs a small smoke version: 5 hosts, 50 watches.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use sitefeed::app::NewWatch;
use sitefeed::runner::Runner;
use sitefeed::schedule::clock::{Clock, ManualClock};
use sitefeed::{App, Config};

const HOSTS: usize = 50;
const WATCHES: usize = 1000;
/// Sizes of the smoke run under `cargo test`.
const SMOKE: (usize, usize) = (5, 50);

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (hosts, watches) = if args.iter().any(|a| a == "--bench") {
        (HOSTS, WATCHES)
    } else {
        SMOKE
    };
    if args.iter().any(|a| a == "--serve-sites") {
        serve_sites(arg(&args, "--serve-sites").map_or(hosts, |n| n as usize));
        return;
    }
    let delay_ms = arg(&args, "--delay-ms").unwrap_or(0);
    let workers = arg(&args, "--workers").unwrap_or(32);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(run(hosts, watches, delay_ms, workers as usize));
}

fn arg(args: &[String], name: &str) -> Option<u64> {
    let i = args.iter().position(|a| a == name)?;
    args.get(i + 1)?.parse().ok()
}

/// The child: 50 servers, each answering a ~12 KB list page of 60 links per path; prints
/// its ports, then serves until its stdin closes.
fn serve_sites(hosts: usize) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let mut ports = Vec::new();
        for h in 0..hosts {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("bind");
            ports.push(listener.local_addr().expect("addr").port().to_string());
            let app = axum::Router::new().fallback(move |uri: axum::http::Uri| async move {
                if uri.path() == "/robots.txt" {
                    return (
                        axum::http::StatusCode::OK,
                        [(axum::http::header::CONTENT_TYPE, "text/plain")],
                        "User-agent: *\nDisallow: /private/\n".to_owned(),
                    );
                }
                let mut s = String::from("<!doctype html><html><head><meta charset=utf-8><title>Board</title></head><body><ul>");
                for i in 0..60 {
                    let _ = std::fmt::Write::write_fmt(&mut s, format_args!("<li><a href=\"/n/{h}/{i}.html\">Notice {i} of host {h} about the weekly meeting</a> <p>Summary of {uri} notice {i}.</p></li>"));
                }
                s.push_str("</ul></body></html>");
                (
                    axum::http::StatusCode::OK,
                    [(axum::http::header::CONTENT_TYPE, "text/html; charset=utf-8")],
                    s,
                )
            });
            tokio::spawn(async move { axum::serve(listener, app).await.expect("serve") });
        }
        println!("{}", ports.join(" "));
        std::io::stdout().flush().expect("flush");
        tokio::task::spawn_blocking(|| {
            let mut line = String::new();
            let _ = std::io::stdin().read_line(&mut line);
        })
        .await
        .expect("stdin");
    });
}

async fn run(hosts: usize, watches: usize, delay_ms: u64, workers: usize) {
    let exe = std::env::current_exe().expect("own path");
    let mut child = Command::new(exe)
        .arg("--serve-sites")
        .arg(hosts.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn the sites");
    let mut ports = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut ports)
        .expect("ports");
    let ports: Vec<u16> = ports
        .split_whitespace()
        .map(|p| p.parse().expect("port"))
        .collect();
    assert_eq!(ports.len(), hosts);

    let dir = tempfile::tempdir().expect("tempdir");
    let text = format!(
        "[storage]\npath = {:?}\n[fetch]\nallow_private_addresses = true\nper_host_delay_ms = {delay_ms}\nglobal_concurrency = {workers}\n",
        dir.path().join("data").display().to_string()
    );
    let cfg =
        Config::from_toml(&text, std::path::Path::new("bench.toml"), &|_| None).expect("config");
    let store =
        sitefeed::store::Store::open(&cfg.storage.path, cfg.storage.cache_bytes).expect("store");
    let clock = ManualClock::new(1_700_000_000);
    let app = Arc::new(App::new(cfg, store, Arc::new(clock.clone())).expect("app"));
    let mut ids = Vec::with_capacity(watches);
    for w in 0..watches {
        let port = ports[w % hosts];
        let (watch, _) = app
            .add_watch(&NewWatch {
                url: format!("http://127.0.0.1:{port}/list?page={w}"),
                ..Default::default()
            })
            .expect("add");
        ids.push(watch.id);
    }
    let runner = Runner::new(app.clone());
    println!("{watches} watches on {hosts} hosts, per_host_delay {delay_ms} ms, {workers} workers");
    for round in ["first (baselines)", "second (unchanged)"] {
        let before: u64 = checks(&app, &ids);
        let started = Instant::now();
        let mut dispatches = 0;
        loop {
            runner.dispatch(clock.now()).await;
            runner.wait_idle().await;
            dispatches += 1;
            if checks(&app, &ids) - before >= watches as u64 {
                break;
            }
            // Deferred watches are due again in a few (manual) seconds.
            clock.advance(5);
            assert!(dispatches <= 10_000, "the round does not finish");
        }
        let secs = started.elapsed().as_secs_f64();
        let errors = ids
            .iter()
            .filter(|id| {
                app.store()
                    .state(id)
                    .expect("state")
                    .is_some_and(|s| s.error.is_some())
            })
            .count();
        println!(
            "round {round}: {watches} checks in {secs:.2} s = {:.0} checks/s ({dispatches} dispatches, {errors} errors)",
            watches as f64 / secs
        );
        // Everything due again.
        clock.advance(3 * 86_400);
    }
    println!("peak resident memory (VmHWM): {}", peak_rss());
    drop(child.stdin.take());
    let _ = child.wait_timeout_or_kill();
}

fn checks(app: &App, ids: &[sitefeed::model::WatchId]) -> u64 {
    ids.iter()
        .map(|id| {
            app.store()
                .state(id)
                .expect("state")
                .map_or(0, |s| s.checks)
        })
        .sum()
}

fn peak_rss() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .map(|l| l.trim_start_matches("VmHWM:").trim().to_owned())
        })
        .unwrap_or_else(|| "unknown (no /proc)".into())
}

trait WaitOrKill {
    fn wait_timeout_or_kill(&mut self) -> std::io::Result<()>;
}

impl WaitOrKill for std::process::Child {
    fn wait_timeout_or_kill(&mut self) -> std::io::Result<()> {
        for _ in 0..50 {
            if self.try_wait()?.is_some() {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.kill()?;
        self.wait().map(drop)
    }
}
