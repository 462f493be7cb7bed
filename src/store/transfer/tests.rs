//! A store moved from sled to PostgreSQL and back holds what it held: watches, states,
//! link arrays, crawl states, items with their sequence numbers, seen sets, deep pages.

use super::*;
use crate::model::Link;
use crate::schedule::Adaptive;
use crate::store::pg::tests::TestDb;
use crate::store::{CheckRecord, CrawlRecord};

fn watch(url: &str) -> Watch {
    Watch::of_url(url, 100)
}

fn link(url: &str) -> Link {
    Link::new(format!("text of {url}"), url)
}

fn item(url: &str) -> Item {
    serde_json::from_value(serde_json::json!({
        "id": Item::id_for(url),
        "title": format!("title of {url}"),
        "link": url,
        "first_seen": 5,
    }))
    .expect("an item")
}

/// A sled store with two watches, one checked twice (items, seen URLs, a deep page).
fn filled() -> Store {
    let s = Store::temporary().expect("store");
    let a = watch("http://a.example/");
    let mut b = watch("http://b.example:8080/list");
    b.options.paused = true;
    let fresh = WatchState::new(
        10,
        Adaptive {
            a: 60.0,
            b: 60.0,
            c: 0.0,
        },
    );
    s.insert_watch(&a, &fresh).expect("insert");
    s.insert_watch(&b, &fresh).expect("insert");
    let mut prev = fresh;
    for (n, urls) in [
        (0, vec!["http://a.example/1", "http://a.example/2"]),
        (1, vec!["http://a.example/3"]),
    ] {
        let mut st = prev.clone();
        st.last_check = Some(20 + n);
        st.next_check = 100 + n;
        st.item_seq += urls.len() as u64;
        let record = CheckRecord {
            links: Some(urls.iter().map(|u| link(u)).collect()),
            seen_urls: urls.iter().map(|u| (*u).to_owned()).collect(),
            new_items: urls.iter().map(|u| item(u)).collect(),
            crawl: Some(CrawlRecord {
                state: CrawlState::default(),
                pages: vec![("http://a.example/p".into(), vec![link(urls[0])])],
                read: None,
            }),
            ..CheckRecord::default()
        };
        s.commit_check(&a.id, &prev, &st, &record).expect("commit");
        prev = s.state(&a.id).expect("state").expect("present");
    }
    s
}

#[test]
fn a_store_moves_to_postgres_and_back_whole() {
    let Some(db) = TestDb::open("transfer") else {
        return;
    };
    let sled = filled();
    let counts = copy(&sled, &db.store).expect("to postgres");
    assert_eq!(
        counts,
        Counts {
            watches: 2,
            items: 3,
            seen: 3,
            pages: 1
        }
    );
    for id in sled.watch_ids().expect("ids") {
        assert_eq!(
            db.store.dump(&id).expect("dump"),
            sled.dump(&id).expect("dump"),
            "watch {id} differs after the move"
        );
    }
    let a = WatchId::for_url("http://a.example/");
    assert!(db.store.is_seen(&a, "http://a.example/2").expect("seen"));
    assert_eq!(
        db.store.links(&a).expect("links"),
        sled.links(&a).expect("links")
    );
    assert_eq!(
        db.store.page_links(&a, "http://a.example/p").expect("page"),
        vec![link("http://a.example/3")]
    );
    // The paused watch is not due; the other is, at its stored time.
    assert_eq!(db.store.next_due().expect("next"), Some(101));
    let back = Store::temporary().expect("store");
    assert_eq!(copy(&db.store, &back).expect("back to sled"), counts);
    for id in sled.watch_ids().expect("ids") {
        assert_eq!(back.dump(&id).expect("dump"), sled.dump(&id).expect("dump"));
    }
    assert_eq!(back.due(i64::MAX - 1, 10).expect("due"), vec![(101, a)]);
    // Into a store that is not empty: refused, nothing written.
    assert!(matches!(
        copy(&sled, &back),
        Err(TransferError::NotEmpty(_))
    ));
}
