//! Connections to a host are kept for the next requests: a host that takes several
//! requests at once (`fetch.per_host_concurrency`) is not sent a new connection for most
//! of them.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::{FetchOutcome, Fetcher, Validators};
use crate::config::Config;

/// A keep-alive HTTP/1.1 server on 127.0.0.1 that answers every request after `delay`
/// (so that requests sent together are in flight together) and counts the connections
/// it accepted.
async fn counting_server(delay: Duration) -> (std::net::SocketAddr, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let accepted = Arc::new(AtomicUsize::new(0));
    let count = accepted.clone();
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            count.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(async move {
                let body = "<html><body><ul><li><a href=/a>A story</a></li></ul></body></html>";
                let mut head = Vec::new();
                let mut buf = [0u8; 1024];
                loop {
                    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                        match sock.read(&mut buf).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => head.extend_from_slice(&buf[..n]),
                        }
                    }
                    head.clear();
                    tokio::time::sleep(delay).await;
                    let answer = format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: {}\r\n\r\n{body}",
                        body.len()
                    );
                    if sock.write_all(answer.as_bytes()).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    (addr, accepted)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_taking_eight_requests_at_once_keeps_its_eight_connections() {
    let (addr, accepted) = counting_server(Duration::from_millis(30)).await;
    let mut cfg = Config::default().fetch;
    cfg.allow_private_addresses = true;
    cfg.respect_robots = false;
    cfg.per_host_delay = Duration::ZERO;
    cfg.per_host_concurrency = 8;
    cfg.global_concurrency = 8;
    cfg.retries = 0;
    let fetcher = Fetcher::new(&cfg).expect("fetcher");
    let url = url::Url::parse(&format!("http://{addr}/")).expect("url");
    for round in 0..5 {
        let mut set = tokio::task::JoinSet::new();
        for _ in 0..8 {
            let (f, url) = (fetcher.clone(), url.clone());
            set.spawn(async move { f.get(&url, &Validators::default()).await });
        }
        while let Some(done) = set.join_next().await {
            let outcome = done.expect("task").expect("fetch");
            assert!(matches!(outcome, FetchOutcome::Page(_)), "round {round}");
        }
        // (the connections go back to the pool as their bodies end)
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // 40 requests, 8 at a time (the most kept per host): 8 connections. With two kept,
    // each round after the first would open six more (8 + 4 × 6 = 32); the bound leaves
    // room for a connection that a busy machine had not given back yet.
    let n = accepted.load(Ordering::SeqCst);
    assert!(n <= 16, "{n} connections for 40 requests, 8 at a time");
}
