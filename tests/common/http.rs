//! What a test does over HTTP against a served app: a client that does not follow
//! redirects, a browser-ish session that keeps cookies by hand and reads CSRF fields
//! ([`Browser`]), JSON calls to the API, feeds read back with a real feed parser, and the
//! list entries the scripted site serves.

use reqwest::header::{COOKIE, LOCATION, SET_COOKIE};
use reqwest::{redirect, Client, RequestBuilder, StatusCode};
use serde_json::Value;

/// A client that does not follow redirects (the tests look at `Location` themselves).
pub fn client() -> Client {
    Client::builder()
        .redirect(redirect::Policy::none())
        .build()
        .expect("client")
}

/// A browser-ish session: keeps cookies by hand, may add headers a browser would.
pub struct Browser {
    pub client: Client,
    base: String,
    cookies: Vec<(String, String)>,
    /// `Set-Cookie` lines of the last answer.
    pub set_cookies: Vec<String>,
}

/// What a [`Browser`] got back.
pub struct Answer {
    pub status: StatusCode,
    pub body: String,
    /// The `Location` header.
    pub location: Option<String>,
}

impl Answer {
    /// Status, body and `Location`, for tests that take them apart in one line.
    pub fn parts(self) -> (StatusCode, String, Option<String>) {
        (self.status, self.body, self.location)
    }
}

impl Browser {
    /// A session against the server at `base` (`http://127.0.0.1:PORT`), no cookies yet.
    pub fn new(base: &str) -> Self {
        Self {
            client: client(),
            base: base.to_owned(),
            cookies: Vec::new(),
            set_cookies: Vec::new(),
        }
    }

    pub fn cookie(&self, name: &str) -> Option<String> {
        self.cookies
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    }

    pub fn set_cookie(&mut self, name: &str, value: &str) {
        self.cookies.retain(|(k, _)| k != name);
        self.cookies.push((name.to_owned(), value.to_owned()));
    }

    /// The CSRF cookie the server set.
    pub fn csrf(&self) -> String {
        self.cookie("sitefeed_csrf").expect("csrf cookie")
    }

    /// The session's cookies as a `Cookie` header value.
    pub fn cookie_header(&self) -> String {
        self.cookies
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("; ")
    }

    pub async fn get(&mut self, path: &str) -> Answer {
        let req = self.client.get(format!("{}{path}", self.base));
        self.send(req).await
    }

    /// Posts `form` to `path`, with `headers` added (an `Origin`, say).
    pub async fn post(
        &mut self,
        path: &str,
        form: &[(&str, &str)],
        headers: &[(&str, &str)],
    ) -> Answer {
        let mut req = self.client.post(format!("{}{path}", self.base)).form(form);
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        self.send(req).await
    }

    /// Sends `req` with the session's cookies and keeps the ones it sets.
    pub async fn send(&mut self, req: RequestBuilder) -> Answer {
        let r = req
            .header(COOKIE, self.cookie_header())
            .send()
            .await
            .expect("request");
        self.set_cookies.clear();
        for c in r.headers().get_all(SET_COOKIE) {
            let c = c.to_str().expect("cookie text").to_owned();
            let kv = c.split(';').next().expect("kv");
            let (k, v) = kv.split_once('=').expect("name=value");
            self.cookies.retain(|(n, _)| n != k);
            if !v.is_empty() {
                self.cookies.push((k.to_owned(), v.to_owned()));
            }
            self.set_cookies.push(c);
        }
        let status = r.status();
        let location = r
            .headers()
            .get(LOCATION)
            .map(|l| l.to_str().expect("loc").to_owned());
        Answer {
            status,
            body: r.text().await.expect("body"),
            location,
        }
    }

    /// Logs in with `token` through the form; returns the login answer.
    pub async fn login(&mut self, token: &str, next: Option<&str>) -> Answer {
        let page = self.get("/login").await.body;
        let csrf = csrf_field(&page);
        let mut form = vec![("token", token), ("csrf", csrf.as_str())];
        if let Some(n) = next {
            form.push(("next", n));
        }
        self.post("/login", &form, &[]).await
    }
}

/// The value of the first hidden csrf field in a page.
pub fn csrf_field(html: &str) -> String {
    let at = html.find("name=\"csrf\" value=\"").expect("csrf field") + 19;
    html[at..at + 32].to_owned()
}

/// The body of `url` as text, whatever the status (the tests that care look at it
/// themselves).
pub async fn get_text(c: &Client, url: &str) -> String {
    c.get(url)
        .send()
        .await
        .expect("request")
        .text()
        .await
        .expect("text")
}

/// Sends `r` and reads its answer as JSON.
pub async fn json(r: RequestBuilder) -> Value {
    r.send().await.expect("request").json().await.expect("json")
}

/// Posts `body` as JSON to `url`: the status and the JSON answer (`null` when the answer
/// is not JSON).
pub async fn post_json(c: &Client, url: &str, body: &Value) -> (u16, Value) {
    let r = c.post(url).json(body).send().await.expect("post");
    let code = r.status().as_u16();
    (code, r.json().await.unwrap_or(Value::Null))
}

/// The feed at `url` (RSS, Atom or JSON Feed), read by a real feed parser.
pub async fn parsed_feed(c: &Client, url: &str) -> feed_rs::model::Feed {
    let body = c
        .get(url)
        .send()
        .await
        .expect("feed")
        .bytes()
        .await
        .expect("bytes");
    feed_rs::parser::parse(body.as_ref()).expect("the feed parses")
}

/// The entries of the feed at `url` ([`parsed_feed`]): each entry's id and title.
pub async fn feed_entries(c: &Client, url: &str) -> Vec<(String, String)> {
    parsed_feed(c, url)
        .await
        .entries
        .iter()
        .map(|e| {
            (
                e.id.clone(),
                e.title
                    .as_ref()
                    .map(|t| t.content.clone())
                    .unwrap_or_default(),
            )
        })
        .collect()
}

/// The titles of the feed at `url`, in feed order.
pub async fn feed_titles(c: &Client, url: &str) -> Vec<String> {
    feed_entries(c, url)
        .await
        .into_iter()
        .map(|(_, title)| title)
        .collect()
}

/// `n` list entries, newest first: ("Notice n", "/n/n") down to ("Notice 1", "/n/1").
pub fn notices(n: usize) -> Vec<(String, String)> {
    (1..=n)
        .rev()
        .map(|i| (format!("Notice {i}"), format!("/n/{i}")))
        .collect()
}

/// Borrowed pairs, as [`super::Site::start`] takes them.
pub fn refs(v: &[(String, String)]) -> Vec<(&str, &str)> {
    v.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect()
}

/// A webhook receiver: answers with the statuses given in turn (then the last one), and
/// keeps the bodies it got.
pub async fn hook(statuses: Vec<u16>) -> (String, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    use axum::routing::post;
    let got = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let g = got.clone();
    let app = axum::Router::new().route(
        "/hook",
        post(move |body: String| {
            let g = g.clone();
            let statuses = statuses.clone();
            async move {
                let mut v = g.lock().expect("lock");
                v.push(body);
                let s = statuses
                    .get(v.len() - 1)
                    .or(statuses.last())
                    .copied()
                    .unwrap_or(200);
                axum::http::StatusCode::from_u16(s).expect("status")
            }
        }),
    );
    (format!("{}/hook", serve_router(app).await), got)
}

/// Serves a plain router (a webhook receiver) on 127.0.0.1:0; returns its base URL.
pub async fn serve_router(app: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move { axum::serve(listener, app).await.expect("router serve") });
    format!("http://{addr}")
}
