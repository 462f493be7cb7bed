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

pub mod cdp;
pub mod launch;
pub mod shell;

#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use serde_json::{json, Value};
use tokio::sync::{mpsc, Semaphore};
use tokio::task::JoinSet;
use tokio::time::Instant;
use url::Url;

use super::host::HostKey;
use super::{FetchError, FetchOutcome, Fetcher, Page, Validators};
use crate::config::BrowserConfig;

/// How long a launched browser may take to listen.
const START_WAIT: Duration = Duration::from_secs(20);
/// Renders that may wait for a tab, per tab; more are deferred.
const MAX_WAITING_PER_TAB: usize = 2;
/// Pages whose last render is remembered for the web page.
const MAX_REMEMBERED: usize = 10_000;

/// Runs in every document before its own scripts: notes when the DOM last changed, and
/// removes the ways out that request interception would not see.
const PRELUDE: &str = r"(() => {
  const t = { last: performance.now() };
  // Timers due soon (a list built after a short delay): the page has not settled while
  // one is pending, for its first TIMER_GRACE_MS (a page that polls forever settles then).
  const pending = new Set();
  const set = window.setTimeout, clear = window.clearTimeout;
  try {
    window.setTimeout = function (fn, ms, ...args) {
      if (typeof fn !== 'function' || Number(ms || 0) > SOON_MS) return set.call(this, fn, ms, ...args);
      let id;
      id = set.call(this, function (...a) { pending.delete(id); return fn.apply(this, a); }, ms, ...args);
      pending.add(id);
      return id;
    };
    window.clearTimeout = function (id) { pending.delete(id); return clear.call(this, id); };
    // Requests in flight, counted as the script makes them (the browser tells sitefeed
    // a moment later).
    const busy = { n: 0 };
    // Counted down a task later, after the callbacks that use the answer (and their DOM
    // changes) have run.
    const done = () => { set.call(window, () => { busy.n -= 1; }, 0); };
    if (window.Response) {
      for (const name of ['json', 'text', 'arrayBuffer', 'blob', 'formData']) {
        const read = Response.prototype[name];
        if (!read) continue;
        Response.prototype[name] = function (...args) {
          busy.n += 1;
          const p = read.apply(this, args);
          p.then(done, done);
          return p;
        };
      }
    }
    const fetch = window.fetch;
    if (fetch) {
      window.fetch = function (...args) {
        busy.n += 1;
        try {
          const p = fetch.apply(this, args);
          p.then(done, done);
          return p;
        } catch (e) { done(); throw e; }
      };
    }
    const send = XMLHttpRequest.prototype.send;
    XMLHttpRequest.prototype.send = function (...args) {
      busy.n += 1;
      this.addEventListener('loadend', done, { once: true });
      return send.apply(this, args);
    };
    Object.defineProperty(window, '__sitefeedQuiet', {
      value: () => ((pending.size || busy.n > 0) && performance.now() < TIMER_GRACE_MS)
        ? 0 : performance.now() - t.last,
    });
    new MutationObserver(() => { t.last = performance.now(); })
      .observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  } catch (e) {}
  for (const name of ['WebSocket', 'WebTransport', 'RTCPeerConnection', 'webkitRTCPeerConnection']) {
    try { Object.defineProperty(window, name, { value: undefined }); } catch (e) {}
  }
  try { Object.defineProperty(Navigator.prototype, 'serviceWorker', { get: () => undefined }); } catch (e) {}
})();";

/// A timer due within this many milliseconds holds the page's settling...
const SOON_MS: u32 = 3000;
/// ...during its first this many milliseconds.
const TIMER_GRACE_MS: u32 = 10_000;

/// The proxy of every render's browser context: nothing listens there, so a request
/// that request interception does not see (a popup window, a WebSocket) connects nowhere;
/// `<-loopback>` makes loopback addresses go through it too. Intercepted requests are
/// answered before any proxy is involved.
const DEAD_PROXY: &str = "http://127.0.0.1:1";

/// Milliseconds since the DOM last changed.
const QUIET_MS: &str = "typeof __sitefeedQuiet === 'function' ? __sitefeedQuiet() : 1e9";

/// The expression that tells how long the page has been quiet (0: not settled), with the
/// region `wait_for` required to hold a link during the page's first
/// [`TIMER_GRACE_MS`] (an invalid selector waits for nothing).
fn quiet_expression(wait_for: Option<&str>) -> String {
    let Some(sel) = wait_for else {
        return QUIET_MS.to_owned();
    };
    let sel = Value::String(sel.to_owned()).to_string();
    format!(
        "(() => {{ const q = ({QUIET_MS}); if (performance.now() >= {TIMER_GRACE_MS}) return q; \
         try {{ const links = 'a[href], area[href]'; \
         return Array.from(document.querySelectorAll({sel})).some(e => e.matches(links) || e.querySelector(links)) ? q : 0; \
         }} catch (e) {{ return q; }} }})()"
    )
}

/// The page as it stands.
const SNAPSHOT: &str =
    "[location.href, document.documentElement ? document.documentElement.outerHTML : '']";

/// Counters of the browser, for `/metrics` and the web page.
#[derive(Debug, Default)]
pub struct Stats {
    pub renders: AtomicU64,
    pub failures: AtomicU64,
    /// Browsers started (the first one included).
    pub starts: AtomicU64,
    /// Browsers found dead (crashed or killed) and replaced.
    pub deaths: AtomicU64,
    /// Requests of pages answered (fetched or served from the page's own fetch).
    pub requests: AtomicU64,
    /// Requests refused: a private address, a scheme, the host gate or robots.txt.
    pub refused: AtomicU64,
    /// Requests blocked without a request: blocked types, the per-page limits.
    pub blocked: AtomicU64,
    /// Time spent rendering, successful renders only.
    pub render_ms: AtomicU64,
    /// Resident memory of the launched browser's processes at the last measurement.
    pub memory_bytes: AtomicU64,
    last_error: Mutex<Option<String>>,
    by_url: Mutex<HashMap<String, LastRender>>,
}

/// The last render of one page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LastRender {
    pub ms: u64,
    pub ok: bool,
    pub requests: u64,
    pub refused: u64,
    pub blocked: u64,
}

/// The browser as the web page shows it.
#[derive(Debug, Clone)]
pub struct Health {
    /// `idle` (not started yet), `running` or `down`.
    pub state: &'static str,
    /// `launched: <path>` or the `ws_url`.
    pub endpoint: String,
    pub tabs: usize,
    pub tabs_busy: usize,
    pub renders: u64,
    pub failures: u64,
    pub restarts: u64,
    pub refused: u64,
    pub blocked: u64,
    pub mean_render_ms: Option<u64>,
    pub memory_bytes: Option<u64>,
    pub last_error: Option<String>,
}

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

impl Fetcher {
    /// Gets `url` the way `how` says: plain, in the browser, or in the browser when the
    /// plain page is an application shell. A rendered page carries no validators (a
    /// shell that did not change says nothing about its data).
    pub async fn get_as(
        &self,
        url: &Url,
        validators: &Validators,
        how: Reading<'_>,
    ) -> Result<FetchOutcome, FetchError> {
        use crate::model::Render;
        let browser = || {
            self.browser
                .as_deref()
                .ok_or_else(|| FetchError::Render("no browser is configured".into()))
        };
        match how.render {
            Render::Plain => self.get(url, validators).await,
            Render::Browser => Ok(FetchOutcome::Page(
                browser()?.render(url, None, how.wait_for).await?,
            )),
            Render::Auto => {
                let FetchOutcome::Page(page) = self.get(url, validators).await? else {
                    return Ok(FetchOutcome::NotModified);
                };
                // Parsing runs on the CPU pool, off the async workers.
                let (page, shape) = crate::cpu::run(move || {
                    let s = shell::shape(&page.body);
                    (page, s)
                })
                .await;
                if !shape.is_app_shell() {
                    return Ok(FetchOutcome::Page(page));
                }
                tracing::debug!(%url, ?shape, "an application shell: rendering it");
                Ok(FetchOutcome::Page(
                    browser()?.render(url, Some(page), how.wait_for).await?,
                ))
            }
        }
    }
}

/// How a page is read: the watch's mode, and the region it watches (a rendered page
/// has settled only when the region holds a link, or after its first 10 s).
#[derive(Debug, Clone, Copy)]
pub struct Reading<'a> {
    pub render: crate::model::Render,
    pub wait_for: Option<&'a str>,
}

impl<'a> From<&'a crate::model::Watch> for Reading<'a> {
    fn from(w: &'a crate::model::Watch) -> Self {
        Self {
            render: w.render,
            wait_for: w.select.as_deref(),
        }
    }
}

impl From<crate::model::Render> for Reading<'static> {
    fn from(render: crate::model::Render) -> Self {
        Self {
            render,
            wait_for: None,
        }
    }
}

/// Counts of one render.
#[derive(Debug, Default)]
struct PageCounts {
    requests: AtomicU64,
    refused: AtomicU64,
    blocked: AtomicU64,
}

/// What the answers to one page's requests share.
#[derive(Debug)]
struct PageState {
    fetcher: Fetcher,
    main_frame: String,
    block: Vec<String>,
    max_requests: usize,
    max_total: u64,
    max_body: u64,
    /// Documents already fetched, by URL: the prefetched page, redirect targets.
    documents: Mutex<HashMap<String, Page>>,
    seen: AtomicUsize,
    bytes: AtomicU64,
    /// One request of this page per host waits at the host gate at a time.
    hosts: Mutex<HashMap<HostKey, Arc<tokio::sync::Mutex<()>>>>,
    main_error: Mutex<Option<FetchError>>,
    deferred: Mutex<Option<FetchError>>,
    stats: Arc<Stats>,
    counts: Arc<PageCounts>,
}

impl PageState {
    fn blocked(&self) {
        self.stats.blocked.fetch_add(1, Ordering::Relaxed);
        self.counts.blocked.fetch_add(1, Ordering::Relaxed);
    }

    fn refused(&self, url: &Url, e: &FetchError) {
        tracing::info!(%url, error = %e, "a request of a rendered page was refused");
        self.stats.refused.fetch_add(1, Ordering::Relaxed);
        self.counts.refused.fetch_add(1, Ordering::Relaxed);
    }

    fn answered(&self, bytes: usize) {
        self.bytes.fetch_add(bytes as u64, Ordering::Relaxed);
        self.stats.requests.fetch_add(1, Ordering::Relaxed);
        self.counts.requests.fetch_add(1, Ordering::Relaxed);
    }

    fn host_lock(&self, url: &Url) -> Option<Arc<tokio::sync::Mutex<()>>> {
        let key = HostKey::of(url)?;
        Some(lock(&self.hosts).entry(key).or_default().clone())
    }
}

/// The command that answers one paused request.
#[derive(Debug)]
struct Answer {
    session: String,
    method: &'static str,
    params: Value,
}

/// A response for the browser: status, headers, body.
type Reply = (u16, Vec<(String, String)>, Vec<u8>);

/// Answers one paused request: refused, blocked, or fulfilled by the fetcher.
async fn answer(page: Arc<PageState>, session: String, p: Value) -> Answer {
    let id = p.get("requestId").cloned().unwrap_or(Value::Null);
    let fail = |reason: &str| Answer {
        session: session.clone(),
        method: "Fetch.failRequest",
        params: json!({"requestId": id, "errorReason": reason}),
    };
    let kind = p
        .get("resourceType")
        .and_then(Value::as_str)
        .unwrap_or("Other")
        .to_ascii_lowercase();
    if page.block.contains(&kind) || page.seen.fetch_add(1, Ordering::Relaxed) >= page.max_requests
    {
        page.blocked();
        return fail("BlockedByClient");
    }
    let req = p.get("request").cloned().unwrap_or(Value::Null);
    let Some(url) = req
        .get("url")
        .and_then(Value::as_str)
        .and_then(|u| Url::parse(u).ok())
    else {
        return fail("Failed");
    };
    let main = kind == "document"
        && p.get("frameId").and_then(Value::as_str) == Some(page.main_frame.as_str());
    let reply = if kind == "document" {
        document(&page, &url).await
    } else {
        let used = page.bytes.load(Ordering::Relaxed);
        let cap = page.max_body.min(page.max_total.saturating_sub(used));
        if cap == 0 {
            page.blocked();
            return fail("BlockedByClient");
        }
        resource(&page, &url, &req, cap).await
    };
    match reply {
        Ok((code, headers, body)) => {
            page.answered(body.len());
            Answer {
                session: session.clone(),
                method: "Fetch.fulfillRequest",
                params: json!({
                    "requestId": id,
                    "responseCode": code,
                    "responseHeaders": headers
                        .into_iter()
                        .map(|(name, value)| json!({"name": name, "value": value}))
                        .collect::<Vec<_>>(),
                    "body": base64::engine::general_purpose::STANDARD.encode(&body),
                }),
            }
        }
        Err(e) => {
            let reason = match &e {
                FetchError::Refused(_)
                | FetchError::RefusedHost(_)
                | FetchError::Scheme(_)
                | FetchError::Robots { .. }
                | FetchError::RobotsUnreachable { .. } => {
                    page.refused(&url, &e);
                    "AccessDenied"
                }
                FetchError::Timeout(_) | FetchError::Stalled(_) => "TimedOut",
                FetchError::Connect(_) => "ConnectionFailed",
                FetchError::TooLarge(_) => "BlockedByClient",
                _ => "Failed",
            };
            if e.is_deferral() {
                lock(&page.deferred).get_or_insert(e);
            } else if main {
                lock(&page.main_error).get_or_insert(e);
            }
            fail(reason)
        }
    }
}

/// A document (the page, a frame): fetched like a plain check's page (robots.txt,
/// redirects followed by the fetcher, HTML only), or served from what the page already
/// fetched. A redirect is handed to the browser as one, to the final URL.
async fn document(page: &PageState, url: &Url) -> Result<Reply, FetchError> {
    let known = lock(&page.documents).remove(url.as_str());
    let doc = match known {
        Some(p) => p,
        None => match page.fetcher.get(url, &Validators::default()).await? {
            FetchOutcome::Page(p) => p,
            FetchOutcome::NotModified => {
                return Err(FetchError::Other(
                    "the server answered 304 to an unconditional request".into(),
                ))
            }
        },
    };
    if doc.url != *url {
        let location = doc.url.to_string();
        lock(&page.documents).insert(location.clone(), doc);
        return Ok((302, vec![("Location".into(), location)], Vec::new()));
    }
    let ct = doc
        .content_type
        .clone()
        .unwrap_or_else(|| "text/html".into());
    Ok((200, vec![("Content-Type".into(), ct)], doc.body))
}

/// Any other request of the page: one hop through the fetcher, at most `cap` bytes.
async fn resource(page: &PageState, url: &Url, req: &Value, cap: u64) -> Result<Reply, FetchError> {
    let method = req.get("method").and_then(Value::as_str).unwrap_or("GET");
    let headers: Vec<(String, String)> = req
        .get("headers")
        .and_then(Value::as_object)
        .map(|h| {
            h.iter()
                .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned())))
                .collect()
        })
        .unwrap_or_default();
    let body = post_body(req);
    let host = page.host_lock(url);
    let _turn = match &host {
        Some(h) => Some(h.lock().await),
        None => None,
    };
    let r = page
        .fetcher
        .resource(method, url, &headers, body, cap)
        .await?;
    Ok((r.status, r.headers, r.body))
}

/// The body of a request the browser paused: its `postDataEntries` (base64, the
/// protocol's current form), else its `postData`.
fn post_body(req: &Value) -> Option<Vec<u8>> {
    if let Some(entries) = req.get("postDataEntries").and_then(Value::as_array) {
        let mut body = Vec::new();
        for e in entries {
            let b64 = e.get("bytes").and_then(Value::as_str).unwrap_or_default();
            body.extend(
                base64::engine::general_purpose::STANDARD
                    .decode(b64)
                    .unwrap_or_default(),
            );
        }
        return Some(body);
    }
    req.get("postData")
        .and_then(Value::as_str)
        .map(|s| s.as_bytes().to_vec())
}

fn intercept_all() -> Value {
    json!({"patterns": [{"urlPattern": "*", "requestStage": "Request"}]})
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
