//! Opening the sled store: a directory (finishing or rolling back a compaction a crash
//! interrupted, then compacting when it is due), a temporary one, and the reopen after a
//! storage failure; the schema check and migration on open.

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use super::{
    compact, gate, health, keys, settle, CompactPolicy, Shared, Store, StoreError, SCHEMA_VERSION,
};

impl Shared {
    pub(super) fn new(
        db: Option<sled::Db>,
        reopen: Option<(PathBuf, u64)>,
        compaction: compact::Compaction,
    ) -> Self {
        Self {
            db: RwLock::new(db),
            reopen,
            health: health::Health::default(),
            gate: gate::Gate::default(),
            compaction,
            items_kept: std::sync::atomic::AtomicU64::new(crate::model::DEFAULT_ITEMS_KEPT),
            committer: super::commit::Committer::default(),
            settle: settle::Settle::default(),
        }
    }
}

impl Store {
    /// Opens (creating if needed) the store at `path`, compacting it first when it is
    /// due by the default [`CompactPolicy`], which a running store also applies. Fails at
    /// once, with [`StoreError::Locked`], when another process holds it.
    pub fn open(path: &Path, cache_bytes: u64) -> Result<Self, StoreError> {
        Self::open_with(path, cache_bytes, CompactPolicy::default())
    }

    /// [`Store::open`] with a compaction policy. First completes or rolls back a
    /// compaction a crash interrupted.
    pub fn open_with(
        path: &Path,
        cache_bytes: u64,
        policy: CompactPolicy,
    ) -> Result<Self, StoreError> {
        let config = compact::sled_config(path, cache_bytes);
        let leftovers = |e: std::io::Error| StoreError::Open {
            path: path.to_path_buf(),
            source: sled::Error::Io(e),
        };
        let db = if path.exists() {
            // The store's lock first: while another process holds the store (and may be
            // compacting it), nothing beside it is touched.
            let db = config.open().map_err(|e| StoreError::opening(path, e))?;
            if compact::interrupted(path) {
                drop(db);
                compact::finish_swap(path).map_err(leftovers)?;
                compact::open_closed(&config).map_err(|e| StoreError::opening(path, e))?
            } else {
                db
            }
        } else {
            // A compaction stopped between its two renames: its copy goes in.
            compact::finish_swap(path).map_err(leftovers)?;
            config.open().map_err(|e| StoreError::opening(path, e))?
        };
        let db = Self::init(db, path)?;
        let hint = compact::Hint::read(path);
        let store = Self {
            shared: Arc::new(Shared::new(
                Some(db),
                Some((path.to_path_buf(), cache_bytes)),
                compact::Compaction::new(policy, hint),
            )),
            pg: None,
        };
        if let Err(e) = store.maybe_compact_apart() {
            tracing::warn!(error = %e, path = %path.display(), "store compaction at start-up failed; the store is unchanged");
        }
        store.start_compaction_timer();
        Ok(store)
    }

    /// Closes and opens the database again. The old handle must be gone before the new
    /// one can take the directory's lock; if the open fails, the store stays closed
    /// (every operation answers [`StoreError::Closed`]) and the next recovery tries again.
    pub(super) fn reopen(&self) -> Result<(), StoreError> {
        let Some((path, cache_bytes)) = &self.shared.reopen else {
            self.shared.health.reopened();
            return Ok(());
        };
        let _closed = self.shared.gate.close()?;
        self.shared.settle.reopening();
        let mut slot = self
            .shared
            .db
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        drop(slot.take());
        let db = compact::open_closed(&compact::sled_config(path, *cache_bytes))
            .map_err(|e| StoreError::opening(path, e))?;
        *slot = Some(db);
        self.shared.health.reopened();
        tracing::debug!(path = %path.display(), "store reopened");
        Ok(())
    }

    /// A store in a temporary directory, removed when dropped (replay, tests).
    pub fn temporary() -> Result<Self, StoreError> {
        let db = sled::Config::new()
            .temporary(true)
            .cache_capacity(8 * 1024 * 1024)
            .open()?;
        let db = Self::init(db, Path::new("<temporary>"))?;
        Ok(Self {
            shared: Arc::new(Shared::new(
                Some(db),
                None,
                compact::Compaction::new(CompactPolicy::off(), compact::Hint::default()),
            )),
            pg: None,
        })
    }

    fn init(db: sled::Db, path: &Path) -> Result<sled::Db, StoreError> {
        match db.get(keys::SCHEMA)? {
            None => {
                db.insert(keys::SCHEMA, &SCHEMA_VERSION.to_be_bytes())?;
                db.flush()?;
            }
            Some(v) => {
                let found = v.as_ref().try_into().map(u32::from_be_bytes).map_err(|_| {
                    StoreError::Corrupt {
                        key: "v".into(),
                        reason: "schema version is not 4 bytes".into(),
                    }
                })?;
                if found > SCHEMA_VERSION {
                    return Err(StoreError::NewerSchema {
                        path: path.to_path_buf(),
                        found,
                    });
                }
                if found < 2 {
                    Self::migrate_1_to_2(&db)?;
                }
                if found < 3 {
                    Self::migrate_2_to_3(&db)?;
                }
                // From schema 4 on nothing moves: the older forms are read as they are
                // (JSON crawl states; states with named check logs and inline reference
                // keys), and each value takes the newer one at its next write.
                if found < 4 {
                    tracing::info!("store schema 4: deep watches' crawl states are rewritten in binary at their next check");
                }
                if found < 5 {
                    tracing::info!("store schema 5: each watch's state is written in its shorter form at its next check");
                }
                if found < 6 {
                    tracing::info!("store schema 6: a deep watch's check writes its crawl state as a delta from its next check on");
                }
                if found < SCHEMA_VERSION {
                    db.insert(keys::SCHEMA, &SCHEMA_VERSION.to_be_bytes())?;
                    db.flush()?;
                }
            }
        }
        Ok(db)
    }
}
