//! A small client of the Chrome DevTools protocol: one WebSocket to the browser,
//! commands matched to their answers by id, events handed to the listener registered for
//! their session (flat sessions: `sessionId` on every message).
//!
//! Only what rendering needs is here; the protocol's messages are plain JSON values built
//! where they are sent.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot};
use tokio_tungstenite::tungstenite::Message;

/// An event of one session.
#[derive(Debug)]
pub struct Event {
    pub session: String,
    pub method: String,
    pub params: Value,
}

#[derive(Debug, thiserror::Error)]
pub(crate) enum CdpError {
    #[error("the connection to the browser is closed (it exited or was killed)")]
    Closed,
    #[error("the browser refused {method}: {message}")]
    Command { method: String, message: String },
    #[error("cannot connect to the browser at {url}: {reason}")]
    Connect { url: String, reason: String },
}

type Answer = Result<Value, String>;

#[derive(Debug, Default)]
struct Shared {
    pending: Mutex<HashMap<u64, oneshot::Sender<Answer>>>,
    listeners: Mutex<HashMap<String, mpsc::UnboundedSender<Event>>>,
    closed: AtomicBool,
}

impl Shared {
    fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
        lock(&self.pending).clear();
        lock(&self.listeners).clear();
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A connection to one browser. Dropping it ends its tasks (the browser keeps running).
#[derive(Debug)]
pub(crate) struct Conn {
    next_id: AtomicU64,
    out: mpsc::UnboundedSender<Message>,
    shared: Arc<Shared>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Drop for Conn {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

/// Largest message accepted from the browser (a page's HTML travels in one).
const MAX_MESSAGE: usize = 64 << 20;

impl Conn {
    /// Connects to a browser's DevTools WebSocket (`ws://…/devtools/browser/…`).
    pub async fn connect(ws_url: &str) -> Result<Self, CdpError> {
        let cfg = tokio_tungstenite::tungstenite::protocol::WebSocketConfig::default()
            .max_message_size(Some(MAX_MESSAGE))
            .max_frame_size(Some(MAX_MESSAGE));
        let (ws, _) = tokio_tungstenite::connect_async_with_config(ws_url, Some(cfg), false)
            .await
            .map_err(|e| CdpError::Connect {
                url: ws_url.to_owned(),
                reason: e.to_string(),
            })?;
        let (mut sink, mut stream) = ws.split();
        let (out, mut rx) = mpsc::unbounded_channel::<Message>();
        let shared = Arc::new(Shared::default());
        let writer = {
            let shared = shared.clone();
            tokio::spawn(async move {
                while let Some(m) = rx.recv().await {
                    if sink.send(m).await.is_err() {
                        break;
                    }
                }
                shared.close();
            })
        };
        let reader = {
            let shared = shared.clone();
            tokio::spawn(async move {
                while let Some(Ok(msg)) = stream.next().await {
                    let text = match msg {
                        Message::Text(t) => t,
                        Message::Close(_) => break,
                        _ => continue,
                    };
                    let Ok(v) = serde_json::from_str::<Value>(text.as_str()) else {
                        continue;
                    };
                    dispatch(&shared, v);
                }
                shared.close();
            })
        };
        Ok(Self {
            next_id: AtomicU64::new(1),
            out,
            shared,
            tasks: vec![writer, reader],
        })
    }

    /// Whether the browser is still connected.
    pub(crate) fn is_open(&self) -> bool {
        !self.shared.closed.load(Ordering::SeqCst)
    }

    /// Sends `method` (to `session`, or to the browser) and waits for its answer.
    pub async fn call(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
    ) -> Result<Value, CdpError> {
        if !self.is_open() {
            return Err(CdpError::Closed);
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut msg = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            msg["sessionId"] = Value::String(s.to_owned());
        }
        let (tx, rx) = oneshot::channel();
        lock(&self.shared.pending).insert(id, tx);
        if self.out.send(Message::text(msg.to_string())).is_err() {
            lock(&self.shared.pending).remove(&id);
            return Err(CdpError::Closed);
        }
        match rx.await {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(message)) => Err(CdpError::Command {
                method: method.to_owned(),
                message,
            }),
            Err(_) => Err(CdpError::Closed),
        }
    }

    /// Sends `method` without waiting for the answer.
    pub fn send(&self, session: Option<&str>, method: &str, params: &Value) {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut msg = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            msg["sessionId"] = Value::String(s.to_owned());
        }
        let _ = self.out.send(Message::text(msg.to_string()));
    }

    /// Hands the events of `session` to `tx` from now on.
    pub fn listen(&self, session: &str, tx: mpsc::UnboundedSender<Event>) {
        if self.is_open() {
            lock(&self.shared.listeners).insert(session.to_owned(), tx);
        }
    }

    /// Stops handing the events of `session` to anyone.
    pub fn forget(&self, session: &str) {
        lock(&self.shared.listeners).remove(session);
    }
}

/// Routes one message from the browser: an answer to its caller, an event to its
/// session's listener (events of unknown sessions are dropped).
fn dispatch(shared: &Shared, mut v: Value) {
    if let Some(id) = v.get("id").and_then(Value::as_u64) {
        let Some(tx) = lock(&shared.pending).remove(&id) else {
            return;
        };
        let answer = match v.get_mut("error") {
            Some(e) => Err(e
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("unknown error")
                .to_owned()),
            None => Ok(v.get_mut("result").map_or(Value::Null, Value::take)),
        };
        let _ = tx.send(answer);
        return;
    }
    let Some(method) = v.get("method").and_then(Value::as_str).map(str::to_owned) else {
        return;
    };
    let session = v
        .get("sessionId")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let listeners = lock(&shared.listeners);
    if let Some(tx) = listeners.get(&session) {
        let params = v.get_mut("params").map_or(Value::Null, Value::take);
        let _ = tx.send(Event {
            session,
            method,
            params,
        });
    }
}
