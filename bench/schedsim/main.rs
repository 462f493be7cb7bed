//! schedsim: the scheduling strategies on synthetic forums and notice boards, measured
//! the way Table 3 of *Research on Incremental Updating Strategy of Web Forum Based on
//! Statistics* measures them, plus detection delay and lost items.
//!
//! ```text
//! cargo run --release --example schedsim -- [--seed N] [--learn-days 30] [--test-days 10]
//! ```
//!
//! Each site posts new items as a Poisson process whose rate follows a daily curve in the
//! site's own time zone (quiet nights, busy mornings and evenings; weekends differ). Its
//! list page shows the newest K items under a fixed menu. Every strategy watches every site
//! for `learn + test` days and is scored on the test days only. `adaptive` and `periodic`
//! call `sitefeed::schedule::plan` and `PageStats` exactly as a live check does (one
//! implementation); `fixed` uses the product's fixed strategy (its `initial_interval`, 1h);
//! `average` is that paper's learned average period: z·v divided by the mean rate the
//! product's history learnt, fixed after the learning days. `oracle` is not a strategy: it
//! checks exactly when the true expected number of new items reaches z·K, the best any
//! schedule can do against Poisson noise.
#![allow(
    clippy::cast_possible_wrap,
    clippy::many_single_char_names,
    reason = "a simulation over small counts and Unix seconds; t, z, k as in the paper"
)]

use std::fmt::Write as _;

use sitefeed::config::{ScheduleConfig, Strategy};
use sitefeed::schedule::{self, Adaptive, Learned, Observation, Outcome};

const HOUR: i64 = 3600;
const DAY: i64 = 86_400;
/// Monday 2026-11-02 00:00 UTC.
const START: i64 = 1_793_577_600;

/// SplitMix64: small, seeded, good enough for a simulation.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn unit(&mut self) -> f64 {
        ((self.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }
}

/// A bump centred at hour `c` with width `w`, on the circle of the day.
fn bump(h: f64, c: f64, w: f64) -> f64 {
    let d = (h - c).rem_euclid(24.0);
    let d = d.min(24.0 - d);
    (-d * d / (2.0 * w * w)).exp()
}

#[derive(Clone, Copy)]
enum Shape {
    Forum,
    HobbyForum,
    Board,
}

impl Shape {
    /// Relative rate at local hour `h` on a weekday or weekend day.
    fn at(self, h: f64, weekend: bool) -> f64 {
        match (self, weekend) {
            (Self::Forum, false) => {
                0.08 + 1.0 * bump(h, 10.5, 2.0)
                    + 0.6 * bump(h, 14.5, 1.8)
                    + 1.1 * bump(h, 21.0, 2.0)
            }
            (Self::Forum, true) => 0.1 + 0.7 * bump(h, 12.0, 2.5) + 1.0 * bump(h, 21.5, 2.2),
            (Self::HobbyForum, false) => 0.1 + 0.4 * bump(h, 12.5, 1.5) + 1.2 * bump(h, 20.5, 2.0),
            (Self::HobbyForum, true) => 0.15 + 1.0 * bump(h, 11.0, 2.5) + 1.0 * bump(h, 17.0, 2.5),
            (Self::Board, false) => 0.01 + bump(h, 10.0, 1.3) + 0.8 * bump(h, 15.0, 1.3),
            (Self::Board, true) => 0.02,
        }
    }
}

struct Site {
    name: &'static str,
    forum: bool,
    /// Items the list page shows.
    k: usize,
    /// Menu and footer links on the page.
    template: usize,
    /// Local time = UTC + offset hours.
    offset: i64,
    shape: Shape,
    /// Items per weekday.
    per_day: f64,
    /// Weekend volume relative to a weekday.
    weekend: f64,
}

const SITES: &[Site] = &[
    Site {
        name: "forum-cn",
        forum: true,
        k: 50,
        template: 40,
        offset: 8,
        shape: Shape::Forum,
        per_day: 400.0,
        weekend: 0.8,
    },
    Site {
        name: "forum-eu",
        forum: true,
        k: 30,
        template: 25,
        offset: 1,
        shape: Shape::HobbyForum,
        per_day: 150.0,
        weekend: 1.4,
    },
    Site {
        name: "forum-us",
        forum: true,
        k: 100,
        template: 60,
        offset: -5,
        shape: Shape::Forum,
        per_day: 1500.0,
        weekend: 0.6,
    },
    Site {
        name: "forum-small",
        forum: true,
        k: 30,
        template: 20,
        offset: 0,
        shape: Shape::HobbyForum,
        per_day: 60.0,
        weekend: 1.0,
    },
    Site {
        name: "board-univ",
        forum: false,
        k: 20,
        template: 30,
        offset: 8,
        shape: Shape::Board,
        per_day: 6.0,
        weekend: 0.1,
    },
    Site {
        name: "board-gov",
        forum: false,
        k: 15,
        template: 50,
        offset: 1,
        shape: Shape::Board,
        per_day: 3.0,
        weekend: 0.05,
    },
];

impl Site {
    /// The weekday curve's mean, so `per_day` is what a weekday gets.
    fn norm(&self) -> f64 {
        (0..240)
            .map(|i| self.shape.at(f64::from(i) / 10.0, false))
            .sum::<f64>()
            / 240.0
    }

    /// True rate, items per second, at UTC time `t`.
    fn rate(&self, t: i64, norm: f64) -> f64 {
        let local = t + self.offset * HOUR;
        let day = local.div_euclid(DAY);
        let weekend = (day + 3).rem_euclid(7) >= 5;
        let h = local.rem_euclid(DAY) as f64 / HOUR as f64;
        let scale = if weekend { self.weekend } else { 1.0 };
        self.shape.at(h, weekend) / norm * scale * self.per_day / DAY as f64
    }

    /// Arrival times over `[START, end)` by thinning.
    fn arrivals(&self, end: i64, rng: &mut Rng) -> Vec<i64> {
        let norm = self.norm();
        let max = (START..START + 7 * DAY)
            .step_by(300)
            .map(|t| self.rate(t, norm))
            .fold(0.0, f64::max)
            * 1.2;
        let mut out = Vec::new();
        let mut t = START as f64;
        loop {
            t += -rng.unit().ln() / max;
            if t >= end as f64 {
                return out;
            }
            if rng.unit() * max < self.rate(t as i64, norm) {
                out.push(t as i64);
            }
        }
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Sim {
    Fixed,
    Average,
    Adaptive,
    Periodic,
    Oracle,
}

impl Sim {
    const ALL: [Self; 5] = [
        Self::Fixed,
        Self::Average,
        Self::Adaptive,
        Self::Periodic,
        Self::Oracle,
    ];
    fn name(self) -> &'static str {
        match self {
            Self::Fixed => "fixed (1h)",
            Self::Average => "learned average period",
            Self::Adaptive => "adaptive A/B/C",
            Self::Periodic => "periodic model",
            Self::Oracle => "oracle (true rate; bound)",
        }
    }
}

#[derive(Default, Clone)]
struct Score {
    checks: u64,
    within: [u64; 3],
    delay_sum: f64,
    detected: u64,
    lost: u64,
    items: u64,
    days: f64,
    periodic_share: u64,
}

impl Score {
    fn add(&mut self, o: &Self) {
        self.checks += o.checks;
        for i in 0..3 {
            self.within[i] += o.within[i];
        }
        self.delay_sum += o.delay_sum;
        self.detected += o.detected;
        self.lost += o.lost;
        self.items += o.items;
        self.days += o.days;
        self.periodic_share += o.periodic_share;
    }
    fn pct(&self, n: u64) -> f64 {
        if self.checks == 0 {
            0.0
        } else {
            100.0 * n as f64 / self.checks as f64
        }
    }
}

fn mix(x: u64) -> u64 {
    let mut r = Rng(x);
    r.next_u64()
}

/// Keys of the page at arrival count `idx`: the menu, then the newest K items.
fn page_keys(site: &Site, idx: usize) -> impl Iterator<Item = u64> + '_ {
    let menu = (0..site.template as u64).map(|i| mix(1 << 40 | i));
    let items = (idx.saturating_sub(site.k)..idx).map(|i| mix(i as u64));
    menu.chain(items)
}

/// The time after `a` when the true expected number of arrivals reaches `target`.
fn oracle_next(site: &Site, norm: f64, a: i64, target: f64, cfg: &ScheduleConfig) -> i64 {
    let mut acc = 0.0;
    let mut t = a;
    let max = cfg.max_interval.as_secs() as i64;
    while t - a < max {
        acc += site.rate(t + 30, norm) * 60.0;
        t += 60;
        if acc >= target {
            break;
        }
    }
    (t - a).max(cfg.min_interval.as_secs() as i64)
}

#[allow(
    clippy::too_many_lines,
    reason = "one simulation loop, read top to bottom"
)]
fn run(
    site: &Site,
    arrivals: &[i64],
    sim: Sim,
    cfg: &ScheduleConfig,
    learn: i64,
    test: i64,
) -> Score {
    let z = cfg.change_ratio;
    let norm = site.norm();
    let test_start = START + learn * DAY;
    let test_end = test_start + test * DAY;
    let run_end = test_end + 2 * DAY;
    let mut score = Score {
        days: test as f64,
        ..Score::default()
    };
    let mut adaptive = Adaptive::initial(cfg);
    let mut learned = Learned::default();
    let mut average_period: Option<f64> = None;
    let count_at = |t: i64| arrivals.partition_point(|&a| a <= t);

    let mut t = START;
    let mut prev: Option<(i64, usize)> = None;
    while t < run_end {
        let idx = count_at(t);
        let mut next = 0.0;
        match prev {
            None => {
                // Baseline: the reference snapshot, no new items.
                let facts = learned
                    .page
                    .measure(std::iter::empty(), page_keys(site, idx), 0);
                learned.page.apply(facts, t);
                let obs = Observation {
                    outcome: Outcome::Unchanged,
                    new_links: 0,
                };
                next = schedule::plan(
                    cfg,
                    strategy_of(sim),
                    &mut adaptive,
                    &mut learned,
                    obs,
                    t,
                    0.0,
                );
            }
            Some((t_prev, idx_prev)) => {
                let arrived = idx - idx_prev;
                let first_visible = idx.saturating_sub(site.k).max(idx_prev);
                let seen = idx - first_visible;
                // Score the check and the items it found or lost.
                if (test_start..test_end).contains(&t) {
                    score.checks += 1;
                    let ratio = arrived as f64 / site.k as f64;
                    for (i, p) in [0.1, 0.2, 0.3].iter().enumerate() {
                        if (ratio - z).abs() <= p * z + 1e-12 {
                            score.within[i] += 1;
                        }
                    }
                    if learned.in_force == Some(Strategy::Periodic) {
                        score.periodic_share += 1;
                    }
                }
                for (i, &a) in arrivals.iter().enumerate().take(idx).skip(idx_prev) {
                    if !(test_start..test_end).contains(&a) {
                        continue;
                    }
                    score.items += 1;
                    if i < first_visible {
                        score.lost += 1;
                    } else {
                        score.detected += 1;
                        score.delay_sum += (t - a) as f64;
                    }
                }
                let elapsed = (t - t_prev) as f64;
                let outcome = if seen == 0 {
                    Outcome::Unchanged
                } else {
                    // As a live check: measure the page against the previous one.
                    let facts =
                        learned
                            .page
                            .measure(page_keys(site, idx_prev), page_keys(site, idx), seen);
                    let lost = facts.probable_loss;
                    learned.page.apply(facts, t);
                    if lost {
                        Outcome::Lost
                    } else {
                        Outcome::Updated
                    }
                };
                let obs = Observation {
                    outcome,
                    new_links: seen as u32,
                };
                match sim {
                    Sim::Average if t >= test_start => {
                        let period = *average_period.get_or_insert_with(|| {
                            let c: f64 = learned.history.counts.iter().map(|&v| f64::from(v)).sum();
                            let e: f64 =
                                learned.history.exposure.iter().map(|&v| f64::from(v)).sum();
                            let v = f64::from(learned.page.effective_links().unwrap_or(1));
                            let rate = (c / e.max(1.0)).max(1e-9);
                            (z * v / rate).clamp(
                                cfg.min_interval.as_secs_f64(),
                                cfg.max_interval.as_secs_f64(),
                            )
                        });
                        schedule::plan(
                            cfg,
                            Strategy::Adaptive,
                            &mut adaptive,
                            &mut learned,
                            obs,
                            t,
                            elapsed,
                        );
                        next = period;
                    }
                    Sim::Oracle => {}
                    _ => {
                        next = schedule::plan(
                            cfg,
                            strategy_of(sim),
                            &mut adaptive,
                            &mut learned,
                            obs,
                            t,
                            elapsed,
                        );
                    }
                }
            }
        }
        if sim == Sim::Oracle {
            next = oracle_next(site, norm, t, z * site.k as f64, cfg) as f64;
        }
        prev = Some((t, idx));
        t += next.round().max(1.0) as i64;
    }
    score
}

fn strategy_of(sim: Sim) -> Strategy {
    match sim {
        Sim::Fixed => Strategy::Fixed,
        Sim::Periodic => Strategy::Periodic,
        _ => Strategy::Adaptive,
    }
}

fn arg(args: &[String], name: &str, default: i64) -> i64 {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn row(out: &mut String, label: &str, s: &Score) {
    let delay = if s.detected == 0 {
        0.0
    } else {
        s.delay_sum / s.detected as f64 / 60.0
    };
    let _ = writeln!(
        out,
        "| {label} | {:.1} | {:.1}% | {:.1}% | {:.1}% | {:.0} min | {} of {} |",
        s.checks as f64 / s.days,
        s.pct(s.within[0]),
        s.pct(s.within[1]),
        s.pct(s.within[2]),
        delay,
        s.lost,
        s.items,
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let seed = arg(&args, "--seed", 1) as u64;
    let learn = arg(&args, "--learn-days", 30);
    let test = arg(&args, "--test-days", 10);
    let mut cfg = ScheduleConfig::default();
    cfg.periodic_degree = arg(&args, "--degree", cfg.periodic_degree as i64) as usize;
    let end = START + (learn + test + 2) * DAY;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "seed {seed}, {learn} days to learn, {test} to test, z = {}, min {}s, max {}s, degree {}, min history {} days\n",
        cfg.change_ratio,
        cfg.min_interval.as_secs(),
        cfg.max_interval.as_secs(),
        cfg.periodic_degree,
        cfg.periodic_min_days
    );
    let header = "| strategy | checks/day | within 10% of z | 20% | 30% | mean delay | items lost |\n|---|---|---|---|---|---|---|\n";
    let mut per_site = String::from("| site | K | items/weekday | strategy | checks/day | within 10% | mean delay | lost |\n|---|---|---|---|---|---|---|---|\n");
    let mut groups = [vec![Score::default(); 5], vec![Score::default(); 5]];
    for (n, site) in SITES.iter().enumerate() {
        let mut rng = Rng(seed.wrapping_mul(1_000_003).wrapping_add(n as u64));
        let arrivals = site.arrivals(end, &mut rng);
        for (i, sim) in Sim::ALL.iter().enumerate() {
            let s = run(site, &arrivals, *sim, &cfg, learn, test);
            groups[usize::from(!site.forum)][i].add(&s);
            let delay = if s.detected == 0 {
                0.0
            } else {
                s.delay_sum / s.detected as f64 / 60.0
            };
            let _ = writeln!(
                per_site,
                "| {} | {} | {:.0} | {} | {:.1} | {:.1}% | {:.0} min | {} of {} |",
                site.name,
                site.k,
                site.per_day,
                sim.name(),
                s.checks as f64 / s.days,
                s.pct(s.within[0]),
                delay,
                s.lost,
                s.items
            );
        }
    }
    for (g, title) in [(0, "Forums"), (1, "Notice boards")] {
        let _ = write!(
            out,
            "{title} (checks pooled over sites; checks/day per site):

{header}"
        );
        for (i, sim) in Sim::ALL.iter().enumerate() {
            row(&mut out, sim.name(), &groups[g][i]);
        }
        out.push('\n');
    }
    out.push_str("Per site:\n\n");
    out.push_str(&per_site);
    print!("{out}");
}
