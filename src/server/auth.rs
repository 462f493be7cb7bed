//! Who may do what.
//!
//! - `admin_token` set: the web page and the API need it, the API as
//!   `Authorization: Bearer <token>`, the page as a session cookie that the login form sets
//!   (`HttpOnly`, `SameSite=Strict`; its value is derived from the token, so changing the
//!   token logs everyone out). A browser without it is sent to `/login`; an API client gets
//!   `401` JSON.
//! - `feed_token` set: feeds and `/opml` need `?key=<feed_token>`; without it they answer
//!   `401` text, never a redirect to an HTML login (feed readers could not follow it).
//! - `/healthz` and `/metrics` are always open.
//! - Every HTML form carries a CSRF token (double-submit: a random `sitefeed_csrf` cookie,
//!   `SameSite=Strict`, equal to the form's hidden `csrf` field), checked by the handler.

use std::fmt::Write;
use std::hash::{BuildHasher, Hasher};
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};

use super::error::ApiError;
use crate::app::App;

/// Cookie holding the session (admin token set only).
pub const SESSION_COOKIE: &str = "sitefeed_session";
/// Cookie holding the CSRF token.
pub const CSRF_COOKIE: &str = "sitefeed_csrf";

/// The middleware: applies the rules of the module documentation.
pub async fn layer(State(app): State<Arc<App>>, req: Request, next: Next) -> Response {
    let path = req.uri().path();
    if path == "/healthz" || path == "/metrics" {
        return next.run(req).await;
    }
    if path.starts_with("/feed/") || path == "/opml" {
        let key = &app.config.server.feed_token;
        if key.is_empty() || query_key(req.uri().query()).is_some_and(|k| eq(&k, key)) {
            return next.run(req).await;
        }
        return (
            StatusCode::UNAUTHORIZED,
            "this feed needs its key: add ?key=<feed_token> as in the feed URLs sitefeed gives\n",
        )
            .into_response();
    }
    let token = &app.config.server.admin_token;
    if token.is_empty() || path == "/login" || authorized(req.headers(), token) {
        return next.run(req).await;
    }
    if path.starts_with("/api/") {
        return ApiError::Unauthorized.into_response();
    }
    Redirect::to("/login").into_response()
}

/// Whether the request carries the admin token (bearer) or a valid session cookie.
fn authorized(headers: &HeaderMap, token: &str) -> bool {
    let bearer = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    if bearer.is_some_and(|b| eq(b, token)) {
        return true;
    }
    cookie(headers, SESSION_COOKIE).is_some_and(|c| eq(&c, &session_value(token)))
}

/// The session cookie's value for `token`: a digest, so the token itself never sits in
/// the browser.
pub fn session_value(token: &str) -> String {
    use md5::{Digest, Md5};
    crate::model::hex(&Md5::digest(
        format!("sitefeed-session\0{token}").as_bytes(),
    ))
}

/// Whether `given` is the admin token.
pub fn is_admin_token(app: &App, given: &str) -> bool {
    eq(given, &app.config.server.admin_token)
}

/// `Set-Cookie` for a session.
pub fn session_cookie(token: &str) -> HeaderValue {
    let v = format!(
        "{SESSION_COOKIE}={}; Path=/; HttpOnly; SameSite=Strict",
        session_value(token)
    );
    HeaderValue::from_str(&v).unwrap_or(HeaderValue::from_static(""))
}

/// `Set-Cookie` that ends the session.
pub fn logout_cookie() -> HeaderValue {
    HeaderValue::from_static("sitefeed_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict")
}

/// The CSRF token of this browser, and the `Set-Cookie` to send when it is new.
pub fn csrf(headers: &HeaderMap) -> (String, Option<HeaderValue>) {
    if let Some(c) = cookie(headers, CSRF_COOKIE).filter(|c| c.len() == 32) {
        return (c, None);
    }
    let t = random_hex();
    let set = HeaderValue::from_str(&format!(
        "{CSRF_COOKIE}={t}; Path=/; HttpOnly; SameSite=Strict"
    ))
    .ok();
    (t, set)
}

/// Whether a submitted form's `csrf` field matches the browser's CSRF cookie.
pub fn csrf_ok(headers: &HeaderMap, field: &str) -> bool {
    cookie(headers, CSRF_COOKIE).is_some_and(|c| !c.is_empty() && eq(&c, field))
}

/// 128 random bits as hex, from the standard library's randomly seeded hasher keys.
fn random_hex() -> String {
    let mut out = String::new();
    for i in 0..2u64 {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(i);
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
        );
        let _ = write!(out, "{:016x}", h.finish());
    }
    out
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

/// Constant-time string equality (length aside).
fn eq(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}
