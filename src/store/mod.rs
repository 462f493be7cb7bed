//! The store: the only module that touches sled.
//!
//! One sled tree holds watches, their check state, their last link array, their items,
//! the URLs each watch has seen and the due index (layout in `keys.rs`). A check's
//! results are written in one atomic batch, by [`Store::commit_check`] or, for a live
//! check, by the store's committer with those of the checks that end about the same
//! time (`commit.rs`). What a reader
//! serves (items, a feed's stamp, a check's report) it first makes durable with
//! [`Store::settle`], which flushes only when a commit that brought something to serve
//! is not yet on disk, and fails when a reopen after a storage failure may have dropped
//! what was read ([`Reading`]): an item is never served before it is durable, and a
//! crash at any moment loses no item that was already served.
//!
//! May use: analysis, config, hash, model, schedule, state.

mod backend;
mod codec;
mod commit;
mod compact;
mod crawl;
mod crawl_codec;
mod deflate;
mod edits;
mod gate;
mod health;
mod items;
mod keys;
mod links;
mod open;
pub mod pg;
mod reference;
mod scan;
mod seen;
mod settle;
mod stamp;
mod state;
pub mod transfer;
mod writes;

pub use backend::{CheckStart, NodeLimits};
pub use commit::Prepared;
pub use compact::{CompactPolicy, Compacted, Outcome as CompactOutcome};
pub use crawl::CrawlRead;
pub use keys::url_hash as seen_key;
pub use links::{LinksRead, ReadLinks};
pub use seen::SeenCache;
pub use settle::Reading;
pub use stamp::Usage;
pub use state::{CheckRecord, CrawlRecord, WatchHistory};

use std::path::PathBuf;
use std::sync::{Arc, RwLock};

use serde::{de::DeserializeOwned, Serialize};

use crate::model::{Link, Watch, WatchId};
use crate::state::WatchState;
use writes::Writes;

/// Version of the key layout and value encoding. Bumped on incompatible change.
/// 1: the first layout; 2: link deltas, seen URLs with the time they left, feed stamps,
/// failing and render indices (a schema-1 store is migrated on open); 3: the seen set in
/// buckets (a schema-2 store opens as it is: its seen URLs are read where they are and
/// moved into buckets by each watch's sweeps); 4: a deep watch's crawl state in binary
/// (a schema-3 store opens as it is: its JSON states are read, and each is written in
/// binary at its watch's next deep check); 5: a state's logged checks as arrays, and its
/// page statistics' reference keys under a key of their own (a schema-4 store opens as
/// it is: the named form and inline keys are read, and each state is written in the new
/// form at its watch's next check); 6: a deep watch's crawl state followed by deltas (a
/// schema-5 store opens as it is: its states are full ones). An older sitefeed refuses a
/// newer store rather than failing on values (here: deltas) it would not read.
pub(crate) const SCHEMA_VERSION: u32 = 6;

pub use crate::model::ITEMS_KEPT;

/// Leading byte of JSON values (see `codec.rs`).
const VALUE_V1: u8 = codec::JSON_V1;

#[derive(Debug, Clone, thiserror::Error)]
pub enum StoreError {
    #[error("the store at {path} is in use by another sitefeed process (is `sitefeed serve` running?); stop it or use another data directory")]
    Locked { path: PathBuf },
    #[error("cannot open the store at {path}: {source}")]
    Open { path: PathBuf, source: sled::Error },
    #[error("the store at {path} has schema version {found}, newer than this sitefeed understands ({SCHEMA_VERSION}); upgrade sitefeed")]
    NewerSchema { path: PathBuf, found: u32 },
    #[error("store I/O error: {0}")]
    Db(#[from] sled::Error),
    #[error("corrupt value under key {key:?}: {reason}")]
    Corrupt { key: String, reason: String },
    #[error("no watch with id {0}")]
    NoWatch(WatchId),
    #[error("the store is closed while it is reopened after a storage failure")]
    Closed,
    #[error("the store was reopened after a storage failure since this was read: it may not have been saved")]
    Reopened,
    #[error("database error: {0}")]
    Pg(String),
    #[error("the lease on host {host} moved to another node: this node's check is not saved")]
    LeaseLost { host: String },
    #[error("host {host} is being checked by another node ({holder}): try again when it lets the host go (within the lease time)")]
    HostBusy { host: String, holder: String },
}

impl StoreError {
    /// Why sled could not open the store at `path`: another process holds it, or else.
    pub(super) fn opening(path: &std::path::Path, e: sled::Error) -> Self {
        match &e {
            sled::Error::Io(io) if io.to_string().contains("could not acquire lock") => {
                Self::Locked {
                    path: path.to_path_buf(),
                }
            }
            _ => Self::Open {
                path: path.to_path_buf(),
                source: e,
            },
        }
    }
}

/// The store; clones share one database, which [`Store::recover`] may reopen.
#[derive(Clone)]
pub struct Store {
    shared: Arc<Shared>,
    /// The PostgreSQL backend, when the store lives there (`backend.rs`); `None`: sled.
    pg: Option<pg::PgStore>,
}

struct Shared {
    /// `None` only while it is reopened.
    db: RwLock<Option<sled::Db>>,
    /// Where and how to reopen it (`None`: a temporary store).
    reopen: Option<(PathBuf, u64)>,
    health: health::Health,
    /// Every operation holds it while it uses the database; a compaction or a reopen
    /// closes it (`compact.rs`).
    gate: gate::Gate,
    compaction: compact::Compaction,
    /// Items kept per watch, the newest (`feed.max_items`; `items.rs`).
    items_kept: std::sync::atomic::AtomicU64,
    /// Commits that brought something to serve, and which of them are on disk.
    settle: settle::Settle,
    /// Applies the writes of live checks in groups (`commit.rs`).
    committer: commit::Committer,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").finish_non_exhaustive()
    }
}

impl Store {
    /// The database to write (and read), unless it is being reopened. The operation
    /// stays inside the store's gate while it holds the result; a compaction waits for
    /// it, and it waits for a compaction.
    fn db(&self) -> Result<gate::DbRef<'_>, StoreError> {
        let entered = self.shared.gate.enter();
        self.db_entered(entered)
    }

    /// The database to read only: goes on while a compaction copies it, waits only for
    /// the swap. The caller must not write through it, nor start a write before it is
    /// dropped.
    fn db_read(&self) -> Result<gate::DbRef<'_>, StoreError> {
        let entered = self.shared.gate.enter_read();
        self.db_entered(entered)
    }

    fn db_entered<'a>(&'a self, entered: gate::Entered<'a>) -> Result<gate::DbRef<'a>, StoreError> {
        let db = self
            .shared
            .db
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
            .ok_or(StoreError::Closed)?;
        Ok(gate::DbRef::new(db, entered))
    }

    /// Why writes fail, while they do (a full disk...): for `/healthz` and the API.
    pub fn failing(&self) -> Option<String> {
        if let Some(pg) = &self.pg {
            return pg.failing();
        }
        self.shared.health.failing()
    }

    /// A drill: from now on every write fails as on a full disk (`on = false`: the space
    /// is back, but as with sled's own I/O errors, writes keep failing until
    /// [`Store::recover`] reopens the store).
    pub fn simulate_full_disk(&self, on: bool) {
        if let Some(pg) = &self.pg {
            return pg.simulate_full_disk(on);
        }
        self.shared.health.simulate_full(on);
    }

    /// Tries a small durable write; when it fails, reopens the database (sled keeps an
    /// I/O error of its log until then) and tries again. `Ok` when writes work.
    pub fn recover(&self) -> Result<(), StoreError> {
        if let Some(pg) = &self.pg {
            return pg.recover();
        }
        if self.probe().is_ok() {
            return Ok(());
        }
        self.reopen()?;
        self.probe()
    }

    /// Adds `watch` unless a watch with its id exists. Returns whether it was added.
    pub fn insert_watch(&self, watch: &Watch, state: &WatchState) -> Result<bool, StoreError> {
        if let Some(pg) = &self.pg {
            return pg.insert_watch(watch, state);
        }
        self.shared
            .health
            .guard(|| self.insert_watch_unguarded(watch, state))
    }

    /// Removes a watch and everything stored for it. Returns whether it existed.
    pub fn remove_watch(&self, id: &WatchId) -> Result<bool, StoreError> {
        if let Some(pg) = &self.pg {
            return pg.remove_watch(id);
        }
        self.shared.health.guard(|| self.remove_watch_unguarded(id))
    }

    /// Rewrites the schema version (the same value) and flushes it.
    fn probe(&self) -> Result<(), StoreError> {
        self.shared.health.guard(|| {
            let db = self.db()?;
            db.insert(keys::SCHEMA, &SCHEMA_VERSION.to_be_bytes())?;
            db.flush()?;
            Ok(())
        })
    }
}

impl Store {
    /// Adds `watch` unless a watch with its id exists. Returns whether it was added.
    fn insert_watch_unguarded(
        &self,
        watch: &Watch,
        state: &WatchState,
    ) -> Result<bool, StoreError> {
        let wkey = keys::watch_key(keys::WATCH, &watch.id);
        let added = self
            .db()?
            .compare_and_swap(&wkey, None as Option<&[u8]>, Some(encode(watch)))?
            .is_ok();
        if added {
            let mut batch = Writes::default();
            batch.insert(keys::watch_key(keys::STATE, &watch.id), encode(state));
            batch.insert(keys::due(state.next_check, &watch.id), &[]);
            Self::put_index(&mut batch, watch, state);
            self.bump_feed(&mut batch, &watch.id, state)?;
            self.db()?.apply_batch(batch.into_batch())?;
            self.db()?.flush()?;
        }
        Ok(added)
    }

    pub fn watch(&self, id: &WatchId) -> Result<Option<Watch>, StoreError> {
        if let Some(pg) = &self.pg {
            return pg.watch(id);
        }
        self.get(&keys::watch_key(keys::WATCH, id))
    }

    /// All watches, ordered by id. On sled, a scan that lets the page cache evict as it
    /// goes (`scan.rs`): with 100,000 watches the records would otherwise stay in memory.
    pub fn watches(&self) -> Result<Vec<Watch>, StoreError> {
        if let Some(pg) = &self.pg {
            return pg.watches();
        }
        let db = self.db_read()?;
        scan::evicting_prefix(&db, &[keys::WATCH])
            .map(|kv| {
                let (k, v) = kv?;
                decode(&k, &v)
            })
            .collect()
    }

    pub fn state(&self, id: &WatchId) -> Result<Option<WatchState>, StoreError> {
        if let Some(pg) = &self.pg {
            return pg.state(id);
        }
        self.read_state(id)
    }

    /// The link array of the last successful check (empty before the first).
    pub fn links(&self, id: &WatchId) -> Result<Vec<Link>, StoreError> {
        if let Some(pg) = &self.pg {
            return pg.links(id);
        }
        Ok(self.stored_links(id)?.links.into_owned())
    }

    /// The link array of the last successful check and, on sled, the stored values it
    /// was read from, for the commit of the same check ([`ReadLinks`]).
    pub fn links_read(&self, id: &WatchId) -> Result<(Vec<Link>, Option<LinksRead>), StoreError> {
        if let Some(pg) = &self.pg {
            return Ok((pg.links(id)?, None));
        }
        self.links_with_read(id)
    }

    /// The link array of one page of a deep watch's site (empty if never stored).
    pub fn page_links(&self, id: &WatchId, url: &str) -> Result<Vec<Link>, StoreError> {
        if let Some(pg) = &self.pg {
            return pg.page_links(id, url);
        }
        let key = keys::page(id, url);
        match self.db_read()?.get(&key)? {
            None => Ok(Vec::new()),
            Some(v) => codec::decode_links(&v).ok_or_else(|| StoreError::Corrupt {
                key: String::from_utf8_lossy(&key).into_owned(),
                reason: "malformed link array".into(),
            }),
        }
    }

    /// What the analysis reads of one watch's past, from this store.
    pub fn history<'a>(&'a self, id: &'a WatchId) -> WatchHistory<'a> {
        WatchHistory {
            store: self,
            id,
            seen: SeenCache::default(),
            read: std::cell::RefCell::default(),
        }
    }

    /// Removes a watch and everything stored for it. Returns whether it existed.
    fn remove_watch_unguarded(&self, id: &WatchId) -> Result<bool, StoreError> {
        let Some(state) = self.state(id)? else {
            return Ok(self
                .db()?
                .remove(keys::watch_key(keys::WATCH, id))?
                .is_some());
        };
        let mut batch = Writes::default();
        batch.remove(keys::due(state.next_check, id));
        for kind in keys::PER_WATCH {
            batch.remove(keys::watch_key(kind, id));
        }
        for kind in keys::PER_WATCH_RANGES {
            for k in self.db()?.scan_prefix(keys::watch_key(kind, id)).keys() {
                batch.remove(k?);
            }
        }
        self.db()?.apply_batch(batch.into_batch())?;
        self.db()?.flush()?;
        Ok(true)
    }

    /// Makes durable every commit whose items, feed stamp or report a reader has read
    /// since `reading` ([`Store::reading`]): called before serving. Flushes only when a
    /// commit that brought something to serve may not be on disk yet, and fails after a
    /// reopen that may have dropped one ([`StoreError::Reopened`]); `settle.rs` says why
    /// that is enough. PostgreSQL: its commits are durable when they return.
    pub fn settle(&self, reading: Reading) -> Result<(), StoreError> {
        if self.settled(reading) {
            return Ok(());
        }
        let covered = self.shared.settle.covered();
        self.flush()?;
        self.shared.settle.flushed(covered);
        // A reopen before the flush ended: the flush wrote the new database.
        if self.shared.settle.lost_since(reading) {
            return Err(StoreError::Reopened);
        }
        Ok(())
    }

    /// Taken by a reader before it reads what it will serve, for [`Store::settle`].
    pub fn reading(&self) -> Reading {
        self.shared.settle.reading()
    }

    /// Whether [`Store::settle`] has nothing to do: an async caller asks before it hands
    /// the flush to a thread that may wait on the disk.
    pub fn settled(&self, reading: Reading) -> bool {
        self.pg.is_some()
            || !(self.shared.settle.needed() || self.shared.settle.lost_since(reading))
    }

    /// Ids of up to `limit` watches due at or before `now`, earliest first.
    pub fn due(&self, now: i64, limit: usize) -> Result<Vec<(i64, WatchId)>, StoreError> {
        if let Some(pg) = &self.pg {
            return pg.due(now, limit);
        }
        self.db_read()?
            .range([keys::DUE].as_slice()..keys::due_until(now).as_slice())
            .keys()
            .take(limit)
            .map(|k| {
                let k = k?;
                keys::parse_due(&k).ok_or_else(|| StoreError::Corrupt {
                    key: String::from_utf8_lossy(&k).into_owned(),
                    reason: "malformed due key".into(),
                })
            })
            .collect()
    }

    /// The earliest scheduled check, if any.
    pub fn next_due(&self) -> Result<Option<i64>, StoreError> {
        if let Some(pg) = &self.pg {
            return pg.next_due();
        }
        match self.db_read()?.scan_prefix([keys::DUE]).keys().next() {
            Some(k) => Ok(keys::parse_due(&k?).map(|(at, _)| at)),
            None => Ok(None),
        }
    }

    #[cfg(test)]
    /// Number of entries in the due index.
    pub(crate) fn due_len(&self) -> usize {
        if let Some(pg) = &self.pg {
            return pg.due_len();
        }
        self.db_read()
            .map_or(0, |db| db.scan_prefix([keys::DUE]).count())
    }

    /// Bytes the store takes on disk.
    pub fn size_on_disk(&self) -> u64 {
        if let Some(pg) = &self.pg {
            return pg.size_on_disk();
        }
        self.db_read()
            .ok()
            .and_then(|db| db.size_on_disk().ok())
            .unwrap_or(0)
    }

    /// Writes what sled holds in memory to disk. PostgreSQL: its commits are durable
    /// when they return, nothing to do.
    pub fn flush(&self) -> Result<(), StoreError> {
        if self.pg.is_some() {
            return Ok(());
        }
        self.shared.health.guard(|| {
            self.db()?.flush()?;
            Ok(())
        })
    }

    fn get<T: DeserializeOwned>(&self, key: &[u8]) -> Result<Option<T>, StoreError> {
        match self.db_read()?.get(key)? {
            Some(v) => decode(key, &v).map(Some),
            None => Ok(None),
        }
    }
}

/// The time a rebaseline stamps the URLs of the dropped link array with: the last check
/// (the store has no clock; the URLs were on the page then).
fn self_now(state: &WatchState) -> i64 {
    state.last_check.unwrap_or(state.next_check)
}

fn encode<T: Serialize>(v: &T) -> Vec<u8> {
    let mut out = vec![VALUE_V1];
    serde_json::to_writer(&mut out, v).expect("invariant: model types serialize to JSON");
    out
}

fn decode<T: DeserializeOwned>(key: &[u8], bytes: &[u8]) -> Result<T, StoreError> {
    let corrupt = |reason: String| StoreError::Corrupt {
        key: String::from_utf8_lossy(key).into_owned(),
        reason,
    };
    match bytes.split_first() {
        Some((&VALUE_V1, rest)) => serde_json::from_slice(rest).map_err(|e| corrupt(e.to_string())),
        Some((v, _)) => Err(corrupt(format!("unknown value version {v}"))),
        None => Err(corrupt("empty value".into())),
    }
}

#[cfg(test)]
mod schema_tests;
#[cfg(test)]
mod suite;
#[cfg(test)]
mod tests;
