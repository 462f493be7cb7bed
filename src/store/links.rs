//! A watch's last link array on disk: a full array under `l` (packed) and the deltas
//! written since under `L` (`codec.rs`), so a check that changes a page writes what
//! changed, not the page's whole array. A new full array replaces the deltas when they
//! grow past half its stored size or [`MAX_DELTAS`]. Reading replays the deltas on
//! indices ([`codec::replay`]), so a chain costs little more than the full array.

use std::borrow::Cow;

use super::writes::Writes;
use super::{codec, keys, Store, StoreError};
use crate::model::{Link, WatchId};

/// Deltas kept before the array is written whole again.
pub(crate) const MAX_DELTAS: usize = 32;

/// A full value and its deltas (keys and values), as stored.
pub(super) type Chain = (sled::IVec, Vec<(sled::IVec, sled::IVec)>);

/// What is stored of one link array.
pub(super) struct Stored<'a> {
    /// The full array's encoded size (0: none).
    pub base_len: usize,
    /// Keys and sizes of the deltas, in order.
    pub deltas: Vec<(sled::IVec, usize)>,
    pub links: Cow<'a, [Link]>,
}

/// The stored values a read of a watch's link array was made from (the full array and
/// its deltas, shared with sled, not copied). A commit that finds the very same values
/// takes the array read then as the old one instead of reading and decoding it again.
#[derive(Debug)]
pub struct LinksRead {
    base: sled::IVec,
    deltas: Vec<(sled::IVec, sled::IVec)>,
}

/// A link array read earlier in the same check, with what it was read from: the old
/// array of the commit when the store still holds exactly that. Without `read` (not
/// known, or not on sled) the commit reads the array itself.
#[derive(Debug)]
pub struct ReadLinks {
    pub read: Option<LinksRead>,
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
    pub(super) fn stored_links(&self, id: &WatchId) -> Result<Stored<'static>, StoreError> {
        let (links, read) = self.links_with_read(id)?;
        let links = Cow::Owned(links);
        Ok(match read {
            None => Stored {
                base_len: 0,
                deltas: Vec::new(),
                links,
            },
            Some(r) => Stored {
                base_len: r.base.len(),
                deltas: r.deltas.into_iter().map(|(k, v)| (k, v.len())).collect(),
                links,
            },
        })
    }

    /// The link array of `id` and the values it was read from (`None`: no array).
    pub(super) fn links_with_read(
        &self,
        id: &WatchId,
    ) -> Result<(Vec<Link>, Option<LinksRead>), StoreError> {
        let Some(read) = self.read_values(id)? else {
            return Ok((Vec::new(), None));
        };
        let chain: Vec<&[u8]> = read.deltas.iter().map(|(_, v)| v.as_ref()).collect();
        let key = keys::watch_key(keys::LINKS, id);
        let links = codec::replay(&read.base, &chain).ok_or_else(|| corrupt(&key))?;
        Ok((links, Some(read)))
    }

    /// The stored values of the link array of `id`, undecoded.
    fn read_values(&self, id: &WatchId) -> Result<Option<LinksRead>, StoreError> {
        Ok(self
            .with_deltas(keys::LINKS, keys::LINK_DELTA, id)?
            .map(|(base, deltas)| LinksRead { base, deltas }))
    }

    /// The value under `base id` and the deltas (keys and values) under `deltas id`, in
    /// order; `None` without the first.
    pub(super) fn with_deltas(
        &self,
        base: u8,
        deltas: u8,
        id: &WatchId,
    ) -> Result<Option<Chain>, StoreError> {
        let db = self.db_read()?;
        let Some(base) = db.get(keys::watch_key(base, id))? else {
            return Ok(None);
        };
        let deltas = db
            .scan_prefix(keys::watch_key(deltas, id))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Some((base, deltas)))
    }

    /// How the link array of `id` is stored, taking `earlier` as its links when the
    /// store holds the very values they were read from.
    fn stored_or<'e>(
        &self,
        id: &WatchId,
        earlier: Option<&'e ReadLinks>,
    ) -> Result<Stored<'e>, StoreError> {
        if let Some((e, read)) = earlier.and_then(|e| Some((e, e.read.as_ref()?))) {
            if let Some(now) = self.read_values(id)? {
                let same = now.base == read.base
                    && now.deltas.len() == read.deltas.len()
                    && now.deltas.iter().zip(&read.deltas).all(|(a, b)| a == b);
                if same {
                    return Ok(Stored {
                        base_len: now.base.len(),
                        deltas: now.deltas.into_iter().map(|(k, v)| (k, v.len())).collect(),
                        links: Cow::Borrowed(&e.links),
                    });
                }
            }
        }
        self.stored_links(id)
    }

    /// Adds the writes that make `new` the stored link array of `id` to `batch`.
    /// `earlier`: the array as this check read it, if it did.
    pub(super) fn put_links(
        &self,
        batch: &mut Writes,
        id: &WatchId,
        new: &[Link],
        earlier: Option<&ReadLinks>,
    ) -> Result<(), StoreError> {
        let old = self.stored_or(id, earlier)?;
        if old.base_len > 0 && old.deltas.len() < MAX_DELTAS {
            let delta = codec::encode_delta(&old.links, new);
            let total: usize = old.deltas.iter().map(|d| d.1).sum::<usize>() + delta.len();
            if total <= old.base_len / 2 {
                let n = old.deltas.last().map_or(0, |(k, _)| keys::delta_number(k));
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
    pub(super) fn remove_links(&self, batch: &mut Writes, id: &WatchId) -> Result<(), StoreError> {
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
