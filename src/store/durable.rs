//! Group commit: the checks that end together are written by one sled batch and made
//! durable by one flush.
//!
//! sled writes and syncs its log at the end of every atomic batch, and a flush syncs it
//! again, one after the other: measured, two syncs per check that brought an item. On a
//! disk whose sync takes 2 ms that alone held the service near 350 checks/s. So a
//! check does not apply its batch: it queues it ([`Groups::submit`]) and waits. One
//! thread writes the groups: it takes every batch queued, applies them as one sled
//! batch, flushes it when any of them holds what a feed shows, and wakes their checks;
//! batches queued meanwhile form the next group. A check waits from its async task and
//! gives its thread back while the disk works ([`Store::durable`]).
//!
//! **Nothing is served before it is on disk.** When a group is taken, the watches of its
//! batches that a feed shows are marked *unsettled* (with the group's number), before
//! the group is applied. A reader of a watch's items asks after reading
//! ([`Store::settled`]): if the watch is unsettled, it waits for that group before it
//! serves what it read. A reader that saw the batch asks after the group was taken, so
//! it finds the mark, or finds it gone because the group is on disk.
//!
//! One check per watch runs at a time, so the batches of a group touch different
//! watches; where two batches write one key (a store-wide record), the later wins, as
//! it would have applied one after the other.
//!
//! A group that fails to be written ends its checks with the error (the store's health
//! records it and a reopen may follow; the next check finds the same items again).
//!
//! May use: model.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{mpsc, Arc, Condvar, Mutex, MutexGuard, OnceLock, PoisonError, Weak};

use super::{Batch, Shared, Store, StoreError};
use crate::model::WatchId;

/// What a commit waits for before it ends: the group that writes its batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use = "a queued commit is written by its group: wait for it before relying on it"]
pub struct Durable {
    /// The group, by number; `None`: nothing to wait for.
    group: Option<u64>,
}

impl Durable {
    /// Nothing to wait for (a store whose commits are durable when they return).
    pub const NOW: Self = Self { group: None };
}

/// The groups: the batches queued for the next, how many started and ended, which
/// watches are unsettled.
#[derive(Debug, Default)]
pub(super) struct Groups {
    inner: Mutex<Inner>,
    /// Threads that wait without a runtime.
    ended: Condvar,
    /// Tasks that wait: the number of the last group that ended.
    ended_async: Ended,
    /// Wakes the thread that writes the groups (started with the first); `None` when it
    /// could not be started.
    writer: OnceLock<Option<mpsc::Sender<()>>>,
}

/// `tokio::sync::watch` with a default: the number of the last group that ended.
#[derive(Debug)]
struct Ended(tokio::sync::watch::Sender<u64>);

impl Default for Ended {
    fn default() -> Self {
        Self(tokio::sync::watch::channel(0).0)
    }
}

/// A queued batch: its watch, and whether a feed shows what it writes.
#[derive(Debug)]
struct Queued {
    id: WatchId,
    batch: Batch,
    served: bool,
}

#[derive(Debug, Default)]
struct Inner {
    /// Batches for the next group, in the order they came.
    queue: Vec<Queued>,
    /// Groups started (the number of the last one).
    started: u64,
    /// The number of the last group that ended.
    ended: u64,
    /// The last groups that failed, and why (at most [`FAILED_KEPT`]; a check asks for
    /// its group's outcome as soon as it is woken).
    failed: std::collections::VecDeque<(u64, StoreError)>,
    /// The writer is at work (it takes the queue again before it rests).
    running: bool,
    /// Watches whose served batch is not yet durable, with the group that writes it.
    unsettled: HashMap<WatchId, u64>,
}

/// Failed groups remembered for their checks.
const FAILED_KEPT: usize = 256;

/// Applies a group's batch, and flushes it when `flush`.
type Write<'a> = &'a dyn Fn(Batch, bool) -> Result<(), StoreError>;

impl Groups {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues `batch` of watch `id` (`served`: a feed shows what it writes) for the next
    /// group, and has the writer at work. Returns the group to wait for.
    pub(super) fn submit(
        self: &Arc<Self>,
        store: &Store,
        id: &WatchId,
        batch: Batch,
        served: bool,
    ) -> Durable {
        let mut inner = self.lock();
        inner.queue.push(Queued {
            id: id.clone(),
            batch,
            served,
        });
        // The running group has taken its queue already: this batch goes with the next.
        let group = inner.started + 1;
        let start = !inner.running;
        inner.running = true;
        drop(inner);
        if start {
            self.start(store);
        }
        Durable { group: Some(group) }
    }

    /// What group `group` gave: `Some` once it has ended.
    fn outcome(inner: &Inner, group: u64) -> Option<Result<(), StoreError>> {
        if inner.ended < group {
            return None;
        }
        // A failed group's batch may not have been applied at all: a later group that
        // was written does not write it.
        match inner.failed.iter().find(|(n, _)| *n == group) {
            Some((_, e)) => Some(Err(StoreError::Group {
                why: e.to_string(),
                full: e.is_full(),
            })),
            None => Some(Ok(())),
        }
    }

    /// Writes groups (with `write`) until the queue is empty. The caller set `running`.
    fn run(&self, write: Write<'_>) {
        loop {
            let mut inner = self.lock();
            if inner.queue.is_empty() {
                inner.running = false;
                return;
            }
            inner.started += 1;
            let number = inner.started;
            let queue = std::mem::take(&mut inner.queue);
            let mut served = false;
            for q in queue.iter().filter(|q| q.served) {
                inner.unsettled.insert(q.id.clone(), number);
                served = true;
            }
            drop(inner);
            let mut batch = Batch::default();
            for q in queue {
                batch.append(q.batch);
            }
            // A panic in the database must not leave the writer marked at work, and
            // every check after it waiting: it fails this group instead.
            let result =
                catch_unwind(AssertUnwindSafe(|| write(batch, served))).unwrap_or_else(|_| {
                    Err(StoreError::Group {
                        why: "the store's writer failed unexpectedly".into(),
                        full: false,
                    })
                });
            let mut inner = self.lock();
            inner.ended = number;
            if let Err(e) = result {
                if inner.failed.len() == FAILED_KEPT {
                    inner.failed.pop_front();
                }
                inner.failed.push_back((number, e));
            }
            inner.unsettled.retain(|_, n| *n > number);
            drop(inner);
            self.ended.notify_all();
            self.ended_async.0.send_replace(number);
        }
    }

    /// Has the writer thread write the groups (`running` set by the caller). One thread
    /// of its own rather than tokio's blocking pool, which would hand each run to
    /// another of its threads, each keeping its own allocator pages; and a thread
    /// rather than the caller, which may be an async task. The thread holds the
    /// database only while it writes, and ends with the store.
    fn start(self: &Arc<Self>, store: &Store) {
        let writer = self.writer.get_or_init(|| {
            let (tx, rx) = mpsc::channel::<()>();
            let (groups, shared) = (Arc::downgrade(self), Arc::downgrade(&store.shared));
            let spawned = std::thread::Builder::new()
                .name("sitefeed-commit".into())
                .spawn(move || writer(&groups, &shared, &rx));
            match spawned {
                Ok(_) => Some(tx),
                Err(e) => {
                    tracing::warn!(error = %e, "cannot start the commit thread");
                    None
                }
            }
        });
        if !writer.as_ref().is_some_and(|tx| tx.send(()).is_ok()) {
            // No thread: the caller writes the group itself.
            self.run(&|batch, flush| store.write_group(batch, flush));
        }
    }

    /// Blocks until group `group` has ended.
    fn wait(&self, group: u64) -> Result<(), StoreError> {
        let mut inner = self.lock();
        loop {
            if let Some(out) = Self::outcome(&inner, group) {
                return out;
            }
            inner = self
                .ended
                .wait(inner)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Waits until group `group` has ended, giving the thread back meanwhile.
    async fn wait_async(&self, group: u64) -> Result<(), StoreError> {
        let mut ended = self.ended_async.0.subscribe();
        if let Some(out) = Self::outcome(&self.lock(), group) {
            return out;
        }
        // Each group that ends is announced after its outcome is recorded; the channel
        // only closes with the store, which the caller holds.
        let _ = ended.wait_for(|n| *n >= group).await;
        Self::outcome(&self.lock(), group).unwrap_or(Err(StoreError::Closed))
    }
}

/// The writer thread: writes the groups each time it is woken, until the store is gone
/// (its groups, and with them the channel that wakes it). It holds the database only
/// while it writes a group, so that whoever waits for the group finds the store no
/// longer held.
fn writer(groups: &Weak<Groups>, shared: &Weak<Shared>, wake: &mpsc::Receiver<()>) {
    while wake.recv().is_ok() {
        let Some(groups) = groups.upgrade() else {
            return;
        };
        groups.run(&|batch, flush| match shared.upgrade() {
            Some(shared) => Store { shared, pg: None }.write_group(batch, flush),
            None => Err(StoreError::Closed),
        });
    }
}

impl Store {
    /// Applies a group's batch, and flushes it when `flush`; a failure is recorded in
    /// the store's health.
    fn write_group(&self, batch: Batch, flush: bool) -> Result<(), StoreError> {
        self.shared.health.guard(|| {
            let db = self.db()?;
            db.apply_batch(batch.into_sled())?;
            if flush {
                db.flush()?;
            }
            Ok(())
        })
    }

    /// Blocks until a commit's group is written (and on disk, when a feed shows it).
    pub fn wait_durable(&self, durable: Durable) -> Result<(), StoreError> {
        match durable.group {
            None => Ok(()),
            Some(n) => self.shared.groups.wait(n),
        }
    }

    /// Waits until a commit's group is written (and on disk, when a feed shows it),
    /// giving the thread back meanwhile.
    pub async fn durable(&self, durable: Durable) -> Result<(), StoreError> {
        match durable.group {
            None => Ok(()),
            Some(n) => self.shared.groups.wait_async(n).await,
        }
    }

    /// Waits until what was read of `id` may be served: called after reading its items,
    /// it returns once the last batch of `id` that a feed shows is on disk.
    pub async fn settled(&self, id: &WatchId) -> Result<(), StoreError> {
        let unsettled = self.shared.groups.lock().unsettled.get(id).copied();
        self.durable(Durable { group: unsettled }).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Link, Status, Watch};
    use crate::state::WatchState;
    use crate::store::pg::tests::{item, state, watch};
    use crate::store::CheckRecord;

    /// A store with watches `urls`, added.
    fn with_watches(urls: &[&str]) -> (Store, Vec<Watch>) {
        let s = Store::temporary().expect("store");
        let ws: Vec<Watch> = urls.iter().map(|u| watch(u)).collect();
        for w in &ws {
            assert!(s.insert_watch(w, &state(10)).expect("insert"));
        }
        (s, ws)
    }

    /// Queues a check of `w` at `at` that finds `new` (an item), or nothing new.
    fn commit(s: &Store, w: &Watch, at: i64, new: Option<&str>) -> Durable {
        let prev = s.state(&w.id).expect("state").expect("present");
        let mut st: WatchState = prev.clone();
        st.last_check = Some(at);
        st.next_check = at + 60;
        st.status = Status::Ok;
        st.link_fingerprint = prev.link_fingerprint.clone().or(Some("fp".into()));
        st.item_seq += u64::from(new.is_some());
        let record = CheckRecord {
            links: new.map(|u| vec![Link::new("t", u)]),
            seen_urls: new.iter().map(|u| (*u).to_owned()).collect(),
            new_items: new.iter().map(|u| item(u, at)).collect(),
            ..CheckRecord::default()
        };
        s.commit_check_deferred(&w.id, &prev, &st, &record)
            .expect("commit")
    }

    fn counts(s: &Store) -> (u64, u64) {
        let inner = s.shared.groups.lock();
        (inner.started, inner.ended)
    }

    /// Holds the writer back, as if it were writing a group: the batches queued now go
    /// with the next group, which the test writes itself with [`write_now`].
    fn hold(s: &Store) {
        // Whatever was queued before is written first.
        while s.shared.groups.lock().running {
            std::thread::yield_now();
        }
        s.shared.groups.lock().running = true;
    }

    fn write_now(s: &Store, write: Write<'_>) {
        s.shared.groups.run(write);
    }

    fn items(s: &Store, w: &Watch) -> usize {
        s.items(&w.id, 10).expect("items").len()
    }

    #[test]
    fn checks_that_end_together_are_one_batch_and_one_flush() {
        let (s, ws) = with_watches(&[
            "http://a.example/",
            "http://b.example/",
            "http://c.example/",
        ]);
        hold(&s);
        let (started, ended) = counts(&s);
        let ds = [
            commit(&s, &ws[0], 100, Some("http://a.example/1")),
            commit(&s, &ws[1], 100, Some("http://b.example/1")),
            commit(&s, &ws[2], 100, None),
        ];
        assert!(
            ds.iter().all(|d| *d == ds[0]),
            "all wait for the next group"
        );
        assert_eq!(items(&s, &ws[0]), 0, "nothing is written before its group");
        let writes = std::sync::atomic::AtomicUsize::new(0);
        write_now(&s, &|batch, flush| {
            writes.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            assert!(flush, "a feed shows two of them");
            s.write_group(batch, flush)
        });
        assert_eq!(writes.into_inner(), 1, "one write for the three");
        assert_eq!(counts(&s), (started + 1, ended + 1));
        for d in ds {
            s.wait_durable(d).expect("written");
        }
        assert_eq!(
            (items(&s, &ws[0]), items(&s, &ws[1]), items(&s, &ws[2])),
            (1, 1, 0)
        );
        let st = s.state(&ws[2].id).expect("state").expect("present");
        assert_eq!(
            st.last_check,
            Some(100),
            "the state of a check without items too"
        );
    }

    #[test]
    fn a_group_without_anything_a_feed_shows_is_not_flushed() {
        let (s, ws) = with_watches(&["http://a.example/"]);
        s.wait_durable(commit(&s, &ws[0], 100, None))
            .expect("baseline");
        hold(&s);
        let d = commit(&s, &ws[0], 200, None);
        write_now(&s, &|batch, flush| {
            assert!(!flush, "nothing served");
            s.write_group(batch, flush)
        });
        s.wait_durable(d).expect("written");
    }

    #[test]
    fn a_blocking_commit_is_written_by_the_writer() {
        let (s, ws) = with_watches(&["http://a.example/"]);
        let (started, _) = counts(&s);
        s.wait_durable(commit(&s, &ws[0], 100, Some("http://a.example/1")))
            .expect("written");
        assert_eq!(items(&s, &ws[0]), 1);
        assert!(counts(&s).0 > started);
        assert!(s.shared.groups.lock().unsettled.is_empty());
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_reader_that_saw_a_batch_waits_until_its_group_is_on_disk() {
        let (s, ws) = with_watches(&["http://a.example/"]);
        let w = ws[0].clone();
        s.wait_durable(commit(&s, &w, 100, None)).expect("baseline");
        hold(&s);
        let d = commit(&s, &w, 200, Some("http://a.example/1"));
        // The writer applies the group, then stops before its flush ends, until told.
        let (applied_tx, applied_rx) = mpsc::channel();
        let (go_tx, go_rx) = mpsc::channel::<()>();
        let log = Arc::new(Mutex::new(Vec::new()));
        let writer = {
            let (s, log) = (s.clone(), Arc::clone(&log));
            std::thread::spawn(move || {
                write_now(&s, &|batch, flush| {
                    let db = s.db()?;
                    db.apply_batch(batch.into_sled())?;
                    applied_tx.send(()).expect("send");
                    go_rx.recv().expect("go");
                    db.flush()?;
                    log.lock().expect("log").push("on disk");
                    assert!(flush);
                    Ok(())
                });
            })
        };
        applied_rx.recv().expect("applied");
        // The item can be read now; a reader must not serve it yet.
        assert_eq!(items(&s, &w), 1);
        let reader = {
            let (s, log, id) = (s.clone(), Arc::clone(&log), w.id.clone());
            tokio::spawn(async move {
                s.settled(&id).await.expect("settled");
                log.lock().expect("log").push("served");
            })
        };
        tokio::task::yield_now().await;
        assert!(!reader.is_finished(), "the reader waits for the disk");
        go_tx.send(()).expect("go");
        reader.await.expect("reader");
        writer.join().expect("writer");
        assert_eq!(*log.lock().expect("log"), ["on disk", "served"]);
        s.durable(d).await.expect("durable");
        assert!(s.shared.groups.lock().unsettled.is_empty());
        // A watch without a batch in flight is served at once.
        s.settled(&watch("http://b.example/").id)
            .await
            .expect("settled");
    }

    #[test]
    fn a_panic_while_writing_fails_the_group_and_the_writer_goes_on() {
        let (s, ws) = with_watches(&["http://a.example/"]);
        hold(&s);
        let d = commit(&s, &ws[0], 100, Some("http://a.example/1"));
        write_now(&s, &|_, _| panic!("the database broke"));
        assert!(s.wait_durable(d).is_err());
        assert!(!s.shared.groups.lock().running, "not left at work");
        let again = commit(&s, &ws[0], 200, Some("http://a.example/2"));
        s.wait_durable(again).expect("the next group is written");
    }

    #[tokio::test]
    async fn a_failed_group_fails_its_checks_and_no_later_group_hides_it() {
        let (s, ws) = with_watches(&["http://a.example/", "http://b.example/"]);
        hold(&s);
        let d = commit(&s, &ws[0], 100, Some("http://a.example/1"));
        let other = commit(&s, &ws[1], 100, Some("http://b.example/1"));
        write_now(&s, &|_, _| {
            Err(StoreError::Db(sled::Error::Io(
                std::io::Error::from_raw_os_error(28),
            )))
        });
        let e = s.durable(d).await.expect_err("the write failed");
        assert!(e.is_storage() && e.is_full(), "a full disk, as it was: {e}");
        assert!(s.wait_durable(other).is_err(), "every check of the group");
        assert_eq!(items(&s, &ws[0]), 0);
        // A later group is written; the failed one stays failed for a late waiter.
        let again = commit(&s, &ws[0], 200, Some("http://a.example/2"));
        s.durable(again).await.expect("written");
        assert_eq!(items(&s, &ws[0]), 1);
        assert!(s.wait_durable(d).is_err(), "its batch was never written");
        assert!(s.shared.groups.lock().unsettled.is_empty());
    }
}
