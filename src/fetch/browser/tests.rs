//! Rendering in Debian's Chromium against servers on 127.0.0.1 with the address guard on.
//! The test resolver maps `news.example` to the local server as a trusted answer (a
//! test-only hook), so the page is served under a public-looking name while everything
//! the page's scripts try on loopback meets the guard. Without Chromium these tests print
//! `SKIPPED:` and pass; in CI (`CI=true`) they fail.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::http::header;
use axum::routing::get;
use axum::Router;
use url::Url;

use super::super::dns::TestHost;
use super::super::{FetchOutcome, Fetcher, Page, Validators};
use crate::config::{BrowserConfig, Config};
use crate::model::{Render, Watch, WatchId};
use crate::state::WatchState;
use crate::store::Store;

/// The page of a render that gave one; a deferral fails the test.
trait Rendered {
    fn page(self) -> Page;
}

impl Rendered for FetchOutcome {
    fn page(self) -> Page {
        match self {
            FetchOutcome::Page(p) => p,
            other => panic!("no page: {other:?}"),
        }
    }
}

/// The Chromium to test with, or `None` (skipped locally, a failure in CI).
fn chromium() -> Option<PathBuf> {
    let found = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.exists());
    if found.is_none() {
        let msg = "browser rendering test: chromium is missing; `.ci/run` installs it";
        assert!(std::env::var("CI").as_deref() != Ok("true"), "{msg}");
        eprintln!("SKIPPED: {msg}");
    }
    found
}

#[derive(Default)]
struct Site {
    /// Entries on the list now.
    entries: AtomicUsize,
    /// Requests that reached `/secret` (must stay 0).
    secret_hits: AtomicUsize,
}

fn list_items(n: usize) -> String {
    #[allow(clippy::format_collect, reason = "a few test lines")]
    (1..=n)
        .rev()
        .map(|i| format!("<li><a href=\"/news/{i}\">Notice number {i} about the term</a> <span>2024-05-{i:02}</span></li>"))
        .collect()
}

fn frame(list: &str, extra: &str) -> String {
    format!(
        "<!doctype html><html><head><meta charset=utf-8><title>News</title></head><body>\
         <header><a href=\"/\">Home</a></header><main><ul id=\"list\">{list}</ul></main>{extra}</body></html>"
    )
}

#[allow(clippy::too_many_lines, reason = "one route per test page")]
async fn serve() -> (SocketAddr, Arc<Site>) {
    let site = Arc::new(Site::default());
    site.entries.store(6, Ordering::SeqCst);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let port = addr.port();
    let html = |s: String| ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], s);
    let app = Router::new()
        .route(
            "/static",
            get(move |State(s): State<Arc<Site>>| async move {
                html(frame(&list_items(s.entries.load(Ordering::SeqCst)), ""))
            }),
        )
        .route(
            "/app",
            get(move || async move {
                html(frame(
                    "",
                    "<noscript>This site needs JavaScript.</noscript><script src=\"/app.js\"></script>",
                ))
            }),
        )
        .route(
            "/app.js",
            get(|| async {
                (
                    [(header::CONTENT_TYPE, "text/javascript")],
                    "setTimeout(() => fetch('/items.json').then(r => r.json()).then(items => {\
                       document.getElementById('list').innerHTML = items.map(i =>\
                         `<li><a href=\"/news/${i}\">Notice number ${i} about the term</a> <span>2024-05-${String(i).padStart(2, '0')}</span></li>`).join('');\
                     }), 300);",
                )
            }),
        )
        .route(
            "/items.json",
            get(|State(s): State<Arc<Site>>| async move {
                let n = s.entries.load(Ordering::SeqCst);
                let items: Vec<usize> = (1..=n).rev().collect();
                axum::Json(items)
            }),
        )
        .route(
            "/spy",
            get(move || async move {
                html(frame(
                    &list_items(3),
                    &format!(
                        "<img src=\"http://127.0.0.1:{port}/secret\">\
                         <script>Promise.allSettled([\
                           fetch('http://127.0.0.1:{port}/secret'),\
                           fetch('http://internal.example:{port}/secret'),\
                           fetch('/ok.json'),\
                           fetch('/ok.json', {{method: 'POST', body: 'x'.repeat(70000)}}).then(r => r.json())]).then(rs => {{\
                             const p = document.createElement('p'); p.id = 'result';\
                             p.textContent = 'result:' + rs.map(r => r.status).join(',') + ' posted:' + rs[3].value;\
                             document.body.append(p); }});</script>"
                    ),
                ))
            }),
        )
        .route(
            "/ok.json",
            get(|| async { axum::Json(vec![1]) })
                .post(|body: String| async move { axum::Json(vec![body.len()]) }),
        )
        .route(
            "/popup",
            get(move || async move {
                html(frame(
                    &list_items(2),
                    &format!(
                        "<a id=out target=_blank href=\"http://127.0.0.1:{port}/secret\">out</a>\
                         <form id=f target=_blank method=get action=\"http://127.0.0.1:{port}/secret\"></form>\
                         <script>\
                           try {{ window.open('http://127.0.0.1:{port}/secret'); }} catch (e) {{}}\
                           try {{ document.getElementById('out').click(); }} catch (e) {{}}\
                           try {{ document.getElementById('f').submit(); }} catch (e) {{}}\
                         </script>"
                    ),
                ))
            }),
        )
        .route(
            "/late",
            // Built after 4 s: later than the timers a render waits for by itself.
            get(move || async move {
                html(frame(
                    "",
                    "<script>setTimeout(() => { document.getElementById('list').innerHTML = \
                     '<li><a href=\"/news/1\">Late ' + 'notice</a></li>'; }, 4000);</script>",
                ))
            }),
        )
        .route(
            "/robots.txt",
            get(|| async { "User-agent: *\nDisallow: /private\n" }),
        )
        .route(
            "/private",
            get(move || async move { html(frame(&list_items(2), "")) }),
        )
        .route(
            "/secret",
            get(|State(s): State<Arc<Site>>| async move {
                s.secret_hits.fetch_add(1, Ordering::SeqCst);
                "the secret"
            }),
        )
        .route(
            "/restless",
            get(move || async move {
                html(frame(
                    &list_items(2),
                    "<p id=clock></p><script>setInterval(() => { document.getElementById('clock').textContent = Date.now(); }, 100);</script>",
                ))
            }),
        )
        .route(
            "/hanging",
            get(move || async move {
                html(frame(&list_items(2), "<script src=\"/never.js\"></script>"))
            }),
        )
        .route(
            "/never.js",
            get(|| async {
                tokio::time::sleep(Duration::from_secs(3600)).await;
                ""
            }),
        )
        .route(
            "/slow",
            get(move || async move {
                html(frame(
                    "",
                    "<script>fetch('/slow.json').then(r => r.json()).then(items => {\
                       document.getElementById('list').innerHTML = items.map(i => `<li><a href=\"/news/${i}\">Notice ${i}</a></li>`).join('');\
                     });</script>",
                ))
            }),
        )
        .route(
            "/slow.json",
            get(|| async {
                tokio::time::sleep(Duration::from_millis(1500)).await;
                axum::Json(vec![3, 2, 1])
            }),
        )
        .with_state(site.clone());
    tokio::spawn(async move {
        let _ = axum::serve(listener, app.into_make_service()).await;
    });
    (addr, site)
}

/// A guarded fetcher (robots.txt obeyed, no per-host delay) with a browser at `path`.
fn fetcher(path: PathBuf, page_timeout: Duration) -> Fetcher {
    fetcher_with(path, |b| b.page_timeout = page_timeout)
}

/// The same, with the browser's configuration changed by `change`.
fn fetcher_with(path: PathBuf, change: impl FnOnce(&mut BrowserConfig)) -> Fetcher {
    let mut cfg = Config::default().fetch;
    assert!(!cfg.allow_private_addresses, "the guard is on by default");
    cfg.per_host_delay = Duration::ZERO;
    cfg.retries = 0;
    cfg.timeout = Duration::from_secs(10);
    let lo: IpAddr = "127.0.0.1".parse().expect("ip");
    let hosts = HashMap::from([
        (
            "news.example".to_owned(),
            TestHost {
                addrs: vec![lo],
                trusted: true,
            },
        ),
        (
            // A name whose DNS answer is loopback: the guard refuses it.
            "internal.example".to_owned(),
            TestHost {
                addrs: vec![lo],
                trusted: false,
            },
        ),
    ]);
    let mut browser = BrowserConfig {
        path,
        idle: Duration::from_millis(300),
        ..BrowserConfig::default()
    };
    change(&mut browser);
    Fetcher::with_test_hosts(&cfg, hosts)
        .expect("fetcher")
        .with_browser(&browser)
}

fn url(addr: SocketAddr, path: &str) -> Url {
    Url::parse(&format!("http://news.example:{}{path}", addr.port())).expect("url")
}

fn watch(url: &Url, render: Render) -> Watch {
    Watch {
        id: WatchId::for_url(url.as_str()),
        url: url.to_string(),
        title: None,
        depth: 1,
        select: None,
        keywords: Vec::new(),
        created: 1_700_000_000,
        strategy: None,
        render,
        options: crate::model::WatchOptions::default(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_list_built_by_a_script_after_a_delay_gives_the_items_of_its_static_twin() {
    let Some(path) = chromium() else { return };
    let (addr, site) = serve().await;
    let f = fetcher(path, Duration::from_secs(20));
    let store = Store::temporary().expect("store");
    let sched = Config::default().schedule;
    let watches = [
        watch(&url(addr, "/static"), Render::Plain),
        watch(&url(addr, "/app"), Render::Browser),
        // Auto: the plain page is a shell (scripts, an empty list, a noscript notice).
        watch(&url(addr, "/app?auto"), Render::Auto),
    ];
    for w in &watches {
        let st = WatchState::new(1_700_000_000, crate::schedule::Adaptive::initial(&sched));
        store.insert_watch(w, &st).expect("insert");
    }
    let check = |w: &Watch, now: i64| {
        let (store, f, w) = (&store, &f, w.clone());
        async move {
            crate::check::tests::run_with_defaults(store, f, &sched, &w, now)
                .await
                .expect("check runs")
        }
    };
    for w in &watches {
        let r = check(w, 1_700_000_000).await;
        assert!(r.error.is_none(), "{}: {:?}", w.url, r.error);
        assert!(r.baseline, "{}: the first check is the baseline", w.url);
    }
    // Two new entries on top of the list.
    site.entries.store(8, Ordering::SeqCst);
    let mut found = Vec::new();
    for w in &watches {
        let r = check(w, 1_700_003_600).await;
        assert!(r.error.is_none(), "{}: {:?}", w.url, r.error);
        let items: Vec<(String, String)> = r
            .new_items
            .iter()
            .map(|i| {
                (
                    i.title.clone(),
                    Url::parse(&i.link).expect("link").path().to_owned(),
                )
            })
            .collect();
        found.push(items);
    }
    assert_eq!(
        found[0],
        vec![
            (
                "Notice number 8 about the term".to_owned(),
                "/news/8".to_owned()
            ),
            (
                "Notice number 7 about the term".to_owned(),
                "/news/7".to_owned()
            ),
        ],
        "the static page"
    );
    if found[1] != found[0] {
        let page = f
            .browser()
            .expect("browser")
            .render(&url(addr, "/app"), None, None)
            .await;
        eprintln!("{page:?}");
    }
    assert_eq!(found[1], found[0], "rendered in the browser");
    assert_eq!(found[2], found[0], "auto: rendered because it is a shell");
    let b = f.browser().expect("browser");
    assert_eq!(
        b.stats().renders.load(Ordering::Relaxed),
        4,
        "two renders of each rendering watch, none of the plain one"
    );
    assert!(b.last_render(&watches[1].url).is_some_and(|r| r.ok));
    assert!(b.last_render(&watches[0].url).is_none());
    // Auto on a page that is not a shell does not start a render.
    let plain = f
        .get_as(
            &url(addr, "/static"),
            &Validators::default(),
            Render::Auto.into(),
        )
        .await
        .expect("fetch");
    assert!(matches!(plain, FetchOutcome::Page(_)));
    assert_eq!(b.stats().renders.load(Ordering::Relaxed), 4);
    assert_eq!(b.health().state, "running");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_script_reaching_for_loopback_is_refused_and_counted() {
    let Some(path) = chromium() else { return };
    let (addr, site) = serve().await;
    let f = fetcher(path, Duration::from_secs(20));
    let b = f.browser().expect("browser");
    let page = b
        .render(&url(addr, "/spy"), None, None)
        .await
        .expect("renders")
        .page();
    let html = String::from_utf8(page.body).expect("utf-8");
    assert_eq!(
        page.content_type.as_deref(),
        Some("text/html; charset=utf-8")
    );
    // The scripts ran: the same-origin request got through, both others were refused.
    assert!(
        html.contains("result:rejected,rejected,fulfilled,fulfilled posted:70000"),
        "{html}"
    );
    assert!(!html.contains("the secret"));
    assert_eq!(
        site.secret_hits.load(Ordering::SeqCst),
        0,
        "nothing reached loopback"
    );
    let refused = b.stats().refused.load(Ordering::Relaxed);
    assert!(refused >= 2, "refused: {refused}");
    assert!(
        b.stats().blocked.load(Ordering::Relaxed) >= 1,
        "the image is blocked"
    );
    let last = b.last_render(page.url.as_str()).expect("remembered");
    assert_eq!(last.refused, refused);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_that_never_settles_ends_at_the_timeout_with_a_reason() {
    let Some(path) = chromium() else { return };
    let (addr, _site) = serve().await;
    // A quiet second is far beyond the page's 100 ms ticks, however loaded the machine.
    let f = fetcher_with(path, |b| {
        b.page_timeout = Duration::from_secs(3);
        b.idle = Duration::from_secs(1);
    });
    let b = f.browser().expect("browser");
    for p in ["/restless", "/hanging"] {
        let started = std::time::Instant::now();
        let err = b
            .render(&url(addr, p), None, None)
            .await
            .expect_err("times out");
        let took = started.elapsed();
        let msg = err.to_string();
        assert!(
            msg.contains("did not settle within 3s (browser.page_timeout_secs)"),
            "{p}: {msg}"
        );
        assert_eq!(err.kind(), "render");
        assert!(took < Duration::from_secs(15), "{p}: {took:?}");
    }
    assert_eq!(b.health().failures, 2);
    assert!(b
        .health()
        .last_error
        .is_some_and(|e| e.contains("did not settle")));
    // The browser is still usable afterwards.
    let page = b
        .render(&url(addr, "/static"), None, None)
        .await
        .expect("renders")
        .page();
    assert!(String::from_utf8_lossy(&page.body).contains("/news/6"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killing_the_browser_mid_render_recovers() {
    let Some(path) = chromium() else { return };
    let (addr, _site) = serve().await;
    let f = fetcher(path, Duration::from_secs(20));
    let b = f.browser().expect("browser");
    // Start the browser, then render a page whose data takes 1.5 s, and kill the browser
    // while it waits.
    b.render(&url(addr, "/static"), None, None)
        .await
        .expect("first render")
        .page();
    let pid = b.pid().await.expect("a launched browser");
    let usage = super::launch::tree_usage(pid).expect("its processes");
    assert!(usage.processes >= 2 && usage.rss_bytes > 0, "{usage:?}");
    let render = {
        let f = f.clone();
        tokio::spawn(async move {
            let b = f.browser().expect("browser");
            b.render(&url(addr, "/slow"), None, None).await
        })
    };
    tokio::time::sleep(Duration::from_millis(700)).await;
    let killed = std::process::Command::new("kill")
        .args(["-KILL", &pid.to_string()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    let page = render
        .await
        .expect("task")
        .expect("rendered on a new browser")
        .page();
    let html = String::from_utf8_lossy(&page.body).into_owned();
    assert!(
        html.contains("/news/3") && html.contains("Notice 1"),
        "{html}"
    );
    let h = b.health();
    assert_eq!(h.restarts, 1, "{h:?}");
    assert_eq!(h.state, "running");
    assert_eq!(b.stats().deaths.load(Ordering::Relaxed), 1);
    let new_pid = b.pid().await.expect("a new browser");
    assert_ne!(new_pid, pid);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_over_its_memory_bound_is_replaced_after_the_render() {
    let Some(path) = chromium() else { return };
    let (addr, _site) = serve().await;
    let f = fetcher_with(path, |b| b.memory_bytes = 1);
    let b = f.browser().expect("browser");
    b.render(&url(addr, "/static"), None, None)
        .await
        .expect("first")
        .page();
    let first = b.pid().await.expect("launched");
    assert!(b.health().memory_bytes.is_some_and(|m| m > 1));
    b.render(&url(addr, "/static"), None, None)
        .await
        .expect("second")
        .page();
    let second = b.pid().await.expect("launched");
    assert_ne!(first, second, "a new browser");
    assert_eq!(b.health().restarts, 1);
    assert_eq!(
        b.stats().deaths.load(Ordering::Relaxed),
        0,
        "retired, not dead"
    );
    // The old one is gone once no render uses it.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        super::launch::tree_usage(first).is_none(),
        "the old browser exited"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_running_browser_service_is_used_through_ws_url() {
    let Some(path) = chromium() else { return };
    let (addr, site) = serve().await;
    // The "service": a browser started apart; sitefeed only connects to it.
    let service = super::launch::launch(&path, Duration::from_secs(20))
        .await
        .expect("service starts");
    let ws = service.ws_url.clone();
    let f = fetcher_with(PathBuf::from("/nonexistent/chromium"), |b| {
        b.ws_url = Some(ws.clone());
    });
    let b = f.browser().expect("browser");
    let page = b
        .render(&url(addr, "/spy"), None, None)
        .await
        .expect("renders")
        .page();
    let html = String::from_utf8_lossy(&page.body).into_owned();
    assert!(
        html.contains("result:rejected,rejected,fulfilled,fulfilled posted:70000"),
        "{html}"
    );
    assert_eq!(site.secret_hits.load(Ordering::SeqCst), 0);
    let h = b.health();
    assert_eq!(h.endpoint, ws);
    assert_eq!(h.state, "running");
    assert!(h.memory_bytes.is_none(), "not ours to measure");
    assert!(b.pid().await.is_none(), "nothing launched");
}

#[tokio::test]
async fn a_missing_browser_is_a_readable_error() {
    let (addr, _site) = serve().await;
    let f = fetcher_with(PathBuf::from("/nonexistent/chromium"), |_| {});
    let err = f
        .get_as(
            &url(addr, "/app"),
            &Validators::default(),
            Render::Browser.into(),
        )
        .await
        .expect_err("no browser");
    let msg = err.to_string();
    assert!(
        msg.contains("cannot start the browser `/nonexistent/chromium`"),
        "{msg}"
    );
    assert!(msg.contains("browser.path"), "{msg}");
    assert_eq!(f.browser().expect("browser").health().state, "idle");
    // A browser service that is not there.
    let f = fetcher_with(PathBuf::from("/nonexistent/chromium"), |b| {
        b.ws_url = Some("ws://127.0.0.1:1/devtools/browser/none".into());
    });
    let err = f
        .get_as(
            &url(addr, "/app"),
            &Validators::default(),
            Render::Browser.into(),
        )
        .await
        .expect_err("no service");
    assert!(
        err.to_string()
            .contains("cannot connect to the browser at ws://127.0.0.1:1/"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn robots_txt_holds_for_the_rendered_page() {
    let Some(path) = chromium() else { return };
    let (addr, _site) = serve().await;
    let f = fetcher(path, Duration::from_secs(20));
    let err = f
        .get_as(
            &url(addr, "/private"),
            &Validators::default(),
            Render::Browser.into(),
        )
        .await
        .expect_err("disallowed");
    assert_eq!(err.kind(), "robots", "{err}");
    assert!(err.to_string().contains("disallows /private"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn popups_and_new_windows_reach_nothing_even_in_a_browser_without_our_flags() {
    let Some(path) = chromium() else { return };
    let (addr, site) = serve().await;
    // A browser service as someone else runs it: it resolves names itself and lets
    // pages open windows. Popups are not intercepted; the render's context sends what
    // escapes interception to a proxy where nothing listens.
    let flags: Vec<&str> = super::launch::FLAGS
        .iter()
        .copied()
        .filter(|f| !f.starts_with("--host-resolver-rules"))
        .chain(["--disable-popup-blocking"])
        .collect();
    let service = super::launch::launch_with(&path, Duration::from_secs(20), &flags)
        .await
        .expect("service starts");
    let ws = service.ws_url.clone();
    let f = fetcher_with(path, |b| b.ws_url = Some(ws));
    let b = f.browser().expect("browser");
    let page = b.render(&url(addr, "/popup"), None, None).await;
    assert!(matches!(page, Ok(FetchOutcome::Page(_))), "{page:?}");
    // Whatever the windows did, nothing outside the interception reached loopback.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(site.secret_hits.load(Ordering::SeqCst), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_watched_region_is_waited_for() {
    let Some(path) = chromium() else { return };
    let (addr, _site) = serve().await;
    let f = fetcher(path, Duration::from_secs(20));
    let b = f.browser().expect("browser");
    let early = b
        .render(&url(addr, "/late"), None, None)
        .await
        .expect("renders")
        .page();
    assert!(
        !String::from_utf8_lossy(&early.body).contains("Late notice"),
        "without a region the page settles before the late list"
    );
    let page = b
        .render(&url(addr, "/late"), None, Some("main #list"))
        .await
        .expect("renders")
        .page();
    let html = String::from_utf8_lossy(&page.body).into_owned();
    assert!(html.contains("Late notice"), "{html}");
    // A region that never gets a link does not hold the page past its first 10 s.
    let started = std::time::Instant::now();
    let page = b
        .render(&url(addr, "/static"), None, Some("#nothing-here"))
        .await
        .expect("renders")
        .page();
    assert!(String::from_utf8_lossy(&page.body).contains("/news/6"));
    assert!(started.elapsed() < Duration::from_secs(19));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn renders_beyond_the_tabs_and_their_queue_are_deferred() {
    let Some(path) = chromium() else { return };
    let (addr, _site) = serve().await;
    let f = fetcher_with(path, |b| b.tabs = 1);
    // One slow render holds the tab; two may wait for it; the fourth is deferred.
    let renders: Vec<_> = (0..4)
        .map(|i| {
            let f = f.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(200 * i)).await;
                let b = f.browser().expect("browser");
                b.render(&url(addr, "/slow"), None, None).await
            })
        })
        .collect();
    let mut ok = 0;
    let mut deferred = Vec::new();
    for r in renders {
        match r.await.expect("task") {
            Ok(FetchOutcome::Page(_)) => ok += 1,
            Ok(FetchOutcome::Deferred(d)) => deferred.push(d.to_string()),
            other => panic!("{other:?}"),
        }
    }
    assert_eq!((ok, deferred.len()), (3, 1), "{deferred:?}");
    assert!(
        deferred[0].contains("browser tabs are busy"),
        "{deferred:?}"
    );
}
