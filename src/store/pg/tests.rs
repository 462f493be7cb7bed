//! The PostgreSQL backend on the local server: migrations, idempotent items, the change
//! sequence, and the leases (claims, expiry, fencing, the per-host delay across a
//! hand-over). Each test works in a fresh schema, dropped at its end.

use std::time::Duration;

use super::*;
use crate::model::Status;
use crate::schedule::Adaptive;

/// Items kept by the commits of these tests (the default window).
const KEPT: u64 = crate::model::DEFAULT_ITEMS_KEPT;

/// The server the tests use (`SITEFEED_TEST_DATABASE_URL`, else the local one).
pub fn test_url() -> String {
    std::env::var("SITEFEED_TEST_DATABASE_URL")
        .ok()
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| "postgres://postgres@127.0.0.1:5432/test".into())
}

/// A fresh schema on the test server, dropped with the value; `None` (the test is
/// skipped) when no server answers, which fails under `CI=true`.
pub struct TestDb {
    pub opts: PgOptions,
    pub store: PgStore,
}

impl TestDb {
    pub fn open(test: &str) -> Option<Self> {
        let mut opts = PgOptions::new(&test_url());
        opts.schema = Some(format!(
            "t_{}_{}_{:08x}",
            test.chars()
                .filter(char::is_ascii_alphanumeric)
                .take(20)
                .collect::<String>()
                .to_ascii_lowercase(),
            std::process::id(),
            fastrand::u32(..)
        ));
        opts.node = "node-a".into();
        opts.renew_every = None;
        match PgStore::connect(opts.clone()) {
            Ok(store) => Some(Self { opts, store }),
            Err(e) => {
                assert!(
                    std::env::var("CI").as_deref() != Ok("true"),
                    "PostgreSQL is needed under CI: {e}"
                );
                println!("SKIPPED: no PostgreSQL at {}: {e}", test_url());
                None
            }
        }
    }

    /// Another node on the same schema.
    pub fn node(&self, name: &str, tweak: impl FnOnce(&mut PgOptions)) -> PgStore {
        let mut o = self.opts.clone();
        o.node = name.into();
        tweak(&mut o);
        PgStore::connect(o).expect("second node")
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        let _ = self.store.drop_schema();
    }
}

/// A plain watch of `url` (the store tests of both backends share these fixtures).
pub(crate) fn watch(url: &str) -> Watch {
    Watch::of_url(url, 100)
}

pub(crate) fn state(next: i64) -> WatchState {
    WatchState::new(
        next,
        Adaptive {
            a: 60.0,
            b: 60.0,
            c: 0.0,
        },
    )
}

pub(crate) fn item(url: &str, t: i64) -> Item {
    serde_json::from_value(serde_json::json!({
        "id": Item::id_for(url),
        "title": format!("title of {url}"),
        "link": url,
        "first_seen": t,
    }))
    .expect("an item")
}

/// A check at `at` that found `urls` as new items; due again at `next`.
fn checked(prev: &WatchState, at: i64, next: i64, urls: &[&str]) -> (WatchState, CheckRecord) {
    let mut s = prev.clone();
    s.last_check = Some(at);
    s.next_check = next;
    s.status = Status::Ok;
    s.checks += 1;
    s.item_seq += urls.len() as u64;
    let record = CheckRecord {
        new_items: urls.iter().map(|u| item(u, at)).collect(),
        seen_urls: urls.iter().map(|u| (*u).to_owned()).collect(),
        ..CheckRecord::default()
    };
    (s, record)
}

#[test]
fn migrations_run_once_and_a_second_node_finds_the_schema() {
    let Some(db) = TestDb::open("migrations") else {
        return;
    };
    let other = db.node("node-b", |_| {});
    assert_eq!(
        other
            .count("SELECT count(*) FROM schema_migrations")
            .expect("count"),
        i64::from(migrate::latest())
    );
    let w = watch("http://a.example/");
    assert!(db.store.insert_watch(&w, &state(10)).expect("insert"));
    assert!(!other.insert_watch(&w, &state(20)).expect("insert again"));
    assert_eq!(other.watches().expect("list"), vec![w.clone()]);
    assert_eq!(
        other
            .state(&w.id)
            .expect("state")
            .expect("present")
            .next_check,
        10
    );
}

#[test]
fn an_entry_is_stored_once_whoever_commits_it_and_the_change_sequence_grows() {
    let Some(db) = TestDb::open("itemsonce") else {
        return;
    };
    let s = &db.store;
    let w = watch("http://a.example/");
    s.insert_watch(&w, &state(10)).expect("insert");
    let seq0 = s.change_seq(&w.id).expect("seq").expect("present");
    let prev = s.state(&w.id).expect("state").expect("present");
    let (s1, r1) = checked(&prev, 10, 70, &["http://a.example/1", "http://a.example/2"]);
    s.commit_check(&w.id, &prev, &s1, &r1, KEPT)
        .expect("commit");
    let seq1 = s.change_seq(&w.id).expect("seq").expect("present");
    assert!(seq1 > seq0, "a commit changes the feed's ETag");
    assert_eq!(
        s.change_seq(&w.id).expect("seq"),
        Some(seq1),
        "a read changes nothing"
    );
    // The same entry again (a retry, another node's late commit): stored once.
    let s1 = s.state(&w.id).expect("state").expect("present");
    let (s2, r2) = checked(&s1, 70, 130, &["http://a.example/2", "http://a.example/3"]);
    s.commit_check(&w.id, &s1, &s2, &r2, KEPT).expect("commit");
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
        ],
        "three distinct entries, each once, newest first"
    );
    assert!(s.is_seen(&w.id, "http://a.example/3").expect("seen"));
    assert!(!s.is_seen(&w.id, "http://a.example/4").expect("seen"));
    let st = s.state(&w.id).expect("state").expect("present");
    assert_eq!(st.recent_checks.len(), 2, "each commit is logged");
    assert_eq!(st.next_check, 130);
}

fn two_hosts(db: &TestDb) -> (Watch, Watch) {
    let a = watch("http://one.example/");
    let b = watch("http://two.example:8080/");
    db.store.insert_watch(&a, &state(10)).expect("insert");
    db.store.insert_watch(&b, &state(10)).expect("insert");
    (a, b)
}

#[test]
fn two_nodes_split_the_due_hosts_and_never_take_the_same() {
    let Some(db) = TestDb::open("split") else {
        return;
    };
    let (a, b) = two_hosts(&db);
    let one = db.node("node-1", |o| o.max_hosts = 1);
    let two = db.node("node-2", |o| o.max_hosts = 1);
    let got1 = one.claim_due(100, 10).expect("claim");
    let got2 = two.claim_due(100, 10).expect("claim");
    assert_eq!(got1.len(), 1, "one host each: {got1:?}");
    assert_eq!(got2.len(), 1, "one host each: {got2:?}");
    assert_ne!(got1[0].1, got2[0].1);
    let mut all = vec![got1[0].1.clone(), got2[0].1.clone()];
    all.sort();
    let mut want = vec![a.id, b.id];
    want.sort();
    assert_eq!(all, want);
    // Nothing is due yet at 5: nothing claimed.
    let three = db.node("node-3", |_| {});
    assert!(three.claim_due(5, 10).expect("claim").is_empty());
    assert!(three.held().is_empty());
}

#[test]
fn a_node_whose_lease_moved_on_cannot_commit_over_the_next_holder() {
    let Some(db) = TestDb::open("fencing") else {
        return;
    };
    let w = watch("http://one.example/");
    db.store.insert_watch(&w, &state(10)).expect("insert");
    let old = db.node("old", |_| {});
    let new = db.node("new", |_| {});
    assert_eq!(old.claim_due(100, 10).expect("claim").len(), 1);
    let prev = old.state(&w.id).expect("state").expect("present");
    // The old node pauses past its lease (no renewal); the new one takes the host.
    db.store
        .execute("UPDATE host_leases SET expires_at = now() - interval '1 second'")
        .expect("expire");
    assert_eq!(new.claim_due(100, 10).expect("claim").len(), 1);
    let (s_new, r_new) = checked(&prev, 100, 200, &["http://one.example/new"]);
    new.commit_check(&w.id, &prev, &s_new, &r_new, KEPT)
        .expect("the holder commits");
    // The old node wakes up and commits its stale check: refused, nothing written.
    let (s_old, r_old) = checked(&prev, 90, 150, &["http://one.example/old"]);
    let err = old
        .commit_check(&w.id, &prev, &s_old, &r_old, KEPT)
        .expect_err("a stale holder must not commit");
    assert!(matches!(err, StoreError::LeaseLost { .. }), "{err}");
    let st = db.store.state(&w.id).expect("state").expect("present");
    assert_eq!(st.next_check, 200, "the new holder's state stands");
    let links: Vec<String> = db
        .store
        .items(&w.id, 10)
        .expect("items")
        .into_iter()
        .map(|i| i.link)
        .collect();
    assert_eq!(links, vec!["http://one.example/new"]);
    // Even before the new holder commits, the old one is refused as soon as the lease
    // moved: a second round.
    db.store
        .execute("UPDATE host_leases SET expires_at = now() - interval '1 second'")
        .expect("expire");
    db.store
        .execute("UPDATE watches SET next_check = 100")
        .expect("due again");
    assert_eq!(old.claim_due(100, 10).expect("claim").len(), 1);
    let prev = old.state(&w.id).expect("state").expect("present");
    db.store
        .execute("UPDATE host_leases SET expires_at = now() - interval '1 second'")
        .expect("expire");
    assert_eq!(new.claim_due(100, 10).expect("claim").len(), 1);
    let (s_old, r_old) = checked(&prev, 100, 300, &["http://one.example/old"]);
    assert!(matches!(
        old.commit_check(&w.id, &prev, &s_old, &r_old, KEPT),
        Err(StoreError::LeaseLost { .. })
    ));
}

#[test]
fn a_dead_nodes_hosts_move_on_when_its_lease_expires() {
    let Some(db) = TestDb::open("expiry") else {
        return;
    };
    let w = watch("http://one.example/");
    db.store.insert_watch(&w, &state(10)).expect("insert");
    let dead = db.node("dead", |o| o.lease = Duration::from_millis(700));
    assert_eq!(dead.claim_due(100, 10).expect("claim").len(), 1);
    drop(dead); // killed: no release
    let live = db.node("live", |_| {});
    assert!(
        live.claim_due(100, 10).expect("claim").is_empty(),
        "the lease still runs"
    );
    std::thread::sleep(Duration::from_millis(900));
    assert_eq!(
        live.claim_due(100, 10).expect("claim"),
        vec![(10, w.id.clone())]
    );
}

#[test]
fn a_released_host_waits_out_the_per_host_delay_before_another_node_takes_it() {
    let Some(db) = TestDb::open("handover") else {
        return;
    };
    let w = watch("http://one.example/");
    db.store.insert_watch(&w, &state(10)).expect("insert");
    let a = db.node("a", |o| o.host_delay = Duration::from_millis(800));
    let b = db.node("b", |_| {});
    assert_eq!(a.claim_due(100, 10).expect("claim").len(), 1);
    let prev = a.state(&w.id).expect("state").expect("present");
    let (s1, r1) = checked(&prev, 100, 100, &[]);
    a.commit_check(&w.id, &prev, &s1, &r1, KEPT)
        .expect("commit");
    // Nothing is due before 100: at 50, `a` has nothing due nor running on the host
    // and lets it go.
    assert!(a.claim_due(50, 10).expect("claim").is_empty());
    assert!(a.held().is_empty(), "released: nothing due or running");
    assert!(
        b.claim_due(100, 10).expect("claim").is_empty(),
        "the per-host delay holds across nodes"
    );
    std::thread::sleep(Duration::from_secs(1));
    assert_eq!(b.claim_due(100, 10).expect("claim").len(), 1);
}

#[tokio::test]
async fn works_from_a_current_thread_runtime_and_a_multi_thread_one() {
    let Some(db) = TestDb::open("runtimes") else {
        return;
    };
    let w = watch("http://a.example/");
    assert!(db.store.insert_watch(&w, &state(10)).expect("insert"));
    let s = db.store.clone();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let got = rt
        .spawn(async move { s.watch(&WatchId::for_url("http://a.example/")) })
        .await
        .expect("join")
        .expect("read");
    rt.shutdown_background();
    assert_eq!(got, Some(w));
}

#[test]
fn a_retry_after_pause_holds_for_whichever_node_takes_the_host_next() {
    let Some(db) = TestDb::open("retryafter") else {
        return;
    };
    // Two watches on one host; the per-host delay is zero, so only the pause can hold
    // the host back.
    let (w1, w2) = (watch("http://one.example/a"), watch("http://one.example/b"));
    db.store.insert_watch(&w1, &state(10)).expect("insert");
    db.store.insert_watch(&w2, &state(10)).expect("insert");
    let a = db.node("a", |_| {});
    let b = db.node("b", |_| {});
    assert_eq!(a.claim_due(100, 10).expect("claim").len(), 2);
    // w1's check got a 429 with Retry-After: 2; `a` stops (gives up its hosts) before
    // it checks w2.
    let prev = a.state(&w1.id).expect("state").expect("present");
    let (mut s1, mut r1) = checked(&prev, 100, 3600, &[]);
    s1.status = Status::Error;
    r1.host_pause = Some(Duration::from_secs(2));
    a.commit_check(&w1.id, &prev, &s1, &r1, KEPT)
        .expect("commit");
    a.release_all().expect("release");
    assert!(
        b.claim_due(100, 10).expect("claim").is_empty(),
        "w2 is due, but its host asked for a pause"
    );
    assert!(b.held().is_empty());
    std::thread::sleep(Duration::from_millis(2100));
    assert_eq!(
        b.claim_due(100, 10).expect("claim"),
        vec![(10, w2.id.clone())],
        "the pause is over"
    );
    // A release never shortens a pause: `b` gets another one and lets the host go with
    // its (zero) per-host delay; `a` still waits.
    let prev = b.state(&w2.id).expect("state").expect("present");
    let (s2, mut r2) = checked(&prev, 100, 3600, &[]);
    r2.host_pause = Some(Duration::from_secs(60));
    b.commit_check(&w2.id, &prev, &s2, &r2, KEPT)
        .expect("commit");
    b.release_all().expect("release");
    db.store
        .execute("UPDATE watches SET next_check = 10")
        .expect("due again");
    assert!(a.claim_due(100, 10).expect("claim").is_empty());
}

#[test]
fn a_check_by_hand_holds_the_host_and_cannot_write_over_the_holder() {
    let Some(db) = TestDb::open("checknow") else {
        return;
    };
    let (w1, w2) = (watch("http://one.example/a"), watch("http://one.example/b"));
    db.store.insert_watch(&w1, &state(10)).expect("insert");
    db.store.insert_watch(&w2, &state(5000)).expect("insert");
    let a = db.node("a", |_| {});
    let b = db.node("b", |_| {});
    // `a` holds the host (its scheduler took w1); a check now of w2 on `b` is refused
    // before it fetches anything.
    assert_eq!(a.claim_due(100, 10).expect("claim").len(), 1);
    let err = b
        .hold_for_check(&w2.id)
        .expect_err("another node holds the host");
    assert!(
        matches!(&err, StoreError::HostBusy { host, holder } if host == "one.example" && holder == "a"),
        "{err}"
    );
    // On `a`, the holder, it runs under a's lease.
    assert_eq!(a.hold_for_check(&w2.id).expect("hold"), None);
    let prev = a.state(&w2.id).expect("state").expect("present");
    let (s2, r2) = checked(&prev, 100, 5000, &["http://one.example/by-hand"]);
    // Meanwhile a's lease expires (a long pause) and `b` takes the host: the check by
    // hand on `a` must not write over b's work.
    db.store
        .execute("UPDATE host_leases SET expires_at = now() - interval '1 second'")
        .expect("expire");
    assert_eq!(
        b.hold_for_check(&w2.id).expect("b takes the free host"),
        None
    );
    let (s_b, r_b) = checked(&prev, 110, 6000, &["http://one.example/by-b"]);
    b.commit_check(&w2.id, &prev, &s_b, &r_b, KEPT)
        .expect("b commits");
    assert!(matches!(
        a.commit_check(&w2.id, &prev, &s2, &r2, KEPT),
        Err(StoreError::LeaseLost { .. })
    ));
    let st = db.store.state(&w2.id).expect("state").expect("present");
    assert_eq!(st.next_check, 6000, "b's state stands");
    let links: Vec<String> = db
        .store
        .items(&w2.id, 10)
        .expect("items")
        .into_iter()
        .map(|i| i.link)
        .collect();
    assert_eq!(links, vec!["http://one.example/by-b"]);
    // A free host with a pause on its lease: the check by hand holds it and learns the
    // pause (to wait it out).
    b.release_all().expect("release");
    db.store
        .execute("UPDATE host_leases SET not_before = now() + interval '30 seconds'")
        .expect("pause");
    let wait = a
        .hold_for_check(&w2.id)
        .expect("hold")
        .expect("the pause is returned");
    assert!(
        wait > Duration::from_secs(25) && wait <= Duration::from_secs(30),
        "{wait:?}"
    );
    assert_eq!(a.held().len(), 1);
    // Held for the check, nothing due (at 5): kept while the check runs, let go once it
    // ended without a commit (w1's scheduled check, handed out at first, ended too).
    a.check_ended(&w1.id);
    assert!(a.claim_due(5, 10).expect("claim").is_empty());
    assert_eq!(a.held().len(), 1, "the check by hand still runs");
    a.check_ended(&w2.id);
    assert!(a.claim_due(5, 10).expect("claim").is_empty());
    assert!(a.held().is_empty(), "released once the check ended");
}

/// What the tests read and do beside the store's own operations.
impl PgStore {
    /// The watch's change sequence (bumped by every write that can change its feeds):
    /// the feeds' ETag, one indexed read.
    pub(crate) fn change_seq(&self, id: &WatchId) -> Result<Option<u64>, StoreError> {
        let key = id.as_str().to_owned();
        self.call(move |db| async move {
            let row = db
                .pool
                .get()
                .await?
                .query_opt("SELECT change_seq FROM watches WHERE id = $1", &[&key])
                .await?;
            Ok(row.map(|r| r.get::<_, i64>(0) as u64))
        })
    }

    /// Unpaused watches (the due index's length).
    pub(crate) fn due_len(&self) -> usize {
        self.call(|db| async move {
            let row = db
                .pool
                .get()
                .await?
                .query_one("SELECT count(*) FROM watches WHERE NOT paused", &[])
                .await?;
            Ok(row.get::<_, i64>(0) as usize)
        })
        .unwrap_or(0)
    }

    /// Drops the schema this store was opened with (tests clean up after themselves).
    pub(crate) fn drop_schema(&self) -> Result<(), StoreError> {
        self.call(|db| async move {
            if let Some(schema) = &db.opts.schema {
                db.pool
                    .get()
                    .await?
                    .batch_execute(&format!("DROP SCHEMA IF EXISTS {schema} CASCADE"))
                    .await?;
            }
            Ok(())
        })
    }

    /// Runs one statement returning one `int8` (tests and the migration's counts).
    pub(crate) fn count(&self, sql: &'static str) -> Result<i64, StoreError> {
        self.call(
            move |db| async move { Ok(db.pool.get().await?.query_one(sql, &[]).await?.get(0)) },
        )
    }

    /// Runs statements (tests: a partition, a clock moved on).
    pub(crate) fn execute(&self, sql: &str) -> Result<(), StoreError> {
        let sql = sql.to_owned();
        self.call(move |db| async move {
            db.pool.get().await?.batch_execute(&sql).await?;
            Ok(())
        })
    }
}

#[test]
fn a_store_reopened_with_a_smaller_window_deletes_older_items_on_the_next_commit() {
    let Some(db) = TestDb::open("window") else {
        return;
    };
    let w = watch("http://a.example/");
    let commit = |s: &crate::store::Store, urls: Vec<String>| {
        let prev = s.state(&w.id).expect("state").expect("present");
        let refs: Vec<&str> = urls.iter().map(String::as_str).collect();
        let (st, rec) = checked(&prev, 10, 20, &refs);
        s.commit_check(&w.id, &prev, &st, &rec).expect("commit");
    };
    {
        // A node of an older version: a thousand items kept.
        let s = crate::store::Store::postgres(db.opts.clone()).expect("store");
        s.set_items_kept(crate::store::ITEMS_KEPT as usize);
        s.insert_watch(&w, &state(10)).expect("insert");
        for r in 0..4u64 {
            commit(
                &s,
                (250 * r..250 * r + 250)
                    .map(|n| format!("http://a.example/{n}"))
                    .collect(),
            );
        }
    }
    let rows = || db.store.count("SELECT count(*) FROM items").expect("count");
    assert_eq!(rows(), 1000);
    let s = crate::store::Store::postgres(db.opts.clone()).expect("reopen");
    assert_eq!(s.items_kept(), crate::model::DEFAULT_ITEMS_KEPT);
    commit(&s, Vec::new());
    assert_eq!(rows(), 100, "deleted without a new item");
    let items = s.items(&w.id, usize::MAX).expect("items");
    assert_eq!(items[0].link, "http://a.example/999");
    assert_eq!(items[99].link, "http://a.example/900");
}
