//! The scheduler loop: sleep until the earliest due check (or a wake-up), take the due
//! watches from the store's time-ordered index (no scan of all watches), and run them on
//! a bounded pool of workers (`fetch.global_concurrency`). One failing watch never stops
//! the loop: failures are recorded on the watch by the check itself.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::app::App;
use crate::model::WatchId;

/// Longest sleep between looks at the due index (a safety net; wake-ups are the rule).
const MAX_SLEEP: Duration = Duration::from_secs(60);

#[derive(Debug)]
pub struct Runner {
    app: Arc<App>,
    workers: Arc<Semaphore>,
    tracker: TaskTracker,
    in_flight: Arc<Mutex<HashSet<WatchId>>>,
}

impl Runner {
    pub fn new(app: Arc<App>) -> Self {
        let n = app.config.fetch.global_concurrency;
        Self {
            app,
            workers: Arc::new(Semaphore::new(n)),
            tracker: TaskTracker::new(),
            in_flight: Arc::default(),
        }
    }

    /// Starts the checks of every watch due at `now` that is not already running, as
    /// workers free up. Returns how many it started.
    pub async fn dispatch(&self, now: i64) -> usize {
        let mut started = 0;
        // A watch whose check could not commit keeps its past due time; starting it
        // once per dispatch keeps such a watch from spinning the loop.
        let mut tried: HashSet<WatchId> = HashSet::new();
        loop {
            let skip = self.in_flight_count();
            let due = match self.app.store.due(now, skip + 64) {
                Ok(d) => d,
                Err(e) => {
                    tracing::error!(error = %e, "cannot read the due index");
                    return started;
                }
            };
            let fresh: Vec<WatchId> = {
                let set = self.lock_in_flight();
                due.into_iter()
                    .map(|(_, id)| id)
                    .filter(|id| !set.contains(id) && !tried.contains(id))
                    .collect()
            };
            if fresh.is_empty() {
                return started;
            }
            for id in fresh {
                let Ok(permit) = self.workers.clone().acquire_owned().await else {
                    return started;
                };
                self.lock_in_flight().insert(id.clone());
                tried.insert(id.clone());
                let app = self.app.clone();
                let in_flight = self.in_flight.clone();
                self.tracker.spawn(async move {
                    run_one(&app, &id).await;
                    in_flight
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .remove(&id);
                    drop(permit);
                    app.wake.notify_one();
                });
                started += 1;
            }
        }
    }

    /// Waits until every started check has finished.
    pub async fn wait_idle(&self) {
        self.tracker.close();
        self.tracker.wait().await;
        self.tracker.reopen();
    }

    /// The earliest due time among watches not running now.
    fn next_due(&self) -> Option<i64> {
        let skip = self.in_flight_count();
        let due = self.app.store.due(i64::MAX - 1, skip + 1).ok()?;
        let set = self.lock_in_flight();
        due.into_iter()
            .find(|(_, id)| !set.contains(id))
            .map(|(at, _)| at)
    }

    /// Runs until `cancel`, then lets running checks finish for up to `grace`.
    pub async fn run(self, cancel: CancellationToken, grace: Duration) {
        loop {
            let now = self.app.clock.now();
            tokio::select! {
                () = cancel.cancelled() => break,
                _ = self.dispatch(now) => {}
            }
            let sleep = self
                .next_due()
                .map_or(MAX_SLEEP, |at| {
                    Duration::from_secs((at - self.app.clock.now()).max(0) as u64)
                })
                .min(MAX_SLEEP);
            tokio::select! {
                () = cancel.cancelled() => break,
                () = self.app.wake.notified() => {}
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
    }

    fn in_flight_count(&self) -> usize {
        self.lock_in_flight().len()
    }

    fn lock_in_flight(&self) -> std::sync::MutexGuard<'_, HashSet<WatchId>> {
        self.in_flight
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

async fn run_one(app: &Arc<App>, id: &WatchId) {
    let watch = match app.store.watch(id) {
        Ok(Some(w)) => w,
        Ok(None) => return,
        Err(e) => {
            tracing::error!(%id, error = %e, "cannot load watch");
            return;
        }
    };
    if watch.options.paused {
        return;
    }
    match app.check(&watch, false).await {
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
                next_check = %crate::server::api::rfc3339(r.next_check),
                "checked"
            );
            for i in &r.new_items {
                tracing::debug!(%id, title = %i.title, link = %i.link, "new item");
            }
            app.notify(&watch, &r);
        }
        Err(e) => tracing::error!(%id, error = %e, "check could not complete"),
    }
}
