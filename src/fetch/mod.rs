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
//!
//! Beside this file (the client and one attempt): [`FetchError`] and how transport errors
//! become one (`error`), retries and `Retry-After` (`retry`), the body limits and HTML
//! sniffing (`body`), requests made for a rendered page (`resource`).
//!
//! May use [`crate::config`] (its section), [`crate::model`] (a watch's render mode) and
//! [`crate::cpu`] (the browser's parse of a rendered page); nothing above it.
//!
//! May use: config, cpu, model.

mod body;
pub mod browser;
pub mod dns;
mod error;
pub mod guard;
pub mod host;
mod resource;
mod retry;
pub mod robots;

pub use body::{is_html_type, STALL_MIN_BYTES};
pub(crate) use error::Halt;
pub use error::{Deferral, FetchError};
pub use resource::Resource;

#[cfg(test)]
use std::net::IpAddr;
use std::sync::Arc;

use reqwest::header;
use reqwest::StatusCode;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use url::Url;

use crate::config::FetchConfig;
use body::looks_like_html;
use error::deferral;
use host::{HostGates, HostKey, HostPermit};
use retry::retry_after;
use robots::{RobotsCache, Rules};

/// The most idle connections kept to one host for its next requests.
const MAX_IDLE_PER_HOST: usize = 8;

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
    /// Not tried: the host is busy or asked for a pause (politeness, not a failure).
    Deferred(Deferral),
}

/// Fetches pages for checks. Cheap to clone; clones share the host gates, robots and DNS
/// caches and the global request cap.
#[derive(Debug, Clone)]
pub struct Fetcher {
    inner: Arc<Inner>,
    /// The headless browser for watches that render (it starts on the first render).
    browser: Option<Arc<browser::Browser>>,
}

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
            // As many idle connections to a host as requests may be in flight to it, two
            // with the polite default of one and at most eight: a request then takes one
            // back instead of opening a new one, which costs the site a handshake too.
            // Each idle connection keeps its read buffer (tens of KB after a page), and
            // eight gave most of the CPU that more would (`bench/README.md`).
            .pool_max_idle_per_host(cfg.per_host_concurrency.clamp(2, MAX_IDLE_PER_HOST))
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

    /// Waits for `url`'s host's turn, then for a global request slot.
    async fn permits(&self, url: &Url) -> Result<(HostKey, Permits), Halt> {
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
        Ok((
            key,
            Permits {
                _host: host,
                _global: global,
            },
        ))
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

    /// Holds requests to the host of `url` for `wait`, as a `Retry-After` from it would
    /// (a pause another node learned, which the store's host lease carried here).
    pub fn pause_host(&self, url: &Url, wait: std::time::Duration) {
        if let Some(key) = HostKey::of(url) {
            self.inner.gates.back_off(&key, wait);
        }
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
                // (not tried: says nothing of the host's health)
                Ok(o @ FetchOutcome::Deferred(_)) => return Ok(o),
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

    async fn get_once(
        &self,
        url: &Url,
        validators: &Validators,
    ) -> Result<FetchOutcome, FetchError> {
        let purpose = Purpose {
            validators: Some(validators),
            robots: self.cfg().respect_robots,
        };
        let (resp, permits) = match self.request(url, purpose).await {
            Ok(r) => r,
            Err(Halt::Deferred(d)) => return Ok(FetchOutcome::Deferred(d)),
            Err(Halt::Failed(e)) => return Err(e),
        };
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
    ) -> Result<(reqwest::Response, Permits), Halt> {
        let mut current = url.clone();
        let mut visited: Vec<Url> = Vec::new();
        loop {
            self.admit(&current)?;
            if purpose.robots {
                self.obey_robots(&current).await?;
            }
            let (key, permits) = self.permits(&current).await?;
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
                return Ok((resp, permits));
            };
            drop((resp, permits));
            let mut next = current.join(&location).map_err(|e| {
                FetchError::Redirect(format!("bad Location `{location}` from {current}: {e}"))
            })?;
            next.set_fragment(None);
            visited.push(current);
            if visited.contains(&next) {
                return Err(FetchError::Redirect(format!(
                    "redirect loop: {next} was already visited"
                ))
                .into());
            }
            if visited.len() > self.cfg().max_redirects {
                return Err(FetchError::Redirect(format!(
                    "more than {} redirects (fetch.max_redirects)",
                    self.cfg().max_redirects
                ))
                .into());
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
    async fn obey_robots(&self, url: &Url) -> Result<(), Halt> {
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
                    .map_err(|_| Deferral {
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
            Rules::Unreachable(reason) => {
                Err(FetchError::RobotsUnreachable { origin, reason }.into())
            }
            r if !r.allows(url) => Err(FetchError::Robots {
                origin,
                path: url.path().to_owned(),
                agent: self.inner.agent.clone(),
            }
            .into()),
            _ => Ok(()),
        }
    }

    /// Fetches and interprets the robots.txt of `url`'s origin.
    async fn fetch_robots(&self, url: &Url) -> Result<Rules, Halt> {
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
            Err(Halt::Deferred(d)) => Err(d.into()),
            Err(Halt::Failed(
                e @ (FetchError::Refused(_)
                | FetchError::RefusedHost(_)
                | FetchError::Scheme(_)
                | FetchError::Dns(_)
                | FetchError::ConnectionRefused),
            )) => Err(e.into()),
            // RFC 9309 2.3.1.2: too many redirects mean "unavailable".
            Err(Halt::Failed(FetchError::Redirect(_))) => Ok(Rules::AllowAll),
            Err(Halt::Failed(e)) => Ok(Rules::Unreachable(e.to_string())),
        }
    }
}

#[cfg(test)]
fn literal_ip(url: &Url) -> Option<IpAddr> {
    match url.host()? {
        url::Host::Ipv4(v4) => Some(IpAddr::V4(v4)),
        url::Host::Ipv6(v6) => Some(IpAddr::V6(v6)),
        url::Host::Domain(_) => None,
    }
}

#[cfg(test)]
mod guard_tests;
#[cfg(test)]
mod pool_tests;
