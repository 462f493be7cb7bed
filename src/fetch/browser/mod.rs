//! Rendering a page in headless Chromium, for watches whose entries a script builds
//! (`render = "browser"`, or `"auto"` when the plain page is an empty application
//! shell, [`shell`]).
//!
//! # Architecture
//!
//! One browser, launched by sitefeed (`browser.path`, flags in [`launch::FLAGS`], a fresh
//! temporary profile) or reached at `browser.ws_url`, driven over the DevTools protocol
//! ([`cdp`]). It is started on the first render, not before: a service whose watches
//! are all plain never starts it. A render takes one of `browser.tabs` tab slots, opens
//! its page in a fresh browser context (no cookies or storage shared between renders)
//! and closes the context afterwards.
//!
//! **The browser fetches nothing itself.** Every request of the page, its workers and
//! its frames is paused by request interception (`Fetch.enable` on each session,
//! workers and out-of-process frames attached automatically before they run) and
//! answered by sitefeed's own [`Fetcher`]: the page's document through the same path as
//! a plain check (robots.txt, redirects hop by hop, the HTML-only rule), every other
//! request one hop at a time through the address guard and the guarded resolver, the
//! host gate (one request of this page per host waits there at a time) and the global
//! cap, with the service's User-Agent and a size cap per response and per page.
//! Images, fonts and media are refused without a request (`browser.block`). A request
//! refused by the guard is counted ([`Stats::refused`]). What interception does not see
//! cannot connect either: each render's browser context has a proxy where nothing
//! listens (loopback included), so a popup window or a socket goes nowhere; a launched
//! browser cannot resolve a name of its own (`--host-resolver-rules`); and the page's
//! scripts find no `WebSocket` or `RTCPeerConnection`.
//!
//! The page has settled when its load event fired, no request was in flight for
//! `browser.idle_ms` and the DOM did not change for as long, and no timer due within 3 s
//! nor request the page's scripts started is pending, and the watch's region (its CSS
//! `select`) holds a link (for the page's first 10 s: a list built after a short delay
//! is waited for, a page that polls forever is not); then its `outerHTML` is
//! the page body, as UTF-8, that the check analyses like any fetched page. A page that
//! does not settle within `browser.page_timeout_secs` fails with that reason.
//!
//! A browser whose connection closes (it crashed or was killed) is replaced by the next
//! render, and a render it was serving is tried once more on the new one. A launched
//! browser is also replaced after `browser.max_renders` renders or when its processes
//! hold more than `browser.memory_mb`.
//!
//! Beside this file (the browser, its instances, a render's tab slot, its retry and
//! bookkeeping): one render in its tab (`tab`), the DevTools connection (`cdp`),
//! launching (`launch`), the scripts run in the page (`script`), answering the page's
//! requests (`intercept`), counters and health (`health`), reading a page as its watch
//! says (`reading`), application shells (`shell`). May use the rest of [`crate::fetch`],
//! [`crate::config`], [`crate::model`] and [`crate::cpu`].

pub mod cdp;
mod health;
mod intercept;
pub mod launch;
mod reading;
mod script;
pub mod shell;
mod tab;

pub use health::{Health, LastRender, Stats};
pub use reading::Reading;

#[cfg(test)]
mod tests;

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Semaphore;
use tokio::time::Instant;
use url::Url;

use super::{Deferral, FetchError, FetchOutcome, Fetcher, Page};
use crate::config::BrowserConfig;
use intercept::PageCounts;

/// How long a launched browser may take to listen.
const START_WAIT: Duration = Duration::from_secs(20);
/// Renders that may wait for a tab, per tab; more are deferred.
const MAX_WAITING_PER_TAB: usize = 2;
/// Pages whose last render is remembered for the web page.
const MAX_REMEMBERED: usize = 10_000;

/// One running browser and how much it has done.
#[derive(Debug)]
struct Instance {
    conn: cdp::Conn,
    process: Option<launch::Launched>,
    renders: AtomicU32,
    retire: AtomicBool,
}

/// The headless browser of a fetcher. Cheap to share; the browser process starts on the
/// first render.
#[derive(Debug)]
pub struct Browser {
    cfg: BrowserConfig,
    fetcher: Fetcher,
    user_agent: String,
    max_body: u64,
    tabs: Arc<Semaphore>,
    /// Renders waiting for a tab.
    waiting: AtomicUsize,
    instance: tokio::sync::Mutex<Option<Arc<Instance>>>,
    up: AtomicBool,
    stats: Arc<Stats>,
}

/// Why a render gave no page: a reason for the user, a request of the page the fetcher
/// did not try (its host's turn did not come), or the browser went away under it.
#[derive(Debug)]
enum Failure {
    Fetch(FetchError),
    Deferred(Deferral),
    Died,
}

impl From<cdp::CdpError> for Failure {
    fn from(e: cdp::CdpError) -> Self {
        match e {
            cdp::CdpError::Closed => Self::Died,
            e => Self::Fetch(FetchError::Render(e.to_string())),
        }
    }
}

impl Browser {
    /// A browser that renders through `fetcher` (a fetcher without a browser of its own).
    pub fn new(cfg: &BrowserConfig, fetcher: Fetcher) -> Self {
        Self {
            user_agent: fetcher.cfg().user_agent.clone(),
            max_body: fetcher.cfg().max_body_bytes,
            tabs: Arc::new(Semaphore::new(cfg.tabs.max(1))),
            waiting: AtomicUsize::new(0),
            instance: tokio::sync::Mutex::new(None),
            up: AtomicBool::new(false),
            stats: Arc::new(Stats::default()),
            cfg: cfg.clone(),
            fetcher,
        }
    }

    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// The last render of `url` since the service started.
    pub fn last_render(&self, url: &str) -> Option<LastRender> {
        lock(&self.stats.by_url).get(url).cloned()
    }

    /// Whether the browser process (or connection) is up now, as far as it was used.
    pub fn health(&self) -> Health {
        let s = &self.stats;
        let starts = s.starts.load(Ordering::Relaxed);
        let renders = s.renders.load(Ordering::Relaxed);
        let failures = s.failures.load(Ordering::Relaxed);
        let ok = renders.saturating_sub(failures);
        let state = match (starts, self.up.load(Ordering::Relaxed)) {
            (0, _) => "idle",
            (_, true) => "running",
            (_, false) => "down",
        };
        Health {
            state,
            endpoint: self
                .cfg
                .ws_url
                .clone()
                .unwrap_or_else(|| format!("launched: {}", self.cfg.path.display())),
            tabs: self.cfg.tabs,
            tabs_busy: self.cfg.tabs.saturating_sub(self.tabs.available_permits()),
            renders,
            failures,
            restarts: starts.saturating_sub(1),
            refused: s.refused.load(Ordering::Relaxed),
            blocked: s.blocked.load(Ordering::Relaxed),
            mean_render_ms: (ok > 0).then(|| s.render_ms.load(Ordering::Relaxed) / ok),
            memory_bytes: self
                .cfg
                .ws_url
                .is_none()
                .then(|| s.memory_bytes.load(Ordering::Relaxed))
                .filter(|&m| m > 0),
            last_error: lock(&s.last_error).clone(),
        }
    }

    /// Ends the browser (a launched one is killed and its profile removed); the next
    /// render would start another.
    pub async fn shutdown(&self) {
        let old = self.instance.lock().await.take();
        self.up.store(false, Ordering::Relaxed);
        drop(old);
    }

    /// The process id of the launched browser, if one runs.
    pub async fn pid(&self) -> Option<u32> {
        let slot = self.instance.lock().await;
        slot.as_ref()?.process.as_ref()?.pid()
    }

    /// Renders `url` and returns its DOM as a page ([`FetchOutcome::Page`]), or
    /// [`FetchOutcome::Deferred`] when no tab is free soon or a request of the page was
    /// not tried (never `NotModified`). `prefetched`: the page as a plain fetch just got
    /// it (its final URL is rendered, and its document is not fetched again).
    /// `wait_for`: a CSS selector (the watch's region) that must hold a link before the
    /// page counts as settled, during its first 10 s.
    pub async fn render(
        &self,
        url: &Url,
        prefetched: Option<Page>,
        wait_for: Option<&str>,
    ) -> Result<FetchOutcome, FetchError> {
        let wait = self.cfg.page_timeout;
        let busy = || Deferral {
            reason: format!(
                "all {} browser tabs are busy and other renders wait (browser.tabs)",
                self.cfg.tabs
            ),
            wait,
        };
        // A few renders may wait for a tab; more are deferred at once, so rendering
        // watches never hold the workers that plain ones need.
        let tab = if let Ok(t) = self.tabs.clone().try_acquire_owned() {
            t
        } else {
            let _waiting = Waiting::enter(&self.waiting);
            if self.waiting.load(Ordering::SeqCst) > self.cfg.tabs * MAX_WAITING_PER_TAB {
                return Ok(FetchOutcome::Deferred(busy()));
            }
            match tokio::time::timeout(wait, self.tabs.clone().acquire_owned()).await {
                Ok(Ok(t)) => t,
                _ => return Ok(FetchOutcome::Deferred(busy())),
            }
        };
        let _tab = tab;
        let url = prefetched.as_ref().map_or(url, |p| &p.url).clone();
        let started = Instant::now();
        let mut counts = Arc::new(PageCounts::default());
        let mut result = self
            .render_once(&url, prefetched.as_ref(), wait_for, &counts)
            .await;
        if matches!(result, Err(Failure::Died)) {
            tracing::warn!(%url, "the browser went away during a render; trying once more on a new one");
            counts = Arc::new(PageCounts::default());
            result = self
                .render_once(&url, prefetched.as_ref(), wait_for, &counts)
                .await;
        }
        let result = match result {
            Ok(page) => Ok(FetchOutcome::Page(page)),
            Err(Failure::Deferred(d)) => Ok(FetchOutcome::Deferred(d)),
            Err(Failure::Fetch(e)) => Err(e),
            Err(Failure::Died) => Err(FetchError::Render(
                "the browser went away twice during this render (crashed or killed)".into(),
            )),
        };
        let ms = started.elapsed().as_millis() as u64;
        let s = &self.stats;
        s.renders.fetch_add(1, Ordering::Relaxed);
        match &result {
            Ok(FetchOutcome::Page(_)) => {
                s.render_ms.fetch_add(ms, Ordering::Relaxed);
            }
            Ok(_) => {}
            Err(e) => {
                s.failures.fetch_add(1, Ordering::Relaxed);
                *lock(&s.last_error) = Some(format!("{url}: {e}"));
            }
        }
        let mut by_url = lock(&s.by_url);
        if by_url.len() >= MAX_REMEMBERED {
            by_url.clear();
        }
        by_url.insert(
            url.to_string(),
            LastRender {
                ms,
                ok: matches!(result, Ok(FetchOutcome::Page(_))),
                requests: counts.requests.load(Ordering::Relaxed),
                refused: counts.refused.load(Ordering::Relaxed),
                blocked: counts.blocked.load(Ordering::Relaxed),
            },
        );
        result
    }

    async fn render_once(
        &self,
        url: &Url,
        prefetched: Option<&Page>,
        wait_for: Option<&str>,
        counts: &Arc<PageCounts>,
    ) -> Result<Page, Failure> {
        let inst = self.instance().await.map_err(|e| {
            *lock(&self.stats.last_error) = Some(e.clone());
            Failure::Fetch(FetchError::Render(e))
        })?;
        let r = tokio::time::timeout(
            self.cfg.page_timeout,
            self.render_in(&inst, url, prefetched, wait_for, counts),
        )
        .await;
        let n = inst.renders.fetch_add(1, Ordering::Relaxed) + 1;
        if n >= self.cfg.max_renders {
            inst.retire.store(true, Ordering::Relaxed);
        }
        let pid = inst.process.as_ref().and_then(launch::Launched::pid);
        let usage = match pid {
            // Reading /proc is file work: off the async workers.
            Some(pid) => tokio::task::spawn_blocking(move || launch::tree_usage(pid))
                .await
                .ok()
                .flatten(),
            None => None,
        };
        if let Some(u) = usage {
            self.stats
                .memory_bytes
                .store(u.rss_bytes, Ordering::Relaxed);
            if u.rss_bytes > self.cfg.memory_bytes {
                tracing::info!(
                    rss = u.rss_bytes,
                    "the browser holds more than browser.memory_mb; it is restarted"
                );
                inst.retire.store(true, Ordering::Relaxed);
            }
        }
        if !inst.conn.is_open() {
            self.up.store(false, Ordering::Relaxed);
            return Err(Failure::Died);
        }
        match r {
            Ok(r) => r,
            Err(_) => Err(Failure::Fetch(FetchError::Render(format!(
                "the page did not settle within {}s (browser.page_timeout_secs): it kept \
                 loading or changing",
                self.cfg.page_timeout.as_secs()
            )))),
        }
    }

    /// The running browser, started (or replaced) when there is none that is usable.
    async fn instance(&self) -> Result<Arc<Instance>, String> {
        let mut slot = self.instance.lock().await;
        if let Some(i) = slot.as_ref() {
            if i.conn.is_open() && !i.retire.load(Ordering::Relaxed) {
                return Ok(i.clone());
            }
            if !i.conn.is_open() {
                self.stats.deaths.fetch_add(1, Ordering::Relaxed);
                tracing::warn!("the browser is gone (crashed or killed); starting a new one");
            }
        }
        // The old browser exits when the last render that uses it ends.
        *slot = None;
        self.up.store(false, Ordering::Relaxed);
        let connect = |ws: String| async move {
            tokio::time::timeout(START_WAIT, cdp::Conn::connect(&ws))
                .await
                .map_err(|_| {
                    format!(
                        "the browser at {ws} did not answer within {}s",
                        START_WAIT.as_secs()
                    )
                })?
                .map_err(|e| e.to_string())
        };
        let (conn, process) = if let Some(ws) = &self.cfg.ws_url {
            (connect(ws.clone()).await?, None)
        } else {
            let launched = launch::launch(&self.cfg.path, START_WAIT).await?;
            (connect(launched.ws_url.clone()).await?, Some(launched))
        };
        self.stats.starts.fetch_add(1, Ordering::Relaxed);
        self.up.store(true, Ordering::Relaxed);
        let inst = Arc::new(Instance {
            conn,
            process,
            renders: AtomicU32::new(0),
            retire: AtomicBool::new(false),
        });
        *slot = Some(inst.clone());
        Ok(inst)
    }
}

/// One render counted among those waiting for a tab, while it waits.
struct Waiting<'a>(&'a AtomicUsize);

impl<'a> Waiting<'a> {
    fn enter(n: &'a AtomicUsize) -> Self {
        n.fetch_add(1, Ordering::SeqCst);
        Self(n)
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
