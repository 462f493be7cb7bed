//! `[deep]`: how deep watches (depth 2 and 3, or with keywords) crawl their site
//! (`docs/design.md` §5 and §6).

use serde::Deserialize;

use super::{Bad, ConfigError, Number};

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawDeep {
    pub max_pages_per_check: Option<usize>,
    pub max_pages: Option<usize>,
    pub hub_links: Option<usize>,
    pub list_entries: Option<usize>,
    pub max_url_len: Option<usize>,
    pub max_path_segments: Option<usize>,
    pub calendar_pages: Option<usize>,
    pub template_share: Option<Number>,
    pub relevance_threshold: Option<Number>,
    pub tunnel_cutoff: Option<Number>,
}

/// The validated `[deep]` section.
#[derive(Debug, Clone)]
pub struct DeepConfig {
    /// Pages fetched per check beyond the watch's own page (re-visits and new ones).
    pub max_pages_per_check: usize,
    /// Pages of its site a watch remembers; discovery stops there.
    pub max_pages: usize,
    /// A page with more links than this (after template links are removed) is a hub:
    /// neither diffed nor followed (the link filter of section 1.3 of *Website Update
    /// Monitor Based on Web Crawler and Improved LCS Algorithms*).
    pub hub_links: usize,
    /// A page is a list (re-visited and diffed on every check) when one repeated
    /// structure on it holds at least this many links; otherwise it is a leaf (an item
    /// page), stored once.
    pub list_entries: usize,
    pub max_url_len: usize,
    pub max_path_segments: usize,
    /// Pages of one calendar shape (`/events?month=0`) a watch fetches at most.
    pub calendar_pages: usize,
    /// A link or block is template when it stands on at least this share of the site's
    /// sampled pages (template noise, `docs/design.md` §5).
    pub template_share: f64,
    /// With keywords: items whose relevance is under this are not emitted, and pages
    /// under it tunnel (`docs/design.md` §6).
    pub relevance_threshold: f64,
    /// With keywords: the tunnel distance beyond which an irrelevant path is abandoned.
    pub tunnel_cutoff: f64,
}

impl Default for DeepConfig {
    fn default() -> Self {
        Self {
            max_pages_per_check: 30,
            max_pages: 400,
            hub_links: 400,
            list_entries: 6,
            max_url_len: 256,
            max_path_segments: 10,
            calendar_pages: 3,
            template_share: 0.7,
            relevance_threshold: 0.25,
            tunnel_cutoff: 7.0,
        }
    }
}

impl RawDeep {
    pub(super) fn validate(self, bad: Bad<'_>) -> Result<DeepConfig, ConfigError> {
        let d = DeepConfig::default();
        let range = |key: &str, v: Option<usize>, default: usize, lo: usize, hi: usize| {
            let v = v.unwrap_or(default);
            if (lo..=hi).contains(&v) {
                Ok(v)
            } else {
                Err(bad(key, format!("{v} is not between {lo} and {hi}")))
            }
        };
        let share = |key: &str, v: Option<Number>, default: f64, lo: f64, hi: f64| {
            let v = v.map_or(default, Number::get);
            if v >= lo && v <= hi {
                Ok(v)
            } else {
                Err(bad(key, format!("{v} is not between {lo} and {hi}")))
            }
        };
        Ok(DeepConfig {
            max_pages_per_check: range(
                "deep.max_pages_per_check",
                self.max_pages_per_check,
                d.max_pages_per_check,
                1,
                1000,
            )?,
            max_pages: range("deep.max_pages", self.max_pages, d.max_pages, 1, 10_000)?,
            hub_links: range("deep.hub_links", self.hub_links, d.hub_links, 10, 100_000)?,
            list_entries: range(
                "deep.list_entries",
                self.list_entries,
                d.list_entries,
                2,
                1000,
            )?,
            max_url_len: range(
                "deep.max_url_len",
                self.max_url_len,
                d.max_url_len,
                32,
                8192,
            )?,
            max_path_segments: range(
                "deep.max_path_segments",
                self.max_path_segments,
                d.max_path_segments,
                1,
                100,
            )?,
            calendar_pages: range(
                "deep.calendar_pages",
                self.calendar_pages,
                d.calendar_pages,
                0,
                1000,
            )?,
            template_share: share(
                "deep.template_share",
                self.template_share,
                d.template_share,
                0.3,
                1.0,
            )?,
            relevance_threshold: share(
                "deep.relevance_threshold",
                self.relevance_threshold,
                d.relevance_threshold,
                0.0,
                1.0,
            )?,
            tunnel_cutoff: share(
                "deep.tunnel_cutoff",
                self.tunnel_cutoff,
                d.tunnel_cutoff,
                0.0,
                100.0,
            )?,
        })
    }
}
