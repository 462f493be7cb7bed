//! When the store compacts while it runs: a timer thread, and each compaction on a thread
//! that ends with it (see [`Store::maybe_compact_apart`]).

use std::sync::PoisonError;

use super::{io_error, Outcome};
use crate::store::{Store, StoreError};

impl Store {
    /// [`Store::maybe_compact`] on a thread that ends with it, for the start-up's check
    /// and the timer's. The copy allocates tens of MB that are freed soon after; the
    /// allocator keeps a heap per thread and gives a thread's emptied pages back as that
    /// thread goes on allocating, or when it ends. On the timer's thread, which then waits
    /// for its next tick, a compaction at 1,000 watches left about 6 MB more resident
    /// than on a thread of its own (`bench/README.md`). A panic goes on in the caller.
    /// Not due: no thread is started (the usual case, a `stat` of the files).
    pub(in crate::store) fn maybe_compact_apart(&self) -> Result<Outcome, StoreError> {
        if self.due_by_hint().is_none() {
            return Ok(Outcome::NotDue);
        }
        let store = self.clone();
        std::thread::Builder::new()
            .name("store-compacting".into())
            .spawn(move || store.maybe_compact())
            .map_err(io_error)?
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    }

    /// Starts the thread that calls [`Store::maybe_compact_apart`] every `policy.every`; it
    /// ends when the store is dropped.
    pub(in crate::store) fn start_compaction_timer(&self) {
        let Some(every) = self.shared.compaction.policy.every else {
            return;
        };
        if self.shared.compaction.policy.ratio == 0 || self.shared.reopen.is_none() {
            return;
        }
        let (stop, wait) = std::sync::mpsc::channel::<()>();
        let shared = std::sync::Arc::downgrade(&self.shared);
        let started = std::thread::Builder::new()
            .name("store-compact".into())
            .spawn(move || {
                while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
                    wait.recv_timeout(every)
                {
                    let Some(shared) = shared.upgrade() else {
                        return;
                    };
                    let store = Store { shared, pg: None };
                    if let Err(e) = store.maybe_compact_apart() {
                        tracing::warn!(error = %e, "store compaction failed; the store is unchanged");
                    }
                }
            });
        match started {
            Ok(_) => {
                *self
                    .shared
                    .compaction
                    .stop
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner) = Some(stop);
            }
            Err(e) => tracing::warn!(error = %e, "cannot start the store's compaction timer"),
        }
    }
}
