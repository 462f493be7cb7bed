use super::*;

/// Monday 2026-11-16 00:00 UTC.
const MONDAY: i64 = 1_794_787_200;

fn linear_model(q: i64) -> DailyModel {
    // f = 6 + 4x links per hour, x from -1 at the start of the watch's day to 1 at its
    // end: 2 + h/3 links per hour, h hours into the day.
    DailyModel::uniform(
        Curve {
            coef: vec![6.0, 4.0],
            floor: 0.1,
        },
        q,
    )
}

#[test]
fn monday_is_what_the_tests_think() {
    assert_eq!(weekday(MONDAY / DAY), 0);
    assert_eq!(cell_of(MONDAY + 5 * DAY + 3 * HOUR + 59), 5 * HOURS + 3);
}

#[test]
fn solver_finds_b_across_midnight() {
    let m = linear_model(0);
    // From 23:00: 2 + 47/6 links until midnight (the curve is at its top), then the day
    // wraps to its bottom: 2b + b²/6 more by b hours after midnight. 12 links: b = 1h.
    let a = MONDAY + 23 * HOUR;
    let s = m.solve(a, 12.0, DAY);
    assert!((s - 2 * HOUR).abs() <= 2, "{s}");
    assert!((m.predicted(a, a + 2 * HOUR) - 12.0).abs() < 1e-6);
    // The same across the seam of a watch whose day starts at 20:00 UTC.
    let m = linear_model(20 * HOUR);
    let s = m.solve(MONDAY + 19 * HOUR, 12.0, DAY);
    assert!((s - 2 * HOUR).abs() <= 2, "{s}");
}

#[test]
fn solver_stops_at_the_maximum() {
    let m = linear_model(0);
    assert_eq!(m.solve(MONDAY, 1e9, 6 * HOUR), 6 * HOUR);
    assert_eq!(m.solve(MONDAY, 0.0, 6 * HOUR), 0);
    // A constant curve: 10 links an hour, 10 links take an hour.
    let flat = DailyModel::uniform(
        Curve {
            coef: vec![10.0],
            floor: 0.1,
        },
        0,
    );
    assert!((flat.solve(MONDAY, 10.0, DAY) - HOUR).abs() <= 1);
}

#[test]
fn lookahead_counts_a_coming_rush_early() {
    let mut m = linear_model(0);
    // From 12:00 the curve rises by 1/3 link per hour each hour; with 30 minutes of
    // look-ahead the solver counts the rate of half an hour later: 1/6 link more per
    // hour, so the same target is reached a little sooner.
    let a = MONDAY + 12 * HOUR;
    let plain = m.solve(a, 12.0, DAY);
    m.lookahead = HOUR / 2;
    let ahead = m.solve(a, 12.0, DAY);
    assert!(ahead < plain, "{ahead} vs {plain}");
    assert!(plain - ahead < 300, "{ahead} vs {plain}");
    // On a flat curve it changes nothing.
    let mut flat = DailyModel::uniform(
        Curve {
            coef: vec![10.0],
            floor: 0.1,
        },
        0,
    );
    flat.lookahead = HOUR;
    assert!((flat.solve(MONDAY, 10.0, DAY) - HOUR).abs() <= 1);
}

#[test]
fn the_floor_keeps_a_dead_night_finite() {
    // A curve that is negative at night still has the floor's rate.
    let m = DailyModel::uniform(
        Curve {
            coef: vec![-1.0, 0.0, 8.0],
            floor: 0.5,
        },
        0,
    );
    assert!((m.rate(MONDAY + 12 * HOUR) * HOUR as f64 - 0.5).abs() < 1e-9);
    assert!(m.solve(MONDAY + 11 * HOUR, 1.0, DAY) < DAY);
}

#[test]
fn curve_fit_tracks_a_smooth_daily_cycle() {
    let truth = |frac: f64| {
        let w = std::f64::consts::TAU * frac;
        10.0 + 5.0 * w.sin() + 3.0 * (2.0 * w).cos()
    };
    let rates: [f64; HOURS] = std::array::from_fn(|j| truth((j as f64 + 0.5) / HOURS as f64));
    let c = Curve::fit(&rates, 8).expect("fit");
    for k in 0..=48 {
        let frac = f64::from(k) / 48.0;
        let err = (c.per_hour(frac) - truth(frac)).abs();
        // Within 3% of the peak (18 links per hour).
        assert!(err < 0.55, "at {frac}: {err}");
    }
}

/// A diurnal rate (links per hour) with a quiet night around 04:00 local time.
fn diurnal(h: f64) -> f64 {
    // Circular distance in hours, so the day wraps smoothly.
    let d = |c: f64| {
        let x = (h - c).rem_euclid(24.0);
        x.min(24.0 - x)
    };
    let morning = (-d(10.0).powi(2) / 8.0).exp();
    let evening = (-d(20.0).powi(2) / 6.0).exp();
    1.0 + 30.0 * morning + 20.0 * evening
}

/// Feeds `days` of checks every `step` seconds with the exact expected counts of
/// `rate(hour of UTC day)`.
fn learn(rate: impl Fn(f64) -> f64, days: i64, step: i64) -> History {
    let mut h = History::default();
    h.observe(MONDAY, 0.0);
    let mut t = MONDAY;
    while t < MONDAY + days * DAY {
        let end = t + step;
        let mut n = 0.0;
        let mut u = t;
        while u < end {
            n += rate((u.rem_euclid(DAY) as f64 + 30.0) / HOUR as f64) / 60.0;
            u += 60;
        }
        h.observe(end, n);
        t = end;
    }
    h
}

#[test]
fn history_learns_the_daily_curve_and_its_quiet_hour() {
    let h = learn(diurnal, 14, 1800);
    assert!(
        h.days() > 10.0 && h.days() < 14.0,
        "decayed days {}",
        h.days()
    );
    let m = h.model(12, 3.0).expect("enough history");
    // The quiet window is centred in the small hours.
    assert!(
        (1..=6).contains(&(m.q / HOUR)),
        "day starts at {}h",
        m.q / HOUR
    );
    assert!(m.own[0] && m.own[1]);
    // The fitted curve tracks the truth within 6% of its peak (degree 12 cannot follow
    // the two narrow peaks exactly).
    for hour in 0..24 {
        let t = MONDAY + 21 * DAY + hour * HOUR + HOUR / 2;
        let got = m.rate(t) * HOUR as f64;
        let want = diurnal(hour as f64 + 0.5);
        assert!((got - want).abs() < 3.0, "{hour}h: {got:.2} vs {want:.2}");
    }
}

#[test]
fn weekends_get_their_own_curve() {
    let weekday_of = |t: i64| weekday(t.div_euclid(DAY));
    let mut h = History::default();
    h.observe(MONDAY, 0.0);
    let mut t = MONDAY;
    while t < MONDAY + 21 * DAY {
        let end = t + HOUR;
        let factor = if weekday_of(t) >= 5 { 0.4 } else { 1.0 };
        h.observe(
            end,
            factor * diurnal((t.rem_euclid(DAY) / HOUR) as f64 + 0.5),
        );
        t = end;
    }
    let m = h.model(8, 3.0).expect("model");
    let noon = |day: i64| m.rate(MONDAY + 21 * DAY + day * DAY + 10 * HOUR) * HOUR as f64;
    let (wed, sat) = (noon(2), noon(5));
    assert!(
        (sat / wed - 0.4).abs() < 0.08,
        "saturday {sat:.1}, wednesday {wed:.1}"
    );
}

#[test]
fn a_long_interval_puts_its_links_where_the_rate_was() {
    let mut h = learn(diurnal, 7, 1800);
    let before = h.counts.clone();
    // One check covering 02:00–12:00 with 100 links: most belong to the morning.
    let a = MONDAY + 7 * DAY + 2 * HOUR;
    h.since = Some(a);
    h.observe(a + 10 * HOUR, 100.0);
    let decay = (-10.0 / 24.0 / MEMORY_DAYS).exp();
    let added = |hour: usize| f64::from(h.counts[hour]) - f64::from(before[hour]) * decay;
    assert!(added(10) > 5.0 * added(3), "{} vs {}", added(10), added(3));
}

#[test]
fn no_model_before_enough_days() {
    let h = learn(diurnal, 2, 1800);
    assert!(h.days() < 3.0);
    assert!(h.model(8, 3.0).is_none());
    assert!(History::default().model(8, 3.0).is_none());
    // Flat-zero history (a page that never changes) still fits: floor only.
    let quiet = learn(|_| 0.0, 5, 3600);
    let m = quiet.model(8, 3.0).expect("model");
    assert!(m.solve(MONDAY, 1.0, DAY) == DAY);
}

#[test]
fn weekend_labels_follow_the_watchs_day() {
    let sat = MONDAY + 5 * DAY;
    // A day starting at 04:00 UTC: Saturday 03:00 UTC still belongs to Friday.
    assert!(!is_weekend(sat + 3 * HOUR, 4 * HOUR));
    assert!(is_weekend(sat + 5 * HOUR, 4 * HOUR));
    // A day starting at 20:00 UTC (a site eight hours east): Friday 21:00 UTC is
    // already Saturday for it, and Sunday 21:00 UTC is Monday.
    assert!(is_weekend(sat - 3 * HOUR, 20 * HOUR));
    assert!(!is_weekend(sat + DAY + 21 * HOUR, 20 * HOUR));
}

#[test]
fn serde_round_trip_and_old_records() {
    let h = learn(diurnal, 3, 3600);
    let json = serde_json::to_string(&h).expect("serializes");
    assert!(json.len() < 2000, "{} bytes", json.len());
    let back: History = serde_json::from_str(&json).expect("parses");
    assert_eq!(back, h);
    let old: History = serde_json::from_str("{}").expect("defaults");
    assert_eq!(old, History::default());
    assert!(serde_json::from_str::<History>(r#"{"counts":"AAA"}"#).is_err());
}
