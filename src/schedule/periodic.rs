//! The daily-periodic model of *Research on Incremental Updating Strategy of Web Forum
//! Based on Statistics* (`docs/design.md` §4): pages written by people change with the
//! rhythm of their day. Per watch, [`History`] keeps how many new links were seen in each
//! hour of each weekday (a fixed 7 × 24 array, decayed so that about four weeks count,
//! never a log). [`History::model`] averages it over days into rates r_i at times t_i, fits
//! a least-squares polynomial f(t) on normalized time, and [`DailyModel::solve`] finds the
//! next check b after a as the time where ∫_a^b f = z·v.
//!
//! Two things the paper leaves open, decided here:
//! - **Where the day starts.** A polynomial on [0, 24h) does not wrap; cutting the day at
//!   UTC midnight would cut through the busy morning of a site eight hours east. The
//!   watch's day starts at its quietest hour instead (found from the history), so the
//!   seam of the fit falls where the rate is lowest and matters least.
//! - **Weekends.** Weekend days follow their own curve once there are enough weekend days
//!   of history (until then the curve of all days); the weekday of a time is that of the
//!   watch's day, which starts at its quietest hour.
//!
//! A failed check records nothing; the next successful one covers the gap. A check's new
//! links are spread over the hours it covers in proportion to the rates learnt so far
//! (uniformly at first), so long quiet-night intervals do not smear the morning's posts.
#![allow(
    clippy::cast_possible_wrap,
    reason = "hours, cells and steps are tiny (< 200) and times are Unix seconds"
)]

use serde::{Deserialize, Serialize};

use super::fit::{polyfit, polyval};

pub const HOURS: usize = 24;
/// Cells of the history: 7 weekdays (Monday first) × 24 hours, UTC.
pub(crate) const CELLS: usize = 7 * HOURS;
const HOUR: i64 = 3600;
const DAY: i64 = 86_400;
/// e-folding memory of the history, in days.
const MEMORY_DAYS: f64 = 28.0;
/// The longest interval one check attributes to the history (after a long outage).
const MAX_SPAN: i64 = 8 * DAY;
/// Pseudo-exposure (seconds) that pulls a little-observed hour toward the mean rate when
/// spreading a check's new links over the hours it covered.
const PRIOR_SECS: f64 = 600.0;
/// The fitted rate is floored at this share of the curve's mean rate (and never 0), so
/// the integral always reaches its target and a night never means "never check".
const FLOOR_SHARE: f64 = 0.05;
/// The solver integrates max(f(t), f(t + LOOKAHEAD)), see [`DailyModel::lookahead`].
pub(crate) const LOOKAHEAD: i64 = 1800;
/// Step of the numeric integral, seconds.
const STEP: i64 = 60;

/// Per-watch history of new links per (weekday, hour), in the store.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct History {
    /// New links counted per cell (decayed). Empty until the first observation.
    #[serde(default, with = "cells")]
    pub counts: Vec<f32>,
    /// Seconds observed per cell (decayed).
    #[serde(default, with = "cells")]
    pub exposure: Vec<f32>,
    /// End of the last observed interval (the last successful check).
    #[serde(default)]
    pub since: Option<i64>,
}

/// Weekday of a Unix time, Monday = 0 (1970-01-01 was a Thursday).
fn weekday(day_number: i64) -> usize {
    (day_number + 3).rem_euclid(7) as usize
}

fn cell_of(t: i64) -> usize {
    weekday(t.div_euclid(DAY)) * HOURS + (t.rem_euclid(DAY) / HOUR) as usize
}

/// Whether `t` falls on a weekend day of a watch whose day starts at `q` seconds after
/// UTC midnight. A day starting late in the UTC day (a site east of Greenwich) is the
/// next calendar day for its readers.
pub(crate) fn is_weekend(t: i64, q: i64) -> bool {
    let label = (t - q).div_euclid(DAY) + i64::from(q >= DAY / 2);
    weekday(label) >= 5
}

impl History {
    /// Records that `new_links` new links appeared between the last observation and
    /// `now`. The first call only starts the record.
    pub fn observe(&mut self, now: i64, new_links: f64) {
        let Some(t0) = self.since else {
            self.since = Some(now);
            return;
        };
        if now <= t0 {
            return;
        }
        if self.counts.len() != CELLS || self.exposure.len() != CELLS {
            self.counts = vec![0.0; CELLS];
            self.exposure = vec![0.0; CELLS];
        }
        let decay = (-((now - t0) as f64) / (DAY as f64 * MEMORY_DAYS)).exp() as f32;
        for v in self.counts.iter_mut().chain(self.exposure.iter_mut()) {
            *v *= decay;
        }
        let mean = self.mean_rate().unwrap_or(1.0).max(1e-9);
        let mut segments: Vec<(usize, f64, f64)> = Vec::new();
        let mut t = t0.max(now - MAX_SPAN);
        while t < now {
            let end = (t.div_euclid(HOUR) + 1) * HOUR;
            let end = end.min(now);
            let c = cell_of(t);
            let secs = (end - t) as f64;
            let rate = (f64::from(self.counts[c]) + mean * PRIOR_SECS)
                / (f64::from(self.exposure[c]) + PRIOR_SECS);
            segments.push((c, secs, secs * rate.max(mean * 1e-3)));
            t = end;
        }
        let total: f64 = segments.iter().map(|s| s.2).sum();
        for (c, secs, w) in segments {
            self.exposure[c] += secs as f32;
            if total > 0.0 {
                self.counts[c] += (new_links * w / total) as f32;
            }
        }
        self.since = Some(now);
    }

    /// Links per second over everything observed.
    fn mean_rate(&self) -> Option<f64> {
        let e: f64 = self.exposure.iter().map(|&v| f64::from(v)).sum();
        let c: f64 = self.counts.iter().map(|&v| f64::from(v)).sum();
        (e > 0.0).then(|| c / e)
    }

    /// The busiest hour's rate seen (links per second; each cell pulled toward the mean
    /// by `PRIOR_SECS` so one burst in a little-observed hour does not dominate).
    pub(crate) fn peak_rate(&self) -> Option<f64> {
        let mean = self.mean_rate()?;
        self.counts
            .iter()
            .zip(&self.exposure)
            .map(|(&c, &e)| (f64::from(c) + mean * PRIOR_SECS) / (f64::from(e) + PRIOR_SECS))
            .reduce(f64::max)
            .filter(|r| *r > 0.0)
    }

    /// Days of history: how many days' worth every hour of the day has been observed
    /// (the least-observed hour decides).
    pub fn days(&self) -> f64 {
        if self.exposure.len() != CELLS {
            return 0.0;
        }
        (0..HOURS)
            .map(|h| {
                (0..7)
                    .map(|d| f64::from(self.exposure[d * HOURS + h]))
                    .sum::<f64>()
            })
            .fold(f64::INFINITY, f64::min)
            / HOUR as f64
    }

    /// Rates (links per hour) and exposures (days) per hour of the watch's day
    /// (starting at hour `q_h`), over the cells `keep` selects.
    fn curve_points(&self, q_h: usize, keep: impl Fn(usize) -> bool) -> ([f64; HOURS], f64) {
        let mut rates = [0.0; HOURS];
        let mut least = f64::INFINITY;
        for (j, rate) in rates.iter_mut().enumerate() {
            let h = (q_h + j) % HOURS;
            let (mut c, mut e) = (0.0, 0.0);
            for d in 0..7 {
                let cell = d * HOURS + h;
                if keep(cell) {
                    c += f64::from(self.counts[cell]);
                    e += f64::from(self.exposure[cell]);
                }
            }
            *rate = if e > 0.0 { c / e * HOUR as f64 } else { 0.0 };
            least = least.min(e / HOUR as f64);
        }
        (rates, least)
    }

    /// The fitted model, once every hour of the day has `min_days` of history; `None`
    /// before (the caller falls back to the adaptive interval).
    pub fn model(&self, degree: usize, min_days: f64) -> Option<DailyModel> {
        if self.days() < min_days.max(f64::MIN_POSITIVE) {
            return None;
        }
        let (pooled, _) = self.curve_points(0, |_| true);
        // The day starts at the middle of the quietest five hours.
        let q_h = (0..HOURS)
            .min_by(|&a, &b| {
                let w =
                    |h: usize| -> f64 { (0..5).map(|k| pooled[(h + HOURS + k - 2) % HOURS]).sum() };
                w(a).total_cmp(&w(b))
            })
            .unwrap_or(0);
        let q = q_h as i64 * HOUR;
        // Reference week: 1970-01-05 was a Monday.
        let weekend_cell = |cell: usize| {
            let t = 4 * DAY + (cell / HOURS) as i64 * DAY + (cell % HOURS) as i64 * HOUR + HOUR / 2;
            is_weekend(t, q)
        };
        let (all, _) = self.curve_points(q_h, |_| true);
        let all = Curve::fit(&all, degree)?;
        let own = |weekend: bool| {
            let (pts, days) = self.curve_points(q_h, |c| weekend_cell(c) == weekend);
            (days >= min_days)
                .then(|| Curve::fit(&pts, degree))
                .flatten()
        };
        let weekday = own(false);
        let weekend = own(true);
        Some(DailyModel {
            q,
            own: [weekday.is_some(), weekend.is_some()],
            lookahead: LOOKAHEAD,
            curves: [
                weekday.unwrap_or_else(|| all.clone()),
                weekend.unwrap_or(all),
            ],
        })
    }
}

/// A fitted daily curve: links per hour as a polynomial of the hour of the watch's day,
/// normalized to x ∈ [-1, 1].
#[derive(Debug, Clone, PartialEq)]
pub struct Curve {
    pub coef: Vec<f64>,
    /// Links per hour; the curve never goes below it.
    pub floor: f64,
}

impl Curve {
    /// Fits 24 hourly rates, point j at the middle of hour j. The points are extended
    /// periodically by [`PAD`] hours on each side before the fit, so the polynomial's
    /// ends (where a least-squares polynomial swings most) fall outside the day.
    pub fn fit(rates: &[f64; HOURS], degree: usize) -> Option<Self> {
        let pad = PAD as isize;
        let (xs, ys): (Vec<f64>, Vec<f64>) = (-pad..HOURS as isize + pad)
            .map(|j| {
                let y = rates[j.rem_euclid(HOURS as isize) as usize];
                (x_of((j as f64 + 0.5) / HOURS as f64), y)
            })
            .unzip();
        let coef = polyfit(&xs, &ys, degree.min(20))?;
        let mean = rates.iter().sum::<f64>() / HOURS as f64;
        Some(Self {
            coef,
            floor: (mean * FLOOR_SHARE).max(1e-6),
        })
    }

    /// Links per hour at `frac` of the watch's day (0 = its start).
    pub(crate) fn per_hour(&self, frac: f64) -> f64 {
        polyval(&self.coef, x_of(frac)).max(self.floor)
    }
}

/// Hours of periodic padding on each side of the day when fitting.
pub(crate) const PAD: usize = 4;

/// Normalized abscissa of `frac` of the day: the padded day maps onto [-1, 1].
fn x_of(frac: f64) -> f64 {
    let span = (HOURS + 2 * PAD) as f64;
    ((frac * HOURS as f64 + PAD as f64) / span) * 2.0 - 1.0
}

/// The model in force for a watch: where its day starts, a curve for weekdays and one
/// for weekends.
#[derive(Debug, Clone, PartialEq)]
pub struct DailyModel {
    /// Seconds after UTC midnight where the watch's day starts (its quietest hour).
    pub q: i64,
    /// Weekday and weekend curves.
    pub curves: [Curve; 2],
    /// Whether each curve was fitted on its own days (else it is the all-days curve).
    pub own: [bool; 2],
    /// Seconds of look-ahead in [`solve`](Self::solve): it integrates
    /// max(f(t), f(t + lookahead)), so on a rising edge it counts the rate of a little
    /// later. A history learnt from checks hours apart smears the day's peaks, and a
    /// rush that comes earlier or steeper than the curve says is what scrolls items off
    /// unseen (the simulation's Saturday mornings: 30 minutes took its losses from 9 to
    /// 0 over six seeds, for 5% more checks). Plateaus and troughs are unaffected.
    pub lookahead: i64,
}

impl DailyModel {
    /// A model with one curve for every day, starting at `q`, without look-ahead (tests).
    #[cfg(test)]
    pub(crate) fn uniform(curve: Curve, q: i64) -> Self {
        Self {
            q,
            curves: [curve.clone(), curve],
            own: [false, false],
            lookahead: 0,
        }
    }

    /// Expected new links per second at `t`.
    pub fn rate(&self, t: i64) -> f64 {
        let frac = (t - self.q).rem_euclid(DAY) as f64 / DAY as f64;
        let c = &self.curves[usize::from(is_weekend(t, self.q))];
        c.per_hour(frac) / HOUR as f64
    }

    #[cfg(test)]
    /// Expected new links in `[a, b)` (midpoint rule, one-minute steps).
    pub(crate) fn predicted(&self, a: i64, b: i64) -> f64 {
        let b = b.min(a + MAX_SPAN);
        let mut t = a;
        let mut sum = 0.0;
        while t < b {
            let end = (t + STEP).min(b);
            sum += self.rate(i64::midpoint(t, end)) * (end - t) as f64;
            t = end;
        }
        sum
    }

    /// Seconds s after `a` such that ∫_a^{a+s} f = `target` links, at most `max_secs`
    /// (f taken as max(f(t), f(t + lookahead))). Wraps midnight and weekends freely:
    /// the rate is a function of absolute time.
    pub(crate) fn solve(&self, a: i64, target: f64, max_secs: i64) -> i64 {
        if target <= 0.0 || !target.is_finite() {
            return 0;
        }
        let mut acc = 0.0;
        let mut t = a;
        while t - a < max_secs {
            let end = (t + STEP).min(a + max_secs);
            let mid = i64::midpoint(t, end);
            let r = self.rate(mid).max(self.rate(mid + self.lookahead));
            let add = r * (end - t) as f64;
            if acc + add >= target {
                return t - a + ((target - acc) / r).round() as i64;
            }
            acc += add;
            t = end;
        }
        max_secs
    }
}

/// A cell array as base64 of little-endian f32: about 900 characters for 168 cells,
/// a third of the same array as JSON numbers.
mod cells {
    use base64::engine::general_purpose::STANDARD;
    use base64::Engine;
    use serde::{de::Error, Deserialize, Deserializer, Serializer};

    #[allow(clippy::ptr_arg, reason = "serde's `with` passes &Vec")]
    pub fn serialize<S: Serializer>(v: &Vec<f32>, s: S) -> Result<S::Ok, S::Error> {
        let bytes: Vec<u8> = v.iter().flat_map(|f| f.to_le_bytes()).collect();
        s.serialize_str(&STANDARD.encode(bytes))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f32>, D::Error> {
        let s = String::deserialize(d)?;
        let bytes = STANDARD.decode(s.as_bytes()).map_err(D::Error::custom)?;
        if bytes.len() % 4 != 0 {
            return Err(D::Error::custom("cell array length is not a multiple of 4"));
        }
        Ok(bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .map(|f| if f.is_finite() { f.max(0.0) } else { 0.0 })
            .collect())
    }
}

#[cfg(test)]
mod tests;
