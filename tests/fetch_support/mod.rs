//! Local servers for the fetcher's tests, on 127.0.0.1:0 only: a scripted site that
//! answers canned responses per path and logs every request it gets (for politeness
//! assertions from the server's own point of view), and raw TCP servers that misbehave
//! in ways no well-mannered framework would (drip, endless body, gzip bomb).
#![allow(dead_code, reason = "each test binary uses a different part")]

use std::collections::{HashMap, VecDeque};
use std::fmt::Write;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::Response;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use sitefeed::app::NewWatch;
use sitefeed::model::WatchId;
use sitefeed::App;

/// One canned answer.
#[derive(Debug, Clone)]
pub struct Canned {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// Time the server "works" before answering.
    pub work: Duration,
}

impl Canned {
    pub fn html(body: impl Into<Vec<u8>>) -> Self {
        Self::new(200, "text/html; charset=utf-8", body)
    }

    pub fn new(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Self {
        Self {
            status,
            headers: vec![("content-type".into(), content_type.into())],
            body: body.into(),
            work: Duration::ZERO,
        }
    }

    pub fn status(status: u16) -> Self {
        Self::new(status, "text/plain", format!("status {status}"))
    }

    pub fn redirect(to: &str) -> Self {
        Self::status(302).header("location", to)
    }

    #[must_use]
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    #[must_use]
    pub fn work(mut self, d: Duration) -> Self {
        self.work = d;
        self
    }
}

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub struct Hit {
    pub path: String,
    pub start: Instant,
    pub end: Instant,
    pub headers: HeaderMap,
}

#[derive(Debug, Default)]
struct ScriptState {
    /// Answers per path (with query); the last one of a queue repeats.
    routes: HashMap<String, VecDeque<Canned>>,
    log: Vec<Hit>,
}

/// A site answering scripted responses.
#[derive(Debug, Clone)]
pub struct Scripted {
    pub addr: SocketAddr,
    state: Arc<Mutex<ScriptState>>,
}

impl Scripted {
    pub async fn start() -> Self {
        let state = Arc::new(Mutex::new(ScriptState::default()));
        let st = state.clone();
        let app = axum::Router::new().fallback(move |uri: Uri, headers: HeaderMap| {
            let st = st.clone();
            async move { answer(&st, &uri, headers).await }
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        tokio::spawn(async move { axum::serve(listener, app).await.expect("serve") });
        Self { addr, state }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Answers `path` with `replies`, in order; the last one repeats.
    pub fn route(&self, path: &str, replies: Vec<Canned>) {
        self.lock().routes.insert(path.to_owned(), replies.into());
    }

    pub fn log(&self) -> Vec<Hit> {
        self.lock().log.clone()
    }

    pub fn hits(&self, path: &str) -> usize {
        self.lock().log.iter().filter(|h| h.path == path).count()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ScriptState> {
        self.state.lock().expect("script lock")
    }
}

async fn answer(state: &Mutex<ScriptState>, uri: &Uri, headers: HeaderMap) -> Response {
    let start = Instant::now();
    let path = uri
        .path_and_query()
        .map_or_else(|| uri.path().to_owned(), ToString::to_string);
    let canned = {
        let mut s = state.lock().expect("script lock");
        s.routes.get_mut(&path).map(|q| {
            if q.len() > 1 {
                q.pop_front().expect("non-empty")
            } else {
                q.front().cloned().expect("non-empty")
            }
        })
    };
    let canned = canned.unwrap_or_else(|| Canned::status(404));
    tokio::time::sleep(canned.work).await;
    let etag = canned
        .headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("etag"))
        .map(|(_, v)| v.clone());
    let not_modified = etag.is_some_and(|e| {
        headers
            .get("if-none-match")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v == e)
    });
    let mut b = Response::builder().status(if not_modified { 304 } else { canned.status });
    for (n, v) in &canned.headers {
        b = b.header(n.as_str(), v.as_str());
    }
    let body = if not_modified {
        Body::empty()
    } else {
        Body::from(canned.body)
    };
    let resp = b.body(body).unwrap_or_else(|_| {
        let mut r = Response::new(Body::empty());
        *r.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
        r
    });
    state.lock().expect("script lock").log.push(Hit {
        path,
        start,
        end: Instant::now(),
        headers,
    });
    resp
}

/// How a raw server answers page requests (robots.txt gets a 404).
#[derive(Debug, Clone)]
pub enum Misbehave {
    /// Reads the request and never answers (for 60 s).
    Hang,
    /// Like `Hang`, robots.txt included (every connection is counted).
    HangAll,
    /// Headers, then one byte per `every`, forever.
    Drip { every: Duration },
    /// A chunked body that never ends.
    Endless,
    /// This body, sent as is after the given extra header lines.
    Raw { head: String, body: Vec<u8> },
}

/// A raw TCP server; returns its address and a counter of page requests.
pub async fn raw_server(how: Misbehave) -> (SocketAddr, Arc<Mutex<usize>>) {
    let (addr, count, _) = raw_server_logged(how).await;
    (addr, count)
}

/// [`raw_server`], and the instants at which the client hung up a hanging request
/// ([`Misbehave::Hang`], [`Misbehave::HangAll`]): when the fetcher gave up on it.
pub async fn raw_server_logged(
    how: Misbehave,
) -> (SocketAddr, Arc<Mutex<usize>>, Arc<Mutex<Vec<Instant>>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let count = Arc::new(Mutex::new(0));
    let hung_up = Arc::new(Mutex::new(Vec::new()));
    let c = count.clone();
    let h = hung_up.clone();
    tokio::spawn(async move {
        loop {
            let Ok((mut sock, _)) = listener.accept().await else {
                return;
            };
            let how = how.clone();
            let c = c.clone();
            let h = h.clone();
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut buf = [0u8; 1024];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match sock.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                if head.starts_with(b"GET /robots.txt") && !matches!(how, Misbehave::HangAll) {
                    let _ = sock
                        .write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
                        .await;
                    return;
                }
                *c.lock().expect("count") += 1;
                if matches!(how, Misbehave::Hang | Misbehave::HangAll) {
                    // Never answer; note when the client hangs up (bounded at 60 s).
                    let gone = tokio::time::timeout(Duration::from_secs(60), async {
                        while matches!(sock.read(&mut buf).await, Ok(n) if n > 0) {}
                    })
                    .await;
                    if gone.is_ok() {
                        h.lock().expect("hung up").push(Instant::now());
                    }
                    return;
                }
                let _ = misbehave(&mut sock, &how).await;
            });
        }
    });
    (addr, count, hung_up)
}

async fn misbehave(sock: &mut tokio::net::TcpStream, how: &Misbehave) -> std::io::Result<()> {
    match how {
        Misbehave::Hang | Misbehave::HangAll => Ok(()), // handled by the caller
        Misbehave::Drip { every } => {
            sock.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/html\r\nconnection: close\r\n\r\n<html><body>")
                .await?;
            // Bounded: a test never leaves a server running for long.
            for _ in 0..120 {
                tokio::time::sleep(*every).await;
                sock.write_all(b"x").await?;
            }
            Ok(())
        }
        Misbehave::Endless => {
            sock.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n")
                .await?;
            let chunk = format!("4000\r\n{}\r\n", "a".repeat(0x4000));
            // Bounded at 1 GiB: the client hangs up long before.
            for _ in 0..65_536 {
                sock.write_all(chunk.as_bytes()).await?;
            }
            Ok(())
        }
        Misbehave::Raw { head, body } => {
            let h = format!(
                "HTTP/1.1 200 OK\r\n{head}content-length: {}\r\nconnection: close\r\n\r\n",
                body.len()
            );
            sock.write_all(h.as_bytes()).await?;
            sock.write_all(body).await
        }
    }
}

/// Adds a watch on `url`; returns its id.
pub fn watch(app: &App, url: &str) -> WatchId {
    app.add_watch(&NewWatch {
        url: url.to_owned(),
        ..Default::default()
    })
    .expect("add watch")
    .0
    .id
}

/// A small list page with these (text, href) links.
pub fn list(links: &[(&str, &str)]) -> String {
    let mut s = String::from("<!doctype html><html><head><title>List</title></head><body><ul>");
    for (t, h) in links {
        let _ = write!(s, "<li><a href=\"{h}\">{t}</a></li>");
    }
    s.push_str("</ul></body></html>");
    s
}
