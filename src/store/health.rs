//! Whether the store can write: the state behind `/healthz`, the API's `507` and the
//! scheduler's pause when the disk is full.
//!
//! Every write goes through [`Health::guard`]: a write that fails for want of storage
//! (sled's I/O errors, a full disk) turns the store *failing*, one that succeeds turns it
//! healthy again, and each change is logged once, not once per refused write. sled keeps
//! an I/O error of its log for good ("sticky"), so recovery reopens the database
//! (`Store::recover`).
//!
//! A drill for tests and operators: [`Health::simulate_full`] makes every write fail as
//! on a full disk, and, as sled does, the store then keeps failing after the "space" is
//! back until it is reopened.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use super::StoreError;

/// `ENOSPC`: no space left on the device.
const ENOSPC: i32 = 28;
/// `EDQUOT`: the user's disk quota is exhausted.
const EDQUOT: i32 = 122;

#[derive(Debug, Default)]
pub struct Health {
    /// Since when writes fail, and the first error.
    failing: Mutex<Option<(Instant, String)>>,
    /// Writes refused since they began to fail.
    refused: AtomicU64,
    /// The drill: writes fail as on a full disk.
    simulated: AtomicBool,
    /// A write failed during the drill: the engine's error is sticky until a reopen.
    sticky: AtomicBool,
}

impl StoreError {
    /// Whether this error means the storage refuses writes (a full disk, an I/O error),
    /// as opposed to a bad record or a missing watch.
    pub fn is_storage(&self) -> bool {
        matches!(
            self,
            Self::Db(_) | Self::Closed | Self::Reopened | Self::Pg(_)
        )
    }

    /// Whether this error means the disk (or quota) is full.
    pub fn is_full(&self) -> bool {
        match self {
            // sled wraps the OS error in one of its own, which only shows it in its text.
            Self::Db(sled::Error::Io(e)) => {
                matches!(e.raw_os_error(), Some(ENOSPC | EDQUOT))
                    || e.to_string().contains("No space left")
                    || e.to_string().contains("quota exceeded")
            }
            _ => false,
        }
    }
}

/// The error the drill makes writes fail with.
fn full_disk() -> StoreError {
    StoreError::Db(sled::Error::Io(std::io::Error::from_raw_os_error(ENOSPC)))
}

impl Health {
    /// Runs a write and records what it says about the storage.
    pub fn guard<T>(&self, write: impl FnOnce() -> Result<T, StoreError>) -> Result<T, StoreError> {
        let result = if self.simulated.load(Ordering::SeqCst) {
            self.sticky.store(true, Ordering::SeqCst);
            Err(full_disk())
        } else if self.sticky.load(Ordering::SeqCst) {
            Err(full_disk())
        } else {
            write()
        };
        match &result {
            Ok(_) => self.healthy(),
            Err(e) if e.is_storage() => self.failed(e),
            Err(_) => {}
        }
        result
    }

    fn healthy(&self) {
        let was = self
            .failing
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some((since, _)) = was {
            let refused = self.refused.swap(0, Ordering::SeqCst);
            tracing::warn!(
                after_secs = since.elapsed().as_secs(),
                refused_writes = refused,
                "storage writes work again; checks resume"
            );
        }
    }

    fn failed(&self, e: &StoreError) {
        self.refused.fetch_add(1, Ordering::SeqCst);
        let mut f = self
            .failing
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if f.is_none() {
            let what = if e.is_full() {
                format!("storage full: {e}")
            } else {
                format!("storage failing: {e}")
            };
            tracing::error!(error = %e, "{what}; writes are refused, checks pause and retry with backoff, feeds are still served");
            *f = Some((Instant::now(), what));
        }
    }

    /// Why writes fail, while they do.
    pub fn failing(&self) -> Option<String> {
        self.failing
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .as_ref()
            .map(|(since, what)| format!("{what} (for {} s)", since.elapsed().as_secs()))
    }

    /// Starts or ends the full-disk drill.
    pub(crate) fn simulate_full(&self, on: bool) {
        self.simulated.store(on, Ordering::SeqCst);
    }

    /// After a reopen: the engine's sticky error is gone (the drill's too, unless the
    /// drill still runs).
    pub fn reopened(&self) {
        if !self.simulated.load(Ordering::SeqCst) {
            self.sticky.store(false, Ordering::SeqCst);
        }
    }
}
