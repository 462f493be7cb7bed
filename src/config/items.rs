//! `[items]`: what the service does to the items it finds: which tracking parameters
//! leave their links, and how hard a `content = "full"` watch tries for each item's
//! article. Uses the config's shared helpers only; the built-in list of tracking
//! parameters is the entry layer's (`None` here stands for it).

use serde::Deserialize;

use super::{positive, Bad, ConfigError};
use crate::model::{FULL_TEXT_PER_CHECK, FULL_TEXT_QUEUE, FULL_TEXT_TRIES};

/// Longest tracking-parameter pattern accepted.
const MAX_PATTERN: usize = 100;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawItems {
    /// Replaces the built-in list; `[]` keeps links as they are.
    pub tracking_params: Option<super::StringList>,
    /// Added to the list in force.
    pub extra_tracking_params: Option<super::StringList>,
    pub full_text_per_check: Option<u64>,
    pub full_text_tries: Option<u64>,
    pub full_text_queue: Option<u64>,
}

/// The validated `[items]` section.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ItemsConfig {
    /// The tracking parameters dropped from links instead of the built-in ones
    /// (`None`: the built-in list).
    pub tracking_params: Option<Vec<String>>,
    /// Tracking parameters dropped besides those.
    pub extra_tracking_params: Vec<String>,
    pub full_text: FullText,
}

/// How a `content = "full"` watch fetches the articles of its items.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FullText {
    /// Article fetches one check makes at most; the rest wait for the next check.
    pub per_check: usize,
    /// Failed fetches of one article before its item keeps its summary for good.
    pub tries: u8,
    /// Items waiting for their article at most (the oldest leave first).
    pub queue: usize,
}

impl Default for FullText {
    fn default() -> Self {
        Self {
            per_check: FULL_TEXT_PER_CHECK,
            tries: FULL_TEXT_TRIES,
            queue: FULL_TEXT_QUEUE,
        }
    }
}

/// Checks each pattern: a query parameter name, or a prefix ending in `*`.
fn patterns(
    bad: Bad<'_>,
    key: &str,
    list: Option<super::StringList>,
) -> Result<Option<Vec<String>>, ConfigError> {
    let Some(list) = list else {
        return Ok(None);
    };
    let list = list.items();
    for p in &list {
        let name = p.strip_suffix('*').unwrap_or(p);
        if name.is_empty()
            || p.len() > MAX_PATTERN
            || name
                .chars()
                .any(|c| c.is_whitespace() || c.is_control() || "=&#?*".contains(c))
        {
            return Err(bad(
                key,
                format!(
                    "`{p}` is not a query parameter name (or a prefix ending in `*`, \
                     such as `utm_*`)"
                ),
            ));
        }
    }
    Ok(Some(list))
}

impl RawItems {
    pub(super) fn validate(self, bad: Bad<'_>) -> Result<ItemsConfig, ConfigError> {
        let tracking_params = patterns(bad, "items.tracking_params", self.tracking_params)?;
        let extra_tracking_params = patterns(
            bad,
            "items.extra_tracking_params",
            self.extra_tracking_params,
        )?
        .unwrap_or_default();
        let d = FullText::default();
        let per_check = positive(
            bad,
            "items.full_text_per_check",
            self.full_text_per_check,
            d.per_check as u64,
        )?;
        if per_check > 100 {
            return Err(bad(
                "items.full_text_per_check",
                format!("{per_check} is more than 100"),
            ));
        }
        let tries = positive(
            bad,
            "items.full_text_tries",
            self.full_text_tries,
            u64::from(d.tries),
        )?;
        let tries = u8::try_from(tries)
            .ok()
            .filter(|t| *t <= 20)
            .ok_or_else(|| bad("items.full_text_tries", format!("{tries} is more than 20")))?;
        let queue = positive(
            bad,
            "items.full_text_queue",
            self.full_text_queue,
            d.queue as u64,
        )?;
        if queue > 10_000 {
            return Err(bad(
                "items.full_text_queue",
                format!("{queue} is more than 10000"),
            ));
        }
        Ok(ItemsConfig {
            tracking_params,
            extra_tracking_params,
            full_text: FullText {
                per_check: per_check as usize,
                tries,
                queue: queue as usize,
            },
        })
    }
}
