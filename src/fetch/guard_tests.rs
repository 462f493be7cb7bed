//! The address guard ON, against a server on 127.0.0.1. The guard refuses loopback, so
//! the test resolver maps `site.test` to the local server as a *trusted* answer (a
//! test-only hook): the first hop gets through, and what the guard does to the next hop
//! (a redirect to the metadata address, a private network, a loopback literal, a name
//! that resolves to loopback) is what is tested. A safety net in test builds keeps every
//! connection on loopback even if the guard were broken, so nothing here can reach
//! another network.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use super::dns::TestHost;
use super::{FetchError, FetchOutcome, Fetcher, Validators};
use crate::config::Config;
use crate::model::{Status, Watch, WatchId};
use crate::state::WatchState;
use crate::store::Store;

struct Server {
    addr: SocketAddr,
    hits: Arc<AtomicUsize>,
}

async fn serve() -> Server {
    let hits = Arc::new(AtomicUsize::new(0));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let port = addr.port();
    let app = Router::new()
        .route("/", get(|| async { page() }))
        .route(
            "/to/{target}",
            get(
                move |Path(target): Path<String>, State(hits): State<Arc<AtomicUsize>>| async move {
                    hits.fetch_add(1, Ordering::SeqCst);
                    let location = match target.as_str() {
                        "metadata" => "http://169.254.169.254/latest/meta-data/".to_owned(),
                        "private" => "http://10.0.0.1/admin".to_owned(),
                        "loopback-literal" => format!("http://127.0.0.1:{port}/"),
                        "mapped" => format!("http://[::ffff:127.0.0.1]:{port}/"),
                        "rebind" => format!("http://rebind.test:{port}/"),
                        "ftp" => "ftp://site.test/".to_owned(),
                        _ => format!("http://site.test:{port}/"),
                    };
                    (StatusCode::FOUND, [(header::LOCATION, location)]).into_response()
                },
            ),
        )
        .with_state(hits.clone());
    tokio::spawn(async move { axum::serve(listener, app).await.expect("serve") });
    Server { addr, hits }
}

fn page() -> Response {
    (
        [(header::CONTENT_TYPE, "text/html")],
        "<html><body><a href=\"/a\">A</a></body></html>",
    )
        .into_response()
}

fn guarded_fetcher() -> Fetcher {
    let mut cfg = Config::default().fetch;
    assert!(!cfg.allow_private_addresses, "the guard is on by default");
    cfg.per_host_delay = std::time::Duration::ZERO;
    cfg.respect_robots = false;
    let lo = |s: &str| -> IpAddr { s.parse().expect("ip") };
    let hosts = HashMap::from([
        (
            "site.test".to_owned(),
            TestHost {
                addrs: vec![lo("127.0.0.1")],
                trusted: true,
            },
        ),
        (
            // A name that "rebinds" to a loopback address the guard must refuse.
            "rebind.test".to_owned(),
            TestHost {
                addrs: vec![lo("127.0.0.2")],
                trusted: false,
            },
        ),
    ]);
    Fetcher::with_test_hosts(&cfg, hosts).expect("fetcher")
}

async fn fetch(f: &Fetcher, url: &str) -> Result<FetchOutcome, FetchError> {
    let url = url::Url::parse(url).expect("test url");
    f.get(&url, &Validators::default()).await
}

#[tokio::test]
async fn trusted_first_hop_reaches_the_test_server() {
    let s = serve().await;
    let f = guarded_fetcher();
    let out = fetch(&f, &format!("http://site.test:{}/to/self", s.addr.port())).await;
    assert!(matches!(out, Ok(FetchOutcome::Page(_))), "{out:?}");
    assert_eq!(s.hits.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn redirects_to_non_public_addresses_are_refused() {
    let s = serve().await;
    let f = guarded_fetcher();
    let port = s.addr.port();
    for (target, expect) in [
        ("metadata", "169.254.169.254"),
        ("private", "10.0.0.1"),
        ("loopback-literal", "127.0.0.1"),
        ("mapped", "::ffff:127.0.0.1"),
        ("rebind", "127.0.0.2"),
        ("ftp", "`ftp:` URLs are not fetched"),
    ] {
        let err = fetch(&f, &format!("http://site.test:{port}/to/{target}"))
            .await
            .expect_err(target);
        let msg = err.to_string();
        assert_eq!(err.kind(), "refused", "{target}: {msg}");
        assert!(msg.contains(expect), "{target}: {msg}");
        assert!(
            !msg.contains("test safety net"),
            "the guard, not the net: {msg}"
        );
    }
    assert_eq!(
        s.hits.load(Ordering::SeqCst),
        6,
        "each first hop was served"
    );
}

#[tokio::test]
async fn non_public_first_hops_are_refused_before_connecting() {
    let s = serve().await;
    let f = guarded_fetcher();
    let port = s.addr.port();
    for url in [
        format!("http://127.0.0.1:{port}/to/self"),
        format!("http://[::1]:{port}/to/self"),
        format!("http://localhost:{port}/to/self"),
        format!("http://rebind.test:{port}/to/self"),
    ] {
        let err = fetch(&f, &url).await.expect_err(&url);
        assert_eq!(err.kind(), "refused", "{url}: {err}");
    }
    assert_eq!(s.hits.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_refused_redirect_is_stored_as_the_watch_error() {
    let s = serve().await;
    let store = Store::temporary().expect("store");
    let f = guarded_fetcher();
    let url = format!("http://site.test:{}/to/metadata", s.addr.port());
    let watch = Watch {
        id: WatchId::for_url(&url),
        url,
        title: None,
        depth: 1,
        select: None,
        keywords: Vec::new(),
        created: 1_700_000_000,
        strategy: None,
        options: crate::model::WatchOptions::default(),
        render: crate::model::Render::Plain,
    };
    let sched = Config::default().schedule;
    let state = WatchState::new(1_700_000_000, crate::schedule::Adaptive::initial(&sched));
    store.insert_watch(&watch, &state).expect("insert");
    let report = crate::check::tests::run_with_defaults(&store, &f, &sched, &watch, 1_700_000_000)
        .await
        .expect("check runs");
    let error = report.error.expect("failed");
    assert!(error.contains("169.254.169.254"), "{error}");
    let st = store.state(&watch.id).expect("state").expect("present");
    assert_eq!(st.status, Status::Error);
    assert_eq!(st.error.as_deref(), Some(error.as_str()));
    assert_eq!(st.consecutive_errors, 1);
    assert!(st.next_check > 1_700_000_000, "backs off");
    assert!(store.links(&watch.id).expect("links").is_empty());
}

/// A host that asked for a pause is not asked again meanwhile: the fetch is an outcome
/// (deferred, with the wait), not a failure, and sends no request.
#[tokio::test]
async fn a_paused_host_is_deferred_without_a_request() {
    let s = serve().await;
    let f = guarded_fetcher();
    let url = format!("http://site.test:{}/to/self", s.addr.port());
    let parsed = url::Url::parse(&url).expect("test url");
    f.pause_host(&parsed, std::time::Duration::from_secs(120));
    let out = fetch(&f, &url).await;
    match out {
        Ok(FetchOutcome::Deferred(d)) => {
            assert!(d.wait > std::time::Duration::from_secs(60), "{d:?}");
            assert!(d.to_string().contains("not fetched yet"), "{d}");
        }
        other => panic!("expected a deferral, got {other:?}"),
    }
    assert_eq!(s.hits.load(Ordering::SeqCst), 0, "no request was sent");
}
