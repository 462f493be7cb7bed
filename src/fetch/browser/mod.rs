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
//! Beside this file (the browser, its instances and one render): the DevTools connection
//! (`cdp`), launching (`launch`), the scripts run in the page (`script`), answering the
//! page's requests (`intercept`), counters and health (`health`), reading a page as its
//! watch says (`reading`), application shells (`shell`). May use the rest of
//! [`crate::fetch`], [`crate::config`], [`crate::model`] and [`crate::cpu`].

pub mod cdp;
mod health;
mod intercept;
pub mod launch;
mod reading;
mod script;
pub mod shell;

pub use health::{Health, LastRender, Stats};
pub use reading::Reading;

#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::{mpsc, Semaphore};
use tokio::task::JoinSet;
use tokio::time::Instant;
use url::Url;

use super::{FetchError, Fetcher, Page, Validators};
use crate::config::BrowserConfig;
use intercept::{answer, intercept_all, Answer, PageCounts, PageState};
use script::{quiet_expression, DEAD_PROXY, PRELUDE, SNAPSHOT, SOON_MS, TIMER_GRACE_MS};

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

/// Why a render failed: a reason for the user, or the browser went away under it.
#[derive(Debug)]
enum Failure {
    Fetch(FetchError),
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

    /// Renders `url` and returns its DOM as a page. `prefetched`: the page as a plain
    /// fetch just got it (its final URL is rendered, and its document is not fetched
    /// again). `wait_for`: a CSS selector (the watch's region) that must hold a link
    /// before the page counts as settled, during its first 10 s.
    pub async fn render(
        &self,
        url: &Url,
        prefetched: Option<Page>,
        wait_for: Option<&str>,
    ) -> Result<Page, FetchError> {
        let wait = self.cfg.page_timeout;
        let busy = || FetchError::Deferred {
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
                return Err(busy());
            }
            match tokio::time::timeout(wait, self.tabs.clone().acquire_owned()).await {
                Ok(Ok(t)) => t,
                _ => return Err(busy()),
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
        let result = result.map_err(|f| match f {
            Failure::Fetch(e) => e,
            Failure::Died => FetchError::Render(
                "the browser went away twice during this render (crashed or killed)".into(),
            ),
        });
        let ms = started.elapsed().as_millis() as u64;
        let s = &self.stats;
        s.renders.fetch_add(1, Ordering::Relaxed);
        match &result {
            Ok(_) => {
                s.render_ms.fetch_add(ms, Ordering::Relaxed);
            }
            Err(e) if e.is_deferral() => {}
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
                ok: result.is_ok(),
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

    #[allow(clippy::too_many_lines, reason = "one loop over the page's events")]
    async fn render_in(
        &self,
        inst: &Instance,
        url: &Url,
        prefetched: Option<&Page>,
        wait_for: Option<&str>,
        counts: &Arc<PageCounts>,
    ) -> Result<Page, Failure> {
        let conn = &inst.conn;
        let quiet = quiet_expression(wait_for);
        let ctx = conn
            .call(
                None,
                "Target.createBrowserContext",
                json!({
                    "disposeOnDetach": true,
                    "proxyServer": DEAD_PROXY,
                    "proxyBypassList": "<-loopback>",
                }),
            )
            .await?;
        let ctx = text(&ctx, "browserContextId")?;
        let mut guard = Cleanup {
            conn,
            context: ctx.clone(),
            sessions: Vec::new(),
        };
        let target = conn
            .call(
                None,
                "Target.createTarget",
                json!({"url": "about:blank", "browserContextId": ctx}),
            )
            .await?;
        let target = text(&target, "targetId")?;
        let attached = conn
            .call(
                None,
                "Target.attachToTarget",
                json!({"targetId": target, "flatten": true}),
            )
            .await?;
        let session = text(&attached, "sessionId")?;
        let (tx, mut events) = mpsc::unbounded_channel();
        conn.listen(&session, tx.clone());
        guard.sessions.push(session.clone());
        let s = Some(session.as_str());
        conn.call(s, "Fetch.enable", intercept_all()).await?;
        conn.call(s, "Page.enable", json!({})).await?;
        let prelude = PRELUDE
            .replace("TIMER_GRACE_MS", &TIMER_GRACE_MS.to_string())
            .replace("SOON_MS", &SOON_MS.to_string());
        conn.call(
            s,
            "Page.addScriptToEvaluateOnNewDocument",
            json!({"source": prelude}),
        )
        .await?;
        // A focused page: its timers are not throttled as a background tab's would be.
        conn.call(
            s,
            "Emulation.setFocusEmulationEnabled",
            json!({"enabled": true}),
        )
        .await?;
        conn.call(
            s,
            "Emulation.setUserAgentOverride",
            json!({"userAgent": self.user_agent}),
        )
        .await?;
        conn.call(
            s,
            "Target.setAutoAttach",
            json!({"autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true}),
        )
        .await?;

        let page = Arc::new(PageState {
            fetcher: self.fetcher.clone(),
            main_frame: target.clone(),
            block: self.cfg.block.clone(),
            max_requests: self.cfg.max_requests,
            max_total: self.cfg.max_total_bytes,
            max_body: self.max_body,
            documents: Mutex::new(
                prefetched
                    .map(|p| (p.url.to_string(), p.clone()))
                    .into_iter()
                    .collect(),
            ),
            seen: AtomicUsize::new(0),
            bytes: AtomicU64::new(0),
            hosts: Mutex::new(HashMap::new()),
            main_error: Mutex::new(None),
            deferred: Mutex::new(None),
            stats: self.stats.clone(),
            counts: counts.clone(),
        });
        let nav = conn.call(s, "Page.navigate", json!({"url": url.as_str()}));
        tokio::pin!(nav);
        let mut nav_done = false;
        let mut loaded = false;
        let mut tasks: JoinSet<Answer> = JoinSet::new();
        let mut quiet_since = Instant::now();
        let idle = self.cfg.idle;
        loop {
            tokio::select! {
                r = &mut nav, if !nav_done => {
                    nav_done = true;
                    let r = r?;
                    if let Some(err) = r.get("errorText").and_then(Value::as_str).filter(|e| !e.is_empty()) {
                        let known = lock(&page.deferred).take();
                        if let Some(e) = known.or_else(|| lock(&page.main_error).take()) {
                            return Err(Failure::Fetch(e));
                        }
                        return Err(Failure::Fetch(FetchError::Render(format!(
                            "the browser could not open the page: {err}"
                        ))));
                    }
                }
                ev = events.recv() => {
                    let Some(ev) = ev else { return Err(Failure::Died) };
                    match ev.method.as_str() {
                        "Fetch.requestPaused" => {
                            quiet_since = Instant::now();
                            tasks.spawn(answer(page.clone(), ev.session, ev.params));
                        }
                        "Page.loadEventFired" if ev.session == session => {
                            loaded = true;
                            quiet_since = Instant::now();
                        }
                        "Target.attachedToTarget" => {
                            // A worker or an out-of-process frame: intercept it too, then
                            // let it run.
                            if let Some(child) = ev.params.get("sessionId").and_then(Value::as_str) {
                                conn.listen(child, tx.clone());
                                guard.sessions.push(child.to_owned());
                                conn.send(Some(child), "Fetch.enable", &intercept_all());
                                conn.send(Some(child), "Target.setAutoAttach", &json!({"autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true}));
                                conn.send(Some(child), "Runtime.runIfWaitingForDebugger", &json!({}));
                            }
                        }
                        "Inspector.targetCrashed" if ev.session == session => {
                            return Err(Failure::Fetch(FetchError::Render(
                                "the page crashed its browser tab".into(),
                            )));
                        }
                        _ => {}
                    }
                }
                Some(done) = tasks.join_next(), if !tasks.is_empty() => {
                    quiet_since = Instant::now();
                    if let Ok(a) = done {
                        conn.send(Some(&a.session), a.method, &a.params);
                    }
                }
                () = tokio::time::sleep_until(quiet_since + idle), if loaded && nav_done && tasks.is_empty() => {
                    let v = conn.call(s, "Runtime.evaluate", json!({"expression": quiet, "returnByValue": true})).await?;
                    let age = v.pointer("/result/value").and_then(Value::as_f64).unwrap_or(1e9);
                    let age = Duration::from_secs_f64((age / 1000.0).clamp(0.0, 1e6));
                    if age >= idle {
                        break;
                    }
                    quiet_since = Instant::now().checked_sub(age).unwrap_or_else(Instant::now);
                }
            }
        }
        if let Some(e) = lock(&page.deferred).take() {
            return Err(Failure::Fetch(e));
        }
        let v = conn
            .call(
                s,
                "Runtime.evaluate",
                json!({"expression": SNAPSHOT, "returnByValue": true}),
            )
            .await?;
        let value = v.pointer("/result/value");
        let href = value.and_then(|v| v.get(0)).and_then(Value::as_str);
        let html = value
            .and_then(|v| v.get(1))
            .and_then(Value::as_str)
            .unwrap_or_default();
        if html.len() as u64 > self.max_body {
            return Err(Failure::Fetch(FetchError::TooLarge(self.max_body)));
        }
        if html.trim().is_empty() {
            return Err(Failure::Fetch(FetchError::Empty));
        }
        let final_url = href
            .and_then(|h| Url::parse(h).ok())
            .filter(|u| matches!(u.scheme(), "http" | "https"))
            .unwrap_or_else(|| url.clone());
        Ok(Page {
            url: final_url,
            content_type: Some("text/html; charset=utf-8".into()),
            body: html.as_bytes().to_vec(),
            validators: Validators::default(),
        })
    }
}

/// A string field of a protocol answer.
fn text(v: &Value, field: &str) -> Result<String, Failure> {
    v.get(field)
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| {
            Failure::Fetch(FetchError::Render(format!(
                "the browser's answer has no {field}"
            )))
        })
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

/// Closes a render's browser context (and with it its tab) however the render ends.
struct Cleanup<'a> {
    conn: &'a cdp::Conn,
    context: String,
    sessions: Vec<String>,
}

impl Drop for Cleanup<'_> {
    fn drop(&mut self) {
        for s in &self.sessions {
            self.conn.forget(s);
        }
        self.conn.send(
            None,
            "Target.disposeBrowserContext",
            &json!({"browserContextId": self.context}),
        );
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
