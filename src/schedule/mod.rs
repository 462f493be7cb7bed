//! When to check a watch next. Pure functions of the watch's schedule state, the
//! outcome of a check and the time; the [`runner`] does the waiting.
//!
//! The default strategy is the adaptive interval of DESIGN 3 (seed 000, figure 3):
//! A = how long it took to see the last update, B = the predicted interval until the
//! next check, C = time since the last update. On an update: A := C, B := 0.8·A, C := 0.
//! Without one: B := B + A/2. B is clamped to `[min_interval, max_interval]`.

pub mod clock;
pub mod runner;

use serde::{Deserialize, Serialize};

use crate::config::{ScheduleConfig, Strategy};

/// Adaptive schedule state, in seconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Adaptive {
    /// How long it took to see the last update.
    pub a: f64,
    /// The interval until the next check.
    pub b: f64,
    /// Time since the last update.
    pub c: f64,
}

impl Adaptive {
    /// The state of a new watch: A and B start at the initial interval, C at 0.
    pub fn initial(cfg: &ScheduleConfig) -> Self {
        let i = clamp(cfg.initial_interval.as_secs_f64(), cfg);
        Self { a: i, b: i, c: 0.0 }
    }
}

/// What a check found, as far as scheduling cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// New items appeared.
    Updated,
    /// The page is as before (or changed without new items).
    Unchanged,
    /// The check failed; `consecutive` failures so far, including this one.
    Failed { consecutive: u32 },
}

/// Updates `state` for a check that ended after `elapsed` seconds since the previous
/// check, and returns the seconds until the next check.
pub fn next_interval(
    cfg: &ScheduleConfig,
    state: &mut Adaptive,
    outcome: Outcome,
    elapsed: f64,
) -> f64 {
    let elapsed = elapsed.max(0.0);
    match (cfg.strategy, outcome) {
        (_, Outcome::Failed { consecutive }) => {
            // Back off on failures: the usual interval doubled per consecutive failure,
            // so a broken site is not hammered, within the configured maximum.
            let factor = 2f64.powf(f64::from(consecutive.min(10)));
            clamp(state.b.max(cfg.min_interval.as_secs_f64()) * factor, cfg)
        }
        (Strategy::Fixed, _) => clamp(cfg.initial_interval.as_secs_f64(), cfg),
        (Strategy::Adaptive, Outcome::Updated) => {
            state.c += elapsed;
            // A is an observed update interval; one shorter than the minimum check
            // interval (a check run by hand) would make B's growth crawl.
            state.a = clamp(state.c, cfg);
            state.b = clamp(0.8 * state.a, cfg);
            state.c = 0.0;
            state.b
        }
        (Strategy::Adaptive, Outcome::Unchanged) => {
            state.c += elapsed;
            state.b = clamp(state.b + state.a / 2.0, cfg);
            state.b
        }
    }
}

fn clamp(secs: f64, cfg: &ScheduleConfig) -> f64 {
    secs.clamp(
        cfg.min_interval.as_secs_f64(),
        cfg.max_interval.as_secs_f64(),
    )
}

#[cfg(test)]
#[allow(
    clippy::float_cmp,
    reason = "the values are sums of small integers, exact in f64"
)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn cfg(strategy: Strategy) -> ScheduleConfig {
        ScheduleConfig {
            strategy,
            initial_interval: Duration::from_secs(3600),
            min_interval: Duration::from_secs(300),
            max_interval: Duration::from_secs(86_400),
        }
    }

    #[test]
    fn adaptive_hand_worked_sequence() {
        let c = cfg(Strategy::Adaptive);
        let mut s = Adaptive::initial(&c);
        assert_eq!(
            s,
            Adaptive {
                a: 3600.0,
                b: 3600.0,
                c: 0.0
            }
        );
        // No update after 1h: B = 3600 + 3600/2 = 5400, C = 3600.
        assert_eq!(
            next_interval(&c, &mut s, Outcome::Unchanged, 3600.0),
            5400.0
        );
        assert_eq!(s.c, 3600.0);
        // No update after 5400s more: B = 5400 + 1800 = 7200, C = 9000.
        assert_eq!(
            next_interval(&c, &mut s, Outcome::Unchanged, 5400.0),
            7200.0
        );
        // Update after 7200s: A = C = 16200, B = 0.8 * 16200 = 12960, C = 0.
        assert_eq!(next_interval(&c, &mut s, Outcome::Updated, 7200.0), 12960.0);
        assert_eq!(
            s,
            Adaptive {
                a: 16200.0,
                b: 12960.0,
                c: 0.0
            }
        );
        // Update again after 12960s: A = 12960, B = 10368.
        assert_eq!(
            next_interval(&c, &mut s, Outcome::Updated, 12960.0),
            10368.0
        );
    }

    #[test]
    fn adaptive_is_clamped() {
        let c = cfg(Strategy::Adaptive);
        let mut s = Adaptive::initial(&c);
        // Frequent updates drive B down to the minimum, not below.
        for _ in 0..20 {
            next_interval(&c, &mut s, Outcome::Updated, 60.0);
        }
        assert_eq!(s.b, 300.0);
        // A long quiet spell drives B up by A/2 per check (A = 300 here, the last
        // update interval once clamped) to the maximum, not above.
        let mut checks = 0;
        while s.b < 86_400.0 {
            let b = s.b;
            let next = next_interval(&c, &mut s, Outcome::Unchanged, b);
            assert!(next <= 86_400.0);
            checks += 1;
            assert!(checks < 10_000, "B must reach the maximum");
        }
        assert_eq!(s.b, 86_400.0);
        assert_eq!(
            next_interval(&c, &mut s, Outcome::Unchanged, 86_400.0),
            86_400.0
        );
    }

    #[test]
    fn failures_back_off_within_max() {
        let c = cfg(Strategy::Adaptive);
        let mut s = Adaptive::initial(&c);
        assert_eq!(
            next_interval(&c, &mut s, Outcome::Failed { consecutive: 1 }, 0.0),
            7200.0
        );
        assert_eq!(
            next_interval(&c, &mut s, Outcome::Failed { consecutive: 2 }, 0.0),
            14400.0
        );
        assert_eq!(
            next_interval(&c, &mut s, Outcome::Failed { consecutive: 9 }, 0.0),
            86_400.0
        );
        // A failure does not change the learned interval.
        assert_eq!(s.b, 3600.0);
    }

    #[test]
    fn fixed_ignores_outcomes() {
        let c = cfg(Strategy::Fixed);
        let mut s = Adaptive::initial(&c);
        assert_eq!(next_interval(&c, &mut s, Outcome::Updated, 10.0), 3600.0);
        assert_eq!(next_interval(&c, &mut s, Outcome::Unchanged, 10.0), 3600.0);
    }
}
