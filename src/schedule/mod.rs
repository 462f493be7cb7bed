//! When to check a watch next. Pure functions of the watch's schedule state, the
//! outcome of a check and the time; [`crate::runner`] does the waiting.
//!
//! Three strategies (`docs/design.md` §4), chosen per watch (default `schedule.strategy`):
//! - `adaptive` (figure 3 of *Website Update Monitor Based on Web Crawler and Improved LCS
//!   Algorithms*): A = how long it took to see the last update, B = the predicted interval
//!   until the next check, C = time since the last update. On an update: A := C,
//!   B := 0.8·A, C := 0. Without one: B := B + A/2. B is clamped to
//!   `[min_interval, max_interval]`, and once the page's v and some history are known, to
//!   z·v over the busiest hourly rate seen (the capacity cap: a quiet night must not grow
//!   B past the morning rush; `bench/README.md` shows the losses it prevents).
//! - `periodic` (*Research on Incremental Updating Strategy of Web Forum Based on
//!   Statistics*): the daily model of [`periodic`]; it falls back to `adaptive` until the
//!   watch has `periodic_min_days` of history and a known effective link count.
//! - `fixed`: always `initial_interval`.
//!
//! Whatever the strategy, every successful check feeds the history and the A/B/C state,
//! so switching a watch's strategy never starts from nothing. A check that finds the
//! whole previous list gone ([`page`]: probable loss) shortens the interval at once.
//! [`plan`] is the one entry point, used by live checks and by the simulation alike.
//!
//! May use: config.

pub mod clock;
pub mod fit;
pub mod page;
pub mod periodic;

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
    /// New items appeared and the whole previous list had scrolled off: some items were
    /// probably lost, the interval was too long.
    Lost,
    /// The page is as before (or changed without new items).
    Unchanged,
    /// The check failed; `consecutive` failures so far, including this one.
    Failed { consecutive: u32 },
}

/// On a probable loss the page turned over completely within the last interval; the
/// next interval is at most this share of it.
pub(crate) const LOSS_SHRINK: f64 = 0.25;

/// Updates the A/B/C `state` for a check that ended `elapsed` seconds after the
/// previous one, and returns the seconds until the next check under `strategy`
/// (`periodic` is scheduled by [`plan`]; here it behaves as its fallback, `adaptive`).
pub(crate) fn next_interval(
    cfg: &ScheduleConfig,
    strategy: Strategy,
    state: &mut Adaptive,
    outcome: Outcome,
    elapsed: f64,
) -> f64 {
    let elapsed = elapsed.max(0.0);
    match outcome {
        Outcome::Failed { consecutive } => {
            // Back off on failures: the usual interval doubled per consecutive failure,
            // so a broken site is not hammered, within the configured maximum.
            // within the configured maximum and never longer than error_backoff_max.
            let factor = 2f64.powf(f64::from(consecutive.min(10)));
            return clamp(state.b.max(cfg.min_interval.as_secs_f64()) * factor, cfg)
                .min(cfg.error_backoff_max.as_secs_f64());
        }
        Outcome::Updated => {
            state.c += elapsed;
            // A is an observed update interval; one shorter than the minimum check
            // interval (a check run by hand) would make B's growth crawl.
            state.a = clamp(state.c, cfg);
            state.b = clamp(0.8 * state.a, cfg);
            state.c = 0.0;
        }
        Outcome::Lost => {
            // The update took at most a fraction of the last interval: take that
            // fraction as A, so B drops at once and then grows back slowly.
            state.a = clamp(elapsed * LOSS_SHRINK, cfg);
            state.b = clamp(0.8 * state.a, cfg);
            state.c = 0.0;
        }
        Outcome::Unchanged => {
            state.c += elapsed;
            state.b = clamp(state.b + state.a / 2.0, cfg);
        }
    }
    match strategy {
        Strategy::Fixed => clamp(cfg.initial_interval.as_secs_f64(), cfg),
        Strategy::Adaptive | Strategy::Periodic => state.b,
    }
}

/// Everything a watch learns for scheduling beyond A/B/C (in the store).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Learned {
    #[serde(default)]
    pub history: periodic::History,
    #[serde(default)]
    pub page: page::PageStats,
    /// The strategy that set the current interval (None before the first check).
    #[serde(default)]
    pub in_force: Option<Strategy>,
}

/// One check, as scheduling sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Observation {
    pub outcome: Outcome,
    /// New links the check found (0 unless `Updated` or `Lost`).
    pub new_links: u32,
}

/// Which strategy schedules a watch now, and why, in words for the API.
#[derive(Debug, Clone, PartialEq)]
pub struct InForce {
    pub strategy: Strategy,
    pub reason: String,
}

/// The strategy in force for a watch configured with `strategy`, and why.
pub fn explain(cfg: &ScheduleConfig, strategy: Strategy, learned: &Learned) -> InForce {
    let days = learned.history.days();
    let reason = match strategy {
        Strategy::Fixed => format!("fixed: every {}s", cfg.initial_interval.as_secs()),
        Strategy::Adaptive => "adaptive: the A/B/C interval".to_owned(),
        Strategy::Periodic => {
            let v = learned.page.effective_links();
            if days < cfg.periodic_min_days {
                return InForce {
                    strategy: Strategy::Adaptive,
                    reason: format!(
                        "adaptive until the daily model has {} days of history (it has {days:.1})",
                        cfg.periodic_min_days
                    ),
                };
            }
            let Some(v) = v else {
                return InForce {
                    strategy: Strategy::Adaptive,
                    reason: "adaptive until the page's effective link count is known (no new link seen yet)".to_owned(),
                };
            };
            format!(
                "periodic: daily model on {days:.1} days of history, next check when {:.0}% of {v} effective links are new",
                cfg.change_ratio * 100.0
            )
        }
    };
    InForce { strategy, reason }
}

/// Updates the schedule state for a check at `now`, `elapsed` seconds after the
/// previous one, and returns the seconds until the next check. The one scheduling
/// entry point of live checks and of the simulation (`bench/schedsim`).
pub fn plan(
    cfg: &ScheduleConfig,
    strategy: Strategy,
    adaptive: &mut Adaptive,
    learned: &mut Learned,
    obs: Observation,
    now: i64,
    elapsed: f64,
) -> f64 {
    let elapsed = elapsed.max(0.0);
    let adaptive_secs = next_interval(cfg, strategy, adaptive, obs.outcome, elapsed);
    if matches!(obs.outcome, Outcome::Failed { .. }) {
        // Nothing was observed; the next successful check covers the gap.
        return adaptive_secs;
    }
    let n = f64::from(obs.new_links);
    // Only a periodic watch pays for the fit; every watch keeps its history.
    let model = if strategy == Strategy::Periodic {
        learned
            .history
            .model(cfg.periodic_degree, cfg.periodic_min_days)
    } else {
        None
    };
    learned.history.observe(now, n);
    let in_force = explain(cfg, strategy, learned);
    learned.in_force = Some(in_force.strategy);
    if in_force.strategy == Strategy::Adaptive {
        // Capacity cap: however long the page stayed quiet, never wait longer than
        // the busiest hour seen needs to replace z of the page's items; the A/B/C
        // rule alone grows B through a quiet night and loses the morning's rush.
        if let (Some(peak), Some(v)) = (learned.history.peak_rate(), learned.page.effective_links())
        {
            let cap = clamp(cfg.change_ratio * f64::from(v) / peak, cfg);
            adaptive.b = adaptive.b.min(cap);
            return adaptive_secs.min(cap);
        }
    }
    if in_force.strategy != Strategy::Periodic {
        return adaptive_secs;
    }
    let (Some(m), Some(v)) = (model, learned.page.effective_links()) else {
        learned.in_force = Some(Strategy::Adaptive);
        return adaptive_secs;
    };
    let max = i64::try_from(cfg.max_interval.as_secs()).unwrap_or(i64::MAX);
    let mut secs = m.solve(now, cfg.change_ratio * f64::from(v), max) as f64;
    if obs.outcome == Outcome::Lost {
        secs = secs.min(elapsed * LOSS_SHRINK);
    }
    clamp(secs, cfg)
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
            ..ScheduleConfig::default()
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
            next_interval(&c, c.strategy, &mut s, Outcome::Unchanged, 3600.0),
            5400.0
        );
        assert_eq!(s.c, 3600.0);
        // No update after 5400s more: B = 5400 + 1800 = 7200, C = 9000.
        assert_eq!(
            next_interval(&c, c.strategy, &mut s, Outcome::Unchanged, 5400.0),
            7200.0
        );
        // Update after 7200s: A = C = 16200, B = 0.8 * 16200 = 12960, C = 0.
        assert_eq!(
            next_interval(&c, c.strategy, &mut s, Outcome::Updated, 7200.0),
            12960.0
        );
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
            next_interval(&c, c.strategy, &mut s, Outcome::Updated, 12960.0),
            10368.0
        );
    }

    #[test]
    fn adaptive_is_clamped() {
        let c = cfg(Strategy::Adaptive);
        let mut s = Adaptive::initial(&c);
        // Frequent updates drive B down to the minimum, not below.
        for _ in 0..20 {
            next_interval(&c, c.strategy, &mut s, Outcome::Updated, 60.0);
        }
        assert_eq!(s.b, 300.0);
        // A long quiet spell drives B up by A/2 per check (A = 300 here, the last
        // update interval once clamped) to the maximum, not above.
        let mut checks = 0;
        while s.b < 86_400.0 {
            let b = s.b;
            let next = next_interval(&c, c.strategy, &mut s, Outcome::Unchanged, b);
            assert!(next <= 86_400.0);
            checks += 1;
            assert!(checks < 10_000, "B must reach the maximum");
        }
        assert_eq!(s.b, 86_400.0);
        assert_eq!(
            next_interval(&c, c.strategy, &mut s, Outcome::Unchanged, 86_400.0),
            86_400.0
        );
    }

    #[test]
    fn failures_back_off_within_max() {
        let c = cfg(Strategy::Adaptive);
        let mut s = Adaptive::initial(&c);
        assert_eq!(
            next_interval(
                &c,
                c.strategy,
                &mut s,
                Outcome::Failed { consecutive: 1 },
                0.0
            ),
            7200.0
        );
        assert_eq!(
            next_interval(
                &c,
                c.strategy,
                &mut s,
                Outcome::Failed { consecutive: 2 },
                0.0
            ),
            14400.0
        );
        assert_eq!(
            next_interval(
                &c,
                c.strategy,
                &mut s,
                Outcome::Failed { consecutive: 9 },
                0.0
            ),
            21_600.0,
            "capped by error_backoff_max (6h), below max_interval"
        );
        let long = ScheduleConfig {
            error_backoff_max: Duration::from_secs(86_400 * 7),
            ..c
        };
        assert_eq!(
            next_interval(
                &long,
                long.strategy,
                &mut s,
                Outcome::Failed { consecutive: 9 },
                0.0
            ),
            86_400.0,
            "and by max_interval"
        );
        // A failure does not change the learned interval.
        assert_eq!(s.b, 3600.0);
    }

    #[test]
    fn fixed_ignores_outcomes() {
        let c = cfg(Strategy::Fixed);
        let mut s = Adaptive::initial(&c);
        assert_eq!(
            next_interval(&c, c.strategy, &mut s, Outcome::Updated, 10.0),
            3600.0
        );
        assert_eq!(
            next_interval(&c, c.strategy, &mut s, Outcome::Unchanged, 10.0),
            3600.0
        );
    }

    #[test]
    fn a_probable_loss_shortens_the_interval_at_once() {
        let c = cfg(Strategy::Adaptive);
        let mut s = Adaptive {
            a: 14_400.0,
            b: 7200.0,
            c: 0.0,
        };
        // The whole list scrolled off within 7200s: A = 7200/4 = 1800, B = 1440.
        assert_eq!(
            next_interval(&c, c.strategy, &mut s, Outcome::Lost, 7200.0),
            1440.0
        );
        assert_eq!(
            s,
            Adaptive {
                a: 1800.0,
                b: 1440.0,
                c: 0.0
            }
        );
        // Then it grows by A/2 per quiet check, as usual.
        assert_eq!(
            next_interval(&c, c.strategy, &mut s, Outcome::Unchanged, 1440.0),
            2340.0
        );
    }

    /// Drives `plan` with hourly checks of a page where `per_hour(hour)` links appear.
    fn drive(
        c: &ScheduleConfig,
        learned: &mut Learned,
        adaptive: &mut Adaptive,
        hours: std::ops::Range<i64>,
        per_hour: impl Fn(i64) -> u32,
    ) -> f64 {
        let mut secs = 0.0;
        for h in hours {
            let n = per_hour(h);
            let obs = Observation {
                outcome: if n > 0 {
                    Outcome::Updated
                } else {
                    Outcome::Unchanged
                },
                new_links: n,
            };
            secs = plan(
                c,
                Strategy::Periodic,
                adaptive,
                learned,
                obs,
                h * 3600,
                3600.0,
            );
        }
        secs
    }

    #[test]
    fn periodic_falls_back_to_adaptive_until_it_has_history() {
        let c = cfg(Strategy::Periodic);
        let mut learned = Learned::default();
        learned.page.effective = 40;
        let mut adaptive = Adaptive::initial(&c);
        // One day of history: the adaptive interval is in force, and says why.
        let secs = drive(&c, &mut learned, &mut adaptive, 0..25, |_| 10);
        assert_eq!(learned.in_force, Some(Strategy::Adaptive));
        assert_eq!(secs, adaptive.b);
        let why = explain(&c, Strategy::Periodic, &learned);
        assert!(why.reason.contains("days of history"), "{}", why.reason);
        // Four days: the model is in force. 10 links an hour, v = 40, z = 0.5:
        // 20 links take two hours.
        let mut learned2 = learned.clone();
        let secs = drive(&c, &mut learned2, &mut adaptive, 25..5 * 24, |_| 10);
        assert_eq!(learned2.in_force, Some(Strategy::Periodic));
        assert!((secs - 7200.0).abs() < 120.0, "{secs}");
        assert!(explain(&c, Strategy::Periodic, &learned2)
            .reason
            .starts_with("periodic"));
        // Without an effective link count the model cannot aim: adaptive again.
        learned2.page.effective = 0;
        drive(&c, &mut learned2, &mut adaptive, 5 * 24..5 * 24 + 1, |_| 10);
        assert_eq!(learned2.in_force, Some(Strategy::Adaptive));
    }

    #[test]
    fn periodic_on_a_loss_checks_sooner_than_the_model() {
        let c = cfg(Strategy::Periodic);
        let mut learned = Learned::default();
        learned.page.effective = 400;
        let mut adaptive = Adaptive::initial(&c);
        drive(&c, &mut learned, &mut adaptive, 0..5 * 24, |_| 10);
        let obs = Observation {
            outcome: Outcome::Lost,
            new_links: 10,
        };
        let secs = plan(
            &c,
            Strategy::Periodic,
            &mut adaptive,
            &mut learned,
            obs,
            5 * 86_400,
            3600.0,
        );
        assert_eq!(secs, 900.0);
        // The other strategies keep feeding the history, so switching is instant.
        let mut other = Learned::default();
        let mut a = Adaptive::initial(&c);
        for h in 0..(4 * 24 + 2) {
            let obs = Observation {
                outcome: Outcome::Updated,
                new_links: 3,
            };
            plan(
                &c,
                Strategy::Fixed,
                &mut a,
                &mut other,
                obs,
                h * 3600,
                3600.0,
            );
        }
        assert!(other.history.days() > 3.0);
        assert_eq!(other.in_force, Some(Strategy::Fixed));
    }

    #[test]
    fn adaptive_never_waits_longer_than_the_busiest_hour_allows() {
        let c = cfg(Strategy::Adaptive);
        let mut learned = Learned::default();
        learned.page.effective = 40;
        let mut a = Adaptive::initial(&c);
        // A day of 10 links an hour, then a quiet spell: B would grow by A/2 each check.
        for h in 0..24 {
            let obs = Observation {
                outcome: Outcome::Updated,
                new_links: 10,
            };
            plan(
                &c,
                Strategy::Adaptive,
                &mut a,
                &mut learned,
                obs,
                h * 3600,
                3600.0,
            );
        }
        let mut t = 24 * 3600;
        let mut secs = 3600.0;
        for _ in 0..10 {
            let obs = Observation {
                outcome: Outcome::Unchanged,
                new_links: 0,
            };
            secs = plan(&c, Strategy::Adaptive, &mut a, &mut learned, obs, t, secs);
            t += secs as i64;
        }
        // z·v = 20 links at the busiest rate seen (about 10 an hour, a little less
        // once the quiet hours pull the smoothed cells down): about 2 hours, where
        // the bare A/B/C rule would be at 10h by now.
        assert!(secs > 6000.0 && secs <= 8000.0, "{secs}");
        assert!((a.b - secs).abs() < 1e-9);
    }
}
