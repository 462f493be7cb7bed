//! Small per-watch records read without decoding a watch, its state or its items: the
//! feed stamp (a change sequence the feeds' ETags come from), the index of failing
//! watches and the render mode of each watch (counted at start-up). Also the migration
//! that builds them in a store written before they existed.

use super::writes::Writes;
use super::{encode, keys, Store, StoreError};
use crate::model::{Render, Status, Watch, WatchId};
use crate::state::{FeedStamp, WatchState};

impl FeedStamp {
    fn encode(self) -> Vec<u8> {
        let mut v = self.seq.to_be_bytes().to_vec();
        if let Some(t) = self.error_since {
            v.extend_from_slice(&t.to_be_bytes());
        }
        v
    }

    fn decode(v: &[u8]) -> Option<Self> {
        let seq = u64::from_be_bytes(v.get(..8)?.try_into().ok()?);
        let error_since = match v.len() {
            8 => None,
            16 => Some(i64::from_be_bytes(v.get(8..16)?.try_into().ok()?)),
            _ => return None,
        };
        Some(Self { seq, error_since })
    }
}

/// What a feed shows of a watch's state: when it differs between two states, the feed
/// changed.
pub(super) fn feed_facts(s: &WatchState) -> impl PartialEq + '_ {
    let failing = s.status == Status::Error;
    (
        s.page_title.as_deref(),
        s.icon.as_deref(),
        s.feed_ttl_minutes(),
        s.baseline_at
            .or(s.link_fingerprint.as_ref().and(s.last_check)),
        failing.then_some((s.error.as_deref(), s.error_since, s.consecutive_errors)),
    )
}

impl Store {
    /// The feed stamp of `id` (`None`: no such watch).
    pub fn feed_stamp(&self, id: &WatchId) -> Result<Option<FeedStamp>, StoreError> {
        if let Some(pg) = &self.pg {
            return pg.feed_stamp(id);
        }
        let key = keys::watch_key(keys::FEED, id);
        match self.db_read()?.get(&key)? {
            None => Ok(None),
            Some(v) => FeedStamp::decode(&v)
                .map(Some)
                .ok_or_else(|| StoreError::Corrupt {
                    key: String::from_utf8_lossy(&key).into_owned(),
                    reason: "malformed feed stamp".into(),
                }),
        }
    }

    /// Adds a new feed stamp for `id` to `batch`.
    pub(super) fn bump_feed(
        &self,
        batch: &mut Writes,
        id: &WatchId,
        state: &WatchState,
    ) -> Result<(), StoreError> {
        let stamp = FeedStamp {
            seq: self.db()?.generate_id()? + 1,
            error_since: (state.status == Status::Error)
                .then_some(state.error_since)
                .flatten(),
        };
        batch.insert(keys::watch_key(keys::FEED, id), stamp.encode());
        Ok(())
    }

    /// Adds the small records of `watch` in `state` to `batch`: its render mode, its
    /// place in the failing index.
    pub(super) fn put_index(batch: &mut Writes, watch: &Watch, state: &WatchState) {
        batch.insert(
            keys::watch_key(keys::RENDER, &watch.id),
            encode(&watch.render),
        );
        Self::put_failing(batch, &watch.id, state);
    }

    pub(super) fn put_failing(batch: &mut Writes, id: &WatchId, state: &WatchState) {
        let key = keys::watch_key(keys::FAILING, id);
        if state.status == Status::Error {
            batch.insert(key, &[]);
        } else {
            batch.remove(key);
        }
    }

    /// The render mode of every watch (for the gauges), without reading the watches.
    pub fn watch_renders(&self) -> Result<Vec<Render>, StoreError> {
        if let Some(pg) = &self.pg {
            return pg.watch_renders();
        }
        self.db_read()?
            .scan_prefix([keys::RENDER])
            .values()
            .map(|v| {
                let v = v?;
                super::decode(&[keys::RENDER], &v)
            })
            .collect()
    }

    /// Ids of the watches whose last check failed.
    pub fn failing_watches(&self) -> Result<Vec<WatchId>, StoreError> {
        if let Some(pg) = &self.pg {
            return pg.failing_watches();
        }
        self.db_read()?
            .scan_prefix([keys::FAILING])
            .keys()
            .map(|k| {
                let k = k?;
                keys::id_of(&k).ok_or_else(|| StoreError::Corrupt {
                    key: String::from_utf8_lossy(&k).into_owned(),
                    reason: "malformed failing-index key".into(),
                })
            })
            .collect()
    }

    /// Schema 1 → 2: builds the feed stamps, the failing index and the render index
    /// from the watches and their states. Link arrays and seen URLs of schema 1 are read
    /// as they are (a full array without deltas; a seen URL without a time gets one at
    /// its watch's next sweep).
    pub(super) fn migrate_1_to_2(db: &sled::Db) -> Result<(), StoreError> {
        let mut batch = Writes::default();
        let mut n = 0u64;
        for kv in db.scan_prefix([keys::WATCH]) {
            let (k, v) = kv?;
            let watch: Watch = super::decode(&k, &v)?;
            let state: Option<WatchState> = match db.get(keys::watch_key(keys::STATE, &watch.id))? {
                Some(v) => Some(super::decode(&k, &v)?),
                None => None,
            };
            let state = state.unwrap_or_else(|| {
                WatchState::new(
                    0,
                    crate::schedule::Adaptive {
                        a: 0.0,
                        b: 0.0,
                        c: 0.0,
                    },
                )
            });
            Self::put_index(&mut batch, &watch, &state);
            let stamp = FeedStamp {
                seq: db.generate_id()? + 1,
                error_since: (state.status == Status::Error)
                    .then_some(state.error_since)
                    .flatten(),
            };
            batch.insert(keys::watch_key(keys::FEED, &watch.id), stamp.encode());
            n += 1;
        }
        batch.insert(keys::SCHEMA, &2u32.to_be_bytes());
        db.apply_batch(batch.into_batch())?;
        db.flush()?;
        tracing::info!(watches = n, "store migrated from schema 1 to 2");
        Ok(())
    }
}

/// Keys of one kind in the store and the bytes of their keys and values (what is live,
/// beside what the engine takes on disk).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    pub kind: char,
    pub keys: u64,
    pub bytes: u64,
}

impl Store {
    /// Live keys and bytes by kind (a full scan: for benchmarks and diagnostics).
    pub fn usage(&self) -> Result<Vec<Usage>, StoreError> {
        if let Some(pg) = &self.pg {
            return pg.usage();
        }
        let mut by: std::collections::BTreeMap<u8, (u64, u64)> = std::collections::BTreeMap::new();
        let db = self.db_read()?;
        for kv in super::scan::evicting(&db) {
            let (k, v) = kv?;
            let e = by.entry(k.first().copied().unwrap_or(0)).or_default();
            e.0 += 1;
            e.1 += (k.len() + v.len()) as u64;
        }
        Ok(by
            .into_iter()
            .map(|(kind, (keys, bytes))| Usage {
                kind: char::from(kind),
                keys,
                bytes,
            })
            .collect())
    }
}
