//! The test site: a local HTTP server on 127.0.0.1:0 whose answers the test scripts per
//! path (a queue of canned answers, or an evolving list page on `/`) and which logs every
//! request it gets, so politeness and concurrency can be asserted from the server's own
//! point of view. Also the HTML of the list pages tests serve.

use std::collections::{HashMap, VecDeque};
use std::fmt::Write;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::Response;

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

/// What a path answers.
#[derive(Debug, Clone)]
enum Answer {
    Canned(Canned),
    /// A notice-board page with these (title, path) entries ([`list_page`]), whose visit
    /// counter changes on every request.
    List(Vec<(String, String)>),
}

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub struct Hit {
    /// Path and query.
    pub path: String,
    pub start: Instant,
    pub end: Instant,
    pub headers: HeaderMap,
}

#[derive(Debug, Default)]
struct SiteState {
    /// Answers per path (with query, else without); the last one of a queue repeats.
    routes: HashMap<String, VecDeque<Answer>>,
    log: Vec<Hit>,
    /// Every routed answer waits this long (to observe concurrency).
    delay: Duration,
    in_flight: u64,
    max_in_flight: u64,
}

/// A local site answering what the test scripted; other paths get a 404.
#[derive(Debug, Clone)]
pub struct Site {
    pub addr: SocketAddr,
    state: Arc<Mutex<SiteState>>,
}

impl Site {
    /// A site whose front page `/` lists these (title, path) entries, top first.
    pub async fn start(entries: &[(&str, &str)]) -> Self {
        let site = Self::empty().await;
        site.set(entries);
        site
    }

    /// A site with nothing on it yet: every path answers 404 until [`Site::route`].
    pub async fn empty() -> Self {
        let state = Arc::new(Mutex::new(SiteState::default()));
        let st = state.clone();
        let app = axum::Router::new().fallback(move |uri: Uri, headers: HeaderMap| {
            let st = st.clone();
            async move { answer(&st, &uri, headers).await }
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        tokio::spawn(async move { axum::serve(listener, app).await.expect("site serve") });
        Self { addr, state }
    }

    /// The front page's URL.
    pub fn url(&self) -> String {
        self.url_of("/")
    }

    pub fn url_of(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Answers `path` with `replies`, in order; the last one repeats.
    pub fn route(&self, path: &str, replies: Vec<Canned>) {
        let answers = replies.into_iter().map(Answer::Canned).collect();
        self.lock().routes.insert(path.to_owned(), answers);
    }

    /// The front page lists these (title, path) entries from now on.
    pub fn set<T: AsRef<str>, P: AsRef<str>>(&self, entries: &[(T, P)]) {
        let entries = entries
            .iter()
            .map(|(t, p)| (t.as_ref().to_owned(), p.as_ref().to_owned()))
            .collect();
        self.lock()
            .routes
            .insert("/".to_owned(), VecDeque::from([Answer::List(entries)]));
    }

    /// The front page is this body from now on.
    pub fn set_raw(&self, content_type: &str, body: impl Into<Vec<u8>>) {
        self.route("/", vec![Canned::new(200, content_type, body)]);
    }

    /// Every routed answer waits `delay` from now on.
    pub fn set_delay(&self, delay: Duration) {
        self.lock().delay = delay;
    }

    /// Requests for the front page, whatever their query.
    pub fn requests(&self) -> u64 {
        let log = &self.lock().log;
        log.iter()
            .filter(|h| h.path.split('?').next() == Some("/"))
            .count() as u64
    }

    /// The most routed requests that were answered at once.
    pub fn max_in_flight(&self) -> u64 {
        self.lock().max_in_flight
    }

    pub fn log(&self) -> Vec<Hit> {
        self.lock().log.clone()
    }

    /// Requests for `path` (with its query, exactly).
    pub fn hits(&self, path: &str) -> usize {
        self.lock().log.iter().filter(|h| h.path == path).count()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, SiteState> {
        self.state.lock().expect("site lock")
    }
}

async fn answer(state: &Mutex<SiteState>, uri: &Uri, headers: HeaderMap) -> Response {
    let start = Instant::now();
    let path = uri
        .path_and_query()
        .map_or_else(|| uri.path().to_owned(), ToString::to_string);
    let (found, visits, delay) = {
        let mut s = state.lock().expect("site lock");
        let visits = s.log.iter().filter(|h| h.path == path).count() as u64 + 1;
        let found = match s.routes.get_mut(&path) {
            Some(q) => Some(next_of(q)),
            None => s.routes.get_mut(uri.path()).map(next_of),
        };
        if found.is_some() {
            s.in_flight += 1;
            s.max_in_flight = s.max_in_flight.max(s.in_flight);
        }
        (found, visits, s.delay)
    };
    let resp = match &found {
        None => respond(&Canned::status(404), &headers),
        Some(answer) => {
            tokio::time::sleep(delay).await;
            let canned = match answer {
                Answer::Canned(c) => c.clone(),
                Answer::List(entries) => Canned::html(list_page(entries, visits)),
            };
            tokio::time::sleep(canned.work).await;
            respond(&canned, &headers)
        }
    };
    let mut s = state.lock().expect("site lock");
    if found.is_some() {
        s.in_flight -= 1;
    }
    s.log.push(Hit {
        path,
        start,
        end: Instant::now(),
        headers,
    });
    resp
}

/// The next answer of a queue; the last one repeats.
fn next_of(q: &mut VecDeque<Answer>) -> Answer {
    if q.len() > 1 {
        q.pop_front().expect("non-empty")
    } else {
        q.front().cloned().expect("non-empty")
    }
}

/// `canned`, or a 304 when it has an ETag the request sent back.
fn respond(canned: &Canned, headers: &HeaderMap) -> Response {
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
        Body::from(canned.body.clone())
    };
    b.body(body).unwrap_or_else(|_| {
        let mut r = Response::new(Body::empty());
        *r.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
        r
    })
}

/// A notice-board page: a menu, the entries (each with a "Read more" link), a footer,
/// and a visit counter that changes on every request.
pub fn list_page(entries: &[(String, String)], visits: u64) -> String {
    let mut s = String::from(
        "<!doctype html><html><head><meta charset=utf-8><title>Notice board</title><link rel=\"icon\" href=\"/favicon.png\">\
         <script>var x = '<a href=\"/script-link\">not a link</a>';</script></head><body>\
         <nav><a href=\"/\">Home</a> <a href=\"/about\">About</a></nav><ul id=\"list\">",
    );
    for (title, path) in entries {
        let _ = write!(
            s,
            "<li><a href=\"{path}\">{}</a> <a href=\"{path}#more\">Read more</a></li>",
            escape(title)
        );
    }
    let _ = write!(
        s,
        "</ul><footer><a href=\"/contact\">Contact</a> Visits: {visits}</footer></body></html>"
    );
    s
}

/// HTML-escapes text the way a site would (control characters are left as they are).
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
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
