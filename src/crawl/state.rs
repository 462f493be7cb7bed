//! What a deep watch remembers of its site between checks: the pages it knows, what each
//! is, the frontier still to visit and the template sample. Stored by `store` under the
//! watch (one value), with each page's link array beside it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::focus::Candidate;
use super::neardup::Signature;
use super::template::Sample;

/// Waiting candidates kept between checks.
pub const FRONTIER_KEPT: usize = 500;

/// What a page of the site turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A list of entries: re-visited on every check, its new entries are items.
    List,
    /// An item page (an article, a notice): stored once, followed if the depth allows.
    Leaf,
    /// More links than `deep.hub_links`: neither diffed nor followed (`docs/design.md` §5).
    Hub,
    /// A near-duplicate of another page of the site (a mirror, a print view).
    Duplicate,
    /// Not an HTML page, refused by robots.txt, or failing: not visited again.
    Unusable,
}

/// One known page of the site (not the watch's own page).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PageState {
    /// 2 or 3: links away from the watch's page.
    pub level: u8,
    pub kind: Kind,
    /// Why the page is `Duplicate` or `Unusable`, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_fingerprint: Option<String>,
    /// MD5 of its links without template links (the denoised fingerprint).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_fingerprint: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub etag: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
    /// Near-duplicate signature of its text (chrome aside).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<Signature>,
    /// Links on it (template links aside) at the last fetch.
    pub links: u32,
    /// Topic relevance, inherited score, cash and tunnel distance (with keywords).
    #[serde(default)]
    pub relevance: f64,
    #[serde(default)]
    pub inherited: f64,
    #[serde(default)]
    pub cash: f64,
    #[serde(default)]
    pub tunnel: f64,
    /// Unix seconds of the first and the last fetch.
    pub found: i64,
    pub fetched: i64,
    /// Items this page produced so far.
    #[serde(default)]
    pub items: u64,
    /// Consecutive failed fetches.
    #[serde(default)]
    pub failures: u32,
    /// The page asked robots not to follow its links.
    #[serde(default)]
    pub nofollow: bool,
}

/// A deep watch's crawl state.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CrawlState {
    /// Known pages by URL.
    pub pages: BTreeMap<String, PageState>,
    /// Candidates not visited yet, best first.
    pub frontier: Vec<Candidate>,
    /// The template sample of the site.
    pub sample: Sample,
    /// The URL the watch's own page was last served from (after redirects): never
    /// crawled as a page of its own site.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root_url: Option<String>,
    /// Topic relevance of the watch's own page (with keywords).
    #[serde(default)]
    pub root_relevance: f64,
    /// Pages fetched by the last check beyond the watch's own page.
    #[serde(default)]
    pub last_fetched: u32,
}

/// Counts for status displays (kept in the watch's state, so lists need not read the
/// crawl state).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    pub pages: usize,
    pub lists: usize,
    pub leaves: usize,
    pub hubs: usize,
    pub duplicates: usize,
    pub unusable: usize,
    pub waiting: usize,
    pub fetched_last_check: u32,
}

impl CrawlState {
    pub fn summary(&self) -> Summary {
        let count = |k: Kind| self.pages.values().filter(|p| p.kind == k).count();
        Summary {
            pages: self.pages.len(),
            lists: count(Kind::List),
            leaves: count(Kind::Leaf),
            hubs: count(Kind::Hub),
            duplicates: count(Kind::Duplicate),
            unusable: count(Kind::Unusable),
            waiting: self.frontier.len(),
            fetched_last_check: self.last_fetched,
        }
    }
}
