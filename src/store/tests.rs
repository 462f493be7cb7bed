use super::*;
use crate::schedule::Adaptive;

fn watch(url: &str) -> Watch {
    Watch {
        id: WatchId::for_url(url),
        url: url.to_owned(),
        title: None,
        depth: 1,
        select: None,
        keywords: Vec::new(),
        created: 100,
        strategy: None,
        options: crate::model::WatchOptions::default(),
        render: crate::model::Render::Plain,
    }
}

fn state(next: i64) -> WatchState {
    WatchState::new(
        next,
        Adaptive {
            a: 60.0,
            b: 60.0,
            c: 0.0,
        },
    )
}

fn item(url: &str, t: i64) -> Item {
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
        crawl: None,
        retitled: Vec::new(),
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
            crawl: None,
            retitled: Vec::new(),
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
        let s = Store::open(dir.path(), 1 << 20).expect("reopen");
        assert_eq!(s.watches().expect("list"), vec![w.clone()]);
        s.db()
            .expect("db")
            .insert(keys::SCHEMA, &(SCHEMA_VERSION + 1).to_be_bytes())
            .expect("poke");
        s.flush().expect("flush");
    }
    match Store::open(dir.path(), 1 << 20) {
        Err(StoreError::NewerSchema { found, .. }) => assert_eq!(found, SCHEMA_VERSION + 1),
        other => panic!("expected NewerSchema, got {other:?}"),
    }
}

#[test]
fn only_the_newest_items_are_kept() {
    let s = Store::temporary().expect("store");
    let w = watch("http://a.example/");
    s.insert_watch(&w, &state(10)).expect("insert");
    let mut prev = s.state(&w.id).expect("state").expect("present");
    // Three commits of 400 items: 1,200 in all, the oldest 200 dropped.
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
    assert_eq!(items.len() as u64, ITEMS_KEPT);
    assert_eq!(items[0].link, "http://a.example/1199");
    assert_eq!(items.last().expect("last").link, "http://a.example/200");
}

#[test]
fn a_retitled_item_keeps_its_place_and_takes_the_new_title() {
    let s = Store::temporary().expect("store");
    let w = watch("http://a.example/");
    s.insert_watch(&w, &state(10)).expect("insert");
    let prev = s.state(&w.id).expect("state").expect("present");
    let mut st = prev.clone();
    st.item_seq = 2;
    let record = CheckRecord {
        new_items: vec![item("http://a.example/1", 1), item("http://a.example/2", 2)],
        ..CheckRecord::default()
    };
    s.commit_check(&w.id, &prev, &st, &record).expect("commit");
    let prev = s.state(&w.id).expect("state").expect("present");
    let mut edited = item("http://a.example/1", 5);
    edited.title = "Edited title".into();
    let record = CheckRecord {
        retitled: vec![edited],
        ..CheckRecord::default()
    };
    s.commit_check(&w.id, &prev, &prev.clone(), &record)
        .expect("commit");
    let items = s.items(&w.id, 10).expect("items");
    assert_eq!(items.len(), 2, "no new item");
    assert_eq!(items[1].link, "http://a.example/1");
    assert_eq!(items[1].title, "Edited title");
    assert_eq!(items[1].first_seen, 1, "first seen stays");
    assert_eq!(items[1].updated, Some(5), "dated by the edit");
    assert_ne!(items[0].title, "Edited title");
    assert_eq!(items[0].updated, None);
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
