//! One render in a tab: a fresh browser context and page with request interception on
//! (workers and out-of-process frames attached and intercepted too), the page navigated
//! to and its events answered until it has settled (see [`super`] for when that is),
//! then its DOM as the page's body. The context is closed however the render ends
//! ([`Cleanup`]).
//!
//! Uses [`super`] (the browser and its instance), [`super::cdp`], [`super::intercept`],
//! [`super::script`] and the rest of [`crate::fetch`].

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio::time::Instant;
use url::Url;

use super::intercept::{answer, intercept_all, Answer, PageCounts, PageState};
use super::script::{quiet_expression, DEAD_PROXY, PRELUDE, SNAPSHOT, SOON_MS, TIMER_GRACE_MS};
use super::{cdp, lock, Browser, Failure, Instance};
use crate::fetch::{FetchError, Page, Validators};

impl Browser {
    /// One render in a fresh browser context of `inst`: a tab with request interception
    /// on, the page navigated to, its events answered until it has settled, then its DOM.
    #[allow(clippy::too_many_lines, reason = "one loop over the page's events")]
    pub(super) async fn render_in(
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
                        if let Some(d) = lock(&page.deferred).take() {
                            return Err(Failure::Deferred(d));
                        }
                        if let Some(e) = lock(&page.main_error).take() {
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
        if let Some(d) = lock(&page.deferred).take() {
            return Err(Failure::Deferred(d));
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
