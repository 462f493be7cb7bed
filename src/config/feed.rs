//! `[feed]` and `[[watch]]`: how many items a feed carries, when a failing watch says
//! so in its feed, and the watches the file declares. Uses the config's shared helpers
//! and the names [`crate::model`] parses (strategy, render mode).

use std::time::Duration;

use serde::Deserialize;

use super::{duration, Bad, ConfigError};
use crate::model::{Content, Render, Strategy, DEFAULT_ITEMS_KEPT, ITEMS_KEPT};

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawFeed {
    pub max_items: Option<usize>,
    pub error_item_after: Option<String>,
}

/// The validated `[feed]` section.
#[derive(Debug, Clone, Copy)]
pub struct FeedConfig {
    /// Items a feed shows, and items per watch the store keeps (the newest): older ones
    /// are dropped, and raising it later does not bring them back.
    pub max_items: usize,
    /// A watch failing for this long gets one item in its feed saying so; `None`: never.
    pub error_item_after: Option<Duration>,
}

impl RawFeed {
    pub(super) fn validate(self, bad: Bad<'_>) -> Result<FeedConfig, ConfigError> {
        let error_item_after =
            match duration(bad, "feed.error_item_after", self.error_item_after, "1d")? {
                d if d.is_zero() => None,
                d => Some(d),
            };
        let max_items = self.max_items.unwrap_or(DEFAULT_ITEMS_KEPT as usize);
        if max_items == 0 || max_items as u64 > ITEMS_KEPT {
            return Err(bad(
                "feed.max_items",
                format!("must be between 1 and {ITEMS_KEPT}"),
            ));
        }
        Ok(FeedConfig {
            max_items,
            error_item_after,
        })
    }
}

/// One `[[watch]]` of the file, added (idempotently) when the service starts.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawWatch {
    pub url: String,
    pub depth: Option<u8>,
    pub title: Option<String>,
    pub select: Option<String>,
    pub keywords: Option<Vec<String>>,
    /// adaptive | periodic | fixed; default `schedule.strategy`.
    pub strategy: Option<String>,
    pub tags: Option<Vec<String>>,
    /// plain | browser | auto; default plain.
    pub render: Option<String>,
    /// summary | full; default summary.
    pub content: Option<String>,
}

/// Checks the strategy and render names and the depth of each declared watch.
pub(super) fn validate_watches(watches: &[RawWatch], bad: Bad<'_>) -> Result<(), ConfigError> {
    for (i, w) in watches.iter().enumerate() {
        if let Some(name) = w.strategy.as_deref() {
            if Strategy::parse(name).is_none() {
                return Err(bad(
                    &format!("watch[{i}].strategy"),
                    format!("`{name}` is not one of {}", Strategy::NAMES),
                ));
            }
        }
        if let Some(name) = w.render.as_deref() {
            if Render::parse(name).is_none() {
                return Err(bad(
                    &format!("watch[{i}].render"),
                    format!("`{name}` is not one of {}", Render::NAMES),
                ));
            }
        }
        if let Some(name) = w.content.as_deref() {
            if Content::parse(name).is_none() {
                return Err(bad(
                    &format!("watch[{i}].content"),
                    format!("`{name}` is not one of {}", Content::NAMES),
                ));
            }
        }
        if let Some(d) = w.depth {
            if !(1..=3).contains(&d) {
                return Err(bad(
                    &format!("watch[{i}].depth"),
                    format!("{d} is not 1, 2 or 3"),
                ));
            }
        }
    }
    Ok(())
}
