//! Answering the requests a rendered page makes: every request the browser pauses is
//! fetched by sitefeed (the document like a plain page, the rest one hop at a time
//! through the guard, the gates and the caps) and handed back, or refused and counted.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use base64::Engine as _;
use serde_json::{json, Value};
use url::Url;

use super::{lock, Stats};
use crate::fetch::host::HostKey;
use crate::fetch::{Deferral, FetchError, FetchOutcome, Fetcher, Halt, Page, Validators};

/// Counts of one render.
#[derive(Debug, Default)]
pub(super) struct PageCounts {
    pub(super) requests: AtomicU64,
    pub(super) refused: AtomicU64,
    pub(super) blocked: AtomicU64,
}

/// What the answers to one page's requests share.
#[derive(Debug)]
pub(super) struct PageState {
    pub(super) fetcher: Fetcher,
    pub(super) main_frame: String,
    pub(super) block: Vec<String>,
    pub(super) max_requests: usize,
    pub(super) max_total: u64,
    pub(super) max_body: u64,
    /// Documents already fetched, by URL: the prefetched page, redirect targets.
    pub(super) documents: Mutex<HashMap<String, Page>>,
    pub(super) seen: AtomicUsize,
    pub(super) bytes: AtomicU64,
    /// One request of this page per host waits at the host gate at a time.
    pub(super) hosts: Mutex<HashMap<HostKey, Arc<tokio::sync::Mutex<()>>>>,
    pub(super) main_error: Mutex<Option<FetchError>>,
    pub(super) deferred: Mutex<Option<Deferral>>,
    pub(super) stats: Arc<Stats>,
    pub(super) counts: Arc<PageCounts>,
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
pub(super) struct Answer {
    pub(super) session: String,
    pub(super) method: &'static str,
    pub(super) params: Value,
}

/// A response for the browser: status, headers, body.
pub(super) type Reply = (u16, Vec<(String, String)>, Vec<u8>);

/// Answers one paused request: refused, blocked, or fulfilled by the fetcher.
pub(super) async fn answer(page: Arc<PageState>, session: String, p: Value) -> Answer {
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
        // Not tried (the host's turn did not come): the render is deferred as a whole.
        Err(Halt::Deferred(d)) => {
            lock(&page.deferred).get_or_insert(d);
            fail("Failed")
        }
        Err(Halt::Failed(e)) => {
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
            if main {
                lock(&page.main_error).get_or_insert(e);
            }
            fail(reason)
        }
    }
}

/// A document (the page, a frame): fetched like a plain check's page (robots.txt,
/// redirects followed by the fetcher, HTML only), or served from what the page already
/// fetched. A redirect is handed to the browser as one, to the final URL.
pub(super) async fn document(page: &PageState, url: &Url) -> Result<Reply, Halt> {
    let known = lock(&page.documents).remove(url.as_str());
    let doc = match known {
        Some(p) => p,
        None => match page.fetcher.get(url, &Validators::default()).await? {
            FetchOutcome::Page(p) => p,
            FetchOutcome::Deferred(d) => return Err(d.into()),
            FetchOutcome::NotModified => {
                return Err(FetchError::Other(
                    "the server answered 304 to an unconditional request".into(),
                )
                .into())
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
pub(super) async fn resource(
    page: &PageState,
    url: &Url,
    req: &Value,
    cap: u64,
) -> Result<Reply, Halt> {
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
pub(super) fn post_body(req: &Value) -> Option<Vec<u8>> {
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

pub(super) fn intercept_all() -> Value {
    json!({"patterns": [{"urlPattern": "*", "requestStage": "Request"}]})
}
