//! The store's behaviour, one test body run on both backends: each `both!` test runs on
//! a temporary sled store and on a fresh PostgreSQL schema (skipped without a server,
//! failing under `CI=true`).

use super::pg::tests::{item, state, watch, TestDb};
use super::*;
use crate::model::{Item, Status};

/// `name` runs `body(&Store)` as `name::sled` and `name::postgres`.
macro_rules! both {
    ($name:ident, $body:expr) => {
        mod $name {
            use super::*;

            #[test]
            fn sled() {
                let store = Store::temporary().expect("store");
                ($body)(&store);
            }

            #[test]
            fn postgres() {
                let Some(db) = TestDb::open(stringify!($name)) else {
                    return;
                };
                let store = Store::postgres(db.opts.clone()).expect("store");
                ($body)(&store);
            }
        }
    };
}

/// Commits a check at `at` finding `urls` new (and `links` on the page); returns the
/// stored state after it.
fn check(s: &Store, w: &Watch, at: i64, next: i64, urls: &[&str]) -> WatchState {
    let prev = s.state(&w.id).expect("state").expect("present");
    let mut st = prev.clone();
    st.last_check = Some(at);
    st.next_check = next;
    st.status = Status::Ok;
    st.link_fingerprint = Some(format!("fp{at}"));
    st.item_seq += urls.len() as u64;
    let record = CheckRecord {
        links: Some(urls.iter().map(|u| Link::new("t", *u)).collect()),
        seen_urls: urls.iter().map(|u| (*u).to_owned()).collect(),
        new_items: urls.iter().map(|u| item(u, at)).collect(),
        ..CheckRecord::default()
    };
    s.commit_check(&w.id, &prev, &st, &record).expect("commit");
    s.state(&w.id).expect("state").expect("present")
}

both!(insert_is_idempotent_and_listed, |s: &Store| {
    let w = watch("http://a.example/");
    assert!(s.insert_watch(&w, &state(10)).expect("insert"));
    assert!(!s.insert_watch(&w, &state(20)).expect("insert again"));
    assert_eq!(s.watches().expect("list"), vec![w.clone()]);
    assert_eq!(s.watch(&w.id).expect("read"), Some(w.clone()));
    assert_eq!(
        s.state(&w.id).expect("state").expect("present").next_check,
        10
    );
    assert_eq!(s.due_len(), 1);
});

both!(due_is_by_time_and_follows_commits, |s: &Store| {
    let a = watch("http://a.example/");
    let b = watch("http://b.example/");
    s.insert_watch(&a, &state(30)).expect("insert");
    s.insert_watch(&b, &state(10)).expect("insert");
    let ids = |now| -> Vec<WatchId> {
        s.claim_due(now, 10)
            .expect("due")
            .into_iter()
            .map(|(_, id)| id)
            .collect()
    };
    assert_eq!(ids(5), Vec::<WatchId>::new());
    assert_eq!(ids(10), vec![b.id.clone()]);
    assert_eq!(ids(30), vec![b.id.clone(), a.id.clone()]);
    check(s, &b, 31, 100, &[]);
    assert_eq!(ids(40), vec![a.id.clone()]);
    assert_eq!(s.next_due().expect("next"), Some(30));
});

both!(items_newest_first_within_the_kept_window, |s: &Store| {
    let w = watch("http://a.example/");
    s.insert_watch(&w, &state(10)).expect("insert");
    check(s, &w, 10, 20, &["http://a.example/1", "http://a.example/2"]);
    let st = check(s, &w, 20, 30, &["http://a.example/3"]);
    assert_eq!(st.recent_checks.len(), 2, "each check is logged");
    assert_eq!(st.recent_checks[0].new_items, 1);
    assert_eq!(st.baseline_at, Some(10), "the first check set the baseline");
    let links: Vec<String> = s
        .items(&w.id, 10)
        .expect("items")
        .into_iter()
        .map(|i| i.link)
        .collect();
    assert_eq!(
        links,
        vec![
            "http://a.example/3",
            "http://a.example/2",
            "http://a.example/1"
        ]
    );
    assert_eq!(s.items(&w.id, 1).expect("items").len(), 1);
    // Past the window (the default, as many as a feed shows), the oldest leave.
    assert_eq!(s.items_kept(), crate::model::DEFAULT_ITEMS_KEPT);
    let many: Vec<String> = (0..s.items_kept() + 5)
        .map(|n| format!("http://a.example/m{n}"))
        .collect();
    let refs: Vec<&str> = many.iter().map(String::as_str).collect();
    check(s, &w, 30, 40, &refs);
    let kept = s.items(&w.id, usize::MAX).expect("items");
    assert_eq!(kept.len() as u64, s.items_kept());
    assert_eq!(
        kept.last().expect("oldest").link,
        many[5],
        "the oldest kept"
    );
    assert_eq!(
        kept[0].link,
        *many.last().expect("last"),
        "the newest is first"
    );
    assert!(kept.iter().all(|i| i.link != "http://a.example/3"));
});

/// The links of the items `s` keeps for `w`, newest first.
fn kept_links(s: &Store, w: &Watch) -> Vec<String> {
    s.items(&w.id, usize::MAX)
        .expect("items")
        .into_iter()
        .map(|i| i.link)
        .collect()
}

both!(
    only_the_newest_items_of_the_window_are_kept_in_feed_order,
    |s: &Store| {
        s.set_items_kept(5);
        assert_eq!(s.items_kept(), 5);
        let url = |n: u64| format!("http://a.example/{n}");
        let w = watch("http://a.example/");
        s.insert_watch(&w, &state(10)).expect("insert");
        // Twelve items in four checks of three.
        for k in 0..4u64 {
            let urls: Vec<String> = (3 * k + 1..=3 * k + 3).map(url).collect();
            let refs: Vec<&str> = urls.iter().map(String::as_str).collect();
            let at = 10 + 10 * i64::try_from(k).expect("small");
            check(s, &w, at, at + 10, &refs);
        }
        let newest: Vec<String> = (8..=12).rev().map(url).collect();
        assert_eq!(kept_links(s, &w), newest, "the newest five, newest first");
        assert_eq!(s.items(&w.id, 3).expect("items").len(), 3);
        assert_eq!(
            s.items(&w.id, 100).expect("items").len(),
            5,
            "a larger feed finds no more"
        );
        // One check with more new items than the window: its newest five.
        let v = watch("http://b.example/");
        s.insert_watch(&v, &state(10)).expect("insert");
        let urls: Vec<String> = (1..=12).map(|n| format!("http://b.example/{n}")).collect();
        let refs: Vec<&str> = urls.iter().map(String::as_str).collect();
        check(s, &v, 10, 20, &refs);
        let want: Vec<String> = urls[7..].iter().rev().cloned().collect();
        assert_eq!(kept_links(s, &v), want);
        // A larger window brings nothing back; new items fill it.
        s.set_items_kept(8);
        check(s, &w, 60, 70, &[]);
        assert_eq!(kept_links(s, &w), newest);
        check(s, &w, 70, 80, &[url(13).as_str(), url(14).as_str()]);
        let want: Vec<String> = (8..=14).rev().map(url).collect();
        assert_eq!(kept_links(s, &w), want);
        // Out of range: clamped to 1..=ITEMS_KEPT.
        s.set_items_kept(0);
        assert_eq!(s.items_kept(), 1);
        s.set_items_kept(usize::MAX);
        assert_eq!(s.items_kept(), ITEMS_KEPT);
    }
);

both!(
    items_kept_by_a_larger_window_leave_on_the_next_commit_even_without_new_items,
    |s: &Store| {
        // As an older version kept them: a thousand, on sled mostly packed.
        s.set_items_kept(ITEMS_KEPT as usize);
        let w = watch("http://a.example/");
        s.insert_watch(&w, &state(10)).expect("insert");
        for r in 0..10u64 {
            let urls: Vec<String> = (100 * r..100 * r + 100)
                .map(|n| format!("http://a.example/{n}"))
                .collect();
            let refs: Vec<&str> = urls.iter().map(String::as_str).collect();
            let at = 10 + i64::try_from(r).expect("small");
            check(s, &w, at, at + 1, &refs);
        }
        assert_eq!(kept_links(s, &w).len() as u64, ITEMS_KEPT);
        // Another watch's items are not this commit's business.
        let other = watch("http://b.example/");
        s.insert_watch(&other, &state(10)).expect("insert");
        let urls: Vec<String> = (0..150).map(|n| format!("http://b.example/{n}")).collect();
        let refs: Vec<&str> = urls.iter().map(String::as_str).collect();
        check(s, &other, 10, 20, &refs);
        s.set_items_kept(100);
        assert_eq!(
            kept_links(s, &w).len() as u64,
            ITEMS_KEPT,
            "nothing before a commit"
        );
        check(s, &w, 100, 200, &[]);
        let want: Vec<String> = (900..1000)
            .rev()
            .map(|n| format!("http://a.example/{n}"))
            .collect();
        assert_eq!(kept_links(s, &w), want);
        assert_eq!(kept_links(s, &other).len(), 150, "not committed yet");
        check(s, &other, 30, 40, &["http://b.example/new"]);
        let kept = kept_links(s, &other);
        assert_eq!(kept.len(), 100);
        assert_eq!(kept[0], "http://b.example/new");
        assert_eq!(kept[99], "http://b.example/51");
    }
);

both!(seen_urls_and_links_are_kept, |s: &Store| {
    let w = watch("http://a.example/");
    s.insert_watch(&w, &state(10)).expect("insert");
    assert!(s.links(&w.id).expect("links").is_empty());
    check(s, &w, 10, 20, &["http://a.example/1"]);
    assert!(s.is_seen(&w.id, "http://a.example/1").expect("seen"));
    assert!(!s.is_seen(&w.id, "http://a.example/2").expect("seen"));
    assert_eq!(
        s.links(&w.id).expect("links"),
        vec![Link::new("t", "http://a.example/1")]
    );
});

both!(pause_rebaseline_and_removal, |s: &Store| {
    let w = watch("http://a.example/");
    s.insert_watch(&w, &state(10)).expect("insert");
    check(s, &w, 10, 20, &["http://a.example/1"]);
    let mut paused = w.clone();
    paused.options.paused = true;
    s.update_watch(&paused, true, Some("edited".into()), None)
        .expect("update");
    assert!(
        s.claim_due(1000, 10).expect("due").is_empty(),
        "a paused watch is not due"
    );
    let st = s.state(&w.id).expect("state").expect("present");
    assert_eq!(st.link_fingerprint, None, "re-baselined");
    assert_eq!(st.note.as_deref(), Some("edited"));
    assert!(s.links(&w.id).expect("links").is_empty());
    assert!(s.is_seen(&w.id, "http://a.example/1").expect("seen"));
    s.update_watch(&w, false, None, Some(50)).expect("resume");
    assert_eq!(s.claim_due(50, 10).expect("due"), vec![(50, w.id.clone())]);
    s.set_webhook_outcome(&w.id, 60, Some("refused".into()))
        .expect("webhook");
    let st = s.state(&w.id).expect("state").expect("present");
    assert_eq!(
        (st.webhook_at, st.webhook_error.as_deref()),
        (Some(60), Some("refused"))
    );
    assert!(s.remove_watch(&w.id).expect("remove"));
    assert!(!s.remove_watch(&w.id).expect("remove again"));
    assert_eq!(s.watch(&w.id).expect("read"), None);
    assert!(s.items(&w.id, 10).expect("items").is_empty());
    assert!(!s.is_seen(&w.id, "http://a.example/1").expect("seen"));
    assert!(s.claim_due(1000, 10).expect("due").is_empty());
    let st = state(1);
    assert!(matches!(
        s.commit_check(&w.id, &st, &st, &CheckRecord::default()),
        Err(StoreError::NoWatch(_))
    ));
});

both!(
    full_text_joins_stored_items_once_and_moves_the_feed_stamp,
    |s: &Store| {
        use crate::model::PendingText;
        let w = watch("http://a.example/");
        s.insert_watch(&w, &state(10)).expect("insert");
        // A window and enough items that the oldest are packed (sled) as well as one by
        // one.
        s.set_items_kept(ITEMS_KEPT as usize);
        let urls: Vec<String> = (0..250).map(|i| format!("http://a.example/{i}")).collect();
        let refs: Vec<&str> = urls.iter().map(String::as_str).collect();
        let st = check(s, &w, 20, 100, &refs);
        let pending = |u: &str| PendingText {
            item: Item::id_for(u),
            url: u.to_owned(),
            tries: 0,
        };
        let (old, new) = (&urls[3], &urls[249]);
        let stamp = s.feed_stamp(&w.id).expect("stamp").expect("present");
        s.add_full_text(
            &w.id,
            &[
                (Item::id_for(old), "<p>old article</p>".to_owned()),
                (Item::id_for(new), "<p>new article</p>".to_owned()),
            ],
            &[pending(&urls[7])],
            &[pending(&urls[7])],
        )
        .expect("add");
        let content = |u: &str| {
            s.items(&w.id, 1000)
                .expect("items")
                .into_iter()
                .find(|i| i.link == u)
                .expect("item")
                .content
        };
        assert_eq!(content(old).as_deref(), Some("<p>old article</p>"));
        assert_eq!(content(new).as_deref(), Some("<p>new article</p>"));
        assert_eq!(content(&urls[5]), None);
        assert_eq!(s.items(&w.id, 1000).expect("items").len(), 250);
        let after = s.state(&w.id).expect("state").expect("present");
        assert_eq!(after.full_text, vec![pending(&urls[7])]);
        let mut same = after.clone();
        same.full_text = st.full_text.clone();
        assert_eq!(same, st, "nothing else of the state changes");
        let moved = s.feed_stamp(&w.id).expect("stamp").expect("present");
        assert!(moved.seq > stamp.seq, "the feed's ETag moves");

        // Stored once: a second article for the same item changes nothing, nor the stamp;
        // the queue it took is still updated.
        s.add_full_text(
            &w.id,
            &[(Item::id_for(new), "<p>again</p>".to_owned())],
            &[pending(&urls[7])],
            &[],
        )
        .expect("again");
        assert_eq!(content(new).as_deref(), Some("<p>new article</p>"));
        assert_eq!(s.feed_stamp(&w.id).expect("stamp").expect("present"), moved);
        assert!(s
            .state(&w.id)
            .expect("state")
            .expect("present")
            .full_text
            .is_empty());
        assert!(matches!(
            s.add_full_text(&watch("http://gone.example/").id, &[], &[], &[]),
            Err(StoreError::NoWatch(_))
        ));

        // A check (on another node) queued items while this round fetched: they stay
        // queued after the round's own items, and what the round took is settled.
        let mut queued = s.state(&w.id).expect("state").expect("present");
        queued.full_text = vec![pending(&urls[20]), pending(&urls[21])];
        let taken = queued.full_text[..1].to_vec();
        let mut meanwhile = queued.clone();
        meanwhile.full_text.push(pending(&urls[22]));
        s.commit_check(&w.id, &st, &meanwhile, &CheckRecord::default())
            .expect("commit");
        s.add_full_text(&w.id, &[], &taken, &[]).expect("round");
        assert_eq!(
            s.state(&w.id).expect("state").expect("present").full_text,
            vec![pending(&urls[21]), pending(&urls[22])]
        );
    }
);

/// What [`check_at`] commits: the state before, the state after and the record.
pub(super) fn check_of(
    s: &Store,
    w: &Watch,
    at: i64,
    links: Vec<Link>,
    seen: &[&str],
    new: Vec<Item>,
) -> (WatchState, WatchState, CheckRecord) {
    let prev = s.state(&w.id).expect("state").expect("present");
    let mut st = prev.clone();
    st.status = Status::Ok;
    st.checks += 1;
    st.last_check = Some(at);
    st.next_check = at + 60;
    st.link_fingerprint = Some(format!("fp{}", st.checks));
    st.item_seq += new.len() as u64;
    let rec = CheckRecord {
        links: Some(links),
        seen_urls: seen.iter().map(|u| (*u).to_owned()).collect(),
        new_items: new,
        ..CheckRecord::default()
    };
    (prev, st, rec)
}

/// Commits a check at `at` with these links, URLs gone and new items; returns the state.
pub(super) fn check_at(
    s: &Store,
    w: &Watch,
    at: i64,
    links: Vec<Link>,
    seen: &[&str],
    new: Vec<Item>,
) -> WatchState {
    let (prev, st, rec) = check_of(s, w, at, links, seen, new);
    s.commit_check(&w.id, &prev, &st, &rec).expect("commit");
    st
}

/// [`check_at`] with one link on the page, `gone` leaving it and `new` items.
fn check_gone(s: &Store, w: &Watch, at: i64, gone: &[&str], new: &[&str]) {
    let links = vec![Link::new("home", "http://a.example/home")];
    let items = new.iter().map(|u| item(u, at)).collect();
    check_at(s, w, at, links, gone, items);
}

both!(
    a_url_is_forgotten_only_when_gone_long_enough_and_no_kept_item_links_to_it,
    |s: &Store| {
        let day = 86_400;
        let t0 = 1_000_000;
        // `w`: many checks, then a month; `v`: a month, but few checks.
        let w = watch("http://a.example/");
        let v = watch("http://a.example/v");
        s.insert_watch(&w, &state(10)).expect("insert");
        s.insert_watch(&v, &state(10)).expect("insert");
        let (gone, served) = ("http://a.example/gone", "http://a.example/served");
        // Both leave at the first check; the second was also served as an item.
        check_gone(s, &w, t0, &[gone, served], &[served]);
        check_gone(s, &v, t0, &[gone], &[]);
        // Many checks but within days: remembered.
        let mut at = t0;
        for _ in 0..(seen::FORGET_AFTER_CHECKS + seen::SWEEP_EVERY) {
            at += 60;
            check_gone(s, &w, at, &[], &[]);
        }
        assert!(
            s.is_seen(&w.id, gone).expect("seen"),
            "gone many checks, a few hours"
        );
        // Weeks later but few checks: remembered.
        for k in 1..=seen::SWEEP_EVERY {
            let k = i64::try_from(k).expect("small");
            check_gone(s, &v, t0 + 40 * day + k, &[], &[]);
        }
        assert!(
            s.is_seen(&v.id, gone).expect("seen"),
            "gone 40 days, few checks"
        );
        // Both: forgotten, except the URL of the kept item.
        at += 31 * day;
        for _ in 0..seen::SWEEP_EVERY {
            at += 60;
            check_gone(s, &w, at, &[], &[]);
        }
        assert!(
            !s.is_seen(&w.id, gone).expect("seen"),
            "gone a month and 100 checks"
        );
        assert!(
            s.is_seen(&w.id, served).expect("seen"),
            "a kept item links to it"
        );
        assert_eq!(s.seen_len(&w.id).expect("len"), 1);
        assert!(
            s.is_seen(&v.id, gone).expect("seen"),
            "the other watch keeps its own"
        );
        // A URL that came back and left again starts its time anew.
        let back = "http://a.example/back";
        check_gone(s, &w, at + 60, &[back], &[]);
        at += 31 * day;
        for _ in 0..(seen::FORGET_AFTER_CHECKS - 2) {
            at += 60;
            check_gone(s, &w, at, &[], &[]);
        }
        check_gone(s, &w, at + 60, &[back], &[]);
        at += 31 * day;
        for _ in 0..seen::SWEEP_EVERY {
            at += 60;
            check_gone(s, &w, at, &[], &[]);
        }
        assert!(
            s.is_seen(&w.id, back).expect("seen"),
            "left again a month ago but only {} checks ago",
            seen::SWEEP_EVERY
        );
    }
);

both!(render_modes_of_plain_and_rendered_watches, |s: &Store| {
    // A plain watch stores no `render` at all (the default is skipped).
    let plain = watch("http://a.example/");
    let mut rendered = watch("http://b.example/");
    rendered.render = crate::model::Render::Browser;
    s.insert_watch(&plain, &state(10)).expect("insert");
    s.insert_watch(&rendered, &state(10)).expect("insert");
    let mut renders = s.watch_renders().expect("renders");
    renders.sort_by_key(|r| format!("{r:?}"));
    assert_eq!(
        renders,
        [crate::model::Render::Browser, crate::model::Render::Plain]
    );
});

/// Opens the store at `dir` once the last handle to it is gone: sled's own threads may
/// hold a dropped database's file lock for a moment.
pub(crate) fn open_when_free(dir: &std::path::Path) -> Store {
    open_result_when_free(dir).expect("open")
}

/// [`open_when_free`], for a test of what the open answers.
pub(crate) fn open_result_when_free(dir: &std::path::Path) -> Result<Store, StoreError> {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        match Store::open(dir, 1 << 20) {
            Err(StoreError::Locked { .. }) if std::time::Instant::now() < until => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            other => return other,
        }
    }
}
