//! Fetching pages politely and safely (`docs/design.md` §7): what a check asks for is
//! [`Fetcher::get`]`(url, validators)`; everything between that call and the bytes of a
//! page is here.
//!
//! # Architecture
//!
//! One `get` is: up to `fetch.retries` extra *attempts* (exponential backoff with
//! jitter, after timeouts, stalls and 5xx; a `429`/`503` `Retry-After` is waited for
//! inside the check only when it is short, and otherwise handed to the scheduler in the
//! error). One attempt follows redirects itself, hop by hop, and each hop:
//!
//! 1. refuses non-http(s) schemes and non-public IP-literal hosts ([`guard`]);
//! 2. obeys the origin's robots.txt ([`robots`], fetched through steps 3 to 5 itself);
//! 3. waits for its host's turn ([`host`]: one in flight, a delay between requests,
//!    `Retry-After`, a bounded queue; waiting too long becomes a *deferral*);
//! 4. takes one of `fetch.global_concurrency` request slots;
//! 5. connects through the caching, guarded resolver ([`dns`]), so the address actually
//!    connected to is a public one on every hop, never through a proxy.
//!
//! The body is read under the same permits, with a stall rule (at least 1 KiB per
//! `fetch.stall_timeout_secs`) and a cap on the decompressed bytes (gzip, deflate and
//! brotli are decoded by reqwest as they arrive). Decoding the charset is the
//! extractor's job (`extract::charset`), on the bytes returned here.

pub mod browser;
pub mod dns;
pub mod guard;
pub mod host;
pub mod robots;

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use reqwest::header::{self, HeaderMap};
use reqwest::StatusCode;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;
use url::Url;

use crate::config::FetchConfig;
use host::{GateError, HostGates, HostKey, HostPermit};
use robots::{RobotsCache, Rules};

/// A body must deliver at least this many bytes per stall window.
pub const STALL_MIN_BYTES: usize = 1024;
/// First retry delay; doubled per attempt, then jittered by ±50%.
const BACKOFF_BASE: Duration = Duration::from_millis(500);
/// `Retry-After` assumed for a `429` that gives none.
const DEFAULT_429_WAIT: Duration = Duration::from_secs(60);

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
    #[error("the server sent less than 1 KiB in {0:?} and was cut off (fetch.stall_timeout_secs)")]
    Stalled(Duration),
    #[error("could not connect: {0}")]
    Connect(String),
    /// The host's name does not resolve.
    #[error("{0}")]
    Dns(String),
    #[error("connection refused: nothing listens at that address and port (is the site down, or the port wrong?)")]
    ConnectionRefused,
    #[error("the server answered {code}{}", after(.retry_after.as_ref()))]
    Status {
        code: StatusCode,
        /// How long the server asked us to wait (`Retry-After`; 60 s for a bare 429).
        retry_after: Option<Duration>,
    },
    #[error("the page is larger than the limit of {0} bytes (fetch.max_body_bytes)")]
    TooLarge(u64),
    #[error("not an HTML page (Content-Type: {0})")]
    NotHtml(String),
    #[error("the page is empty")]
    Empty,
    #[error("redirect refused: {0}")]
    Redirect(String),
    #[error("refused to fetch {0}: not a public address (set fetch.allow_private_addresses = true to allow)")]
    Refused(IpAddr),
    #[error("refused to fetch: {0}")]
    RefusedHost(String),
    #[error("`{0}:` URLs are not fetched, only http and https")]
    Scheme(String),
    #[error("robots.txt of {origin} disallows {path} for {agent} (fetch.respect_robots)")]
    Robots {
        origin: String,
        path: String,
        agent: String,
    },
    #[error("robots.txt of {origin} cannot be read ({reason}), which by RFC 9309 means wait")]
    RobotsUnreachable { origin: String, reason: String },
    /// Not tried: the host is busy or asked for a pause. Not a failure of the watch.
    #[error("not fetched yet: {reason}; next try in {}s", .wait.as_secs().max(1))]
    Deferred { reason: String, wait: Duration },
    /// The headless browser could not render the page.
    #[error("rendering in the browser failed: {0}")]
    Render(String),
    #[error("{0}")]
    Other(String),
}

fn after(retry_after: Option<&Duration>) -> String {
    retry_after.map_or_else(String::new, |d| format!(" (Retry-After: {}s)", d.as_secs()))
}

impl FetchError {
    /// A short label for metrics.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Timeout(_) | Self::Stalled(_) => "timeout",
            Self::Connect(_) | Self::ConnectionRefused => "connect",
            Self::Dns(_) => "dns",
            Self::Status { .. } => "status",
            Self::TooLarge(_) => "too_large",
            Self::NotHtml(_) => "not_html",
            Self::Empty => "empty",
            Self::Redirect(_) => "redirect",
            Self::Refused(_) | Self::RefusedHost(_) | Self::Scheme(_) => "refused",
            Self::Robots { .. } | Self::RobotsUnreachable { .. } => "robots",
            Self::Deferred { .. } => "deferred",
            Self::Render(_) => "render",
            Self::Other(_) => "other",
        }
    }

    /// How long the next check should wait at least, when the server (or politeness)
    /// says so.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::Status { retry_after, .. } => *retry_after,
            Self::Deferred { wait, .. } => Some(*wait),
            Self::RobotsUnreachable { .. } => Some(robots::UNREACHABLE_TTL),
            _ => None,
        }
    }

    /// Whether the host as a whole seems down or overloaded (not just this page).
    pub fn is_host_failure(&self) -> bool {
        match self {
            Self::Timeout(_) | Self::Stalled(_) | Self::Connect(_) | Self::ConnectionRefused => {
                true
            }
            Self::Status { code, .. } => code.is_server_error(),
            _ => false,
        }
    }

    /// Whether nothing was fetched because of politeness (not the watch's fault).
    pub fn is_deferral(&self) -> bool {
        matches!(self, Self::Deferred { .. })
    }
}

/// Fetches pages for checks. Cheap to clone; clones share the host gates, robots and DNS
/// caches and the global request cap.
#[derive(Debug, Clone)]
pub struct Fetcher {
    inner: Arc<Inner>,
    /// The headless browser for watches that render (it starts on the first render).
    browser: Option<Arc<browser::Browser>>,
}

/// A response to one request of a rendered page, handed to the browser as it is.
#[derive(Debug)]
pub struct Resource {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

/// Request headers of the browser not passed on: the connection's own, and those the
/// fetcher sets itself (its User-Agent, the encodings it decodes).
const DROPPED_REQUEST_HEADERS: &[&str] = &[
    "host",
    "connection",
    "content-length",
    "transfer-encoding",
    "user-agent",
    "accept-encoding",
    "proxy-authorization",
    "upgrade",
    "te",
    "keep-alive",
];

/// Response headers not handed to the browser: the body is given whole and decoded.
const DROPPED_RESPONSE_HEADERS: &[&str] = &[
    "content-encoding",
    "content-length",
    "transfer-encoding",
    "connection",
    "keep-alive",
];

#[derive(Debug)]
struct Inner {
    client: reqwest::Client,
    cfg: FetchConfig,
    gates: HostGates,
    robots: RobotsCache,
    global: Arc<Semaphore>,
    /// The robots.txt product token.
    agent: String,
}

/// What lets a request run: its host's turn and a global slot.
#[derive(Debug)]
struct Permits {
    _host: HostPermit,
    _global: OwnedSemaphorePermit,
}

/// Options of one request.
#[derive(Debug, Clone, Copy)]
struct Purpose<'a> {
    validators: Option<&'a Validators>,
    /// Check robots.txt on every hop (not for robots.txt itself).
    robots: bool,
}

impl Fetcher {
    pub fn new(cfg: &FetchConfig) -> Result<Self, FetchError> {
        Self::build(cfg, dns::CachingResolver::new(cfg.allow_private_addresses))
    }

    /// A fetcher whose resolver answers `hosts` from a fixed table (test builds only).
    #[cfg(test)]
    pub(crate) fn with_test_hosts(
        cfg: &FetchConfig,
        hosts: std::collections::HashMap<String, dns::TestHost>,
    ) -> Result<Self, FetchError> {
        Self::build(
            cfg,
            dns::CachingResolver::with_test_hosts(cfg.allow_private_addresses, hosts),
        )
    }

    fn build(cfg: &FetchConfig, resolver: dns::CachingResolver) -> Result<Self, FetchError> {
        let client = reqwest::Client::builder()
            .user_agent(cfg.user_agent.clone())
            .timeout(cfg.timeout)
            .connect_timeout(cfg.connect_timeout)
            // Redirects are followed by `request`, hop by hop, through every check.
            .redirect(reqwest::redirect::Policy::none())
            // A proxy would connect on our behalf to addresses the guard never sees.
            .no_proxy()
            .gzip(true)
            .brotli(true)
            .deflate(true)
            .pool_max_idle_per_host(2)
            .dns_resolver(Arc::new(resolver))
            .build()
            .map_err(|e| FetchError::Other(format!("cannot build HTTP client: {e}")))?;
        Ok(Self {
            browser: None,
            inner: Arc::new(Inner {
                client,
                gates: HostGates::new(
                    cfg.per_host_delay,
                    cfg.per_host_concurrency,
                    cfg.global_concurrency,
                ),
                robots: RobotsCache::default(),
                global: Arc::new(Semaphore::new(cfg.global_concurrency.max(1))),
                agent: robots::product_token(&cfg.user_agent).to_owned(),
                cfg: cfg.clone(),
            }),
        })
    }

    fn cfg(&self) -> &FetchConfig {
        &self.inner.cfg
    }

    /// This fetcher with a headless browser for the watches that render.
    #[must_use]
    pub fn with_browser(mut self, cfg: &crate::config::BrowserConfig) -> Self {
        let plain = Self {
            browser: None,
            inner: self.inner.clone(),
        };
        self.browser = Some(Arc::new(browser::Browser::new(cfg, plain)));
        self
    }

    /// The headless browser, if this fetcher has one.
    pub fn browser(&self) -> Option<&browser::Browser> {
        self.browser.as_deref()
    }

    /// One request of a rendered page (a script, an XHR, a stylesheet): one hop (the
    /// browser follows redirects, each hop intercepted again), through the address guard
    /// and the guarded resolver, the host gate and the global cap, with this fetcher's
    /// User-Agent and at most `cap` bytes of body. robots.txt is the page's matter: a
    /// page that may be fetched may load what it needs.
    pub async fn resource(
        &self,
        method: &str,
        url: &Url,
        headers: &[(String, String)],
        body: Option<Vec<u8>>,
        cap: u64,
    ) -> Result<Resource, FetchError> {
        self.admit(url)?;
        let method = reqwest::Method::from_bytes(method.as_bytes())
            .map_err(|_| FetchError::Other(format!("bad method `{method}`")))?;
        let key =
            HostKey::of(url).ok_or_else(|| FetchError::Other(format!("`{url}` has no host")))?;
        let host = self
            .inner
            .gates
            .acquire(&key, self.cfg().timeout)
            .await
            .map_err(|e| deferral(&key, &e))?;
        let global = self
            .inner
            .global
            .clone()
            .acquire_owned()
            .await
            .expect("invariant: the global semaphore is never closed");
        let mut req = self.inner.client.request(method, url.clone());
        for (name, value) in headers {
            if DROPPED_REQUEST_HEADERS.contains(&name.to_ascii_lowercase().as_str()) {
                continue;
            }
            req = req.header(name.as_str(), value.as_str());
        }
        if let Some(b) = body {
            req = req.body(b);
        }
        let resp = req.send().await.map_err(|e| self.classify(&e))?;
        let status = resp.status();
        if let Some(wait) = retry_after(status, resp.headers()) {
            self.inner.gates.back_off(&key, wait);
        }
        let headers = resp
            .headers()
            .iter()
            .filter(|(n, _)| !DROPPED_RESPONSE_HEADERS.contains(&n.as_str()))
            .filter_map(|(n, v)| Some((n.as_str().to_owned(), v.to_str().ok()?.to_owned())))
            .collect();
        let body = self.read_body(resp, cap, false).await?;
        drop((host, global));
        Ok(Resource {
            status: status.as_u16(),
            headers,
            body,
        })
    }

    /// GETs `url`, conditionally on `validators`, retrying what is worth retrying.
    pub async fn get(
        &self,
        url: &Url,
        validators: &Validators,
    ) -> Result<FetchOutcome, FetchError> {
        let mut attempt = 0;
        loop {
            let err = match self.get_once(url, validators).await {
                Ok(o) => {
                    if let Some(key) = HostKey::of(url) {
                        self.inner.gates.succeeded(&key);
                    }
                    return Ok(o);
                }
                Err(e) => e,
            };
            let Some(wait) = self.retry_wait(&err, attempt) else {
                if err.is_host_failure() {
                    if let Some(key) = HostKey::of(url) {
                        self.inner.gates.failed(&key);
                    }
                }
                return Err(err);
            };
            attempt += 1;
            tracing::debug!(%url, error = %err, attempt, ?wait, "retrying");
            tokio::time::sleep(wait).await;
        }
    }

    /// The pause before another attempt after `err`, if another is worth it.
    fn retry_wait(&self, err: &FetchError, attempt: u32) -> Option<Duration> {
        if attempt >= self.cfg().retries {
            return None;
        }
        let retryable = match err {
            FetchError::Timeout(_) | FetchError::Stalled(_) => true,
            FetchError::Status { code, retry_after } => {
                (code.is_server_error() || *code == StatusCode::TOO_MANY_REQUESTS)
                    // A long Retry-After is the scheduler's to honour, not a worker's.
                    && retry_after.map_or(true, |ra| ra <= self.cfg().timeout)
            }
            _ => false,
        };
        // The host gate holds the next request until any Retry-After has passed.
        retryable.then(|| backoff(attempt))
    }

    async fn get_once(
        &self,
        url: &Url,
        validators: &Validators,
    ) -> Result<FetchOutcome, FetchError> {
        let purpose = Purpose {
            validators: Some(validators),
            robots: self.cfg().respect_robots,
        };
        let (resp, permits) = self.request(url, purpose).await?;
        let status = resp.status();
        if status == StatusCode::NOT_MODIFIED {
            return Ok(FetchOutcome::NotModified);
        }
        if !status.is_success() {
            return Err(FetchError::Status {
                code: status,
                retry_after: retry_after(status, resp.headers()),
            });
        }
        let header = |name: header::HeaderName| {
            resp.headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let content_type = header(header::CONTENT_TYPE);
        let validators = Validators {
            etag: header(header::ETAG),
            last_modified: header(header::LAST_MODIFIED),
        };
        if let Some(ct) = &content_type {
            if !is_html_type(ct) {
                return Err(FetchError::NotHtml(ct.clone()));
            }
        }
        let final_url = resp.url().clone();
        let body = self
            .read_body(resp, self.cfg().max_body_bytes, false)
            .await?;
        drop(permits);
        if body.iter().all(u8::is_ascii_whitespace) {
            return Err(FetchError::Empty);
        }
        if content_type.is_none() && !looks_like_html(&body) {
            return Err(FetchError::NotHtml("none, and the body is not HTML".into()));
        }
        Ok(FetchOutcome::Page(Page {
            url: final_url,
            content_type,
            body,
            validators,
        }))
    }

    /// Sends a GET and follows redirects hop by hop, each through the guard, robots.txt
    /// (if `purpose.robots`), the host gate and the global cap. Returns the final
    /// response with the permits its body must be read under.
    async fn request(
        &self,
        url: &Url,
        purpose: Purpose<'_>,
    ) -> Result<(reqwest::Response, Permits), FetchError> {
        let mut current = url.clone();
        let mut visited: Vec<Url> = Vec::new();
        loop {
            self.admit(&current)?;
            if purpose.robots {
                self.obey_robots(&current).await?;
            }
            let key = HostKey::of(&current)
                .ok_or_else(|| FetchError::Other(format!("`{current}` has no host")))?;
            let host = self
                .inner
                .gates
                .acquire(&key, self.cfg().timeout)
                .await
                .map_err(|e| deferral(&key, &e))?;
            let global = self
                .inner
                .global
                .clone()
                .acquire_owned()
                .await
                .expect("invariant: the global semaphore is never closed");
            let mut req = self.inner.client.get(current.clone()).header(
                header::ACCEPT,
                "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5",
            );
            if let Some(v) = purpose.validators {
                if let Some(etag) = &v.etag {
                    req = req.header(header::IF_NONE_MATCH, etag);
                }
                if let Some(lm) = &v.last_modified {
                    req = req.header(header::IF_MODIFIED_SINCE, lm);
                }
            }
            let resp = req.send().await.map_err(|e| self.classify(&e))?;
            let status = resp.status();
            if let Some(wait) = retry_after(status, resp.headers()) {
                self.inner.gates.back_off(&key, wait);
            }
            let location = resp
                .headers()
                .get(header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            let follow = matches!(status.as_u16(), 301 | 302 | 303 | 307 | 308);
            let (true, Some(location)) = (follow, location) else {
                return Ok((
                    resp,
                    Permits {
                        _host: host,
                        _global: global,
                    },
                ));
            };
            drop((resp, host, global));
            let mut next = current.join(&location).map_err(|e| {
                FetchError::Redirect(format!("bad Location `{location}` from {current}: {e}"))
            })?;
            next.set_fragment(None);
            visited.push(current);
            if visited.contains(&next) {
                return Err(FetchError::Redirect(format!(
                    "redirect loop: {next} was already visited"
                )));
            }
            if visited.len() > self.cfg().max_redirects {
                return Err(FetchError::Redirect(format!(
                    "more than {} redirects (fetch.max_redirects)",
                    self.cfg().max_redirects
                )));
            }
            current = next;
        }
    }

    /// Refuses what must not be requested at all: other schemes and IP-literal hosts
    /// that are not public (names are checked by the resolver, on the actual answer).
    fn admit(&self, url: &Url) -> Result<(), FetchError> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(FetchError::Scheme(url.scheme().to_owned()));
        }
        if !self.cfg().allow_private_addresses {
            guard::check_host(url).map_err(FetchError::Refused)?;
        }
        // Test safety net: a unit test never connects beyond loopback, even if the
        // guard were broken.
        #[cfg(test)]
        if let Some(ip) = literal_ip(url) {
            if !ip.is_loopback() {
                return Err(FetchError::Other(format!("test safety net: {ip}")));
            }
        }
        Ok(())
    }

    /// Fails unless robots.txt lets us fetch `url`; sets the host's crawl delay.
    async fn obey_robots(&self, url: &Url) -> Result<(), FetchError> {
        let key =
            HostKey::of(url).ok_or_else(|| FetchError::Other(format!("`{url}` has no host")))?;
        let mut slot = match self.inner.robots.try_slot(url) {
            Ok(slot) => slot,
            // Another check is fetching this robots.txt: wait for it as a waiter of the
            // host (bounded in number and time), not as an unbounded crowd.
            Err(busy) => {
                let _ticket = self
                    .inner
                    .gates
                    .robots_ticket(&key)
                    .map_err(|e| deferral(&key, &e))?;
                let wait = self.cfg().timeout;
                tokio::time::timeout(wait, busy.lock())
                    .await
                    .map_err(|_| FetchError::Deferred {
                        reason: format!("robots.txt of {key} is still being fetched"),
                        wait,
                    })?
            }
        };
        let rules = if let Some(r) = slot.fresh() {
            r
        } else {
            let fetched = self.fetch_robots(url).await?;
            slot.store(fetched)
        };
        drop(slot);
        self.inner.gates.set_crawl_delay(&key, rules.crawl_delay());
        let origin = url.origin().ascii_serialization();
        match rules {
            Rules::Unreachable(reason) => Err(FetchError::RobotsUnreachable { origin, reason }),
            r if !r.allows(url) => Err(FetchError::Robots {
                origin,
                path: url.path().to_owned(),
                agent: self.inner.agent.clone(),
            }),
            _ => Ok(()),
        }
    }

    /// Fetches and interprets the robots.txt of `url`'s origin.
    async fn fetch_robots(&self, url: &Url) -> Result<Rules, FetchError> {
        let robots_url = robots::robots_url(url)
            .ok_or_else(|| FetchError::Other(format!("no robots.txt URL for {url}")))?;
        let purpose = Purpose {
            validators: None,
            robots: false,
        };
        // Boxed: robots.txt is fetched by `request`, which asks for robots.txt.
        match Box::pin(self.request(&robots_url, purpose)).await {
            Ok((resp, permits)) => {
                let status = resp.status().as_u16();
                let body = if resp.status().is_success() {
                    match self.read_body(resp, robots::MAX_BYTES, true).await {
                        Ok(b) => b,
                        Err(e) => return Ok(Rules::Unreachable(e.to_string())),
                    }
                } else {
                    Vec::new()
                };
                drop(permits);
                Ok(Rules::from_response(&self.inner.agent, status, &body))
            }
            // What stops robots.txt stops the page too, and says it better.
            // So do a refused connection and a name that does not resolve: the page
            // cannot be fetched either, and "robots.txt cannot be read" would hide why.
            Err(
                e @ (FetchError::Refused(_)
                | FetchError::RefusedHost(_)
                | FetchError::Scheme(_)
                | FetchError::Deferred { .. }
                | FetchError::Dns(_)
                | FetchError::ConnectionRefused),
            ) => Err(e),
            // RFC 9309 2.3.1.2: too many redirects mean "unavailable".
            Err(FetchError::Redirect(_)) => Ok(Rules::AllowAll),
            Err(e) => Ok(Rules::Unreachable(e.to_string())),
        }
    }

    /// Reads a body: at most `cap` bytes after decompression (more is an error, or with
    /// `truncate` is dropped), and at least [`STALL_MIN_BYTES`] per stall window.
    async fn read_body(
        &self,
        mut resp: reqwest::Response,
        cap: u64,
        truncate: bool,
    ) -> Result<Vec<u8>, FetchError> {
        if !truncate && resp.content_length().is_some_and(|n| n > cap) {
            return Err(FetchError::TooLarge(cap));
        }
        let stall = self.cfg().stall_timeout;
        let cap = usize::try_from(cap).unwrap_or(usize::MAX);
        let mut body = Vec::new();
        let mut window = Instant::now() + stall;
        let mut window_bytes = 0;
        loop {
            let chunk = tokio::time::timeout_at(window, resp.chunk())
                .await
                .map_err(|_| FetchError::Stalled(stall))?
                .map_err(|e| self.classify(&e))?;
            let Some(chunk) = chunk else { break };
            if body.len() + chunk.len() > cap {
                if truncate {
                    body.extend_from_slice(&chunk[..cap - body.len()]);
                    break;
                }
                return Err(FetchError::TooLarge(cap as u64));
            }
            body.extend_from_slice(&chunk);
            window_bytes += chunk.len();
            if window_bytes >= STALL_MIN_BYTES {
                window = Instant::now() + stall;
                window_bytes = 0;
            }
        }
        Ok(body)
    }

    fn classify(&self, e: &reqwest::Error) -> FetchError {
        let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
        while let Some(err) = cur {
            if let Some(r) = err.downcast_ref::<guard::RefusedAddresses>() {
                return FetchError::RefusedHost(r.to_string());
            }
            if let Some(r) = err.downcast_ref::<dns::NameNotResolved>() {
                return FetchError::Dns(r.to_string());
            }
            if let Some(io) = err.downcast_ref::<std::io::Error>() {
                if io.kind() == std::io::ErrorKind::ConnectionRefused {
                    return FetchError::ConnectionRefused;
                }
            }
            cur = err.source();
        }
        if e.is_timeout() {
            return FetchError::Timeout(if e.is_connect() {
                self.cfg().connect_timeout
            } else {
                self.cfg().timeout
            });
        }
        let cause = root_cause(e);
        if e.is_connect() {
            return FetchError::Connect(cause);
        }
        FetchError::Other(cause)
    }
}

/// The deferral for a request the host gate did not let through.
fn deferral(key: &HostKey, e: &GateError) -> FetchError {
    let reason = match e {
        GateError::Backoff {
            why: host::Pause::RetryAfter,
            ..
        } => format!("{key} asked for a pause (Retry-After)"),
        GateError::Backoff {
            why: host::Pause::Failing(n),
            ..
        } => format!("{key} is paused after {n} failed request(s) in a row"),
        GateError::Busy { waiters, .. } => {
            format!("{waiters} other checks of {key} are waiting their turn")
        }
    };
    FetchError::Deferred {
        reason,
        wait: e.wait(),
    }
}

/// Exponential backoff with ±50% jitter for retry `attempt` (0-based).
fn backoff(attempt: u32) -> Duration {
    let base = BACKOFF_BASE * 2u32.saturating_pow(attempt.min(10));
    base.mul_f64(0.5 + fastrand::f64())
}

/// The wait a `429` or `503` asks for: `Retry-After` in seconds or as an HTTP date
/// (60 s for a 429 without one), capped at [`host::MAX_RETRY_AFTER`].
fn retry_after(status: StatusCode, headers: &HeaderMap) -> Option<Duration> {
    if status != StatusCode::TOO_MANY_REQUESTS && status != StatusCode::SERVICE_UNAVAILABLE {
        return None;
    }
    let parsed = headers
        .get(header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| parse_retry_after(v, chrono::Utc::now()));
    parsed
        .or((status == StatusCode::TOO_MANY_REQUESTS).then_some(DEFAULT_429_WAIT))
        .map(|d| d.min(host::MAX_RETRY_AFTER))
}

/// Parses a `Retry-After` value: delta-seconds or an HTTP date (a past date is 0 s).
fn parse_retry_after(v: &str, now: chrono::DateTime<chrono::Utc>) -> Option<Duration> {
    let v = v.trim();
    if let Ok(secs) = v.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let when = chrono::DateTime::parse_from_rfc2822(v).ok()?;
    let secs = (when.with_timezone(&chrono::Utc) - now)
        .num_seconds()
        .max(0);
    Some(Duration::from_secs(secs.unsigned_abs()))
}

#[cfg(test)]
fn literal_ip(url: &Url) -> Option<IpAddr> {
    match url.host()? {
        url::Host::Ipv4(v4) => Some(IpAddr::V4(v4)),
        url::Host::Ipv6(v6) => Some(IpAddr::V6(v6)),
        url::Host::Domain(_) => None,
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
mod guard_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_values() {
        let now = chrono::DateTime::parse_from_rfc2822("Wed, 21 Oct 2015 07:28:00 GMT")
            .expect("date")
            .with_timezone(&chrono::Utc);
        assert_eq!(
            parse_retry_after("120", now),
            Some(Duration::from_secs(120))
        );
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:30:00 GMT", now),
            Some(Duration::from_secs(120))
        );
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:00:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("soon", now), None);
        let mut h = HeaderMap::new();
        assert_eq!(
            retry_after(StatusCode::TOO_MANY_REQUESTS, &h),
            Some(DEFAULT_429_WAIT)
        );
        assert_eq!(retry_after(StatusCode::SERVICE_UNAVAILABLE, &h), None);
        h.insert(header::RETRY_AFTER, "99999999".parse().expect("value"));
        assert_eq!(
            retry_after(StatusCode::SERVICE_UNAVAILABLE, &h),
            Some(host::MAX_RETRY_AFTER)
        );
        assert_eq!(retry_after(StatusCode::OK, &h), None);
    }

    #[test]
    fn backoff_grows_with_jitter() {
        for attempt in 0..4 {
            let base = BACKOFF_BASE * 2u32.pow(attempt);
            for _ in 0..50 {
                let d = backoff(attempt);
                assert!(d >= base / 2 && d <= base * 3 / 2, "{attempt}: {d:?}");
            }
        }
    }

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
