//! Who may do what.
//!
//! - `admin_token` set: the web page and the API need it, the API as
//!   `Authorization: Bearer <token>` or the page's session, the page as a session that
//!   the login form starts (server-side, [`crate::session`]; the cookie holds a random id,
//!   `HttpOnly`, `SameSite=Strict`, `Secure` when `base_url` is https). A browser without
//!   one is sent to `/login?next=<page>` and comes back to that page after login; an API
//!   client gets `401` JSON. Wrong tokens are throttled per client address.
//! - `feed_token` set: feeds and `/opml` need `?key=<feed_token>`; without it they answer
//!   `401` text, never a redirect to an HTML login (feed readers could not follow it).
//! - `/healthz` and `/metrics` are always open.
//! - **Cross-site requests**: every unsafe method (anything but GET, HEAD, OPTIONS) is
//!   refused with `403` when the browser says it comes from another origin: an `Origin`
//!   other than this server's (another port or a sibling host is another origin, though
//!   cookies and `SameSite` treat them as the same site), or `Sec-Fetch-Site` other than
//!   `same-origin`/`none`. Clients that send neither (curl, the CLI) are not browsers.
//!   Besides, every HTML form carries a CSRF token bound to the session (HMAC under the
//!   server secret), checked by its handler, and an unsafe `/api/*` call made with the
//!   session cookie (not a bearer token) must show that it is same-origin (`Origin` or
//!   `Sec-Fetch-Site`). JSON routes accept JSON only, OPML routes XML only, so no
//!   cross-site "simple request" (`text/plain`, forms) reaches them.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use axum::Json;

use super::error::ApiError;
use crate::app::App;
use crate::session::{self, SESSION_MAX_AGE};

/// Cookie holding the session id (admin token set only).
pub(crate) const SESSION_COOKIE: &str = "sitefeed_session";
/// Cookie holding a browser's anonymous id, the binding of its CSRF tokens before login.
pub(crate) const CSRF_COOKIE: &str = "sitefeed_csrf";

/// The middleware: applies the rules of the module documentation.
pub async fn layer(State(app): State<Arc<App>>, mut req: Request, next: Next) -> Response {
    let ip = client_ip(&req);
    req.extensions_mut().insert(ClientIp(ip));
    let path = req.uri().path().to_owned();
    if path == "/healthz" || path == "/metrics" {
        return next.run(req).await;
    }
    let api = path.starts_with("/api/");
    let unsafe_method = !matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    if unsafe_method {
        if let Err(why) = same_origin(&app, req.headers()) {
            return forbidden(api, &why);
        }
    }
    if path.starts_with("/feed/") || path == "/opml" {
        let key = &app.config().server.feed_token;
        if key.is_empty()
            || query_key(req.uri().query()).is_some_and(|k| app.security().same_secret(&k, key))
        {
            return next.run(req).await;
        }
        return (
            StatusCode::UNAUTHORIZED,
            "this feed needs its key: add ?key=<feed_token> as in the feed URLs sitefeed gives\n",
        )
            .into_response();
    }
    let token = &app.config().server.admin_token;
    if token.is_empty() || path == "/login" {
        return next.run(req).await;
    }
    let now = app.now();
    if let Some(bearer) = bearer(req.headers()) {
        if let Err(wait) = app.security().throttle_check(ip, now) {
            return too_many(wait);
        }
        if app.security().same_secret(bearer, token) {
            app.security().throttle_succeeded(ip);
            return next.run(req).await;
        }
        app.security().throttle_failed(ip, now);
        return ApiError::Unauthorized.into_response();
    }
    if session_id(&app, req.headers()).is_some() {
        if api && unsafe_method && !says_same_origin(req.headers()) {
            return forbidden(
                true,
                "an API call with the session cookie must come from this server's own page \
                 (Origin or Sec-Fetch-Site); scripts use \"Authorization: Bearer <token>\"",
            );
        }
        return next.run(req).await;
    }
    if api {
        return ApiError::Unauthorized.into_response();
    }
    if req.method() == Method::GET {
        let here = req
            .uri()
            .path_and_query()
            .map_or("/", axum::http::uri::PathAndQuery::as_str);
        let q: String = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("next", here)
            .finish();
        return Redirect::to(&format!("/login?{q}")).into_response();
    }
    Redirect::to("/login").into_response()
}

/// `Err(reason)` when a browser says the request comes from another origin.
fn same_origin(app: &App, headers: &HeaderMap) -> Result<(), String> {
    if let Some(site) = headers.get("sec-fetch-site") {
        let site = site.to_str().unwrap_or("");
        if !matches!(site, "same-origin" | "none") {
            return Err(format!(
                "cross-origin request refused (Sec-Fetch-Site: {site}): use this server's own page"
            ));
        }
    }
    let Some(origin) = headers.get(header::ORIGIN) else {
        return Ok(());
    };
    let origin = origin.to_str().unwrap_or("").trim_end_matches('/');
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    let own = |scheme: &str| !host.is_empty() && origin == format!("{scheme}://{host}");
    let base = app
        .config()
        .server
        .base_url
        .as_deref()
        .and_then(|b| url::Url::parse(b).ok())
        .map(|u| u.origin().ascii_serialization());
    if own("http") || own("https") || base.as_deref() == Some(origin) {
        Ok(())
    } else {
        Err(format!(
            "cross-origin request refused (Origin: {}): use this server's own page",
            origin.chars().take(100).collect::<String>()
        ))
    }
}

/// Whether a browser positively says the request is same-origin.
fn says_same_origin(headers: &HeaderMap) -> bool {
    headers.contains_key(header::ORIGIN)
        || headers
            .get("sec-fetch-site")
            .is_some_and(|v| v.as_bytes() == b"same-origin")
}

fn forbidden(api: bool, why: &str) -> Response {
    if api {
        (
            StatusCode::FORBIDDEN,
            Json(serde_json::json!({ "error": why })),
        )
            .into_response()
    } else {
        (StatusCode::FORBIDDEN, format!("{why}\n")).into_response()
    }
}

/// `429` with `Retry-After`, for a client that sent too many wrong tokens.
pub(crate) fn too_many(wait: i64) -> Response {
    let mut r = (
        StatusCode::TOO_MANY_REQUESTS,
        Json(serde_json::json!({
            "error": format!("too many wrong tokens from this address: try again in {wait} s")
        })),
    )
        .into_response();
    if let Ok(v) = HeaderValue::from_str(&wait.to_string()) {
        r.headers_mut().insert(header::RETRY_AFTER, v);
    }
    r
}

/// The client's address, as the middleware found it (for the login throttle).
#[derive(Debug, Clone, Copy)]
pub(crate) struct ClientIp(pub IpAddr);

/// The address of the client (unspecified when the server was not told, as in tests that
/// call the router directly: they share one throttle).
pub(crate) fn client_ip(req: &Request) -> IpAddr {
    req.extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |c| c.0.ip())
}

fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
}

/// The id of the request's live session, if any.
pub(crate) fn session_id(app: &App, headers: &HeaderMap) -> Option<String> {
    cookie(headers, SESSION_COOKIE).filter(|id| app.security().session_live(id, app.now()))
}

fn secure(app: &App) -> &'static str {
    if app
        .config()
        .server
        .base_url
        .as_deref()
        .is_some_and(|b| b.starts_with("https://"))
    {
        "; Secure"
    } else {
        ""
    }
}

/// Starts a session; returns the `Set-Cookie` that carries it.
pub(crate) fn start_session(app: &App) -> HeaderValue {
    let id = app.security().create_session(app.now());
    let v = format!(
        "{SESSION_COOKIE}={id}; Path=/; Max-Age={SESSION_MAX_AGE}; HttpOnly; SameSite=Strict{}",
        secure(app)
    );
    HeaderValue::from_str(&v).expect("invariant: hex ids make a valid header")
}

/// Ends the request's session; returns the `Set-Cookie` that clears it.
pub fn end_session(app: &App, headers: &HeaderMap) -> HeaderValue {
    if let Some(id) = cookie(headers, SESSION_COOKIE) {
        app.security().end_session(&id);
    }
    let v = format!(
        "{SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict{}",
        secure(app)
    );
    HeaderValue::from_str(&v).expect("invariant: a valid header")
}

/// What the request's CSRF tokens are bound to: its session, else its browser's id.
fn binding(app: &App, headers: &HeaderMap) -> Option<String> {
    session_id(app, headers)
        .map(|s| format!("session:{s}"))
        .or_else(|| {
            cookie(headers, CSRF_COOKIE)
                .filter(|c| c.len() == 64 && c.bytes().all(|b| b.is_ascii_hexdigit()))
                .map(|c| format!("browser:{c}"))
        })
}

/// The CSRF token for the forms of this request, and the `Set-Cookie` to send when the
/// browser needs an id first.
pub fn csrf(app: &App, headers: &HeaderMap) -> (String, Option<HeaderValue>) {
    if let Some(b) = binding(app, headers) {
        return (app.security().csrf_token(&b), None);
    }
    let id = session::random_hex(32);
    let set = HeaderValue::from_str(&format!(
        "{CSRF_COOKIE}={id}; Path=/; HttpOnly; SameSite=Strict{}",
        secure(app)
    ))
    .ok();
    (app.security().csrf_token(&format!("browser:{id}")), set)
}

/// Whether a submitted form's `csrf` field is the token of this request's binding.
pub fn csrf_ok(app: &App, headers: &HeaderMap, field: &str) -> bool {
    binding(app, headers).is_some_and(|b| app.security().csrf_ok(&b, field))
}

/// The value of cookie `name`.
fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.to_owned())
}

/// The `key` parameter of a query string, percent-decoded.
fn query_key(query: Option<&str>) -> Option<String> {
    url::form_urlencoded::parse(query?.as_bytes())
        .find(|(k, _)| k == "key")
        .map(|(_, v)| v.into_owned())
}

/// Where to go after login: `next` when it is a path of this server, else `/`.
pub(crate) fn local_path(next: Option<&str>) -> String {
    match next {
        Some(p)
            if p.starts_with('/')
                && !p.starts_with("//")
                && !p.starts_with("/\\")
                && !p.starts_with("/login")
                && !p.chars().any(|c| c.is_control() || c == '\\') =>
        {
            p.to_owned()
        }
        _ => "/".to_owned(),
    }
}
