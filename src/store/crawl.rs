//! A deep watch's crawl state on disk: the full state under `c` and the deltas written
//! since under `C` (`crawl_codec.rs`), so a check that fetched a handful of pages writes
//! those pages, the state's head (root, frontier) and the template sample's new entries,
//! not the hundreds of pages the watch knows. A new full state replaces the deltas when
//! they grow past half its stored size or [`MAX_DELTAS`], as a link array's do.
//!
//! Which pages changed is told by the state's pages themselves: they are changed only
//! through methods that note each page added or handed out for change
//! ([`crate::model::crawl::Pages`]), and a delta holds the noted pages. A page the crawl
//! left alone is neither encoded nor compared. A page removed, or a state that is not the
//! one read plus the pages added since, is written whole.

use std::hash::BuildHasher;

use super::links::MAX_DELTAS;
use super::writes::Writes;
use super::{crawl_codec, decode, keys, Store, StoreError};
use crate::model::crawl::CrawlState;
use crate::model::WatchId;

/// What a read of a deep watch's crawl state was made from: each stored value's length
/// and hash, the number of pages read and the hash of each entry of the template sample.
/// The commit of the same check writes a delta against them when the store still holds
/// the same values. Hashes, not the values: a deep check holds this while it fetches its
/// pages. The hashes are 64 bits, seeded at random per process: two different entries
/// of the sample with the same hash would leave a change out, a chance of one in 2^64
/// per entry.
#[derive(Debug)]
pub struct CrawlRead {
    /// The full state, then the deltas in order: length and hash.
    values: Vec<(usize, u64)>,
    /// The number of pages read.
    pages: usize,
    /// The hash of each entry of the template sample.
    sample: Vec<u64>,
    hasher: foldhash::fast::RandomState,
}

/// The full state and its deltas (key and value) as stored.
struct Stored {
    base: sled::IVec,
    deltas: Vec<(sled::IVec, sled::IVec)>,
}

impl Stored {
    /// The full state, then the deltas in order, as sled's handles (a clone shares the
    /// bytes, it does not copy them).
    fn values(&self) -> impl Iterator<Item = &sled::IVec> {
        std::iter::once(&self.base).chain(self.deltas.iter().map(|(_, v)| v))
    }

    /// Each value's length and hash by `hasher`.
    fn sums(&self, hasher: &foldhash::fast::RandomState) -> Vec<(usize, u64)> {
        self.values()
            .map(|v| (v.len(), hasher.hash_one(v.as_ref())))
            .collect()
    }
}

fn corrupt(id: &WatchId) -> StoreError {
    StoreError::Corrupt {
        key: String::from_utf8_lossy(&keys::watch_key(keys::CRAWL, id)).into_owned(),
        reason: "malformed crawl state".into(),
    }
}

impl Store {
    /// A deep watch's crawl state (empty before its first deep check).
    pub fn crawl(&self, id: &WatchId) -> Result<CrawlState, StoreError> {
        if let Some(pg) = &self.pg {
            return pg.crawl(id);
        }
        Ok(self.crawl_value(id, false)?.unwrap_or_default().0)
    }

    /// A deep watch's crawl state, with what it was read from for the commit of the
    /// same check (`None` on PostgreSQL, and for a state not yet in binary).
    pub fn crawl_read(&self, id: &WatchId) -> Result<(CrawlState, Option<CrawlRead>), StoreError> {
        if let Some(pg) = &self.pg {
            return Ok((pg.crawl(id)?, None));
        }
        Ok(self.crawl_value(id, true)?.unwrap_or_default())
    }

    fn stored_crawl(&self, id: &WatchId) -> Result<Option<Stored>, StoreError> {
        Ok(self
            .with_deltas(keys::CRAWL, keys::CRAWL_DELTA, id)?
            .map(|(base, deltas)| Stored { base, deltas }))
    }

    /// The stored crawl state of a deep watch on sled (binary with its deltas, or JSON as
    /// written before), and, when that is binary and `with_read`, what it was read from
    /// (the hashing is left out for a read that will not be committed against).
    pub(super) fn crawl_value(
        &self,
        id: &WatchId,
        with_read: bool,
    ) -> Result<Option<(CrawlState, Option<CrawlRead>)>, StoreError> {
        let Some(values) = self.stored_crawl(id)? else {
            return Ok(None);
        };
        if !matches!(
            values.base.first(),
            Some(&(crawl_codec::CRAWL_V5 | crawl_codec::CRAWL_V6))
        ) {
            // JSON, as written before the binary form; never followed by deltas.
            let key = keys::watch_key(keys::CRAWL, id);
            return Ok(Some((decode(&key, &values.base)?, None)));
        }
        let shared = values
            .values()
            .map(|v| std::sync::Arc::new(v.clone()) as crate::model::crawl::Value)
            .collect();
        let state = crawl_codec::read_state(shared).ok_or_else(|| corrupt(id))?;
        if !with_read {
            return Ok(Some((state, None)));
        }
        let hasher = foldhash::fast::RandomState::default();
        let read = CrawlRead {
            values: values.sums(&hasher),
            pages: state.pages.len(),
            sample: state
                .sample
                .pages
                .iter()
                .map(|p| hasher.hash_one(p))
                .collect(),
            hasher,
        };
        Ok(Some((state, Some(read))))
    }

    /// Adds the writes that make `state` the stored crawl state of `id` to `batch`: a
    /// delta of the pages whose bytes changed since `read` when the store still holds
    /// what `read` was made from and the deltas stay small, the full state otherwise.
    pub(super) fn put_crawl(
        &self,
        batch: &mut Writes,
        id: &WatchId,
        state: &CrawlState,
        read: Option<&CrawlRead>,
    ) -> Result<(), StoreError> {
        let stored = self.stored_crawl(id)?;
        if let (Some(now), Some(read)) = (&stored, read) {
            if now.sums(&read.hasher) == read.values
                && now.base.first() == Some(&crawl_codec::CRAWL_V6)
                && now.deltas.len() < MAX_DELTAS
            {
                if let Some(delta) = delta(state, read) {
                    let total = now.deltas.iter().map(|(_, v)| v.len()).sum::<usize>();
                    if total + delta.len() <= now.base.len() / 2 {
                        let n = now.deltas.last().map_or(0, |(k, _)| keys::delta_number(k));
                        batch.insert(keys::crawl_delta(id, n + 1), delta);
                        return Ok(());
                    }
                }
            }
        }
        if let Some(now) = stored {
            for (k, _) in now.deltas {
                batch.remove(k);
            }
        }
        batch.insert(keys::watch_key(keys::CRAWL, id), crawl_codec::encode(state));
        Ok(())
    }
}

/// The delta from what `read` holds to `state`: the pages noted as added or changed since
/// the read, and the sample's entries that are not entries of the sample before. `None`
/// when `state` is not the pages read plus those added (a page removed, another state).
fn delta(state: &CrawlState, read: &CrawlRead) -> Option<Vec<u8>> {
    if state.pages.len() != read.pages + state.pages.added() {
        return None;
    }
    let changed: Vec<&str> = state.pages.noted().collect();
    let sample_from: Vec<Option<usize>> = state
        .sample
        .pages
        .iter()
        .map(|p| {
            let h = read.hasher.hash_one(p);
            read.sample.iter().position(|&old| old == h)
        })
        .collect();
    Some(crawl_codec::encode_delta(state, &changed, &sample_from))
}

#[cfg(test)]
#[path = "crawl_tests.rs"]
mod tests;
