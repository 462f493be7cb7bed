//! What the store keeps of a watch besides its settings: its state after the last check
//! ([`WatchState`]), the record one check writes ([`CheckRecord`]), and the view of a
//! watch's past that the analysis reads ([`WatchHistory`]). Plain data and its defaults;
//! the reads and writes are the store's (`mod.rs`, `pg/`).

use serde::{Deserialize, Serialize};

use super::{Store, StoreError};
use crate::model::{Item, Link, Status, WatchId};

/// Everything about a watch that changes with its checks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WatchState {
    pub status: Status,
    /// The last error, in plain words.
    pub error: Option<String>,
    pub last_check: Option<i64>,
    pub next_check: i64,
    /// When a check last found new items.
    pub last_change: Option<i64>,
    pub consecutive_errors: u32,
    pub checks: u64,
    pub etag: Option<String>,
    pub last_modified: Option<String>,
    /// Hex MD5 of the last body.
    pub raw_fingerprint: Option<String>,
    /// Hex MD5 of the last link array.
    pub link_fingerprint: Option<String>,
    /// The page's `<title>`.
    pub page_title: Option<String>,
    /// Adaptive schedule state, seconds (`docs/design.md` §4: A, B, C).
    pub sched: crate::schedule::Adaptive,
    /// Highest item sequence number used.
    pub item_seq: u64,
    pub item_count: u64,
    /// Links on the page at the last successful check.
    pub link_count: u64,
    /// Milliseconds the last check took.
    pub last_duration_ms: u64,
    /// The page asked robots not to follow its links (`<meta name=robots
    /// content=nofollow>`) at the last successful check: a deep watch must not crawl
    /// beyond it.
    #[serde(default)]
    pub nofollow: bool,
    /// Daily history, effective link count, probable losses and the strategy in force
    /// (`docs/design.md` §4; `schedule::Learned`). Absent in stores written before it
    /// existed.
    #[serde(default)]
    pub learned: crate::schedule::Learned,
    /// Entries of the page to show as items while the feed has none (backfill of N asked
    /// for when the watch was added; 0: one "now watched" item instead).
    #[serde(default)]
    pub backfill: u32,
    /// Absolute URL of the site's icon, when known (for the feeds' `<image>`/`<icon>`):
    /// the page's `<link rel="icon">` at the last check that changed its links.
    #[serde(default)]
    pub icon: Option<String>,
    /// When the first successful check set the baseline.
    #[serde(default)]
    pub baseline_at: Option<i64>,
    /// The last [`RECENT_CHECKS`] checks, newest first (written by `commit_check`).
    #[serde(default)]
    pub recent_checks: std::collections::VecDeque<CheckLog>,
    /// The roles (page structure) of the page's entry lists seen recently
    /// (`entries::decide`): a list known as entries stays one when it grows, shrinks or
    /// turns over.
    #[serde(default)]
    pub entry_roles: Vec<u64>,
    /// A remark on the last change of the page, e.g. a layout change that re-baselined
    /// the watch without items.
    #[serde(default)]
    pub note: Option<String>,
    /// A deep watch's site at its last check: pages by kind, candidates waiting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crawl: Option<crate::model::crawl::Summary>,
    /// When the current run of failures began (the first failed check after a success);
    /// `None` while the watch is not failing. Kept by `commit_check`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_since: Option<i64>,
    /// The last webhook delivery: when, and why it failed (`None`: delivered).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhook_at: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhook_error: Option<String>,
    /// Items of a `full` watch still waiting for their article, oldest first (queued by
    /// the check that stored them, taken off by [`Store::add_full_text`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub full_text: Vec<crate::model::PendingText>,
}

/// One watch's past as the analysis reads it ([`crate::analysis::History`]).
#[derive(Debug, Clone, Copy)]
pub struct WatchHistory<'a> {
    pub(super) store: &'a Store,
    pub(super) id: &'a WatchId,
}

impl crate::analysis::History for WatchHistory<'_> {
    type Error = StoreError;
    fn links(&self) -> Result<Vec<Link>, StoreError> {
        self.store.links(self.id)
    }
    fn is_seen(&self, url: &str) -> Result<bool, StoreError> {
        self.store.is_seen(self.id, url)
    }
}

impl WatchState {
    /// What the analysis needs of this state.
    pub fn prev(&self) -> crate::analysis::Prev<'_> {
        crate::analysis::Prev {
            raw_fingerprint: self.raw_fingerprint.as_deref(),
            link_fingerprint: self.link_fingerprint.as_deref(),
            entry_roles: &self.entry_roles,
            backfill: self.backfill,
        }
    }
}

/// Checks remembered per watch for the web page.
pub const RECENT_CHECKS: usize = 20;

/// One check as the web page shows it: when, what changed, how long it took.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckLog {
    /// Unix seconds.
    pub at: i64,
    pub duration_ms: u64,
    pub new_items: u32,
    /// The page's links changed.
    pub changed: bool,
    pub error: Option<String>,
}

impl WatchState {
    pub fn new(now: i64, sched: crate::schedule::Adaptive) -> Self {
        Self {
            status: Status::New,
            error: None,
            last_check: None,
            next_check: now,
            last_change: None,
            consecutive_errors: 0,
            checks: 0,
            etag: None,
            last_modified: None,
            raw_fingerprint: None,
            link_fingerprint: None,
            page_title: None,
            sched,
            item_seq: 0,
            item_count: 0,
            link_count: 0,
            last_duration_ms: 0,
            nofollow: false,
            learned: crate::schedule::Learned::default(),
            backfill: 0,
            icon: None,
            baseline_at: None,
            recent_checks: std::collections::VecDeque::new(),
            entry_roles: Vec::new(),
            note: None,
            crawl: None,
            error_since: None,
            webhook_at: None,
            webhook_error: None,
            full_text: Vec::new(),
        }
    }
}

/// The results of one check, written atomically.
#[derive(Debug, Default)]
pub struct CheckRecord {
    /// The new link array, when it changed.
    pub links: Option<Vec<Link>>,
    /// URLs to remember as seen on the page.
    pub seen_urls: Vec<String>,
    /// New items, oldest first (they get increasing sequence numbers).
    pub new_items: Vec<Item>,
    /// Items whose title was edited on the page: the stored item with the same id takes
    /// the new title (no new item).
    pub retitled: Vec<Item>,
    /// A deep watch's crawl: its new state and the link arrays of the pages it fetched.
    pub crawl: Option<CrawlRecord>,
    /// The server asked for this pause (`Retry-After`). On PostgreSQL the host's lease
    /// keeps it, so whichever node holds the host next waits it out too.
    pub host_pause: Option<std::time::Duration>,
}

/// What a deep watch's check writes of its site.
#[derive(Debug, Default)]
pub struct CrawlRecord {
    pub state: crate::model::crawl::CrawlState,
    /// New link arrays of pages, by page URL.
    pub pages: Vec<(String, Vec<Link>)>,
}
