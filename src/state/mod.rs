//! A watch's state: everything about it that changes with its checks ([`WatchState`]:
//! status and error, validators and fingerprints, the adaptive schedule and what it has
//! learnt, counters, the recent checks, entry roles, a deep watch's summary, the
//! full-text queue). Plain data with its defaults: the check computes the next state,
//! the store persists it, the server and the CLI show it.
//!
//! May use: model, schedule, analysis.

use serde::{Deserialize, Serialize};

use crate::model::Status;

mod log;

pub use log::CheckLog;

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
    /// The last [`RECENT_CHECKS`] checks, newest first (written at the commit, `store/commit.rs`).
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
    /// `None` while the watch is not failing. Kept at the commit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_since: Option<i64>,
    /// The last webhook delivery: when, and why it failed (`None`: delivered).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhook_at: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhook_error: Option<String>,
    /// Items of a `full` watch still waiting for their article, oldest first (queued by
    /// the check that stored them, taken off by [`crate::store::Store::add_full_text`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub full_text: Vec<crate::model::PendingText>,
    /// The share of the watch's recent new bodies that brought new links, out of 255: an
    /// average in which each new body weighs a quarter and the older ones the rest. A new
    /// body with the same links (a visit counter, a timestamp, a token) lowers it, one with
    /// new links raises it; the same body, a 304 and a failure leave it. Under
    /// [`LINKS_FIRST_UNDER`] (two fifths), a check reads the page's links alone first ([`crate::analysis::Prev::links_first`]).
    /// Kept by `check::settle`; 255 for a new watch (every new body is taken to bring new
    /// links until some did not).
    #[serde(default = "all_bodies", skip_serializing_if = "is_all_bodies")]
    pub link_change_share: u8,
}

/// Under this share of new bodies bringing new links ([`WatchState::link_change_share`]),
/// a check reads a page's links before the rest of it. Reading the links alone costs
/// about 55% of the whole pass (which gathers no entry facts: those are read for new
/// entries only), and a page whose links then changed is read twice: the cheaper reading
/// pays when fewer than about 45% of new bodies bring new links. Two fifths leaves a
/// margin for the average's spread (a page whose every new body brings new links keeps the
/// one pass; a page whose noise changes at every fetch goes below it at its fourth new
/// body).
pub const LINKS_FIRST_UNDER: u8 = 102;

fn all_bodies() -> u8 {
    u8::MAX
}

#[allow(clippy::trivially_copy_pass_by_ref, reason = "serde's signature")]
fn is_all_bodies(n: &u8) -> bool {
    *n == u8::MAX
}

impl WatchState {
    /// Counts a new body in [`WatchState::link_change_share`]: whether it brought new links.
    pub fn count_new_body(&mut self, new_links: bool) {
        let s = self.link_change_share;
        self.link_change_share = if new_links {
            // Rounded up, so that new links every time reach the whole again.
            s + (u8::MAX - s).div_ceil(4)
        } else {
            s - s.div_ceil(4)
        };
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
            links_first: self.link_change_share < LINKS_FIRST_UNDER,
        }
    }
}

/// Checks remembered per watch for the web page.
pub const RECENT_CHECKS: usize = 20;

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
            link_change_share: u8::MAX,
        }
    }
}

impl WatchState {
    /// The `<ttl>` its feed shows: the interval between its checks (the schedule's B)
    /// in minutes, rounded down to a coarse step (so the adaptive schedule's small
    /// moves do not change the feed on every check).
    pub fn feed_ttl_minutes(&self) -> u32 {
        const STEPS: [u32; 14] = [
            1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440, 2880, 10080,
        ];
        let minutes = (self.sched.b / 60.0).ceil().max(1.0);
        STEPS
            .iter()
            .rev()
            .find(|&&s| f64::from(s) <= minutes)
            .copied()
            .unwrap_or(1)
    }
}

/// What a watch's feed depends on beyond the clock, in one small value: the change
/// sequence bumped by every write that alters the feed (a new or retitled item, a watch
/// edit, an error state or a page title shown in it), and since when the watch fails
/// (the feed's error item appears a configured time after that).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FeedStamp {
    /// Store-wide increasing: a watch removed and added again never repeats one.
    pub seq: u64,
    pub error_since: Option<i64>,
}

#[cfg(test)]
mod tests {
    use super::WatchState;
    use crate::schedule::Adaptive;

    fn checked_every(secs: f64) -> WatchState {
        WatchState::new(
            0,
            Adaptive {
                a: secs,
                b: secs,
                c: 0.0,
            },
        )
    }

    /// A feed's `<ttl>` follows the check interval down to a coarse step, so the
    /// adaptive schedule's small moves leave it (and the feed) as it is.
    #[test]
    fn the_feed_ttl_is_the_interval_rounded_down_to_a_coarse_step() {
        let ttl = |secs: f64| checked_every(secs).feed_ttl_minutes();
        assert_eq!(ttl(10.0), 1, "at least a minute");
        assert_eq!(ttl(90.0), 2);
        assert_eq!(ttl(50.0 * 60.0), 30);
        assert_eq!(ttl(52.0 * 60.0), 30, "a small move keeps the step");
        assert_eq!(ttl(7.0 * 3600.0), 360);
        assert_eq!(ttl(30.0 * 86_400.0), 10_080, "a week at most");
    }
}
