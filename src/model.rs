//! Data shared by every module: watches, links, items and the outcome of a check; and
//! what a deep watch keeps of its site ([`crawl`]).
//!
//! Data only: no I/O and no behaviour beyond small constructors and accessors.
//!
//! May use: nothing.

pub mod crawl;

use serde::{Deserialize, Serialize};

/// One link of a page, in page order: its visible text (whitespace collapsed, entities
/// decoded) and its absolute, normalized URL.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Link {
    pub text: String,
    pub url: String,
}

impl Link {
    pub fn new(text: impl Into<String>, url: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            url: url.into(),
        }
    }
}

/// A watch id: the first 12 hex digits of the MD5 of the watch's normalized URL, so adding
/// the same URL twice yields the same id. Stable and URL-safe.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct WatchId(String);

impl WatchId {
    /// The id of a watch on `normalized_url`.
    pub fn for_url(normalized_url: &str) -> Self {
        use md5::{Digest, Md5};
        let digest = Md5::digest(normalized_url.as_bytes());
        Self(hex(&digest[..6]))
    }

    /// Parses an id given by a user; `None` unless it has the shape of an id.
    pub fn parse(s: &str) -> Option<Self> {
        (s.len() == 12
            && s.bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()))
        .then(|| Self(s.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for WatchId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// What the user asked to watch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Watch {
    pub id: WatchId,
    /// Normalized absolute URL of the page.
    pub url: String,
    /// Title given by the user, if any.
    pub title: Option<String>,
    /// 1 (the page only) to 3.
    pub depth: u8,
    /// CSS selector narrowing the page to a region.
    pub select: Option<String>,
    pub keywords: Vec<String>,
    /// Unix seconds.
    pub created: i64,
    /// Scheduling strategy of this watch; `None`: `schedule.strategy` of the config.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategy: Option<Strategy>,
    /// How the page is read: a plain fetch, or rendered in the headless browser.
    #[serde(default, skip_serializing_if = "Render::is_plain")]
    pub render: Render,
    /// What the user set beyond the page itself: tags, pause, interval bounds, the
    /// error item, a webhook. Absent in stores written before they existed.
    #[serde(default, flatten)]
    pub options: WatchOptions,
}

impl Watch {
    /// A plain watch of `url` as given (its id from it), created at `created`: depth 1,
    /// no title, selector or keywords, read without the browser, default settings.
    pub fn of_url(url: &str, created: i64) -> Self {
        Self {
            id: WatchId::for_url(url),
            url: url.to_owned(),
            title: None,
            depth: 1,
            select: None,
            keywords: Vec::new(),
            created,
            strategy: None,
            render: Render::Plain,
            options: WatchOptions::default(),
        }
    }
}

/// A watch's settings that do not change what is read from the page.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WatchOptions {
    /// Tags (reader folders), lower case, sorted, distinct.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// Not checked by the scheduler (a check by hand still runs).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub paused: bool,
    /// Bounds of this watch's check interval, seconds; `None`: the config's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_interval: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_interval: Option<u64>,
    /// No item in the feed when the watch keeps failing (`feed.error_item_after`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_error_item: bool,
    /// URL that receives each check's new items as a JSON Feed (POST).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhook: Option<String>,
    /// IANA time zone of the times shown for this watch; `None`: `server.timezone`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timezone: Option<String>,
    /// What an item carries: the entry's summary, or the full article fetched from its
    /// page. Absent (summary) in stores written before it existed.
    #[serde(default, skip_serializing_if = "Content::is_summary")]
    pub content: Content,
}

/// What a watch's items carry (`content`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Content {
    /// Title, link and what the entry's block on the list page says (the default).
    #[default]
    Summary,
    /// Also the main article of each new item's own page, fetched once.
    Full,
}

impl Content {
    pub const NAMES: &'static str = "summary, full";

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Summary => "summary",
            Self::Full => "full",
        }
    }

    /// Parses a setting as users write it.
    pub fn parse(s: &str) -> Option<Self> {
        match s.trim() {
            "summary" => Some(Self::Summary),
            "full" => Some(Self::Full),
            _ => None,
        }
    }

    #[allow(
        clippy::trivially_copy_pass_by_ref,
        reason = "serde's skip_serializing_if passes a reference"
    )]
    pub fn is_summary(&self) -> bool {
        *self == Self::Summary
    }
}

/// An item of a `full` watch whose article is still to be fetched: committed with the
/// item, so a crash loses neither; tried on later checks until it has its article or
/// has failed [`FULL_TEXT_TRIES`] times.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingText {
    /// The item's id.
    pub item: String,
    /// The item's link: the page whose article is fetched.
    pub url: String,
    /// Failed fetches so far.
    #[serde(default)]
    pub tries: u8,
}

/// The queue after a round of article fetches: `left` (what the round keeps of the queue
/// it `took`), then what `current` (the queue as stored now) holds beyond what it took:
/// items another check queued meanwhile stay queued.
pub fn requeue(
    current: &[PendingText],
    took: &[PendingText],
    left: &[PendingText],
) -> Vec<PendingText> {
    let mut out = left.to_vec();
    let mut known: std::collections::HashSet<&str> =
        took.iter().chain(left).map(|p| p.item.as_str()).collect();
    for p in current {
        if known.insert(p.item.as_str()) {
            out.push(p.clone());
        }
    }
    out
}

/// Fetches of an item's article before it keeps its summary for good.
pub const FULL_TEXT_TRIES: u8 = 3;
/// Article fetches one check of a watch makes at most; the rest wait for the next check.
pub const FULL_TEXT_PER_CHECK: usize = 10;
/// Items of a watch waiting for their article at most (the oldest go first).
pub const FULL_TEXT_QUEUE: usize = 200;

/// How a watch's page is read (`render`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Render {
    /// The HTTP response as it is (the default).
    #[default]
    Plain,
    /// The DOM after the page's scripts ran in the headless browser.
    Browser,
    /// Plain, and the browser only when the plain page has no entries and looks like an
    /// application shell (scripts, an empty body, a `noscript` notice).
    Auto,
}

impl Render {
    pub const NAMES: &'static str = "plain, browser, auto";

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Plain => "plain",
            Self::Browser => "browser",
            Self::Auto => "auto",
        }
    }

    /// Parses a mode as users write it.
    pub fn parse(s: &str) -> Option<Self> {
        match s.trim() {
            "plain" => Some(Self::Plain),
            "browser" => Some(Self::Browser),
            "auto" => Some(Self::Auto),
            _ => None,
        }
    }

    #[allow(
        clippy::trivially_copy_pass_by_ref,
        reason = "serde's skip_serializing_if passes a reference"
    )]
    pub fn is_plain(&self) -> bool {
        *self == Self::Plain
    }
}

/// One feed item: a link that a check found new, with what its entry says of it.
///
/// Everything after `first_seen` is optional and absent in items stored before it
/// existed (they decode with `None`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Item {
    /// Stable id: hex MD5 of the item's URL (16 hex digits).
    pub id: String,
    pub title: String,
    pub link: String,
    /// Unix seconds when a check first saw it.
    pub first_seen: i64,
    /// The entry's own text without its title and link-only chrome, plain text, cut at
    /// about [`SUMMARY_CHARS`] characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// Unix seconds: the date the entry states (never after `first_seen`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published: Option<i64>,
    /// Unix seconds: when the stored item last changed (a title edit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated: Option<i64>,
    /// Absolute URL of the entry's own picture.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    /// The entry's author as the page names them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    /// The full article (sanitized HTML), for watches that ask for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
}

/// About how many characters an item's summary keeps.
pub const SUMMARY_CHARS: usize = 300;

impl Item {
    /// The stable id of an item linking to `url`.
    pub fn id_for(url: &str) -> String {
        use md5::{Digest, Md5};
        hex(&Md5::digest(url.as_bytes())[..8])
    }
}

/// Health of a watch as shown to users.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Added, never checked.
    New,
    /// The last check succeeded.
    Ok,
    /// The last check failed; `WatchState::error` says why.
    Error,
}

/// How a watch's checks are scheduled (`docs/design.md` §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Strategy {
    /// The A/B/C interval of *Website Update Monitor Based on Web Crawler and Improved
    /// LCS Algorithms*.
    Adaptive,
    /// Always `initial_interval`.
    Fixed,
    /// The daily model of *Research on Incremental Updating Strategy of Web Forum Based
    /// on Statistics* (adaptive until it has enough history).
    Periodic,
}

impl Strategy {
    pub const NAMES: &'static str = "adaptive, periodic, fixed";

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Adaptive => "adaptive",
            Self::Fixed => "fixed",
            Self::Periodic => "periodic",
        }
    }

    /// Parses a strategy name as users write it.
    pub fn parse(s: &str) -> Option<Self> {
        match s.trim() {
            "adaptive" => Some(Self::Adaptive),
            "fixed" => Some(Self::Fixed),
            "periodic" => Some(Self::Periodic),
            _ => None,
        }
    }
}

impl std::fmt::Display for Strategy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The most items a watch may keep: the upper bound of `feed.max_items`. The store
/// keeps the newest `feed.max_items` of them (as many as a feed shows); older ones leave.
pub const ITEMS_KEPT: u64 = 1000;

/// Items per watch a feed shows and the store keeps when `feed.max_items` is not set.
pub const DEFAULT_ITEMS_KEPT: u64 = 100;

pub fn rfc3339(t: i64) -> String {
    chrono::DateTime::from_timestamp(t, 0)
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_item_stored_before_content_fields_still_decodes() {
        let old = r#"{"id":"0123456789abcdef","title":"Old story","link":"https://example.org/a","first_seen":1700000000}"#;
        let item: Item = serde_json::from_str(old).unwrap();
        assert_eq!(item.title, "Old story");
        assert_eq!(item.first_seen, 1_700_000_000);
        assert_eq!(
            (item.summary, item.published, item.image, item.author),
            (None, None, None, None)
        );
        // and an item without content fields is written as before
        let bare = Item {
            id: "0123456789abcdef".into(),
            title: "Old story".into(),
            link: "https://example.org/a".into(),
            first_seen: 1_700_000_000,
            ..Item::default()
        };
        assert_eq!(serde_json::to_string(&bare).unwrap(), old);
        let full = Item {
            summary: Some("Text".into()),
            published: Some(1_699_999_000),
            ..bare
        };
        let back: Item = serde_json::from_str(&serde_json::to_string(&full).unwrap()).unwrap();
        assert_eq!(back, full);
    }

    #[test]
    fn a_watch_stored_before_the_content_setting_decodes_as_summary() {
        let old = r#"{"id":"0123456789ab","url":"https://example.org/","title":null,"depth":1,"select":null,"keywords":[],"created":1700000000,"tags":["news"]}"#;
        let w: Watch = serde_json::from_str(old).unwrap();
        assert_eq!(w.options.content, Content::Summary);
        assert_eq!(w.options.tags, ["news"]);
        // a summary watch is written as before; a full one says so and reads back
        assert!(!serde_json::to_string(&w).unwrap().contains("content"));
        let mut full = w;
        full.options.content = Content::Full;
        let text = serde_json::to_string(&full).unwrap();
        assert!(text.contains(r#""content":"full""#), "{text}");
        assert_eq!(serde_json::from_str::<Watch>(&text).unwrap(), full);
    }
}
