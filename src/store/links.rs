//! A watch's last link array on disk: a full array under `l` (deflated) and the deltas
//! written since under `L` (`codec.rs`), so a check that changes a page writes what
//! changed, not the page's whole array. A new full array replaces the deltas when they
//! grow past half its stored size or [`MAX_DELTAS`]. Reading replays the deltas on
//! indices ([`codec::replay`]), so a chain costs little more than the full array.

use super::{codec, keys, Store, StoreError};
use crate::model::{Link, WatchId};

/// Deltas kept before the array is written whole again.
pub(crate) const MAX_DELTAS: usize = 32;

/// What is stored of one link array.
pub(super) struct Stored {
    /// The full array's encoded size (0: none).
    pub base_len: usize,
    /// Keys and sizes of the deltas, in order.
    pub deltas: Vec<(sled::IVec, usize)>,
    pub links: Vec<Link>,
}

fn corrupt(key: &[u8]) -> StoreError {
    StoreError::Corrupt {
        key: String::from_utf8_lossy(key).into_owned(),
        reason: "malformed link array".into(),
    }
}

impl Store {
    /// The link array of `id` and how it is stored.
    pub(super) fn stored_links(&self, id: &WatchId) -> Result<Stored, StoreError> {
        let db = self.db_read()?;
        let key = keys::watch_key(keys::LINKS, id);
        let Some(base) = db.get(&key)? else {
            return Ok(Stored {
                base_len: 0,
                deltas: Vec::new(),
                links: Vec::new(),
            });
        };
        let mut deltas = Vec::new();
        let mut values = Vec::new();
        for kv in db.scan_prefix(keys::watch_key(keys::LINK_DELTA, id)) {
            let (k, v) = kv?;
            deltas.push((k, v.len()));
            values.push(v);
        }
        let chain: Vec<&[u8]> = values.iter().map(AsRef::as_ref).collect();
        let links = codec::replay(&base, &chain).ok_or_else(|| corrupt(&key))?;
        Ok(Stored {
            base_len: base.len(),
            deltas,
            links,
        })
    }

    /// Adds the writes that make `new` the stored link array of `id` to `batch`.
    pub(super) fn put_links(
        &self,
        batch: &mut sled::Batch,
        id: &WatchId,
        new: &[Link],
    ) -> Result<(), StoreError> {
        let old = self.stored_links(id)?;
        if old.base_len > 0 && old.deltas.len() < MAX_DELTAS {
            let delta = codec::encode_delta(&old.links, new);
            let total: usize = old.deltas.iter().map(|d| d.1).sum::<usize>() + delta.len();
            if total <= old.base_len / 2 {
                let n = old.deltas.last().map_or(0, |(k, _)| {
                    k.len()
                        .checked_sub(4)
                        .and_then(|at| k.get(at..))
                        .and_then(|b| b.try_into().ok())
                        .map_or(0, u32::from_be_bytes)
                });
                batch.insert(keys::link_delta(id, n + 1), delta);
                return Ok(());
            }
        }
        for (k, _) in old.deltas {
            batch.remove(k);
        }
        batch.insert(keys::watch_key(keys::LINKS, id), codec::encode_links(new));
        Ok(())
    }

    /// Adds the removal of the stored link array of `id` to `batch`.
    pub(super) fn remove_links(
        &self,
        batch: &mut sled::Batch,
        id: &WatchId,
    ) -> Result<(), StoreError> {
        batch.remove(keys::watch_key(keys::LINKS, id));
        for k in self
            .db()?
            .scan_prefix(keys::watch_key(keys::LINK_DELTA, id))
            .keys()
        {
            batch.remove(k?);
        }
        Ok(())
    }
}
