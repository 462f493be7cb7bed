use super::super::pg::tests::{item, state, watch};
use super::super::suite::{check_of, open_when_free};
use super::*;
use crate::model::{Item, Link, Watch};

/// A store with `n` watches, each added at time 0.
fn store_with(n: usize) -> (Store, Vec<Watch>) {
    let s = Store::temporary().expect("store");
    let watches: Vec<Watch> = (0..n)
        .map(|k| watch(&format!("http://w{k}.example/")))
        .collect();
    for w in &watches {
        assert!(s.insert_watch(w, &state(0)).expect("insert"));
    }
    (s, watches)
}

/// The states and record of a check of `w` at `at` that found `url` as a new item.
fn checked(s: &Store, w: &Watch, at: i64, url: &str) -> (WatchState, WatchState, CheckRecord) {
    let links = vec![Link::new("an entry", url)];
    check_of(s, w, at, links, &[], vec![item(url, at)])
}

fn links_of(s: &Store, w: &Watch) -> Vec<String> {
    let links = s.links(&w.id).expect("links");
    links.into_iter().map(|l| l.url).collect()
}

fn item_links(s: &Store, w: &Watch) -> Vec<String> {
    let items: Vec<Item> = s.items(&w.id, 10).expect("items");
    items.into_iter().map(|i| i.link).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn checks_that_end_together_are_applied_in_fewer_batches_each_whole() {
    let (s, watches) = store_with(24);
    let prepared: Vec<Prepared> = watches
        .iter()
        .enumerate()
        .map(|(k, w)| {
            let (prev, st, rec) = checked(&s, w, 10, &format!("http://w{k}.example/a"));
            s.prepare_check(&w.id, &prev, &st, &rec).expect("prepare")
        })
        .collect();
    // Nothing is in the tree before its check is finished.
    assert_eq!(
        s.state(&watches[0].id).expect("state").map(|st| st.checks),
        Some(0)
    );
    let tasks: Vec<_> = prepared
        .into_iter()
        .map(|p| {
            let s = s.clone();
            tokio::spawn(async move { s.finish_check(p).await })
        })
        .collect();
    for t in tasks {
        t.await.expect("task").expect("commit");
    }
    for (k, w) in watches.iter().enumerate() {
        let st = s.state(&w.id).expect("state").expect("present");
        assert_eq!((st.checks, st.next_check), (1, 70), "watch {k}");
        let url = format!("http://w{k}.example/a");
        assert_eq!(links_of(&s, w), vec![url.clone()], "watch {k}");
        assert_eq!(item_links(&s, w), vec![url], "watch {k}");
        assert!(s
            .due(70, 100)
            .expect("due")
            .iter()
            .any(|(_, id)| *id == w.id));
    }
    assert!(
        s.due(69, 100).expect("due").is_empty(),
        "the old due times are gone"
    );
    let groups = s.shared.committer.groups();
    assert!(
        (1..24).contains(&groups),
        "24 checks handed over at once were applied in {groups} batches"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lone_check_is_applied_and_read_back_at_once() {
    let (s, watches) = store_with(1);
    let w = &watches[0];
    for at in [10, 20, 30] {
        let (prev, st, rec) = checked(&s, w, at, &format!("http://w.example/{at}"));
        let p = s.prepare_check(&w.id, &prev, &st, &rec).expect("prepare");
        s.finish_check(p).await.expect("commit");
        let now = s.state(&w.id).expect("state").expect("present");
        assert_eq!(now.last_check, Some(at), "read back right after the commit");
    }
    assert_eq!(item_links(&s, w).len(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_commit_whose_reads_a_reopen_may_have_dropped_is_refused() {
    let dir = tempfile::tempdir().expect("dir");
    let s = Store::open(dir.path(), 1 << 20).expect("store");
    let w = watch("http://w.example/");
    assert!(s.insert_watch(&w, &state(0)).expect("insert"));
    let (prev, st, rec) = checked(&s, &w, 10, "http://w.example/a");
    let p = s.prepare_check(&w.id, &prev, &st, &rec).expect("prepare");
    // Another commit with items is applied and not yet flushed; the reopen may drop it.
    let (prev2, st2, rec2) = checked(&s, &w, 11, "http://w.example/b");
    s.commit_check(&w.id, &prev2, &st2, &rec2).expect("commit");
    s.reopen().expect("reopen");
    let refused = s.finish_check(p).await;
    assert!(matches!(refused, Err(StoreError::Reopened)), "{refused:?}");
    let now = s.state(&w.id).expect("state").expect("present");
    assert_ne!(
        now.last_check,
        Some(10),
        "the refused commit is not applied"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_commit_finished_during_the_full_disk_drill_is_refused_and_not_applied() {
    let (s, watches) = store_with(1);
    let w = &watches[0];
    let (prev, st, rec) = checked(&s, w, 10, "http://w.example/a");
    let p = s.prepare_check(&w.id, &prev, &st, &rec).expect("prepare");
    s.simulate_full_disk(true);
    let refused = s.finish_check(p).await;
    assert!(
        refused.as_ref().is_err_and(StoreError::is_full),
        "{refused:?}"
    );
    assert!(s.failing().is_some(), "the store reports that it fails");
    let now = s.state(&w.id).expect("state").expect("present");
    assert_eq!(now.checks, 0, "nothing of the refused commit is applied");
    assert!(item_links(&s, w).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_whose_handles_are_gone_lets_its_files_go_though_its_committer_ran() {
    let dir = tempfile::tempdir().expect("dir");
    let w = watch("http://w.example/");
    {
        let s = Store::open(dir.path(), 1 << 20).expect("store");
        assert!(s.insert_watch(&w, &state(0)).expect("insert"));
        let (prev, st, rec) = checked(&s, &w, 10, "http://w.example/a");
        let p = s.prepare_check(&w.id, &prev, &st, &rec).expect("prepare");
        s.finish_check(p).await.expect("commit");
        s.flush().expect("flush");
    }
    // A committer's thread that kept the store would keep sled's lock on its files for
    // good; sled's own IO threads may keep it a moment after the last handle goes.
    let again = open_when_free(dir.path());
    let st = again.state(&w.id).expect("state").expect("present");
    assert_eq!(st.last_check, Some(10));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panic_while_applying_fails_that_group_only_and_the_committer_goes_on() {
    let (s, watches) = store_with(1);
    let w = &watches[0];
    let (prev, st, rec) = checked(&s, w, 10, "http://w.example/a");
    let mut p = s.prepare_check(&w.id, &prev, &st, &rec).expect("prepare");
    p.0.as_mut().expect("a sled commit").panics = true;
    let failed = tokio::time::timeout(Duration::from_secs(20), s.finish_check(p))
        .await
        .expect("the caller gets an answer");
    assert!(matches!(failed, Err(StoreError::Closed)), "{failed:?}");
    let now = s.state(&w.id).expect("state").expect("present");
    assert_eq!(now.checks, 0, "nothing of the failed commit is applied");
    // The next check is applied by the same committer, which lives on.
    let (prev, st, rec) = checked(&s, w, 11, "http://w.example/b");
    let p = s.prepare_check(&w.id, &prev, &st, &rec).expect("prepare");
    tokio::time::timeout(Duration::from_secs(20), s.finish_check(p))
        .await
        .expect("a check after the panic is answered")
        .expect("and committed");
    let now = s.state(&w.id).expect("state").expect("present");
    assert_eq!(now.last_check, Some(11));
    assert_eq!(item_links(&s, w), ["http://w.example/b"]);
    assert_eq!(
        s.shared.committer.groups(),
        2,
        "both went through the committer"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_thread_for_the_committer_each_check_applies_on_its_caller() {
    let (s, watches) = store_with(1);
    let w = &watches[0];
    s.shared.committer.refuse_thread(true);
    for at in [10, 20, 30] {
        let (prev, st, rec) = checked(&s, w, at, &format!("http://w.example/{at}"));
        let p = s.prepare_check(&w.id, &prev, &st, &rec).expect("prepare");
        s.finish_check(p).await.expect("commit");
        let now = s.state(&w.id).expect("state").expect("present");
        assert_eq!(
            now.last_check,
            Some(at),
            "applied before finish_check returned"
        );
    }
    assert_eq!(item_links(&s, w).len(), 3);
    assert_eq!(
        s.shared.committer.groups(),
        0,
        "no group went through a committer"
    );
    assert_eq!(
        s.shared.committer.thread(),
        (Thread::Refused, 1),
        "the thread was asked for once (and its refusal logged once), not at every commit"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_committer_refused_its_thread_asks_again_and_gets_it_once_the_system_gives_it() {
    let (s, watches) = store_with(1);
    let w = &watches[0];
    let mut at = 0;
    let mut commit = || {
        at += 10;
        let (prev, st, rec) = checked(&s, w, at, &format!("http://w.example/{at}"));
        s.prepare_check(&w.id, &prev, &st, &rec).expect("prepare")
    };
    s.shared.committer.refuse_thread(true);
    s.finish_check(commit()).await.expect("commit");
    assert_eq!(s.shared.committer.thread(), (Thread::Refused, 1));
    s.shared.committer.refuse_thread(false);
    for _ in 0..ASK_AGAIN_AFTER {
        s.finish_check(commit()).await.expect("commit");
    }
    assert_eq!(
        s.shared.committer.thread(),
        (Thread::Refused, 1),
        "not asked again at every commit"
    );
    assert_eq!(s.shared.committer.groups(), 0);
    s.finish_check(commit()).await.expect("commit");
    assert_eq!(s.shared.committer.thread(), (Thread::Running, 2));
    assert_eq!(
        s.shared.committer.groups(),
        1,
        "the commit went through the committer"
    );
    let now = s.state(&w.id).expect("state").expect("present");
    assert_eq!(
        now.checks,
        u64::from(ASK_AGAIN_AFTER) + 2,
        "every commit applied"
    );
    assert_eq!(now.last_check, Some(at));
    assert_eq!(
        item_links(&s, w).first().map(String::as_str),
        Some(format!("http://w.example/{at}").as_str())
    );
}
