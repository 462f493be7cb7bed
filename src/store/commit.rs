//! A check's commit. Its writes (the watch's state, the due index, the link array or its
//! delta, the seen URLs, the items, the feed stamp) are gathered first, then applied in
//! one atomic batch: a crash keeps all of them or none.
//!
//! A live check hands its gathered writes ([`Store::prepare_check`], on the CPU pool) to
//! the store's committer and waits for them ([`Store::finish_check`]); the committer
//! applies the writes of the checks that end within a few milliseconds of each other as
//! one batch. The reason is sled's log: sled 0.34 seals its log buffer before and after
//! every batch, so each batch is written to the log file on its own (a `pwrite` and a
//! `sync_file_range`, by one of sled's I/O threads, woken for it with all the idle
//! others). At one batch per check that was a sixth of a check's CPU. A group is one
//! batch, so each of its checks is still all or nothing, and a check returns only once
//! its writes are in the tree, as before: its watch's lock, held for the whole check,
//! keeps an edit or a removal from coming between.
//!
//! The committer lingers for company only when there is some: after a group of more
//! than one, when a check arrived while it applied, or on a probe every so often. A
//! lone caller (the CLI's one check, a test) waits at most one linger per probe.
//! Other callers ([`Store::commit_check`]: replays, deferred checks) apply their batch
//! at once on their own thread.

use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use super::settle::Reading;
use super::writes::Writes;
use super::{codec, keys, seen, stamp, CheckRecord, Store, StoreError};
use crate::model::{Status, WatchId};
use crate::state::{CheckLog, WatchState, RECENT_CHECKS};

/// How long a group waits for more checks after its first.
const LINGER: Duration = Duration::from_millis(3);
/// The most checks in one group.
const MAX_GROUP: usize = 64;
/// How often a committer that found no company tries lingering again.
const PROBE_EVERY: Duration = Duration::from_millis(50);
/// After the system refused the committer its thread, the thread is asked for again
/// once this many commits have applied one by one: a shortage of threads or memory
/// that passes does not leave the store without its committer for good.
const ASK_AGAIN_AFTER: u32 = 100;

/// A check's writes, gathered and not yet applied.
#[derive(Debug)]
struct Gathered {
    writes: Writes,
    /// It holds something to serve.
    served: bool,
    /// Taken before the check's reads: a reopen since then may have dropped what they
    /// were based on.
    reading: Reading,
    /// A drill for tests: applying this commit panics.
    #[cfg(test)]
    panics: bool,
}

/// A check's commit between [`Store::prepare_check`] and [`Store::finish_check`]: its
/// writes on sled, nothing on PostgreSQL (whose commit is done by then) or in a dry run.
#[derive(Debug, Default)]
#[must_use = "a prepared commit is applied by `Store::finish_check`"]
pub struct Prepared(Option<Gathered>);

/// A gathered commit in the committer's queue, with the store it goes to and where its
/// outcome goes.
struct Job {
    store: Store,
    gathered: Gathered,
    done: tokio::sync::oneshot::Sender<Result<(), StoreError>>,
}

/// The store's committer: a queue and the thread that empties it, started at the first
/// commit handed to it. The thread holds only the queue, and a queued job its store, so
/// a store whose handles are all gone (its queue empty) ends the thread.
#[derive(Default)]
pub(super) struct Committer {
    queue: Arc<Queue>,
}

#[cfg(test)]
impl Committer {
    /// The groups applied so far.
    fn groups(&self) -> u64 {
        self.queue.lock().groups
    }

    /// From now on the system refuses the committer's thread (or, with `false`, gives
    /// it again).
    fn refuse_thread(&self, refuse: bool) {
        self.queue
            .drill
            .refuse
            .store(refuse, std::sync::atomic::Ordering::Relaxed);
    }

    /// The thread's state, and how many times it was asked for.
    fn thread(&self) -> (Thread, u32) {
        let asked = self
            .queue
            .drill
            .asked
            .load(std::sync::atomic::Ordering::Relaxed);
        (self.queue.lock().thread, asked)
    }
}

#[derive(Default)]
struct Queue {
    state: Mutex<QueueState>,
    wake: Condvar,
    #[cfg(test)]
    drill: SpawnDrill,
}

/// A drill for tests: the system refuses the committer's thread.
#[cfg(test)]
#[derive(Default)]
struct SpawnDrill {
    refuse: std::sync::atomic::AtomicBool,
    /// Starts asked for so far.
    asked: std::sync::atomic::AtomicU32,
}

#[derive(Default)]
struct QueueState {
    jobs: Vec<Job>,
    thread: Thread,
    closed: bool,
    phase: Phase,
    arrived_while_applying: bool,
    /// Groups taken so far.
    groups: u64,
    /// Commits handed back to apply alone since the thread was last refused.
    alone: u32,
}

/// Whether the committer's thread runs.
#[derive(Default, Clone, Copy, PartialEq, Eq, Debug)]
enum Thread {
    /// Not needed yet: it starts at the first commit handed over.
    #[default]
    NotStarted,
    Running,
    /// The system refused to start it (said in the log): the commits handed over apply
    /// one by one on their callers' threads, as a replay's do, and the thread is asked
    /// for again every [`ASK_AGAIN_AFTER`] commits.
    Refused,
}

/// What the committer's thread is doing.
#[derive(Default, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Waiting for a first job: a new one wakes it.
    #[default]
    Idle,
    /// Waiting for company: a new job wakes it only when the group is full.
    Lingering,
    Applying,
}

impl Queue {
    fn lock(&self) -> MutexGuard<'_, QueueState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for Committer {
    fn drop(&mut self) {
        self.queue.lock().closed = true;
        self.queue.wake.notify_all();
    }
}

impl Committer {
    /// Queues `job`, starting the thread if need be; gives `job` back when no thread
    /// can be started.
    fn push(&self, job: Job) -> Result<(), Job> {
        let mut q = self.queue.lock();
        match q.thread {
            Thread::Running => {}
            Thread::Refused if q.alone < ASK_AGAIN_AFTER => {
                q.alone += 1;
                return Err(job);
            }
            was => {
                if let Err(e) = spawn(Arc::clone(&self.queue)) {
                    if was == Thread::NotStarted {
                        tracing::warn!(error = %e, "cannot start the store's committer; commits apply one by one");
                    } else {
                        tracing::debug!(error = %e, "the store's committer is still refused its thread");
                    }
                    q.thread = Thread::Refused;
                    q.alone = 0;
                    return Err(job);
                }
                if was == Thread::Refused {
                    tracing::info!("the store's committer has its thread after all");
                }
                q.thread = Thread::Running;
            }
        }
        if q.phase == Phase::Applying {
            q.arrived_while_applying = true;
        }
        q.jobs.push(job);
        let wake = q.phase != Phase::Lingering || q.jobs.len() >= MAX_GROUP;
        drop(q);
        if wake {
            self.queue.wake.notify_one();
        }
        Ok(())
    }
}

/// Starts the committer's thread on `queue`.
fn spawn(queue: Arc<Queue>) -> std::io::Result<()> {
    #[cfg(test)]
    {
        use std::sync::atomic::Ordering::Relaxed;
        queue.drill.asked.fetch_add(1, Relaxed);
        if queue.drill.refuse.load(Relaxed) {
            return Err(std::io::Error::other(
                "the drill: no thread for the committer",
            ));
        }
    }
    std::thread::Builder::new()
        .name("store-commit".into())
        .spawn(move || run(&queue))
        .map(drop)
}

/// The committer's thread: takes the queued jobs in groups and applies each group.
fn run(queue: &Queue) {
    let mut company = false;
    let mut probed: Option<Instant> = None;
    loop {
        let jobs = {
            let mut q = queue.lock();
            while q.jobs.is_empty() {
                if q.closed {
                    return;
                }
                q = queue.wake.wait(q).unwrap_or_else(PoisonError::into_inner);
            }
            let expect = company || q.jobs.len() > 1 || q.arrived_while_applying;
            let probe = !expect && !matches!(probed, Some(t) if t.elapsed() < PROBE_EVERY);
            if probe {
                probed = Some(Instant::now());
            }
            if expect || probe {
                let until = Instant::now() + LINGER;
                q.phase = Phase::Lingering;
                while q.jobs.len() < MAX_GROUP && !q.closed {
                    let left = until.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        break;
                    }
                    q = queue
                        .wake
                        .wait_timeout(q, left)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0;
                }
            }
            q.phase = Phase::Applying;
            q.arrived_while_applying = false;
            q.groups += 1;
            std::mem::take(&mut q.jobs)
        };
        company = jobs.len() > 1;
        // A panic while applying drops the group's answers (its checks fail with
        // `Closed`); the thread lives on for the checks queued after it.
        let applied = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| apply_jobs(jobs)));
        if applied.is_err() {
            tracing::error!("the store's committer failed on a group of checks");
        }
        queue.lock().phase = Phase::Idle;
    }
}

/// Applies the jobs of one group (all of one store) and sends each its outcome.
fn apply_jobs(jobs: Vec<Job>) {
    let Some(store) = jobs.first().map(|j| j.store.clone()) else {
        return;
    };
    let (gathered, done): (Vec<_>, Vec<_>) = jobs.into_iter().map(|j| (j.gathered, j.done)).unzip();
    let outcomes = store.apply_gathered(gathered);
    // The store goes before the outcomes: a caller that then drops its last handle
    // closes the store on its own thread, at once.
    drop(store);
    for (done, outcome) in done.into_iter().zip(outcomes) {
        // A caller that has gone (a shutdown) does not need its outcome.
        let _ = done.send(outcome);
    }
}

impl Store {
    /// Writes a check's results and the watch's new state in one atomic batch, applied
    /// on the calling thread; a storage failure is recorded in the store's health.
    /// `prev` is the state the check started from.
    pub fn commit_check(
        &self,
        id: &WatchId,
        prev: &WatchState,
        state: &WatchState,
        record: &CheckRecord,
    ) -> Result<(), StoreError> {
        match self.prepare_check(id, prev, state, record)?.0 {
            Some(gathered) => self.apply_one(gathered),
            None => Ok(()),
        }
    }

    /// The first half of a live check's commit (CPU work and reads, for the CPU pool):
    /// its writes gathered, for [`Store::finish_check`]. On PostgreSQL the whole commit,
    /// as [`Store::commit_check`].
    pub fn prepare_check(
        &self,
        id: &WatchId,
        prev: &WatchState,
        state: &WatchState,
        record: &CheckRecord,
    ) -> Result<Prepared, StoreError> {
        if let Some(pg) = &self.pg {
            pg.commit_check(id, prev, state, record, self.items_kept())?;
            return Ok(Prepared(None));
        }
        let gathered = self
            .shared
            .health
            .guard(|| self.gather(id, prev, state, record))?;
        Ok(Prepared(Some(gathered)))
    }

    /// The second half: the gathered writes applied, in a group with those of the
    /// checks that end about now. Returns once they are in the tree (or failed).
    pub async fn finish_check(&self, prepared: Prepared) -> Result<(), StoreError> {
        let Some(gathered) = prepared.0 else {
            return Ok(());
        };
        let (done, outcome) = tokio::sync::oneshot::channel();
        let job = Job {
            store: self.clone(),
            gathered,
            done,
        };
        match self.shared.committer.push(job) {
            Ok(()) => outcome.await.unwrap_or(Err(StoreError::Closed)),
            Err(job) => self.apply_one(job.gathered),
        }
    }

    /// [`Store::apply_gathered`] for one commit, on the calling thread.
    fn apply_one(&self, gathered: Gathered) -> Result<(), StoreError> {
        self.apply_gathered(vec![gathered])
            .pop()
            .unwrap_or(Err(StoreError::Closed))
    }

    /// Applies the writes of `gathered` as one batch: the outcome of each, in order. A
    /// commit whose reads a reopen may have dropped since is refused
    /// ([`StoreError::Reopened`]); the others are applied together, or fail together.
    fn apply_gathered(&self, gathered: Vec<Gathered>) -> Vec<Result<(), StoreError>> {
        let mut outcomes: Vec<Result<(), StoreError>> = Vec::with_capacity(gathered.len());
        let mut batch = sled::Batch::default();
        let mut served = false;
        for g in gathered {
            #[cfg(test)]
            assert!(!g.panics, "the drill: applying this commit panics");
            if self.shared.settle.lost_since(g.reading) {
                outcomes.push(Err(StoreError::Reopened));
                continue;
            }
            served |= g.served;
            g.writes.add_to(&mut batch);
            outcomes.push(Ok(()));
        }
        if outcomes.iter().all(Result::is_err) {
            return outcomes;
        }
        let applied = self.shared.health.guard(|| {
            // Durable before a reader serves it (`settle`), or with sled's own flush
            // within half a second. A crash before either loses the whole batch: the
            // next check compares the page with the array before, whose URLs include
            // every item served so far, so nothing served is lost or emitted twice.
            // The batch counts as one commit for `settle`: one flush after it covers
            // all of its checks.
            let pending = served.then(|| self.shared.settle.begin());
            self.db()?.apply_batch(batch)?;
            if let Some(p) = pending {
                p.applied();
            }
            Ok(())
        });
        if let Err(e) = applied {
            for o in outcomes.iter_mut().filter(|o| o.is_ok()) {
                *o = Err(e.clone());
            }
        }
        outcomes
    }

    /// A check's results and the watch's new state, gathered as the writes of one atomic
    /// batch, not yet applied. `prev` is the state the check started from. Whether it
    /// holds something to serve (new items, what a feed says) is noted for
    /// [`Store::settle`]: a reader flushes it before serving it.
    fn gather(
        &self,
        id: &WatchId,
        prev: &WatchState,
        state: &WatchState,
        record: &CheckRecord,
    ) -> Result<Gathered, StoreError> {
        let reading = self.reading();
        // The check log and the baseline time are derived here, so every check that
        // commits is logged whichever path produced it.
        let Some(watch) = self.watch(id)? else {
            return Err(StoreError::NoWatch(id.clone()));
        };
        let mut state = logged_state(prev, state, record);
        let at = state.last_check.unwrap_or_default();
        let mut batch = Writes::default();
        self.put_state_apart(&mut batch, id, prev, &mut state)?;
        let state = &state;
        // A paused watch is never in the due index (a check by hand still commits).
        if prev.next_check != state.next_check || watch.options.paused {
            batch.remove(keys::due(prev.next_check, id));
        }
        if !watch.options.paused {
            batch.insert(keys::due(state.next_check, id), &[]);
        }
        if let Some(links) = &record.links {
            self.put_links(&mut batch, id, links, record.earlier_links.as_ref())?;
        }
        // The sweep first: a URL that leaves the page now gets its new time below, in a
        // bucket of its own.
        let mut next_bucket = None;
        if state.checks.is_multiple_of(seen::SWEEP_EVERY) && state.checks != prev.checks {
            next_bucket = Some(self.sweep_seen(&mut batch, id, at, state.checks)?);
        }
        if !record.seen_urls.is_empty() {
            let seq = match next_bucket {
                Some(n) => n,
                None => self.next_seen_bucket(id)?,
            };
            let hashes = record.seen_urls.iter().map(|u| keys::url_hash(u)).collect();
            seen::put(
                &mut batch,
                id,
                seq,
                hashes,
                seen::Stamp::new(at, state.checks),
            )?;
        }
        Self::put_failing(&mut batch, id, state);
        // What a feed shows changes: new or edited items, or what it says of the watch.
        let served = !record.new_items.is_empty()
            || !record.retitled.is_empty()
            || stamp::feed_facts(prev) != stamp::feed_facts(state);
        if served {
            self.bump_feed(&mut batch, id, state)?;
        }
        if let Some(crawl) = &record.crawl {
            self.put_crawl(&mut batch, id, &crawl.state, crawl.read.as_ref())?;
            for (url, links) in &crawl.pages {
                batch.insert(keys::page(id, url), codec::encode_links(links));
            }
        }
        self.put_items(
            &mut batch,
            id,
            state.item_seq,
            &record.new_items,
            &record.retitled,
        )?;
        Ok(Gathered {
            writes: batch,
            served,
            reading,
            #[cfg(test)]
            panics: false,
        })
    }
}

/// The state a commit writes: `state` with the check log and the baseline time and
/// failure start derived from `prev`, on either backend.
pub(super) fn logged_state(
    prev: &WatchState,
    state: &WatchState,
    record: &CheckRecord,
) -> WatchState {
    let mut state = state.clone();
    let at = state.last_check.unwrap_or_default();
    if prev.link_fingerprint.is_none() && state.link_fingerprint.is_some() {
        state.baseline_at.get_or_insert(at);
    }
    state.error_since = match state.status {
        Status::Error => prev.error_since.or(Some(at)),
        Status::Ok => None,
        Status::New => prev.error_since,
    };
    state.recent_checks.push_front(CheckLog {
        at,
        duration_ms: state.last_duration_ms,
        new_items: record.new_items.len() as u32,
        changed: record.links.is_some(),
        error: state.error.clone(),
    });
    state.recent_checks.truncate(RECENT_CHECKS);
    state
}

#[cfg(test)]
#[path = "commit_tests.rs"]
mod tests;
