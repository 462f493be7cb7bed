use super::*;
use crate::model::crawl::{Digest, Kind, PageState, SampledPage};
use crate::model::Watch;
use crate::state::WatchState;
use crate::store::{CheckRecord, CrawlRecord};

fn page(i: usize) -> PageState {
    PageState {
        level: 2,
        kind: if i.is_multiple_of(10) {
            Kind::List
        } else {
            Kind::Leaf
        },
        why: None,
        title: Some(format!("Council backs plan number {i} for the river")),
        raw_fingerprint: Some(Digest((i as u128 * 7919).to_le_bytes())),
        link_fingerprint: Some(Digest((i as u128 * 104_729).to_be_bytes())),
        etag: Some(format!("\"{i:x}-5f3a\"")),
        last_modified: None,
        signature: None,
        links: 120,
        relevance: 0.0,
        inherited: 0.0,
        cash: 0.0,
        tunnel: 0.0,
        found: 1_795_000_000,
        fetched: 1_795_600_000,
        items: 3,
        failures: 0,
        nofollow: false,
    }
}

fn url(i: usize) -> String {
    format!("https://news.example/2026/11/story-{i}")
}

fn site(pages: usize) -> CrawlState {
    let mut s = CrawlState {
        root_url: Some("https://news.example/".into()),
        ..CrawlState::default()
    };
    for i in 0..pages {
        s.pages.insert(url(i), page(i));
    }
    for i in 0..16 {
        s.sample.pages.push_back(sampled(i));
    }
    s
}

/// A sampled page of 20 links.
fn sampled(i: u64) -> SampledPage {
    SampledPage {
        page: i,
        links: (0..20).map(|l| (i * 1000 + l, l % 3)).collect(),
    }
}

/// A store with one watch; its id and state.
fn store() -> (Store, WatchId, WatchState) {
    let store = Store::temporary().expect("store");
    let w = Watch::of_url("http://news.example/", 60);
    let st = crate::store::pg::tests::state(10);
    assert!(store.insert_watch(&w, &st).expect("insert"));
    (store, w.id, st)
}

fn commit(
    store: &Store,
    id: &WatchId,
    st: &WatchState,
    state: &CrawlState,
    read: Option<CrawlRead>,
) {
    let record = CheckRecord {
        crawl: Some(CrawlRecord {
            state: state.clone(),
            pages: Vec::new(),
            read,
        }),
        ..CheckRecord::default()
    };
    store.commit_check(id, st, st, &record).expect("commit");
}

/// One more item counted on page `i`, committed against the state as read; the state.
fn count_item(store: &Store, id: &WatchId, st: &WatchState, i: usize) -> CrawlState {
    let (mut s, read) = store.crawl_read(id).expect("read");
    s.pages.get_mut(&url(i)).expect("known").items += 1;
    commit(store, id, st, &s, read);
    s
}

fn deltas(store: &Store, id: &WatchId) -> Vec<sled::IVec> {
    store
        .db()
        .expect("db")
        .scan_prefix(keys::watch_key(keys::CRAWL_DELTA, id))
        .values()
        .collect::<Result<_, _>>()
        .expect("scan")
}

fn base(store: &Store, id: &WatchId) -> sled::IVec {
    store
        .db()
        .expect("db")
        .get(keys::watch_key(keys::CRAWL, id))
        .expect("get")
        .expect("a full state")
}

/// Checks that each fetch a few pages of a site of 300 write those pages and the sample's
/// new entry, not the site: every check reads back the state the one before wrote, most
/// leave the full state as it was and write a delta of under a twentieth of its size,
/// and the deltas never outgrow half the full state or their count before it is
/// written whole again.
#[test]
fn a_check_writes_the_pages_it_changed() {
    let (store, id, st) = store();
    let mut want = site(300);
    commit(&store, &id, &st, &want, None);
    let (mut kept_base, mut rewrote) = (0, 0);
    for check in 0..60usize {
        let (mut state, read) = store.crawl_read(&id).expect("read");
        assert_eq!(state, want, "check {check}");
        assert!(read.is_some());
        let before = base(&store, &id);
        // Two pages revisited, one found, the head changed; one page changed only in a
        // number nothing announces.
        for i in [check * 7 % 300, check * 13 % 300] {
            let p = state.pages.get_mut(&url(i)).expect("known");
            p.fetched += 60;
            p.raw_fingerprint = Some(Digest([check as u8; 16]));
        }
        state.pages.insert(url(1000 + check), page(1000 + check));
        if let Some(p) = state.pages.get_mut(&url(check * 17 % 300)) {
            p.cash += 0.5;
        }
        // The sample takes the page fetched last and drops its oldest.
        state.sample.pages.pop_front();
        state.sample.pages.push_back(sampled(100 + check as u64));
        state.last_fetched = u32::try_from(check).expect("small");
        state.root_relevance = check as f64;
        want = state.clone();
        commit(&store, &id, &st, &state, read);
        assert_eq!(store.crawl(&id).expect("read"), want, "after check {check}");
        let after = base(&store, &id);
        let ds = deltas(&store, &id);
        if after == before {
            kept_base += 1;
            let last = ds.last().expect("a delta");
            assert!(
                last.len() * 10 < after.len(),
                "{} of {}",
                last.len(),
                after.len()
            );
        } else {
            rewrote += 1;
            assert!(ds.is_empty());
        }
        assert!(ds.len() <= MAX_DELTAS);
        assert!(ds.iter().map(|d| d.len()).sum::<usize>() <= after.len() / 2);
    }
    assert!(
        kept_base > 40 && rewrote > 0,
        "{kept_base} deltas, {rewrote} full"
    );
}

/// A read the store no longer holds (another commit came between) gets no delta
/// against it: the state committed is the state read back, pages the other commit
/// changed included.
#[test]
fn a_stale_read_writes_the_whole_state() {
    let (store, id, st) = store();
    let s1 = site(50);
    commit(&store, &id, &st, &s1, None);
    let (_, stale) = store.crawl_read(&id).expect("read");
    let (mut s2, read) = store.crawl_read(&id).expect("read");
    s2.pages.get_mut(&url(1)).expect("known").fetched += 1;
    commit(&store, &id, &st, &s2, read);
    assert_eq!(deltas(&store, &id).len(), 1);
    let mut s3 = s1.clone();
    s3.pages.get_mut(&url(2)).expect("known").fetched += 1;
    commit(&store, &id, &st, &s3, stale);
    assert_eq!(store.crawl(&id).expect("read"), s3);
    assert!(deltas(&store, &id).is_empty());
}

/// A state that is not the one read with pages added (another site's two pages in its
/// place) is written whole, not as a delta of its pages over the ones read.
#[test]
fn a_state_other_than_the_one_read_is_written_whole() {
    let (store, id, st) = store();
    commit(&store, &id, &st, &site(50), None);
    count_item(&store, &id, &st, 3);
    let (_, read) = store.crawl_read(&id).expect("read");
    let mut other = CrawlState::default();
    for i in 500..502 {
        other.pages.insert(url(i), page(i));
    }
    commit(&store, &id, &st, &other, read);
    assert_eq!(store.crawl(&id).expect("read"), other);
    assert!(deltas(&store, &id).is_empty());
}

/// A page gone from the state cannot be a delta: the whole state is written. Removing
/// the watch removes its deltas.
#[test]
fn a_page_gone_and_a_watch_gone() {
    let (store, id, st) = store();
    commit(&store, &id, &st, &site(50), None);
    count_item(&store, &id, &st, 3);
    let (mut s, read) = store.crawl_read(&id).expect("read");
    s.pages.remove(&url(4));
    commit(&store, &id, &st, &s, read);
    assert_eq!(store.crawl(&id).expect("read"), s);
    assert!(deltas(&store, &id).is_empty());
    count_item(&store, &id, &st, 5);
    assert_eq!(deltas(&store, &id).len(), 1);
    assert!(store.remove_watch(&id).expect("remove"));
    assert!(deltas(&store, &id).is_empty());
    assert_eq!(store.crawl(&id).expect("read"), CrawlState::default());
}

/// A delta that does not read, or one with no full state before it, is an error, not
/// an empty or partial state.
#[test]
fn a_damaged_delta_is_an_error() {
    let (store, id, st) = store();
    commit(&store, &id, &st, &site(20), None);
    let s = count_item(&store, &id, &st, 3);
    let db = store.db().expect("db");
    let (k, v) = db
        .scan_prefix(keys::watch_key(keys::CRAWL_DELTA, &id))
        .next()
        .expect("a delta")
        .expect("read");
    db.insert(&k, &v[..v.len() - 1]).expect("insert");
    assert!(matches!(store.crawl(&id), Err(StoreError::Corrupt { .. })));
    db.insert(&k, v.clone()).expect("insert");
    assert_eq!(store.crawl(&id).expect("read"), s);
    // A delta where the full state should be.
    let b = db
        .insert(keys::watch_key(keys::CRAWL, &id), v)
        .expect("insert");
    assert!(b.is_some());
    assert!(matches!(store.crawl(&id), Err(StoreError::Corrupt { .. })));
}
