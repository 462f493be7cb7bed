//! What the browser has done and how it is: counters for `/metrics`, the last render of
//! each page, and the state the web page shows.

use std::collections::HashMap;
use std::sync::atomic::AtomicU64;
use std::sync::Mutex;

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
    pub(super) last_error: Mutex<Option<String>>,
    pub(super) by_url: Mutex<HashMap<String, LastRender>>,
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
