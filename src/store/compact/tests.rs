use super::super::pg::tests::{item, state, watch};
use super::super::suite::check_at;
use super::*;
use crate::model::{Link, Watch};

const MB: u64 = 1024 * 1024;

fn policy(ratio: u64, min_bytes: u64) -> CompactPolicy {
    CompactPolicy {
        ratio,
        min_bytes,
        every: None,
    }
}

/// Opens the store at `path`, which this process may have just closed (sled's
/// background threads can hold its lock a moment longer).
fn open(path: &Path, policy: CompactPolicy) -> Store {
    for _ in 0..250 {
        match Store::open_with(path, 4 * MB, policy) {
            Err(StoreError::Locked { .. }) => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            other => return other.expect("open"),
        }
    }
    panic!("{} stays locked", path.display());
}

/// Every key and value of every tree.
fn dump(s: &Store) -> Vec<(Vec<u8>, Vec<u8>, Vec<u8>)> {
    let db = s.db().expect("db");
    let mut out = Vec::new();
    for name in db.tree_names() {
        for kv in &db.open_tree(&name).expect("tree") {
            let (k, v) = kv.expect("kv");
            out.push((name.to_vec(), k.to_vec(), v.to_vec()));
        }
    }
    out
}

fn links(n: usize, round: usize) -> Vec<Link> {
    (0..n)
        .map(|i| {
            Link::new(
                format!("link {i} of a page that has many"),
                format!("http://a.example/{}", i + round),
            )
        })
        .collect()
}

/// A store with watches, items, seen URLs, link arrays and states, rewritten often
/// enough that its file holds much more than its live data.
fn busy(s: &Store, watches: usize, checks: i64) -> Vec<Watch> {
    let ws: Vec<Watch> = (0..watches)
        .map(|i| watch(&format!("http://w{i}.example/")))
        .collect();
    for w in &ws {
        s.insert_watch(w, &state(0)).expect("insert");
    }
    for c in 0..checks {
        for w in &ws {
            let at = 1_000 + c * 60;
            let new = format!("{}item/{c}", w.url);
            let seen = format!("http://a.example/{c}");
            check_at(
                s,
                w,
                at,
                links(200, c as usize),
                &[seen.as_str()],
                vec![item(&new, at)],
            );
        }
    }
    ws
}

#[test]
fn due_is_off_below_the_minimum_and_at_ratio_zero() {
    let p = policy(4, 32 * MB);
    assert!(!due(31 * MB, Some(MB), 0, &p), "below the minimum");
    assert!(
        !due(31 * MB, None, 0, &p),
        "below the minimum, live unknown"
    );
    assert!(!due(500 * MB, Some(MB), 0, &policy(0, 32 * MB)), "off");
    assert!(!due(500 * MB, None, 0, &policy(0, 32 * MB)), "off");
}

#[test]
fn due_compares_the_file_with_ratio_times_live() {
    let p = policy(4, 32 * MB);
    assert!(due(32 * MB, None, 0, &p), "unknown live: measure");
    assert!(!due(40 * MB, Some(10 * MB), 0, &p), "exactly 4 times");
    assert!(due(40 * MB + 1, Some(10 * MB), 0, &p));
    assert!(!due(100 * MB, Some(30 * MB), 0, &p));
    assert!(due(100 * MB, Some(20 * MB), 0, &p));
    assert!(!due(u64::MAX, Some(u64::MAX / 2), 0, &p), "no overflow");
}

#[test]
fn due_waits_until_the_file_passes_what_the_last_compaction_left_by_half() {
    let p = policy(2, MB);
    // A copy that is itself 3 times its live data is not copied again at once...
    assert!(!due(30 * MB, Some(10 * MB), 30 * MB, &p));
    assert!(!due(45 * MB - 1, Some(10 * MB), 30 * MB, &p));
    // ...only once the file has grown by half since.
    assert!(due(45 * MB, Some(10 * MB), 30 * MB, &p));
}

#[test]
fn the_hint_round_trips_and_a_bad_one_is_unknown() {
    let dir = tempfile::tempdir().expect("tempdir");
    assert_eq!(Hint::read(dir.path()), Hint::default());
    let h = Hint {
        live: Some(12_345),
        left: 678,
    };
    h.write(dir.path()).expect("write");
    assert_eq!(Hint::read(dir.path()), h);
    fs::write(dir.path().join(HINT_FILE), "live=x left=").expect("write");
    assert_eq!(Hint::read(dir.path()), Hint::default());
}

#[test]
fn compaction_keeps_every_key_and_value_and_shrinks_the_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("data");
    let s = open(&path, CompactPolicy::off());
    let ws = busy(&s, 4, 80);
    s.flush().expect("flush");
    let before = dump(&s);
    let stamps: Vec<_> = ws
        .iter()
        .map(|w| s.feed_stamp(&w.id).expect("stamp").expect("present"))
        .collect();
    let size_before = s.size_on_disk();

    let done = s.compact().expect("compact");
    assert_eq!(dump(&s), before, "the same keys and values");
    assert_eq!(done.keys, before.len() as u64);
    let live: u64 = before
        .iter()
        .map(|(_, k, v)| (k.len() + v.len()) as u64)
        .sum();
    assert_eq!(done.live_bytes, live);
    assert!(
        s.size_on_disk() < size_before / 2,
        "{} bytes after, {size_before} before",
        s.size_on_disk()
    );
    assert!(!copy_dir(&path).exists() && !old_dir(&path).exists() && !marker(&path).exists());

    // The store works on, and survives a reopen with the same data.
    let w = &ws[0];
    check_at(
        &s,
        w,
        999_999,
        links(3, 0),
        &[],
        vec![item("http://n.example/", 9)],
    );
    let after = dump(&s);
    drop(s);
    let s = open(&path, CompactPolicy::off());
    assert_eq!(dump(&s), after);
    // Feed stamps go on increasing across the copy (ETags never repeat).
    let moved = s.feed_stamp(&w.id).expect("stamp").expect("present");
    assert!(
        stamps.iter().all(|st| moved.seq > st.seq),
        "{moved:?} {stamps:?}"
    );
}

#[test]
fn feed_stamps_keep_increasing_across_a_compaction_after_many_reopens() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("data");
    let w = watch("http://a.example/");
    let mut last = 0;
    // Every open moves sled's ID generator up by 2,000,000.
    for round in 0..4 {
        let s = open(&path, CompactPolicy::off());
        if round == 0 {
            s.insert_watch(&w, &state(0)).expect("insert");
        }
        check_at(
            &s,
            &w,
            100 + round,
            links(2, 0),
            &[],
            vec![item(&format!("http://a.example/{round}"), 1)],
        );
        let seq = s.feed_stamp(&w.id).expect("stamp").expect("present").seq;
        assert!(seq > last);
        last = seq;
    }
    let s = open(&path, CompactPolicy::off());
    s.compact().expect("compact");
    check_at(
        &s,
        &w,
        900,
        links(2, 0),
        &[],
        vec![item("http://a.example/x", 1)],
    );
    let seq = s.feed_stamp(&w.id).expect("stamp").expect("present").seq;
    assert!(seq > last, "{seq} after the compaction, {last} before");
    drop(s);
    let s = open(&path, CompactPolicy::off());
    check_at(
        &s,
        &w,
        901,
        links(2, 0),
        &[],
        vec![item("http://a.example/y", 1)],
    );
    assert!(s.feed_stamp(&w.id).expect("stamp").expect("present").seq > seq);
}

#[test]
fn writes_during_compactions_are_kept() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("data");
    let s = open(&path, CompactPolicy::off());
    busy(&s, 4, 80);
    let writers: Vec<_> = (0..3)
        .map(|t| {
            let s = s.clone();
            std::thread::spawn(move || {
                let mut ws = Vec::new();
                for i in 0..150 {
                    let w = watch(&format!("http://t{t}-{i}.example/"));
                    assert!(s.insert_watch(&w, &state(i)).expect("insert"));
                    let sent = check_at(
                        &s,
                        &w,
                        50 + i,
                        links(20, i as usize),
                        &[],
                        vec![item(&format!("{}x", w.url), i)],
                    );
                    // Read back at once: a write that went to the old database after the
                    // copy began would be missing here or at the end.
                    let st = s.state(&w.id).expect("state").expect("present");
                    assert_eq!(st.checks, sent.checks);
                    assert_eq!(s.items(&w.id, 10).expect("items").len(), 1);
                    ws.push((w, st));
                }
                ws
            })
        })
        .collect();
    let mut compactions = 0;
    while compactions < 3 || !writers.iter().all(std::thread::JoinHandle::is_finished) {
        s.compact().expect("compact");
        compactions += 1;
        // Back-to-back compactions would starve the writers (the gate is not fair).
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    eprintln!("{compactions} compactions");
    let written: Vec<_> = writers
        .into_iter()
        .flat_map(|h| h.join().expect("writer"))
        .collect();
    assert_eq!(written.len(), 450);
    let check = |s: &Store| {
        for (w, st) in &written {
            assert_eq!(s.watch(&w.id).expect("watch").as_ref(), Some(w));
            assert_eq!(s.state(&w.id).expect("state").as_ref(), Some(st));
            assert_eq!(s.items(&w.id, 10).expect("items").len(), 1, "{}", w.url);
        }
        assert_eq!(s.watches().expect("watches").len(), 454);
    };
    check(&s);
    drop(s);
    check(&open(&path, CompactPolicy::off()));
}

#[test]
fn compaction_from_inside_an_operation_is_refused_not_a_deadlock() {
    let s = Store::open_with(
        &tempfile::tempdir().expect("tempdir").path().join("d"),
        MB,
        CompactPolicy::off(),
    )
    .expect("open");
    let _db = s.db().expect("db");
    assert!(s.compact().is_err());
}

#[test]
fn maybe_compact_measures_then_compacts_and_not_again_at_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("data");
    let s = open(&path, policy(2, MB));
    busy(&s, 4, 80);
    let before = dump(&s);
    match s.maybe_compact().expect("maybe") {
        Outcome::Compacted(c) => assert!(c.after < c.before, "{c:?}"),
        other => panic!("expected a compaction, got {other:?}"),
    }
    assert_eq!(dump(&s), before);
    assert_eq!(s.maybe_compact().expect("maybe"), Outcome::NotDue);
    let hint = Hint::read(&path);
    assert!(hint.live.is_some() && hint.left > 0, "{hint:?}");
}

#[test]
fn a_store_that_grew_is_compacted_at_open() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("data");
    let before = {
        let s = open(&path, CompactPolicy::off());
        busy(&s, 4, 80);
        dump(&s)
    };
    let grown = open(&path, CompactPolicy::off()).size_on_disk();
    let s = open(&path, policy(2, MB));
    assert!(
        s.size_on_disk() < grown / 2,
        "{} of {grown}",
        s.size_on_disk()
    );
    assert_eq!(dump(&s), before);
}

/// A store at `path` holding watches for these URLs (compaction off).
fn store_with(path: &Path, urls: &[&str]) {
    let s = open(path, CompactPolicy::off());
    for u in urls {
        s.insert_watch(&watch(u), &state(1)).expect("insert");
    }
    s.flush().expect("flush");
}

fn urls_in(path: &Path) -> Vec<String> {
    open(path, CompactPolicy::off())
        .watches()
        .expect("watches")
        .into_iter()
        .map(|w| w.url)
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect()
}

const A: &str = "http://a.example/";
const B: &str = "http://b.example/";

/// The store at `path` (watch A) and a complete copy at `<path>.compact` (watches A
/// and B, so the test sees which one opens).
fn store_and_copy(path: &Path) {
    store_with(path, &[A]);
    store_with(&copy_dir(path), &[A, B]);
}

fn nothing_left(path: &Path) {
    for p in [copy_dir(path), old_dir(path), marker(path)] {
        assert!(!p.exists(), "{} is left", p.display());
    }
}

#[test]
fn a_crash_during_the_copy_keeps_the_store_and_drops_the_copy() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("data");
    store_and_copy(&path);
    assert_eq!(urls_in(&path), vec![A]);
    nothing_left(&path);
    // A copy that is not even a database yet.
    fs::create_dir_all(copy_dir(&path)).expect("mkdir");
    fs::write(copy_dir(&path).join("db"), b"half").expect("write");
    assert_eq!(urls_in(&path), vec![A]);
    nothing_left(&path);
}

#[test]
fn a_crash_after_the_marker_swaps_the_copy_in() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("data");
    store_and_copy(&path);
    write_marker(&path).expect("marker");
    assert_eq!(urls_in(&path), vec![A, B]);
    nothing_left(&path);
}

#[test]
fn a_crash_between_the_renames_swaps_the_copy_in() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("data");
    store_and_copy(&path);
    write_marker(&path).expect("marker");
    fs::rename(&path, old_dir(&path)).expect("rename");
    assert!(!path.exists());
    assert_eq!(urls_in(&path), vec![A, B]);
    nothing_left(&path);
}

#[test]
fn a_crash_after_the_renames_removes_the_old_store() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("data");
    store_and_copy(&path);
    write_marker(&path).expect("marker");
    fs::rename(&path, old_dir(&path)).expect("rename");
    fs::rename(copy_dir(&path), &path).expect("rename");
    assert_eq!(urls_in(&path), vec![A, B]);
    nothing_left(&path);
    // ... and after the old one is gone, only the marker.
    write_marker(&path).expect("marker");
    assert_eq!(urls_in(&path), vec![A, B]);
    nothing_left(&path);
}

#[test]
fn an_old_store_without_its_replacement_is_put_back() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("data");
    store_with(&path, &[A]);
    fs::rename(&path, old_dir(&path)).expect("rename");
    assert_eq!(urls_in(&path), vec![A]);
    nothing_left(&path);
}

#[test]
fn an_open_while_another_handle_holds_the_store_leaves_its_copy_alone() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("data");
    let held = open(&path, CompactPolicy::off());
    // A copy under way (no marker yet), as the holder's compaction writes it.
    fs::create_dir_all(copy_dir(&path)).expect("mkdir");
    match Store::open_with(&path, MB, CompactPolicy::off()) {
        Err(StoreError::Locked { .. }) => {}
        other => panic!("expected Locked, got {other:?}"),
    }
    assert!(copy_dir(&path).exists(), "the holder's copy was removed");
    drop(held);
}

#[test]
fn the_timer_compacts_a_running_store_and_ends_with_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("data");
    let s = open(
        &path,
        CompactPolicy {
            ratio: 2,
            min_bytes: MB,
            every: Some(std::time::Duration::from_millis(20)),
        },
    );
    let before = {
        busy(&s, 4, 80);
        dump(&s)
    };
    // The timer's thread compacts on its own (the hint records what it left).
    let mut looks = 0;
    while Hint::read(&path).left == 0 {
        looks += 1;
        assert!(looks < 3_000, "no compaction by the timer");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert_eq!(dump(&s), before);
    drop(s);
    // The thread ends with the store: the store opens again.
    assert_eq!(dump(&open(&path, CompactPolicy::off())), before);
}
