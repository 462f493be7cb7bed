//! Fetching pages: one reqwest client with timeouts, a body cap applied to the
//! decompressed bytes, a redirect cap with loop detection, conditional GET, and the
//! address guard of [`guard`].

pub mod guard;

use std::time::Duration;

use url::Url;

use crate::config::FetchConfig;

/// Conditional-GET validators remembered from the last response.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Validators {
    pub etag: Option<String>,
    pub last_modified: Option<String>,
}

/// A fetched page, not yet decoded.
#[derive(Debug, Clone)]
pub struct Page {
    /// The URL after redirects.
    pub url: Url,
    pub content_type: Option<String>,
    pub body: Vec<u8>,
    pub validators: Validators,
}

#[derive(Debug)]
pub enum FetchOutcome {
    /// `304 Not Modified`: the page is as before.
    NotModified,
    Page(Page),
}

/// Why a fetch failed, in words a user can act on.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("timed out after {0:?}")]
    Timeout(Duration),
    #[error("the server stopped sending for {0:?}")]
    Stalled(Duration),
    #[error("could not connect: {0}")]
    Connect(String),
    #[error("the server answered {0}")]
    Status(reqwest::StatusCode),
    #[error("the page is larger than the limit of {0} bytes (fetch.max_body_bytes)")]
    TooLarge(u64),
    #[error("not an HTML page (Content-Type: {0})")]
    NotHtml(String),
    #[error("the page is empty")]
    Empty,
    #[error("redirect refused: {0}")]
    Redirect(String),
    #[error("refused to fetch {0}: not a public address (set fetch.allow_private_addresses = true to allow)")]
    Refused(std::net::IpAddr),
    #[error("{0}")]
    Other(String),
}

impl FetchError {
    /// A short label for metrics.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Timeout(_) | Self::Stalled(_) => "timeout",
            Self::Connect(_) => "connect",
            Self::Status(_) => "status",
            Self::TooLarge(_) => "too_large",
            Self::NotHtml(_) => "not_html",
            Self::Empty => "empty",
            Self::Redirect(_) => "redirect",
            Self::Refused(_) => "refused",
            Self::Other(_) => "other",
        }
    }
}

/// Fetches pages for checks.
#[derive(Debug, Clone)]
pub struct Fetcher {
    client: reqwest::Client,
    cfg: FetchConfig,
}

impl Fetcher {
    pub fn new(cfg: &FetchConfig) -> Result<Self, FetchError> {
        let max_redirects = cfg.max_redirects;
        let allow_private = cfg.allow_private_addresses;
        let policy = reqwest::redirect::Policy::custom(move |attempt| {
            if attempt.previous().len() > max_redirects {
                return attempt.error(format!("more than {max_redirects} redirects"));
            }
            if attempt.previous().iter().any(|u| u == attempt.url()) {
                return attempt.error("redirect loop");
            }
            if !matches!(attempt.url().scheme(), "http" | "https") {
                let s = attempt.url().scheme().to_owned();
                return attempt.error(format!("redirect to a `{s}:` URL"));
            }
            if !allow_private {
                if let Err(ip) = guard::check_host(attempt.url()) {
                    return attempt.error(format!("redirect to non-public address {ip}"));
                }
            }
            attempt.follow()
        });
        let mut builder = reqwest::Client::builder()
            .user_agent(cfg.user_agent.clone())
            .timeout(cfg.timeout)
            .connect_timeout(cfg.timeout.min(Duration::from_secs(10)))
            .redirect(policy)
            .gzip(true)
            .brotli(true)
            .deflate(true);
        if !allow_private {
            builder = builder.dns_resolver(std::sync::Arc::new(guard::GuardedResolver));
        }
        let client = builder
            .build()
            .map_err(|e| FetchError::Other(format!("cannot build HTTP client: {e}")))?;
        Ok(Self {
            client,
            cfg: cfg.clone(),
        })
    }

    /// GETs `url`, conditionally on `validators`.
    pub async fn get(
        &self,
        url: &Url,
        validators: &Validators,
    ) -> Result<FetchOutcome, FetchError> {
        if !self.cfg.allow_private_addresses {
            guard::check_host(url).map_err(FetchError::Refused)?;
        }
        let mut req = self.client.get(url.clone()).header(
            reqwest::header::ACCEPT,
            "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5",
        );
        if let Some(etag) = &validators.etag {
            req = req.header(reqwest::header::IF_NONE_MATCH, etag);
        }
        if let Some(lm) = &validators.last_modified {
            req = req.header(reqwest::header::IF_MODIFIED_SINCE, lm);
        }
        let mut resp = req.send().await.map_err(|e| self.classify(&e))?;
        let status = resp.status();
        if status == reqwest::StatusCode::NOT_MODIFIED {
            return Ok(FetchOutcome::NotModified);
        }
        if !status.is_success() {
            return Err(FetchError::Status(status));
        }
        let header = |name: reqwest::header::HeaderName| {
            resp.headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let content_type = header(reqwest::header::CONTENT_TYPE);
        let validators = Validators {
            etag: header(reqwest::header::ETAG),
            last_modified: header(reqwest::header::LAST_MODIFIED),
        };
        if let Some(ct) = &content_type {
            if !is_html_type(ct) {
                return Err(FetchError::NotHtml(ct.clone()));
            }
        }
        let cap = self.cfg.max_body_bytes;
        if resp.content_length().is_some_and(|n| n > cap) {
            return Err(FetchError::TooLarge(cap));
        }
        let stall = self.cfg.timeout.min(Duration::from_secs(10));
        let mut body = Vec::new();
        loop {
            let chunk = tokio::time::timeout(stall, resp.chunk())
                .await
                .map_err(|_| FetchError::Stalled(stall))?
                .map_err(|e| self.classify(&e))?;
            let Some(chunk) = chunk else { break };
            if (body.len() + chunk.len()) as u64 > cap {
                return Err(FetchError::TooLarge(cap));
            }
            body.extend_from_slice(&chunk);
        }
        if body.iter().all(u8::is_ascii_whitespace) {
            return Err(FetchError::Empty);
        }
        if content_type.is_none() && !looks_like_html(&body) {
            return Err(FetchError::NotHtml("none, and the body is not HTML".into()));
        }
        Ok(FetchOutcome::Page(Page {
            url: resp.url().clone(),
            content_type,
            body,
            validators,
        }))
    }

    fn classify(&self, e: &reqwest::Error) -> FetchError {
        if e.is_timeout() {
            return FetchError::Timeout(self.cfg.timeout);
        }
        if e.is_redirect() {
            return FetchError::Redirect(root_cause(e));
        }
        let cause = root_cause(e);
        if e.is_connect() {
            return FetchError::Connect(cause);
        }
        FetchError::Other(cause)
    }
}

/// The innermost message of an error chain, which is the one that says what happened.
fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cur = e;
    while let Some(next) = cur.source() {
        cur = next;
    }
    cur.to_string()
}

/// HTML and XHTML media types.
pub fn is_html_type(content_type: &str) -> bool {
    let mime = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    matches!(mime.as_str(), "text/html" | "application/xhtml+xml" | "")
}

/// Whether an untyped body starts like markup.
fn looks_like_html(body: &[u8]) -> bool {
    let body = body.strip_prefix(b"\xef\xbb\xbf").unwrap_or(body);
    body.iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|&b| b == b'<')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_types() {
        assert!(is_html_type("text/html"));
        assert!(is_html_type("text/html; charset=GBK"));
        assert!(is_html_type("Application/XHTML+XML"));
        assert!(!is_html_type("application/pdf"));
        assert!(!is_html_type("text/plain; charset=utf-8"));
        assert!(looks_like_html(b"\xef\xbb\xbf  <!doctype html>"));
        assert!(!looks_like_html(b"%PDF-1.4"));
    }
}
