//! The public address of this server as the client sees it, for the feed URLs written in
//! pages, feeds, OPML and API answers: `server.base_url` when set; otherwise the request's
//! `Host` (so a reader on another machine gets URLs it can reach), and behind a proxy
//! listed in `server.trusted_proxies` the scheme and host it forwarded (`Forwarded`, else
//! `X-Forwarded-Proto` / `X-Forwarded-Host`). Forwarding headers from anyone else are
//! ignored: they are trivially forged.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderMap};
use axum::middleware::Next;
use axum::response::Response;

use crate::app::App;

/// The public base URL of the current request, no trailing slash. Set by [`layer`].
#[derive(Debug, Clone)]
pub(crate) struct PublicBase(pub String);

/// Computes the request's [`PublicBase`] and puts it in the request's extensions.
pub async fn layer(State(app): State<Arc<App>>, mut req: Request, next: Next) -> Response {
    let peer = req
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0);
    let base = public_base(&app, req.headers(), peer);
    req.extensions_mut().insert(PublicBase(base));
    let mut resp = next.run(req).await;
    // The answer depends on these headers: a shared cache must not hand one client's
    // URLs to another.
    if app.config().server.base_url.is_none() {
        let vary = if app.config().server.trusted_proxies.is_empty() {
            "Host"
        } else {
            "Host, Forwarded, X-Forwarded-Proto, X-Forwarded-Host"
        };
        resp.headers_mut()
            .append(header::VARY, axum::http::HeaderValue::from_static(vary));
    }
    resp
}

/// The base URL for a request with `headers` from `peer`.
pub(crate) fn public_base(app: &App, headers: &HeaderMap, peer: Option<SocketAddr>) -> String {
    if let Some(b) = &app.config().server.base_url {
        return b.clone();
    }
    let trusted = peer.is_some_and(|p| {
        app.config()
            .server
            .trusted_proxies
            .iter()
            .any(|r| r.contains(p.ip()))
    });
    let mut scheme = "http".to_owned();
    let mut host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(str::to_owned);
    if trusted {
        let (fwd_proto, fwd_host) = forwarded(headers);
        let first = |name: &str| {
            headers
                .get(name)
                .and_then(|h| h.to_str().ok())
                .and_then(|v| v.split(',').next())
                .map(|v| v.trim().to_owned())
        };
        if let Some(p) = fwd_proto.or_else(|| first("x-forwarded-proto")) {
            scheme = p.to_ascii_lowercase();
        }
        if let Some(h) = fwd_host.or_else(|| first("x-forwarded-host")) {
            host = Some(h);
        }
    }
    let scheme = if scheme == "https" { "https" } else { "http" };
    match host.filter(|h| valid_host(h)) {
        Some(h) => format!("{scheme}://{h}"),
        None => app.base_url(),
    }
}

/// The `proto` and `host` of the first element of a `Forwarded` header (RFC 7239).
fn forwarded(headers: &HeaderMap) -> (Option<String>, Option<String>) {
    let Some(v) = headers.get(header::FORWARDED).and_then(|h| h.to_str().ok()) else {
        return (None, None);
    };
    let first = v.split(',').next().unwrap_or("");
    let (mut proto, mut host) = (None, None);
    for pair in first.split(';') {
        let Some((k, val)) = pair.split_once('=') else {
            continue;
        };
        let val = val.trim().trim_matches('"').to_owned();
        match k.trim().to_ascii_lowercase().as_str() {
            "proto" => proto = Some(val),
            "host" => host = Some(val),
            _ => {}
        }
    }
    (proto, host)
}

/// A `host[:port]` that can stand in a URL as it is (no path, user info or spaces).
fn valid_host(h: &str) -> bool {
    !h.is_empty()
        && h.len() <= 255
        && h.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b".-:[]_".contains(&b))
        && url::Url::parse(&format!("http://{h}/")).is_ok_and(|u| u.path() == "/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forwarded_reads_the_first_element() {
        let mut h = HeaderMap::new();
        h.insert(
            header::FORWARDED,
            "for=1.2.3.4;proto=https;host=\"feeds.example.org\", for=5.6.7.8;proto=http"
                .parse()
                .expect("header"),
        );
        assert_eq!(
            forwarded(&h),
            (Some("https".into()), Some("feeds.example.org".into()))
        );
    }

    #[test]
    fn hosts_with_paths_or_user_info_are_refused() {
        assert!(valid_host("example.org:8080"));
        assert!(valid_host("[::1]:8080"));
        for bad in ["a b", "evil.org/x", "u@evil.org", "", "a\"b"] {
            assert!(!valid_host(bad), "{bad}");
        }
    }
}
