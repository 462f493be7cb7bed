use super::suite::check_at;
use super::*;
use crate::model::{Item, Status};
use crate::schedule::Adaptive;

pub(super) fn watch(url: &str) -> Watch {
    Watch::of_url(url, 100)
}

pub(super) fn state(next: i64) -> WatchState {
    WatchState::new(
        next,
        Adaptive {
            a: 60.0,
            b: 60.0,
            c: 0.0,
        },
    )
}

pub(super) fn item(url: &str, t: i64) -> Item {
    Item {
        id: Item::id_for(url),
        title: format!("title of {url}"),
        link: url.to_owned(),
        first_seen: t,
        ..Item::default()
    }
}

#[test]
fn insert_is_idempotent_and_listed() {
    let s = Store::temporary().expect("store");
    let w = watch("http://a.example/");
    assert!(s.insert_watch(&w, &state(10)).expect("insert"));
    assert!(!s.insert_watch(&w, &state(20)).expect("insert again"));
    assert_eq!(s.watches().expect("list"), vec![w.clone()]);
    assert_eq!(
        s.state(&w.id).expect("state").expect("present").next_check,
        10
    );
    assert_eq!(s.due_len(), 1, "the second insert must not add a due entry");
}

#[test]
fn due_index_orders_by_time_and_follows_commits() {
    let s = Store::temporary().expect("store");
    let a = watch("http://a.example/");
    let b = watch("http://b.example/");
    s.insert_watch(&a, &state(30)).expect("insert");
    s.insert_watch(&b, &state(10)).expect("insert");
    let due: Vec<_> = s
        .due(100, 10)
        .expect("due")
        .into_iter()
        .map(|(_, id)| id)
        .collect();
    assert_eq!(due, vec![b.id.clone(), a.id.clone()]);
    assert!(s.due(9, 10).expect("due").is_empty());
    assert_eq!(s.next_due().expect("next"), Some(10));

    // Rescheduling b moves its due entry; the old one is gone.
    let prev = s.state(&b.id).expect("state").expect("present");
    let mut next = prev.clone();
    next.next_check = 500;
    s.commit_check(&b.id, &prev, &next, &CheckRecord::default())
        .expect("commit");
    assert_eq!(s.due(100, 10).expect("due").len(), 1);
    assert_eq!(s.next_due().expect("next"), Some(30));
    assert_eq!(s.due_len(), 2);
}

#[test]
fn commit_stores_items_newest_first_links_and_seen() {
    let s = Store::temporary().expect("store");
    let w = watch("http://a.example/");
    s.insert_watch(&w, &state(10)).expect("insert");
    let prev = s.state(&w.id).expect("state").expect("present");
    let mut st = prev.clone();
    st.item_seq = 2;
    let record = CheckRecord {
        links: Some(vec![Link::new("x", "http://a.example/x")]),
        seen_urls: vec!["http://a.example/x".into()],
        // Oldest first.
        new_items: vec![
            item("http://a.example/old", 1),
            item("http://a.example/new", 2),
        ],
        ..CheckRecord::default()
    };
    s.commit_check(&w.id, &prev, &st, &record).expect("commit");
    let items = s.items(&w.id, 10).expect("items");
    assert_eq!(
        items.iter().map(|i| i.link.as_str()).collect::<Vec<_>>(),
        ["http://a.example/new", "http://a.example/old"]
    );
    assert_eq!(s.items(&w.id, 1).expect("items").len(), 1);
    assert_eq!(
        s.links(&w.id).expect("links"),
        vec![Link::new("x", "http://a.example/x")]
    );
    assert!(s.is_seen(&w.id, "http://a.example/x").expect("seen"));
    assert!(!s.is_seen(&w.id, "http://a.example/y").expect("seen"));

    // A second commit continues the sequence.
    let prev = st.clone();
    let mut st2 = prev.clone();
    st2.item_seq = 3;
    let rec2 = CheckRecord {
        new_items: vec![item("http://a.example/newest", 3)],
        ..CheckRecord::default()
    };
    s.commit_check(&w.id, &prev, &st2, &rec2).expect("commit");
    assert_eq!(
        s.items(&w.id, 10).expect("items")[0].link,
        "http://a.example/newest"
    );
    assert_eq!(s.items(&w.id, 10).expect("items").len(), 3);
}

#[test]
fn remove_deletes_everything_of_one_watch_only() {
    let s = Store::temporary().expect("store");
    let a = watch("http://a.example/");
    let b = watch("http://b.example/");
    for w in [&a, &b] {
        s.insert_watch(w, &state(10)).expect("insert");
        let prev = s.state(&w.id).expect("state").expect("present");
        let mut st = prev.clone();
        st.item_seq = 1;
        let rec = CheckRecord {
            links: Some(vec![Link::new("x", "http://x/")]),
            seen_urls: vec!["http://x/".into()],
            new_items: vec![item(&format!("{}1", w.url), 1)],
            ..CheckRecord::default()
        };
        s.commit_check(&w.id, &prev, &st, &rec).expect("commit");
    }
    assert!(s.remove_watch(&a.id).expect("remove"));
    assert!(!s.remove_watch(&a.id).expect("remove again"));
    assert!(s.watch(&a.id).expect("get").is_none());
    assert!(s.items(&a.id, 10).expect("items").is_empty());
    assert!(!s.is_seen(&a.id, "http://x/").expect("seen"));
    assert_eq!(s.due_len(), 1);
    assert_eq!(s.items(&b.id, 10).expect("items").len(), 1);
    assert!(s.is_seen(&b.id, "http://x/").expect("seen"));
    // Committing to a removed watch fails instead of resurrecting it.
    let st = state(10);
    assert!(matches!(
        s.commit_check(&a.id, &st, &st, &CheckRecord::default()),
        Err(StoreError::NoWatch(_))
    ));
}

#[test]
fn second_open_of_a_held_store_fails_at_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let _first = Store::open(dir.path(), 1 << 20).expect("open");
    match Store::open(dir.path(), 1 << 20) {
        Err(StoreError::Locked { .. }) => {}
        other => panic!("expected Locked, got {other:?}"),
    }
}

#[test]
fn data_survives_reopen_and_newer_schema_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let w = watch("http://a.example/");
    {
        let s = Store::open(dir.path(), 1 << 20).expect("open");
        s.insert_watch(&w, &state(10)).expect("insert");
    }
    {
        let s = super::suite::open_when_free(dir.path());
        assert_eq!(s.watches().expect("list"), vec![w.clone()]);
        s.db()
            .expect("db")
            .insert(keys::SCHEMA, &(SCHEMA_VERSION + 1).to_be_bytes())
            .expect("poke");
        s.flush().expect("flush");
    }
    match super::suite::open_result_when_free(dir.path()) {
        Err(StoreError::NewerSchema { found, .. }) => assert_eq!(found, SCHEMA_VERSION + 1),
        other => panic!("expected NewerSchema, got {other:?}"),
    }
}

#[test]
fn only_the_newest_items_are_kept() {
    let s = Store::temporary().expect("store");
    s.set_items_kept(ITEMS_KEPT as usize);
    let w = watch("http://a.example/");
    s.insert_watch(&w, &state(10)).expect("insert");
    let mut prev = s.state(&w.id).expect("state").expect("present");
    // The largest window; three commits of 400 items: 1,200 in all, the oldest 200
    // dropped.
    for round in 0..3u64 {
        let mut st = prev.clone();
        st.item_seq += 400;
        let rec = CheckRecord {
            new_items: (0..400)
                .map(|i| item(&format!("http://a.example/{}", round * 400 + i), 1))
                .collect(),
            ..CheckRecord::default()
        };
        s.commit_check(&w.id, &prev, &st, &rec).expect("commit");
        prev = st;
    }
    let items = s.items(&w.id, usize::MAX).expect("items");
    assert_eq!(items.len() as u64, s.items_kept());
    assert_eq!(items[0].link, "http://a.example/1199");
    assert_eq!(items.last().expect("last").link, "http://a.example/200");
}

/// Keys of watch `w` of this kind.
fn count(s: &Store, kind: u8, w: &Watch) -> usize {
    s.db()
        .expect("db")
        .scan_prefix(keys::watch_key(kind, &w.id))
        .count()
}

#[test]
fn a_store_reopened_with_a_smaller_window_drops_older_items_and_chunks_on_the_next_commit() {
    let dir = tempfile::tempdir().expect("tempdir");
    let w = watch("http://a.example/");
    let commit = |s: &Store, new: Vec<Item>| {
        let prev = s.state(&w.id).expect("state").expect("present");
        let mut st = prev.clone();
        st.item_seq += new.len() as u64;
        let rec = CheckRecord {
            new_items: new,
            ..CheckRecord::default()
        };
        s.commit_check(&w.id, &prev, &st, &rec).expect("commit");
    };
    {
        // An older version's store: a thousand items, packed but for the newest.
        let s = Store::open(dir.path(), 1 << 20).expect("open");
        s.set_items_kept(ITEMS_KEPT as usize);
        s.insert_watch(&w, &state(10)).expect("insert");
        for r in 0..10u64 {
            commit(
                &s,
                (100 * r..100 * r + 100)
                    .map(|n| item(&format!("http://a.example/{n}"), 1))
                    .collect(),
            );
        }
        assert_eq!(s.items(&w.id, usize::MAX).expect("items").len(), 1000);
        assert!(count(&s, keys::ITEM_CHUNK, &w) >= 8, "packed");
    }
    let s = super::suite::open_when_free(dir.path());
    assert_eq!(s.items_kept(), crate::model::DEFAULT_ITEMS_KEPT);
    commit(&s, Vec::new());
    let items = s.items(&w.id, usize::MAX).expect("items");
    let links: Vec<&str> = items.iter().map(|i| i.link.as_str()).collect();
    let want: Vec<String> = (900..1000)
        .rev()
        .map(|n| format!("http://a.example/{n}"))
        .collect();
    assert_eq!(links, want);
    assert_eq!(
        count(&s, keys::ITEM_CHUNK, &w),
        0,
        "every chunk was outside"
    );
    assert_eq!(count(&s, keys::ITEM, &w), 100, "the window, one by one");
    // From now on a commit keeps it so, and nothing is packed.
    commit(&s, vec![item("http://a.example/new", 2)]);
    assert_eq!(count(&s, keys::ITEM, &w), 100);
    assert_eq!(count(&s, keys::ITEM_CHUNK, &w), 0);
    let items = s.items(&w.id, usize::MAX).expect("items");
    assert_eq!(items[0].link, "http://a.example/new");
    assert_eq!(items[99].link, "http://a.example/901");
}

#[test]
fn a_retitled_item_keeps_its_place_and_takes_the_new_title() {
    let s = Store::temporary().expect("store");
    let w = watch("http://a.example/");
    s.insert_watch(&w, &state(10)).expect("insert");
    let prev = s.state(&w.id).expect("state").expect("present");
    let mut st = prev.clone();
    st.item_seq = 3;
    let record = CheckRecord {
        new_items: (1..=3)
            .map(|n| item(&format!("http://a.example/{n}"), n))
            .collect(),
        ..CheckRecord::default()
    };
    s.commit_check(&w.id, &prev, &st, &record).expect("commit");
    let prev = s.state(&w.id).expect("state").expect("present");
    // The newest and the oldest, in one check.
    let edit = |n: i64| {
        let mut edited = item(&format!("http://a.example/{n}"), 5);
        edited.title = format!("Edited title {n}");
        edited
    };
    let record = CheckRecord {
        retitled: vec![edit(3), edit(1)],
        ..CheckRecord::default()
    };
    s.commit_check(&w.id, &prev, &prev.clone(), &record)
        .expect("commit");
    let items = s.items(&w.id, 10).expect("items");
    assert_eq!(items.len(), 3, "no new item");
    for (at, n) in [(0, 3), (2, 1)] {
        assert_eq!(items[at].link, format!("http://a.example/{n}"));
        assert_eq!(items[at].title, format!("Edited title {n}"));
        assert_eq!(items[at].first_seen, n, "first seen stays");
        assert_eq!(items[at].updated, Some(5), "dated by the edit");
    }
    assert!(!items[1].title.starts_with("Edited"));
    assert_eq!(items[1].updated, None);
}

#[test]
fn edits_and_webhook_outcomes_on_a_full_disk_are_refused_as_full_and_keep_the_watch() {
    let s = Store::temporary().expect("store");
    let w = watch("http://a.example/");
    s.insert_watch(&w, &state(10)).expect("insert");
    s.simulate_full_disk(true);
    let mut edited = w.clone();
    edited.title = Some("Edited".into());
    let e = s
        .update_watch(&edited, true, None, None)
        .expect_err("an edit on a full disk");
    assert!(e.is_full(), "{e}");
    assert!(s.failing().is_some(), "the store's health knows");
    let e = s
        .set_webhook_outcome(&w.id, 20, Some("down".into()))
        .expect_err("a webhook outcome on a full disk");
    assert!(e.is_full(), "{e}");
    s.simulate_full_disk(false);
    s.recover().expect("recovered");
    assert_eq!(s.watch(&w.id).expect("read").expect("kept").title, None);
}

/// A list page's links: `n` stories, the newest (`first + n - 1`) on top.
fn stories(first: usize, n: usize) -> Vec<Link> {
    (first..first + n)
        .rev()
        .map(|i| Link::new(format!("story {i}"), format!("http://a.example/{i}")))
        .collect()
}

#[test]
fn the_link_array_survives_many_delta_commits_and_deltas_stay_bounded() {
    let s = Store::temporary().expect("store");
    let w = watch("http://a.example/");
    s.insert_watch(&w, &state(10)).expect("insert");
    let page = |first: usize| stories(first, 200);
    for round in 0..150 {
        let links = page(round * 2);
        check_at(
            &s,
            &w,
            100 + i64::try_from(round).expect("small"),
            links.clone(),
            &[],
            Vec::new(),
        );
        assert_eq!(s.links(&w.id).expect("links"), links, "round {round}");
    }
    let deltas = s
        .db()
        .expect("db")
        .scan_prefix(keys::watch_key(keys::LINK_DELTA, &w.id))
        .count();
    assert!(deltas <= links::MAX_DELTAS, "{deltas} deltas");
    // A rebaseline drops the array and its deltas.
    s.update_watch(&w, true, None, None).expect("edit");
    assert!(s.links(&w.id).expect("links").is_empty());
    assert!(s.is_seen(&w.id, "http://a.example/298").expect("seen"));
    assert!(s.remove_watch(&w.id).expect("remove"));
    assert_eq!(
        s.db().expect("db").len(),
        1,
        "only the schema version is left"
    );
}

#[test]
fn the_feed_stamp_moves_with_what_the_feed_shows_only() {
    let s = Store::temporary().expect("store");
    let w = watch("http://a.example/");
    s.insert_watch(&w, &state(10)).expect("insert");
    let stamp = || s.feed_stamp(&w.id).expect("stamp").expect("present");
    let links = vec![Link::new("x", "http://a.example/x")];
    let s0 = stamp();
    // The baseline shows the "now watched" item: a change.
    check_at(&s, &w, 100, links.clone(), &[], Vec::new());
    let st = s.state(&w.id).expect("state").expect("present");
    let s1 = stamp();
    assert!(s1.seq > s0.seq);
    // A check that finds nothing new: the same stamp.
    let mut same = st.clone();
    same.checks += 1;
    same.last_check = Some(160);
    s.commit_check(&w.id, &st, &same, &CheckRecord::default())
        .expect("commit");
    assert_eq!(stamp(), s1);
    // A new item.
    check_at(
        &s,
        &w,
        200,
        links.clone(),
        &[],
        vec![item("http://a.example/n", 200)],
    );
    let s2 = stamp();
    assert!(s2.seq > s1.seq);
    // An error: a change, with the time it began.
    let prev = s.state(&w.id).expect("state").expect("present");
    let mut failed = prev.clone();
    failed.status = Status::Error;
    failed.error = Some("down".into());
    failed.last_check = Some(300);
    failed.consecutive_errors = 1;
    s.commit_check(&w.id, &prev, &failed, &CheckRecord::default())
        .expect("commit");
    let s3 = stamp();
    assert!(s3.seq > s2.seq);
    assert_eq!(s3.error_since, Some(300));
    assert_eq!(s.failing_watches().expect("failing"), vec![w.id.clone()]);
    // An edit of the watch.
    let mut edited = w.clone();
    edited.title = Some("Mine".into());
    s.update_watch(&edited, false, None, None).expect("edit");
    let s4 = stamp();
    assert!(s4.seq > s3.seq);
    // Removed and added again: never an old sequence.
    assert!(s.remove_watch(&w.id).expect("remove"));
    assert_eq!(s.feed_stamp(&w.id).expect("stamp"), None);
    assert!(s.failing_watches().expect("failing").is_empty());
    s.insert_watch(&w, &state(10)).expect("insert");
    assert!(stamp().seq > s4.seq);
}

#[test]
fn a_schema_1_store_opens_migrated_with_its_data() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ok = watch("http://a.example/");
    let mut failing = watch("http://b.example/");
    failing.render = crate::model::Render::Browser;
    let mut failed_state = state(10);
    failed_state.status = Status::Error;
    failed_state.error_since = Some(50);
    let links = vec![Link::new("x", "http://a.example/x")];
    {
        // What the first schema wrote, key by key.
        let db = sled::Config::new().path(dir.path()).open().expect("sled");
        db.insert(keys::SCHEMA, &1u32.to_be_bytes()).expect("v");
        for (w, st) in [(&ok, state(10)), (&failing, failed_state.clone())] {
            db.insert(keys::watch_key(keys::WATCH, &w.id), encode(w))
                .expect("w");
            db.insert(keys::watch_key(keys::STATE, &w.id), encode(&st))
                .expect("s");
            db.insert(keys::due(st.next_check, &w.id), &[]).expect("d");
        }
        db.insert(
            keys::watch_key(keys::LINKS, &ok.id),
            codec::encode_links(&links),
        )
        .expect("l");
        db.insert(keys::seen(&ok.id, "http://a.example/old"), &[])
            .expect("u");
        db.insert(
            keys::item(&ok.id, 1),
            encode(&item("http://a.example/i", 5)),
        )
        .expect("i");
        db.flush().expect("flush");
    }
    let s = super::suite::open_when_free(dir.path());
    assert_eq!(s.watches().expect("watches").len(), 2);
    assert_eq!(s.links(&ok.id).expect("links"), links);
    assert!(s.is_seen(&ok.id, "http://a.example/old").expect("seen"));
    assert_eq!(s.items(&ok.id, 10).expect("items").len(), 1);
    assert_eq!(
        s.failing_watches().expect("failing"),
        vec![failing.id.clone()]
    );
    let mut renders = s.watch_renders().expect("renders");
    renders.sort_by_key(|r| format!("{r:?}"));
    assert_eq!(
        renders,
        [crate::model::Render::Browser, crate::model::Render::Plain]
    );
    assert!(s.feed_stamp(&ok.id).expect("stamp").is_some());
    assert_eq!(
        s.feed_stamp(&failing.id)
            .expect("stamp")
            .expect("present")
            .error_since,
        Some(50)
    );
    // A commit on the migrated store writes a delta over the old array; a sweep times
    // the URL seen without a time instead of forgetting it.
    let new_links = vec![Link::new("y", "http://a.example/y"), links[0].clone()];
    let mut at = 1_000;
    for _ in 0..seen::SWEEP_EVERY {
        at += 86_400;
        check_at(&s, &ok, at, new_links.clone(), &[], Vec::new());
    }
    assert_eq!(s.links(&ok.id).expect("links"), new_links);
    assert!(s.is_seen(&ok.id, "http://a.example/old").expect("seen"));
    drop(s);
    let s = super::suite::open_when_free(dir.path());
    assert_eq!(s.links(&ok.id).expect("links"), new_links);
}

#[test]
fn packed_history_reads_back_in_order_with_retitles_and_the_window() {
    // The largest window, and one whose start falls inside a chunk.
    for window in [ITEMS_KEPT, 250] {
        packed_history_with_window(window);
    }
}

fn packed_history_with_window(window: u64) {
    let s = Store::temporary().expect("store");
    s.set_items_kept(window as usize);
    let w = watch("http://a.example/");
    s.insert_watch(&w, &state(10)).expect("insert");
    // The model: every item ever added, oldest first.
    let mut model: Vec<Item> = Vec::new();
    let mut n = 0u64;
    for round in 0..700u64 {
        let prev = s.state(&w.id).expect("state").expect("present");
        let new: Vec<Item> = (0..(round % 5))
            .map(|_| {
                n += 1;
                item(&format!("http://a.example/{n}"), 1)
            })
            .collect();
        model.extend(new.iter().cloned());
        let mut retitled = Vec::new();
        if round % 7 == 3 && model.len() > 10 {
            // An old one (packed by now, unless still among the newest).
            let at = (round as usize * 31) % model.len();
            let mut it = model[at].clone();
            it.title = format!("edited in round {round}");
            // A retitled item carries the check's time; the stored one is dated by it.
            it.first_seen = 1000 + i64::try_from(round).expect("small");
            model[at].title.clone_from(&it.title);
            model[at].updated = Some(it.first_seen);
            retitled.push(it);
        }
        let mut st = prev.clone();
        st.item_seq += new.len() as u64;
        let rec = CheckRecord {
            new_items: new,
            retitled,
            ..CheckRecord::default()
        };
        s.commit_check(&w.id, &prev, &st, &rec).expect("commit");
    }
    let want: Vec<Item> = model.iter().rev().take(window as usize).cloned().collect();
    assert!(model.len() > window as usize, "{}", model.len());
    assert_eq!(s.items(&w.id, usize::MAX).expect("items"), want);
    assert_eq!(s.items(&w.id, 150).expect("items"), want[..150]);
    let singles = s
        .db()
        .expect("db")
        .scan_prefix(keys::watch_key(keys::ITEM, &w.id))
        .count() as u64;
    assert!(
        singles < items::HOT + items::CHUNK,
        "{singles} items one by one"
    );
    assert!(singles >= items::HOT.min(want.len() as u64));
    assert!(count(&s, keys::ITEM_CHUNK, &w) > 0, "some packed");
}

/// A commit takes the link array its check read as the old one while the store holds
/// the values it was read from, and reads the array again when another commit changed
/// it in between: either way the stored array is the new one.
#[test]
fn a_commit_reuses_the_array_its_check_read_only_while_it_stands() {
    let s = Store::temporary().expect("store");
    let w = watch("http://a.example/");
    s.insert_watch(&w, &state(10)).expect("insert");
    let page = |first: usize| stories(first, 60);
    let commit = |links: Vec<Link>, earlier: Option<ReadLinks>| {
        let prev = s.state(&w.id).expect("state").expect("present");
        let mut next = prev.clone();
        next.checks += 1;
        let record = CheckRecord {
            links: Some(links),
            earlier_links: earlier,
            ..CheckRecord::default()
        };
        s.commit_check(&w.id, &prev, &next, &record)
            .expect("commit");
    };
    commit(page(0), None);
    // Read, then commit against that read: deltas on top of the full array.
    for k in 1..6 {
        let (links, read) = s.links_read(&w.id).expect("read");
        assert!(read.is_some(), "sled says what it read");
        assert_eq!(links, page(k - 1));
        commit(page(k), Some(ReadLinks { read, links }));
        assert_eq!(s.links(&w.id).expect("links"), page(k), "check {k}");
    }
    // A read that another commit overtook: the store reads the array again.
    let (stale, read) = s.links_read(&w.id).expect("read");
    commit(page(10), None);
    commit(page(11), Some(ReadLinks { read, links: stale }));
    assert_eq!(s.links(&w.id).expect("links"), page(11));
    // And a later check still reads what was written.
    let (links, read) = s.links_read(&w.id).expect("read");
    commit(page(12), Some(ReadLinks { read, links }));
    assert_eq!(s.links(&w.id).expect("links"), page(12));
}
