//! The seen set on sled: buckets, the keys of the old form, the forgetting rule judged
//! by each bucket's latest departure, and a model of what must and must not be seen.

use std::collections::{HashMap, HashSet};

use proptest::prelude::*;

use super::super::pg::tests::{item, state, watch};
use super::super::suite::{check_at, open_when_free};
use super::super::transfer::Transfer;
use super::super::SCHEMA_VERSION;
use super::bucket::HEADER;
use super::*;
use crate::analysis::History;
use crate::model::{Link, Watch};
use crate::state::WatchState;

const HOUR: i64 = 3_600;
const DAY: i64 = 86_400;

fn url(n: usize) -> String {
    format!("http://a.example/{n}")
}

/// Keys of `kind` stored for `w`.
fn count(s: &Store, kind: u8, w: &Watch) -> usize {
    s.db()
        .expect("db")
        .scan_prefix(keys::watch_key(kind, &w.id))
        .count()
}

/// One check at `at` with one link on the page, `gone` leaving it and `new` items.
fn gone_at(s: &Store, w: &Watch, at: i64, gone: &[&str], new: &[&str]) -> WatchState {
    let links = vec![Link::new("home", "http://a.example/home")];
    let items = new.iter().map(|u| item(u, at)).collect();
    check_at(s, w, at, links, gone, items)
}

#[test]
fn a_bucket_is_judged_by_its_latest_departure_and_keeps_what_kept_items_link_to() {
    let s = Store::temporary().expect("store");
    let w = watch("http://a.example/");
    s.insert_watch(&w, &state(10)).expect("insert");
    let (early, late, served) = (url(1), url(2), url(3));
    // A day per check: the hundred checks decide. `early` and `served` (an item) leave
    // at check 5, `late` at check 30; the sweep at check 32 merges them into one bucket.
    let t0 = 1_000_000;
    let at = |c: i64| t0 + c * DAY;
    for c in 1..=32 {
        let st = match c {
            5 => gone_at(&s, &w, at(c), &[&early, &served], &[&served]),
            30 => gone_at(&s, &w, at(c), &[&late], &[]),
            _ => gone_at(&s, &w, at(c), &[], &[]),
        };
        assert_eq!(st.checks, u64::try_from(c).expect("small"));
    }
    assert_eq!(
        count(&s, keys::SEEN_BUCKET, &w),
        1,
        "merged into one bucket"
    );
    assert_eq!(s.seen_len(&w.id).expect("len"), 3);
    // The sweep at check 128: `early` is 123 checks and days gone, `late` 98: the bucket
    // stays whole.
    for c in 33..=128 {
        gone_at(&s, &w, at(c), &[], &[]);
    }
    assert!(Stamp::new(at(5), 5).expired(at(128), 128));
    assert!(!Stamp::new(at(30), 30).expired(at(128), 128));
    for u in [&early, &late, &served] {
        assert!(s.is_seen(&w.id, u).expect("seen"), "{u} at check 128");
    }
    // The sweep at check 160: the bucket is gone but for the kept item's URL.
    for c in 129..=160 {
        gone_at(&s, &w, at(c), &[], &[]);
    }
    assert!(!s.is_seen(&w.id, &early).expect("seen"));
    assert!(!s.is_seen(&w.id, &late).expect("seen"));
    assert!(
        s.is_seen(&w.id, &served).expect("seen"),
        "a kept item links to it"
    );
    assert_eq!(s.seen_len(&w.id).expect("len"), 1);
    assert_eq!(count(&s, keys::SEEN_BUCKET, &w), 1);
    // Once the item leaves the window, its URL goes at the next sweep.
    s.set_items_kept(1);
    gone_at(&s, &w, at(161), &[], &[&url(4)]);
    for c in 162..=192 {
        gone_at(&s, &w, at(c), &[], &[]);
    }
    assert!(!s.is_seen(&w.id, &served).expect("seen"));
    assert_eq!(count(&s, keys::SEEN_BUCKET, &w), 0);
}

#[test]
fn a_url_that_left_again_lives_as_long_as_its_new_departure_says() {
    let s = Store::temporary().expect("store");
    let w = watch("http://a.example/");
    s.insert_watch(&w, &state(10)).expect("insert");
    let back = url(1);
    let mut t = 1_000_000;
    let mut step = |gone: &[&str]| {
        t += HOUR;
        gone_at(&s, &w, t, gone, &[]);
    };
    // Leaves at check 1, again at check 700 (a month of hourly checks later).
    step(&[&back]);
    for _ in 2..700 {
        step(&[]);
    }
    step(&[&back]);
    // At check 900 its first departure is long expired, its second is 200 checks but
    // only eight days old.
    for _ in 701..=900 {
        step(&[]);
    }
    assert!(s.is_seen(&w.id, &back).expect("seen"));
    assert_eq!(s.seen_len(&w.id).expect("len"), 1);
    // A month and a sweep after the second departure, it is forgotten.
    for _ in 901..=(700 + 720 + 32) {
        step(&[]);
    }
    assert!(!s.is_seen(&w.id, &back).expect("seen"));
    assert_eq!(count(&s, keys::SEEN_BUCKET, &w), 0);
}

/// URL keys stored in `w`'s buckets, copies included.
fn stored_hashes(s: &Store, w: &Watch) -> usize {
    s.db()
        .expect("db")
        .scan_prefix(keys::watch_key(keys::SEEN_BUCKET, &w.id))
        .values()
        .map(|v| (v.expect("value").len() - HEADER) / 8)
        .sum()
}

#[test]
fn older_copies_of_urls_that_left_again_go_when_an_eighth_of_a_bucket_is_copies() {
    let s = Store::temporary().expect("store");
    let w = watch("http://a.example/");
    s.insert_watch(&w, &state(10)).expect("insert");
    let urls: Vec<String> = (0..16).map(url).collect();
    let refs: Vec<&str> = urls.iter().map(String::as_str).collect();
    let mut at = 1_000_000;
    for c in 1..=64 {
        at += HOUR;
        match c {
            // All sixteen leave at check 1; one comes back and leaves again at check 40:
            // a sixteenth of the old bucket is copies, it stays as it is.
            1 => gone_at(&s, &w, at, &refs, &[]),
            40 => gone_at(&s, &w, at, &refs[..1], &[]),
            _ => gone_at(&s, &w, at, &[], &[]),
        };
    }
    assert_eq!(stored_hashes(&s, &w), 17);
    // Two more leave again at check 70: three sixteenths, the old bucket drops them at
    // the sweep of check 96.
    for c in 65..=96 {
        at += HOUR;
        match c {
            70 => gone_at(&s, &w, at, &refs[1..3], &[]),
            _ => gone_at(&s, &w, at, &[], &[]),
        };
    }
    assert_eq!(stored_hashes(&s, &w), 16);
    assert_eq!(s.seen_len(&w.id).expect("len"), 16);
    // The three live by their new departures: a month after check 1, the other
    // thirteen go, they stay.
    let t1 = 1_000_000 + HOUR;
    at = at.max(t1 + FORGET_AFTER_SECS);
    for _ in 97..=128 {
        at += 60;
        gone_at(&s, &w, at, &[], &[]);
    }
    for (n, u) in urls.iter().enumerate() {
        assert_eq!(s.is_seen(&w.id, u).expect("seen"), n < 3, "{u}");
    }
}

/// Writes `w`'s seen URLs as a store before buckets kept them (one key each) and marks
/// the store as schema 2.
fn write_old_form(dir: &std::path::Path, w: &Watch, urls: &[(&str, Vec<u8>)]) {
    let db = loop {
        match sled::Config::new().path(dir).open() {
            Err(sled::Error::Io(e)) if e.to_string().contains("could not acquire lock") => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            other => break other.expect("sled"),
        }
    };
    db.insert(keys::SCHEMA, &2u32.to_be_bytes()).expect("v");
    for (u, v) in urls {
        db.insert(keys::seen(&w.id, u), v.as_slice()).expect("u");
    }
    db.flush().expect("flush");
}

#[test]
fn seen_urls_of_the_old_form_stay_seen_move_into_buckets_and_are_forgotten_by_the_rule() {
    let dir = tempfile::tempdir().expect("tempdir");
    let w = watch("http://a.example/");
    let t0 = 10_000_000i64;
    let (stamped, bare, first_form, served) = (url(1), url(2), url(3), url(4));
    {
        let s = Store::open(dir.path(), 1 << 20).expect("open");
        s.insert_watch(&w, &state(10)).expect("insert");
        // One check (at t0) whose item links to `served`.
        gone_at(&s, &w, t0, &[], &[&served]);
    }
    let mut first = Vec::new();
    first.extend_from_slice(&(t0 + 30).to_be_bytes());
    first.extend_from_slice(&1u64.to_be_bytes());
    write_old_form(
        dir.path(),
        &w,
        &[
            (&stamped, Stamp::new(t0, 1).bytes().to_vec()),
            (&bare, Vec::new()),
            (&first_form, first),
            (&served, Stamp::new(t0, 1).bytes().to_vec()),
        ],
    );
    let s = open_when_free(dir.path());
    let v = s
        .db()
        .expect("db")
        .get(keys::SCHEMA)
        .expect("v")
        .expect("v");
    assert_eq!(v.as_ref(), SCHEMA_VERSION.to_be_bytes());
    let all = [&stamped, &bare, &first_form, &served];
    for u in all {
        assert!(s.is_seen(&w.id, u).expect("seen"), "{u} after open");
        assert!(s.history(&w.id).is_seen(u).expect("seen"), "{u} after open");
    }
    assert_eq!(s.seen_len(&w.id).expect("len"), 4);
    // The first sweep (check 32, within days) moves them into a bucket, all of them.
    let mut at = t0;
    for _ in 2..=32 {
        at += HOUR;
        gone_at(&s, &w, at, &[], &[]);
    }
    assert_eq!(count(&s, keys::SEEN, &w), 0, "moved");
    assert_eq!(count(&s, keys::SEEN_BUCKET, &w), 1);
    for u in all {
        assert!(s.is_seen(&w.id, u).expect("seen"), "{u} after the sweep");
    }
    assert_eq!(s.seen_len(&w.id).expect("len"), 4);
    // Reopened: still there.
    drop(s);
    let s = open_when_free(dir.path());
    assert_eq!(s.seen_len(&w.id).expect("len"), 4);
    // Days later, 160 checks: a hundred checks but not a month.
    let mut checks = 32;
    while checks < 160 {
        at += HOUR;
        checks += 1;
        gone_at(&s, &w, at, &[], &[]);
    }
    for u in all {
        assert!(s.is_seen(&w.id, u).expect("seen"), "{u}: 160 checks, days");
    }
    // A month after the stamps, 192 checks: the stamped URLs' own rule is met, but they
    // share a bucket with the one stamped at the first sweep (check 32), whose rule is
    // not: the bucket stays whole.
    while checks < 192 {
        checks += 1;
        at = t0 + 30 * DAY + (checks - 160) * 60;
        gone_at(&s, &w, at, &[], &[]);
    }
    assert!(Stamp::new(t0, 1).expired(at, 192));
    for u in all {
        assert!(
            s.is_seen(&w.id, u).expect("seen"),
            "{u}: a month, 192 checks"
        );
    }
    // A month after that sweep: all forgotten but the kept item's URL.
    let swept_at = t0 + 31 * HOUR;
    while checks < 224 {
        checks += 1;
        at = swept_at + 30 * DAY + (checks - 192) * 60;
        gone_at(&s, &w, at, &[], &[]);
    }
    assert!(!s.is_seen(&w.id, &stamped).expect("seen"));
    assert!(!s.is_seen(&w.id, &first_form).expect("seen"));
    assert!(!s.is_seen(&w.id, &bare).expect("seen"));
    assert!(
        s.is_seen(&w.id, &served).expect("seen"),
        "a kept item links to it"
    );
    assert_eq!(s.seen_len(&w.id).expect("len"), 1);
}

#[test]
fn many_old_keys_move_into_buckets_by_their_stamps_and_go_by_the_rule() {
    let dir = tempfile::tempdir().expect("tempdir");
    let w = watch("http://a.example/");
    let t0 = 10_000_000i64;
    {
        let s = Store::open(dir.path(), 1 << 20).expect("open");
        let mut st = state(10);
        st.checks = 1_000;
        s.insert_watch(&w, &st).expect("insert");
        gone_at(&s, &w, t0, &[], &[]);
    }
    // 600 URLs that left at the last 600 hourly checks, more than two buckets' worth.
    let left = |n: usize| -> (i64, u64) {
        (
            t0 - i64::try_from(n).expect("small") * HOUR,
            1_000 - n as u64,
        )
    };
    let urls: Vec<String> = (0..600).map(url).collect();
    let old: Vec<(&str, Vec<u8>)> = urls
        .iter()
        .enumerate()
        .map(|(n, u)| {
            let (at, c) = left(n);
            (u.as_str(), Stamp::new(at, c).bytes().to_vec())
        })
        .collect();
    write_old_form(dir.path(), &w, &old);
    let s = open_when_free(dir.path());
    let mut at = t0;
    let mut checks = 1_001u64;
    let mut run_to = |to: u64, at: &mut i64| {
        while checks < to {
            *at += HOUR;
            checks += 1;
            gone_at(&s, &w, *at, &[], &[]);
        }
    };
    // The sweep at check 1,024 moves them all (none is a month old yet).
    run_to(1_024, &mut at);
    assert_eq!(count(&s, keys::SEEN, &w), 0);
    assert!(
        count(&s, keys::SEEN_BUCKET, &w) >= 3,
        "at most 256 a bucket"
    );
    assert_eq!(s.seen_len(&w.id).expect("len"), 600);
    for u in &urls {
        assert!(s.is_seen(&w.id, u).expect("seen"));
    }
    // At the sweep of check 1,248: each URL gone less than a month is seen; each whose
    // bucket's latest departure (at most a bucket's span later) is a month old is not.
    run_to(1_248, &mut at);
    let span = usize::try_from(BUCKET_SPAN_CHECKS).expect("small");
    let (mut kept, mut forgotten) = (0, 0);
    for (n, u) in urls.iter().enumerate() {
        let (t, c) = left(n);
        let seen = s.is_seen(&w.id, u).expect("seen");
        if !Stamp::new(t, c).expired(at, 1_248) {
            assert!(seen, "{u} is younger than the rule");
            kept += 1;
        }
        if let Some(latest) = n.checked_sub(span) {
            let (t, c) = left(latest);
            if Stamp::new(t, c).expired(at, 1_248) {
                assert!(!seen, "{u} is long gone");
                forgotten += 1;
            }
        }
    }
    assert!(kept > 100 && forgotten > 50, "{kept} {forgotten}");
    assert!(s.remove_watch(&w.id).expect("remove"));
    assert_eq!(count(&s, keys::SEEN_BUCKET, &w), 0);
    assert_eq!(count(&s, keys::SEEN, &w), 0);
}

/// A temporary store with one watch from whose page `n` URLs left, a hundred an hour;
/// returns them and the time of the last check.
fn hundreds_gone(n: usize) -> (Store, Watch, Vec<String>, i64) {
    let s = Store::temporary().expect("store");
    let w = watch("http://a.example/");
    s.insert_watch(&w, &state(10)).expect("insert");
    let urls: Vec<String> = (0..n).map(url).collect();
    let mut at = 1_000_000;
    for chunk in urls.chunks(100) {
        at += HOUR;
        let refs: Vec<&str> = chunk.iter().map(String::as_str).collect();
        gone_at(&s, &w, at, &refs, &[]);
    }
    (s, w, urls, at)
}

#[test]
fn thousands_of_seen_urls_answer_one_by_one_and_through_the_history() {
    let (s, w, urls, at) = hundreds_gone(5_000);
    // 50 checks: one sweep merged the first 32 checks' buckets while they held 256.
    assert_eq!(s.seen_len(&w.id).expect("len"), 5_000);
    assert!(count(&s, keys::SEEN_BUCKET, &w) < 50);
    // A rebaseline adds the page's links as seen: more than a bucket holds.
    let page: Vec<Link> = (0..600)
        .map(|n| Link::new("t", format!("http://b.example/{n}")))
        .collect();
    check_at(&s, &w, at + HOUR, page.clone(), &[], Vec::new());
    s.update_watch(&w, true, None, None).expect("rebaseline");
    let history = s.history(&w.id);
    for u in urls.iter().chain(page.iter().map(|l| &l.url)) {
        assert!(history.is_seen(u).expect("seen"), "{u}");
        assert!(s.is_seen(&w.id, u).expect("seen"), "{u}");
    }
    for n in 0..5_000 {
        let u = format!("http://c.example/{n}");
        assert!(!history.is_seen(&u).expect("seen"), "{u}");
    }
    assert!(!s.is_seen(&w.id, "http://c.example/x").expect("seen"));
    assert_eq!(s.seen_len(&w.id).expect("len"), 5_600);
    // The same set crosses to another store whole.
    let dump = s.dump(&w.id).expect("dump").expect("present");
    assert_eq!(dump.seen.len(), 5_600);
    let t = Store::temporary().expect("store");
    t.import(&dump).expect("import");
    assert_eq!(t.seen_len(&w.id).expect("len"), 5_600);
    assert!(t.is_seen(&w.id, &urls[4_999]).expect("seen"));
}

#[test]
fn a_seen_set_answers_alike_by_passes_once_sorted_and_handed_on() {
    let (s, w, urls, mut at) = hundreds_gone(3_000);
    // A URL that left twice is stored twice, and one of the old form lies beside the
    // buckets.
    at += HOUR;
    gone_at(&s, &w, at, &[&urls[7]], &[]);
    let old = "http://old.example/kept";
    s.db()
        .expect("db")
        .insert(keys::seen(&w.id, old), &Stamp::new(at, 1).bytes()[..])
        .expect("old form");
    // Seen and unseen URLs in turn, past the questions answered by passes, so that each
    // is asked both before and after the keys are sorted; then starting the other way,
    // of a cache that sorts them at once, and of one handed on after three questions.
    let modes = [
        (true, "passes"),
        (false, "passes"),
        (true, "sorted"),
        (false, "handed on"),
    ];
    for (seen_first, mode) in modes {
        let mut cache = if mode == "sorted" {
            SeenCache::for_many()
        } else {
            SeenCache::default()
        };
        for q in 0..2 * PASSES_BEFORE_SORTING + 4 {
            if mode == "handed on" && q == 3 {
                cache = cache.into_many();
            }
            let (u, seen) = if (q % 2 == 0) == seen_first {
                let u = match q % 3 {
                    0 => urls[7].clone(),
                    1 => old.to_owned(),
                    _ => urls[q * 97].clone(),
                };
                (u, true)
            } else {
                (format!("http://c.example/{q}"), false)
            };
            assert_eq!(
                cache.contains(&s, &w.id, &u).expect("seen"),
                seen,
                "question {q} ({mode}): {u}"
            );
        }
    }
    // A cache handed on keeps the keys it read: the check reads its seen set once.
    let cache = SeenCache::default();
    assert!(!cache
        .contains(&s, &w.id, "http://c.example/0")
        .expect("seen"));
    gone_at(&s, &w, at + HOUR, &["http://d.example/later"], &[]);
    let cache = cache.into_many();
    assert!(!cache
        .contains(&s, &w.id, "http://d.example/later")
        .expect("seen"));
    assert!(cache.contains(&s, &w.id, &urls[2_999]).expect("seen"));
    assert!(SeenCache::default()
        .contains(&s, &w.id, "http://d.example/later")
        .expect("seen"));
}

#[test]
fn a_malformed_bucket_is_corrupt_not_a_panic() {
    let s = Store::temporary().expect("store");
    let w = watch("http://a.example/");
    s.insert_watch(&w, &state(10)).expect("insert");
    for bad in [&[][..], &[1, 2, 3][..], &[9; 25][..], &[1; 20][..]] {
        s.db()
            .expect("db")
            .insert(keys::seen_bucket(&w.id, 7), bad)
            .expect("insert");
        assert!(matches!(
            s.is_seen(&w.id, "http://a.example/x"),
            Err(StoreError::Corrupt { .. })
        ));
        assert!(matches!(s.seen_len(&w.id), Err(StoreError::Corrupt { .. })));
    }
}

/// One step of the model test: a check after `hours`, with these URLs leaving the page
/// (indices into a universe) and maybe one of them becoming an item.
#[derive(Debug, Clone)]
struct Step {
    hours: i64,
    gone: Vec<usize>,
    item: Option<usize>,
}

fn steps() -> impl Strategy<Value = Vec<Step>> {
    let step = (
        prop_oneof![3 => 1i64..=2, 1 => 1i64..=120],
        prop::collection::vec(0usize..300, 0..12),
        prop::option::weighted(0.1, 0usize..300),
    )
        .prop_map(|(hours, gone, item)| Step { hours, gone, item });
    prop::collection::vec(step, 100..300)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// The store agrees with a model of each URL's latest departure: a URL never left is
    /// not seen; one that no sweep could forget (its latest departure younger than the
    /// rule, or a kept item linking to it, at each sweep since) is seen; one whose latest
    /// departure was past the rule at the last sweep even with a bucket's span added,
    /// and that no item kept then linked to, is forgotten.
    #[test]
    fn the_store_agrees_with_a_model_of_latest_departures(steps in steps()) {
        let s = Store::temporary().expect("store");
        s.set_items_kept(5);
        let w = watch("http://a.example/");
        s.insert_watch(&w, &state(10)).expect("insert");
        let mut model: HashMap<usize, Stamp> = HashMap::new();
        // The URLs no sweep was allowed to forget yet.
        let mut must: HashSet<usize> = HashSet::new();
        // The time of each check, by check count.
        let mut times: Vec<i64> = vec![0];
        let mut items: Vec<usize> = Vec::new();
        let mut at = 1_000_000i64;
        let mut last_sweep: Option<(i64, u64, Vec<usize>)> = None;
        for step in &steps {
            at += step.hours * HOUR;
            let c = times.len() as u64;
            times.push(at);
            let gone: Vec<String> = step.gone.iter().map(|&n| url(n)).collect();
            let refs: Vec<&str> = gone.iter().map(String::as_str).collect();
            let new: Vec<String> = step.item.iter().map(|&n| url(n)).collect();
            let new_refs: Vec<&str> = new.iter().map(String::as_str).collect();
            if c.is_multiple_of(SWEEP_EVERY) {
                // The sweep reads the items kept before this check's own; it may forget
                // what its rule allows.
                let kept: Vec<usize> = items.iter().rev().take(5).copied().collect();
                must.retain(|n| !model[n].expired(at, c) || kept.contains(n));
                last_sweep = Some((at, c, kept));
            }
            gone_at(&s, &w, at, &refs, &new_refs);
            for &n in &step.gone {
                model.insert(n, Stamp::new(at, c));
                must.insert(n);
            }
            items.extend(step.item);
            let history = s.history(&w.id);
            for n in 0..300 {
                let u = url(n);
                let seen = history.is_seen(&u).expect("seen");
                if n % 16 == c as usize % 16 {
                    prop_assert_eq!(seen, s.is_seen(&w.id, &u).expect("seen"));
                }
                match model.get(&n) {
                    None => prop_assert!(!seen, "{} never left", u),
                    Some(st) => {
                        if must.contains(&n) {
                            prop_assert!(seen, "{} left at {:?}, now {} {}", u, st, at, c);
                        }
                        // With the span a bucket may add: the latest departure in its
                        // bucket is at most that many checks later.
                        let span_end = usize::try_from(u64::from(st.checks) + BUCKET_SPAN_CHECKS)
                            .expect("small")
                            .min(times.len() - 1);
                        let latest = Stamp::new(times[span_end], span_end as u64);
                        if let Some((t, k, kept_then)) = &last_sweep {
                            if latest.expired(*t, *k) && !kept_then.contains(&n) {
                                prop_assert!(!seen, "{} left at {:?}, swept at {} {}", u, st, t, k);
                            }
                        }
                    }
                }
            }
        }
        let len = s.seen_len(&w.id).expect("len");
        prop_assert!(must.len() <= len && len <= model.len());
    }
}
