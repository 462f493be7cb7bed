//! The scheduler loop: sleep until the earliest due check (or a wake-up), take the due
//! watches from the store's time-ordered index (no scan of all watches), and run them on
//! a bounded pool of workers (`fetch.global_concurrency`). One failing watch never stops
//! the loop: failures are recorded on the watch by the check itself.
//!
//! **Fair per host.** A host gets at most as many checks at once as its gate lets
//! through or queues (`fetch::host`); its other due watches are not started (nor deferred: their due time does not move),
//! so they keep their place in the time-ordered index and the one due longest goes next
//! when the host is free. A checked watch is due again only after its interval, behind
//! those still waiting: FIFO by due time, which is round-robin across the host's watches.
//!
//! Drives the service ([`crate::app::App`]: its store's due index and its checks); may
//! use the fetcher's host gates and [`crate::model`]. Only [`crate::daemon`] starts it.
//!
//! May use: app, cpu, fetch, model.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::app::App;
use crate::fetch::host::HostKey;
use crate::model::{Watch, WatchId};

/// Longest sleep between looks at the due index (a safety net; wake-ups are the rule).
const MAX_SLEEP: Duration = Duration::from_secs(60);
/// First wait before trying the storage again after it refused a write; doubles.
const STORAGE_RETRY: Duration = Duration::from_secs(1);
/// Longest wait between tries of a failing storage.
const MAX_STORAGE_RETRY: Duration = Duration::from_secs(60);
/// First pause of a watch whose check could not be saved (seconds); doubles.
const WATCH_RETRY: i64 = 30;
/// Longest pause of such a watch (seconds).
const MAX_WATCH_RETRY: i64 = 3600;

#[derive(Debug)]
pub struct Runner {
    app: Arc<App>,
    workers: Arc<Semaphore>,
    tracker: TaskTracker,
    in_flight: Arc<Mutex<HashSet<WatchId>>>,
    /// Checks running per host.
    hosts: Arc<Mutex<HashMap<HostKey, usize>>>,
    /// Due watches left waiting by the last dispatch because their host was busy.
    parked: Mutex<HashSet<WatchId>>,
    /// Watches whose check could not be saved: not before when, after how many.
    unsaved: Arc<Mutex<HashMap<WatchId, (i64, u32)>>>,
    /// Watches whose check finished since the due index was last read.
    finished: Arc<Mutex<HashSet<WatchId>>>,
}

/// The due watches of one read of the due index that may start: neither running nor
/// finished since the read (a check that committed between the read and now made its
/// watch due later; the read still shows its old due time), nor left out for `other`
/// reasons of the dispatch.
fn startable(
    due: Vec<WatchId>,
    in_flight: &HashSet<WatchId>,
    finished: &HashSet<WatchId>,
    other: impl Fn(&WatchId) -> bool,
) -> Vec<WatchId> {
    due.into_iter()
        .filter(|id| !in_flight.contains(id) && !finished.contains(id) && !other(id))
        .collect()
}

impl Runner {
    pub fn new(app: Arc<App>) -> Self {
        let n = app.config().fetch.global_concurrency;
        Self {
            app,
            workers: Arc::new(Semaphore::new(n)),
            tracker: TaskTracker::new(),
            in_flight: Arc::default(),
            hosts: Arc::default(),
            parked: Mutex::default(),
            unsaved: Arc::default(),
            finished: Arc::default(),
        }
    }

    /// Starts the checks of every watch due at `now` that is not already running, as
    /// workers free up. Returns how many it started.
    pub async fn dispatch(&self, now: i64) -> usize {
        let mut started = 0;
        // A watch whose check could not commit keeps its past due time; starting it
        // once per dispatch keeps such a watch from spinning the loop.
        let mut tried: HashSet<WatchId> = HashSet::new();
        let mut parked: HashSet<WatchId> = HashSet::new();
        // As many as the host's gate lets through or queue; more would be deferred.
        let fetch = &self.app.config().fetch;
        let per_host = fetch.per_host_concurrency.max(1)
            + crate::fetch::host::max_waiters(fetch.global_concurrency);
        loop {
            let skip = self.in_flight_count() + tried.len() + parked.len();
            // Checks that finish from here on are told apart from this read's view.
            // (`dispatch` runs one at a time: the run loop awaits it.)
            lock(&self.finished).clear();
            // With PostgreSQL, only the due watches of hosts this node holds (it claims
            // free ones here): each host is checked by one node at a time.
            let due = match self.app.store().claim_due(now, skip + 64) {
                Ok(d) => d,
                Err(e) => {
                    tracing::error!(error = %e, "cannot read the due index");
                    return started;
                }
            };
            let fresh: Vec<WatchId> = {
                // In this order: a check marks itself finished before it leaves the
                // running set, so one of the two sees it.
                let set = self.lock_in_flight();
                let finished = lock(&self.finished);
                startable(
                    due.into_iter().map(|(_, id)| id).collect(),
                    &set,
                    &finished,
                    |id| tried.contains(id) || parked.contains(id),
                )
            };
            if fresh.is_empty() {
                self.app
                    .metrics()
                    .set_queue(parked.len(), self.in_flight_count());
                *lock(&self.parked) = parked;
                return started;
            }
            let mut waiting = fresh.len();
            for id in fresh {
                waiting -= 1;
                self.app
                    .metrics()
                    .set_queue(waiting + parked.len(), self.in_flight_count());
                if lock(&self.unsaved)
                    .get(&id)
                    .is_some_and(|(at, _)| *at > now)
                {
                    parked.insert(id);
                    continue;
                }
                let watch = match self.app.store().watch(&id) {
                    Ok(Some(w)) => w,
                    Ok(None) => {
                        tried.insert(id);
                        continue;
                    }
                    Err(e) => {
                        tracing::error!(%id, error = %e, "cannot load watch");
                        tried.insert(id);
                        continue;
                    }
                };
                let host = url::Url::parse(&watch.url)
                    .ok()
                    .as_ref()
                    .and_then(HostKey::of);
                if let Some(h) = &host {
                    let mut hosts = lock(&self.hosts);
                    let n = hosts.entry(h.clone()).or_default();
                    if *n >= per_host {
                        parked.insert(id);
                        continue;
                    }
                    *n += 1;
                }
                let Ok(permit) = self.workers.clone().acquire_owned().await else {
                    *lock(&self.parked) = parked;
                    return started;
                };
                tried.insert(id);
                self.spawn(watch, host, permit);
                started += 1;
            }
        }
    }

    /// Runs the check of `watch` on a worker (`permit`), counted against `host`.
    fn spawn(&self, watch: Watch, host: Option<HostKey>, permit: OwnedSemaphorePermit) {
        let id = watch.id.clone();
        self.lock_in_flight().insert(id.clone());
        let app = self.app.clone();
        let in_flight = self.in_flight.clone();
        let hosts = self.hosts.clone();
        let unsaved = self.unsaved.clone();
        let finished = self.finished.clone();
        self.tracker.spawn(async move {
            let saved = run_one(&app, &watch).await;
            lock(&finished).insert(id.clone());
            let mut unsaved = lock(&unsaved);
            if saved {
                unsaved.remove(&id);
            } else {
                let (at, n) = unsaved.entry(id.clone()).or_insert((0, 0));
                *n += 1;
                *at = app.now() + (WATCH_RETRY << (*n - 1).min(10)).min(MAX_WATCH_RETRY);
            }
            drop(unsaved);
            let running = {
                let mut set = lock(&in_flight);
                set.remove(&id);
                set.len()
            };
            app.metrics().set_running(running);
            if let Some(h) = host {
                let mut hosts = lock(&hosts);
                if let Some(n) = hosts.get_mut(&h) {
                    *n = n.saturating_sub(1);
                    if *n == 0 {
                        hosts.remove(&h);
                    }
                }
            }
            drop(permit);
            app.wake_runner();
        });
    }

    /// Waits until every started check has finished.
    pub async fn wait_idle(&self) {
        self.tracker.close();
        self.tracker.wait().await;
        self.tracker.reopen();
    }

    /// The earliest due time among watches neither running nor waiting for their host
    /// (those start when a check of their host ends, which wakes the loop).
    fn next_due(&self) -> Option<i64> {
        let parked = lock(&self.parked);
        let skip = self.in_flight_count() + parked.len();
        let due = self.app.store().due(i64::MAX - 1, skip + 1).ok()?;
        let set = self.lock_in_flight();
        due.into_iter()
            .find(|(_, id)| !set.contains(id) && !parked.contains(id))
            .map(|(at, _)| at)
    }

    /// Runs until `cancel`, then lets running checks finish for up to `grace`.
    pub async fn run(self, cancel: CancellationToken, grace: Duration) {
        let mut storage_retry = STORAGE_RETRY;
        loop {
            // The storage refuses writes: no checks (they could not be saved); try it
            // again with a growing pause until it works (its health logs the change).
            if self.app.store().failing().is_some() {
                tokio::select! {
                    () = cancel.cancelled() => break,
                    () = tokio::time::sleep(storage_retry) => {}
                }
                let store = self.app.store().clone();
                if crate::cpu::run(move || store.recover()).await.is_ok() {
                    storage_retry = STORAGE_RETRY;
                } else {
                    storage_retry = (storage_retry * 2).min(MAX_STORAGE_RETRY);
                    continue;
                }
            }
            let now = self.app.now();
            tokio::select! {
                () = cancel.cancelled() => break,
                _ = self.dispatch(now) => {}
            }
            let sleep = self
                .next_due()
                .map_or(MAX_SLEEP, |at| {
                    Duration::from_secs((at - self.app.now()).max(0) as u64)
                })
                .min(MAX_SLEEP)
                .min(self.app.store().poll_every().unwrap_or(MAX_SLEEP));
            tokio::select! {
                () = cancel.cancelled() => break,
                () = self.app.woken() => {}
                () = tokio::time::sleep(sleep) => {}
            }
        }
        self.tracker.close();
        if tokio::time::timeout(grace, self.tracker.wait())
            .await
            .is_err()
        {
            tracing::warn!("checks still running at shutdown were abandoned; their watches keep their last committed state");
        }
        if let Err(e) = self.app.store().release_all() {
            tracing::warn!(error = %e, "cannot release the host leases; other nodes take them when they expire");
        }
    }

    fn in_flight_count(&self) -> usize {
        self.lock_in_flight().len()
    }

    fn lock_in_flight(&self) -> std::sync::MutexGuard<'_, HashSet<WatchId>> {
        lock(&self.in_flight)
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Runs one check; `false` when its result could not be saved.
async fn run_one(app: &Arc<App>, watch: &Watch) -> bool {
    let id = &watch.id;
    if watch.options.paused {
        return true;
    }
    match app.check(watch, false).await {
        Ok(r) if r.error.is_some() => {
            tracing::warn!(%id, url = %watch.url, error = r.error.as_deref().unwrap_or(""), "check failed");
        }
        Ok(r) => {
            tracing::info!(
                %id,
                url = %watch.url,
                new_items = r.new_items.len(),
                changed = r.changed,
                baseline = r.baseline,
                site_pages = r.site_pages,
                next_check = %crate::model::rfc3339(r.next_check),
                "checked"
            );
            for i in &r.new_items {
                tracing::debug!(%id, title = %i.title, link = %i.link, "new item");
            }
            app.notify(watch, &r);
        }
        // Another node holds the host now (this one paused past its lease): its check
        // stands, this one is dropped.
        Err(crate::app::AppError::Store(e)) if e.is_lease_lost() => {
            tracing::warn!(%id, error = %e, "check dropped");
        }
        // The store's health logs a storage failure once, not once per check.
        Err(crate::app::AppError::Store(e)) if e.is_storage() => {
            tracing::debug!(%id, error = %e, "check not saved");
            return false;
        }
        Err(e) => tracing::error!(%id, error = %e, "check could not complete"),
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_watch_that_finished_after_the_due_read_does_not_start_again() {
        let id = |u: &str| WatchId::for_url(u);
        let (a, b, c, d) = (
            id("http://a.example/"),
            id("http://b.example/"),
            id("http://c.example/"),
            id("http://d.example/"),
        );
        // The read showed all four due; `b` is running, `c` finished (and committed a
        // later due time) after the read, `d` is left out by the dispatch itself.
        let due = vec![a.clone(), b.clone(), c.clone(), d.clone()];
        let running = HashSet::from([b]);
        let finished = HashSet::from([c]);
        let started = startable(due, &running, &finished, |x| *x == d);
        assert_eq!(started, vec![a]);
    }
}
