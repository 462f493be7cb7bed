//! The JSON shapes of the HTTP API (`docs/interface.md`): what `/api/…` accepts and
//! answers. The server writes them ([`crate::server::api`]) and the remote client reads
//! them ([`crate::remote`]), so both sides hold one definition. Plain data: may use
//! [`crate::model`], [`crate::model::crawl::Summary`] (the shape of a deep watch's
//! counts) and the sanitizer of [`crate::render`] (an article is served as the feeds
//! serve it), nothing that does I/O.
//!
//! May use: model, render.

use serde::{Deserialize, Serialize};

/// The body of `POST /api/watches`.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewWatchBody {
    pub url: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub select: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keywords: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strategy: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub render: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backfill: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
    /// What items carry: `summary` (the default) or `full` (the article of each page).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
}

/// A field that may be absent (leave it), `null` (clear it) or a value.
#[allow(
    clippy::option_option,
    reason = "absent: leave it; null: clear it; a value: set it"
)]
fn nullable<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

/// The body of `PATCH /api/watches/<id>`: only the fields given change; `null` clears.
#[allow(
    clippy::option_option,
    reason = "absent: leave it; null: clear it; a value: set it"
)]
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EditBody {
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub title: Option<Option<String>>,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub select: Option<Option<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keywords: Option<Vec<String>>,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub strategy: Option<Option<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paused: Option<bool>,
    /// Shorthand: both bounds at once (a check every `interval`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interval: Option<String>,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub min_interval: Option<Option<String>>,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_interval: Option<Option<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_item: Option<bool>,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub webhook: Option<Option<String>>,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub timezone: Option<Option<String>>,
    /// `summary` or `full`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
}

/// A watch as the API shows it.
#[derive(Debug, Serialize, Deserialize)]
pub struct WatchJson {
    pub id: String,
    pub url: String,
    pub title: String,
    pub user_title: Option<String>,
    pub depth: u8,
    pub select: Option<String>,
    pub keywords: Vec<String>,
    /// How the page is read: plain, browser or auto.
    pub render: String,
    /// The last render of the page in the browser since the service started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_render: Option<RenderJson>,
    /// What items carry: summary, or full (the article of each item's page).
    #[serde(default = "summary")]
    pub content: String,
    /// Items waiting for their article (full text).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub full_text_pending: usize,
    pub feed_url: String,
    pub feeds: FeedUrls,
    pub created: String,
    /// new, ok or error.
    pub status: String,
    pub error: Option<String>,
    /// A remark on the last change of the page (a layout change that re-baselined it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub last_check: Option<String>,
    pub next_check: Option<String>,
    pub last_change: Option<String>,
    pub item_count: u64,
    pub link_count: u64,
    pub checks: u64,
    pub schedule: ScheduleJson,
    /// Entries shown as items until the first new one (0: a "now watched" item).
    pub backfill: u32,
    /// The last checks, newest first.
    pub recent_checks: Vec<CheckLogJson>,
    /// A deep watch's site: pages known by kind, candidates waiting, pages fetched by
    /// the last check.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crawl: Option<crate::model::crawl::Summary>,
    pub tags: Vec<String>,
    /// Not checked by the scheduler.
    pub paused: bool,
    /// The watch's own interval bounds, seconds (`null`: the config's).
    pub min_interval: Option<u64>,
    pub max_interval: Option<u64>,
    /// Whether its feed says so when it keeps failing.
    pub error_item: bool,
    pub webhook: Option<String>,
    /// The time zone of the times shown for this watch (its own, else the server's).
    pub timezone: String,
    /// When the current run of failures began; failed checks in a row.
    pub error_since: Option<String>,
    pub consecutive_errors: u32,
    /// The last webhook delivery, and why it failed (`null`: delivered).
    pub webhook_at: Option<String>,
    pub webhook_error: Option<String>,
}

fn summary() -> String {
    "summary".to_owned()
}

#[allow(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if passes a reference"
)]
fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The last render of a watch's page.
#[derive(Debug, Serialize, Deserialize)]
pub struct RenderJson {
    pub ms: u64,
    pub ok: bool,
    /// Requests of the page answered, refused by the guard, blocked unsent.
    pub requests: u64,
    pub refused: u64,
    pub blocked: u64,
}

/// How a watch is scheduled (`docs/design.md` §4).
#[derive(Debug, Serialize, Deserialize)]
pub struct ScheduleJson {
    /// The watch's strategy: its own, else the config's default.
    pub strategy: String,
    /// The strategy that schedules it now (`periodic` falls back to `adaptive`).
    pub in_force: String,
    /// Why, in words.
    pub reason: String,
    /// Days of daily history (decayed: about four weeks count).
    pub history_days: f64,
    /// Effective link count v of the page, once known.
    pub effective_links: Option<u32>,
    /// Checks that found the whole previous list gone (items probably lost).
    pub probable_losses: u64,
    pub last_probable_loss: Option<String>,
}

/// One entry of `recent_checks`.
#[derive(Debug, Serialize, Deserialize)]
pub struct CheckLogJson {
    pub at: String,
    pub duration_ms: u64,
    pub new_items: u32,
    pub changed: bool,
    pub error: Option<String>,
}

/// A watch's feed URLs.
#[derive(Debug, Serialize, Deserialize)]
pub struct FeedUrls {
    pub rss: String,
    pub atom: String,
    pub json: String,
}

/// An item as the API shows it.
#[derive(Debug, Serialize, Deserialize)]
pub struct ItemJson {
    pub id: String,
    pub title: String,
    pub link: String,
    pub first_seen: String,
    /// What the entry says besides its title (absent when it says nothing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    /// The article of the entry's page (`content = "full"` watches), sanitized as the
    /// feeds serve it; absent until it has been fetched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_html: Option<String>,
}

impl From<&crate::model::Item> for ItemJson {
    fn from(i: &crate::model::Item) -> Self {
        use crate::model::rfc3339;
        Self {
            id: i.id.clone(),
            title: i.title.clone(),
            link: i.link.clone(),
            first_seen: rfc3339(i.first_seen),
            summary: i.summary.clone(),
            published: i.published.map(rfc3339),
            updated: i.updated.map(rfc3339),
            image: i.image.clone(),
            author: i.author.clone(),
            content_html: i
                .content
                .as_deref()
                .map(|html| crate::render::clean_html(html, &i.link)),
        }
    }
}

/// The answer of `POST /api/watches/<id>/check`.
#[derive(Debug, Serialize, Deserialize)]
pub struct CheckJson {
    pub new_items: usize,
    pub changed: bool,
    pub baseline: bool,
    pub error: Option<String>,
    pub items: Vec<ItemJson>,
    pub next_check: String,
}

/// The answer of an OPML import (`POST /api/opml`, `sitefeed import-opml`).
#[derive(Debug, Serialize, Deserialize)]
pub struct OpmlReport {
    pub added: usize,
    pub existing: usize,
    pub rejected: Vec<Rejected>,
}

/// An outline an OPML import did not add, and why.
#[derive(Debug, Serialize, Deserialize)]
pub struct Rejected {
    pub url: String,
    pub error: String,
}
