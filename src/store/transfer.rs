//! Moving a store between backends (`sitefeed migrate`): every watch with its state,
//! last link array, crawl state, kept items (with their sequence numbers), seen set and
//! deep pages, copied as they are (nothing re-derived), into an empty target; then the
//! counts of both sides are compared. This file holds the copy and the sled side; the
//! PostgreSQL side is `pg/transfer.rs`.

use crate::model::crawl::CrawlState;
use crate::model::{Item, Watch, WatchId};

use super::writes::Writes;
use super::{encode, keys, Store, StoreError};
use crate::state::WatchState;

/// Everything stored for one watch, in backend-neutral form.
#[derive(Debug, Clone, PartialEq)]
pub struct WatchDump {
    pub watch: Watch,
    pub state: WatchState,
    /// The encoded link array (the store's codec), if any.
    pub links: Option<Vec<u8>>,
    pub crawl: Option<CrawlState>,
    /// Kept items with their sequence numbers, oldest first.
    pub items: Vec<(u64, Item)>,
    /// Keys of the seen URLs (8 bytes of their MD5), each once, sorted.
    pub seen: Vec<Vec<u8>>,
    /// Deep pages: (key of the URL, encoded link array), sorted.
    pub pages: Vec<(Vec<u8>, Vec<u8>)>,
}

/// What a store holds, counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub watches: u64,
    pub items: u64,
    pub seen: u64,
    pub pages: u64,
}

impl std::fmt::Display for Counts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} watches, {} items, {} seen URLs, {} deep pages",
            self.watches, self.items, self.seen, self.pages
        )
    }
}

/// A backend as the copy sees it.
pub trait Transfer {
    fn watch_ids(&self) -> Result<Vec<WatchId>, StoreError>;
    fn dump(&self, id: &WatchId) -> Result<Option<WatchDump>, StoreError>;
    /// Writes one watch's records as they are (the watch must not exist).
    fn import(&self, dump: &WatchDump) -> Result<(), StoreError>;
    fn counts(&self) -> Result<Counts, StoreError>;
}

#[derive(Debug, thiserror::Error)]
pub enum TransferError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("the target is not empty ({0}); migrate into a new database or directory")]
    NotEmpty(Counts),
    #[error("no store at {0}: name a sled data directory or a postgres:// URL")]
    Missing(String),
    #[error("the copy does not match: the source holds {from}, the target {to}")]
    Mismatch { from: Counts, to: Counts },
}

/// Copies every watch of `from` into the empty `to`, and verifies the counts. Returns
/// them.
pub fn copy(from: &dyn Transfer, to: &dyn Transfer) -> Result<Counts, TransferError> {
    let there = to.counts()?;
    if there != Counts::default() {
        return Err(TransferError::NotEmpty(there));
    }
    for id in from.watch_ids()? {
        if let Some(d) = from.dump(&id)? {
            to.import(&d)?;
        }
    }
    let (a, b) = (from.counts()?, to.counts()?);
    if a != b {
        return Err(TransferError::Mismatch { from: a, to: b });
    }
    Ok(a)
}

/// Whether a location named on the command line is a PostgreSQL database.
pub(crate) fn is_postgres(at: &str) -> bool {
    at.starts_with("postgres://") || at.starts_with("postgresql://")
}

/// The store at `at`: a `postgres://` URL, or a sled directory (which must exist unless
/// `create`).
pub(crate) fn open_location(at: &str, create: bool) -> Result<Box<dyn Transfer>, TransferError> {
    if is_postgres(at) {
        let mut opts = super::pg::PgOptions::new(at);
        opts.renew_every = None;
        return Ok(Box::new(super::pg::PgStore::connect(opts)?));
    }
    let path = std::path::Path::new(at);
    if !create && !path.exists() {
        return Err(TransferError::Missing(at.to_owned()));
    }
    Ok(Box::new(Store::open(path, 64 * 1024 * 1024)?))
}

/// `sitefeed migrate --from A --to B`.
pub fn migrate(from: &str, to: &str) -> Result<Counts, TransferError> {
    let source = open_location(from, false)?;
    let target = open_location(to, true)?;
    copy(source.as_ref(), target.as_ref())
}

/// The key's last 8 bytes (sequence number or URL hash).
fn tail(k: &[u8]) -> Vec<u8> {
    k[k.len().saturating_sub(8)..].to_vec()
}

impl Transfer for Store {
    fn watch_ids(&self) -> Result<Vec<WatchId>, StoreError> {
        if let Some(pg) = self.pg() {
            return pg.watch_ids();
        }
        Ok(self.watches()?.into_iter().map(|w| w.id).collect())
    }

    fn dump(&self, id: &WatchId) -> Result<Option<WatchDump>, StoreError> {
        if let Some(pg) = self.pg() {
            return pg.dump(id);
        }
        let (Some(watch), Some(state)) = (self.watch(id)?, self.state(id)?) else {
            return Ok(None);
        };
        let db = self.db()?;
        let links = self.links(id)?;
        let links = (!links.is_empty()).then(|| super::codec::encode_links(&links));
        let crawl = self.crawl_value(id, false)?.map(|(state, _)| state);
        // Kept items are contiguous up to the state's highest sequence number.
        let mut items: Vec<(u64, Item)> = self
            .items(id, usize::MAX)?
            .into_iter()
            .enumerate()
            .map(|(n, i)| (state.item_seq.saturating_sub(n as u64), i))
            .collect();
        items.reverse();
        // Sorted and each once already.
        let seen: Vec<Vec<u8>> = self
            .seen_hashes(id)?
            .into_iter()
            .map(|h| h.to_vec())
            .collect();
        let pages = db
            .scan_prefix(keys::watch_key(keys::PAGE, id))
            .map(|kv| {
                let (k, v) = kv?;
                Ok((tail(&k), v.to_vec()))
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        Ok(Some(WatchDump {
            watch,
            state,
            links,
            crawl,
            items,
            seen,
            pages,
        }))
    }

    fn import(&self, d: &WatchDump) -> Result<(), StoreError> {
        if let Some(pg) = self.pg() {
            return pg.import(d);
        }
        let id = &d.watch.id;
        let mut batch = Writes::default();
        batch.insert(keys::watch_key(keys::WATCH, id), encode(&d.watch));
        batch.insert(keys::watch_key(keys::STATE, id), encode(&d.state));
        if !d.watch.options.paused {
            batch.insert(keys::due(d.state.next_check, id), &[]);
        }
        Self::put_index(&mut batch, &d.watch, &d.state);
        self.bump_feed(&mut batch, id, &d.state)?;
        if let Some(l) = &d.links {
            let links = super::codec::decode_links(l).ok_or_else(|| StoreError::Corrupt {
                key: id.as_str().to_owned(),
                reason: "malformed link array".into(),
            })?;
            self.put_links(&mut batch, id, &links, None)?;
        }
        if let Some(c) = &d.crawl {
            batch.insert(
                keys::watch_key(keys::CRAWL, id),
                super::crawl_codec::encode(c),
            );
        }
        for (seq, item) in &d.items {
            batch.insert(keys::item(id, *seq), encode(item));
        }
        // When each URL left the page is not carried: its time starts at the last check.
        let left = super::seen::Stamp::new(d.state.last_check.unwrap_or_default(), d.state.checks);
        let hashes = d
            .seen
            .iter()
            .map(|h| {
                h.as_slice().try_into().map_err(|_| StoreError::Corrupt {
                    key: id.as_str().to_owned(),
                    reason: "a seen URL's key is not 8 bytes".into(),
                })
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        if !hashes.is_empty() {
            super::seen::put(&mut batch, id, 0, hashes, left)?;
        }
        for (h, l) in &d.pages {
            let mut k = keys::watch_key(keys::PAGE, id);
            k.extend_from_slice(h);
            batch.insert(k, l.as_slice());
        }
        let db = self.db()?;
        db.apply_batch(batch.into_batch())?;
        db.flush()?;
        Ok(())
    }

    fn counts(&self) -> Result<Counts, StoreError> {
        if let Some(pg) = self.pg() {
            return pg.counts();
        }
        let db = self.db()?;
        let n = |kind: u8| db.scan_prefix([kind]).keys().count() as u64;
        // Entries, not records: an entry stored twice (under two sequence numbers) counts
        // once, as the PostgreSQL backend keeps it; packed chunks count their items.
        // Seen URLs likewise: each once per watch, whichever bucket or key holds it.
        let (mut items, mut seen) = (0u64, 0u64);
        for w in self.watches()? {
            let ids: std::collections::HashSet<String> = self
                .items(&w.id, usize::MAX)?
                .into_iter()
                .map(|i| i.id)
                .collect();
            items += ids.len() as u64;
            seen += self.seen_hashes(&w.id)?.len() as u64;
        }
        Ok(Counts {
            watches: n(keys::WATCH),
            items,
            seen,
            pages: n(keys::PAGE),
        })
    }
}

#[cfg(test)]
mod tests;
