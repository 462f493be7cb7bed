//! `[schedule]`: when watches are checked (the default strategy, the interval bounds,
//! the periodic model's parameters, the error back-off). Uses the config's shared
//! helpers and [`crate::model::Strategy`].

use std::time::Duration;

use serde::Deserialize;

use super::{duration, Bad, ConfigError, Number};
use crate::model::Strategy;

const DEFAULT_CHANGE_RATIO: f64 = 0.5;
const DEFAULT_PERIODIC_MIN_DAYS: f64 = 3.0;
const DEFAULT_PERIODIC_DEGREE: usize = 16;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSchedule {
    pub strategy: Option<String>,
    pub initial_interval: Option<String>,
    pub min_interval: Option<String>,
    pub max_interval: Option<String>,
    pub change_ratio: Option<Number>,
    pub periodic_min_days: Option<Number>,
    pub periodic_degree: Option<usize>,
    pub error_backoff_max: Option<String>,
}

/// The validated `[schedule]` section.
#[derive(Debug, Clone, Copy)]
pub struct ScheduleConfig {
    /// The default strategy; a watch may override it.
    pub strategy: Strategy,
    pub initial_interval: Duration,
    pub min_interval: Duration,
    pub max_interval: Duration,
    /// z of the daily model (`docs/design.md` §4): the periodic model checks when this
    /// share of the page's effective links is expected to be new.
    pub change_ratio: f64,
    /// Days of history (every hour of the day observed this often) before the periodic
    /// model replaces its adaptive fallback.
    pub periodic_min_days: f64,
    /// Degree of the least-squares polynomial of the daily curve.
    pub periodic_degree: usize,
    /// A failing watch backs off (its interval doubling per failure) up to this.
    pub error_backoff_max: Duration,
}

impl Default for ScheduleConfig {
    fn default() -> Self {
        RawSchedule::default()
            .validate(&|key, problem| ConfigError::Invalid {
                path: "<defaults>".into(),
                message: format!("key `{key}`: {problem}"),
            })
            .expect("invariant: the defaults are valid")
    }
}

impl RawSchedule {
    pub(super) fn validate(self, bad: Bad<'_>) -> Result<ScheduleConfig, ConfigError> {
        let s = self;
        let name = s.strategy.as_deref().unwrap_or("adaptive");
        let strategy = Strategy::parse(name).ok_or_else(|| {
            bad(
                "schedule.strategy",
                format!("`{name}` is not one of {}", Strategy::NAMES),
            )
        })?;
        let change_ratio = s.change_ratio.map_or(DEFAULT_CHANGE_RATIO, Number::get);
        if !(change_ratio > 0.0 && change_ratio <= 1.0) {
            return Err(bad(
                "schedule.change_ratio",
                format!("{change_ratio} is not in (0, 1]; 0.5 checks when half the page is new"),
            ));
        }
        let periodic_min_days = s
            .periodic_min_days
            .map_or(DEFAULT_PERIODIC_MIN_DAYS, Number::get);
        if !(0.5..=28.0).contains(&periodic_min_days) {
            return Err(bad(
                "schedule.periodic_min_days",
                format!("{periodic_min_days} is not between 0.5 and 28"),
            ));
        }
        let periodic_degree = s.periodic_degree.unwrap_or(DEFAULT_PERIODIC_DEGREE);
        if !(1..=20).contains(&periodic_degree) {
            return Err(bad(
                "schedule.periodic_degree",
                format!("{periodic_degree} is not between 1 and 20"),
            ));
        }
        let initial_interval =
            duration(bad, "schedule.initial_interval", s.initial_interval, "1h")?;
        let min_interval = duration(bad, "schedule.min_interval", s.min_interval, "5m")?;
        let max_interval = duration(bad, "schedule.max_interval", s.max_interval, "1d")?;
        if min_interval > max_interval {
            return Err(bad(
                "schedule.min_interval",
                "is greater than schedule.max_interval".into(),
            ));
        }
        if min_interval.is_zero() {
            return Err(bad("schedule.min_interval", "must be at least 1s".into()));
        }
        let explicit = s.error_backoff_max.is_some();
        let mut error_backoff_max =
            duration(bad, "schedule.error_backoff_max", s.error_backoff_max, "6h")?;
        if !explicit {
            error_backoff_max = error_backoff_max.max(min_interval);
        }
        if error_backoff_max < min_interval {
            return Err(bad(
                "schedule.error_backoff_max",
                "is less than schedule.min_interval".into(),
            ));
        }
        Ok(ScheduleConfig {
            strategy,
            initial_interval,
            min_interval,
            max_interval,
            change_ratio,
            periodic_min_days,
            periodic_degree,
            error_backoff_max,
        })
    }
}
