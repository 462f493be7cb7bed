//! A watch's items: the newest one by one under `i id seq` (JSON), the older ones packed
//! [`CHUNK`] at a time into one compressed value under `I id first_seq` (a JSON array,
//! oldest first, deflated), so a long history takes a fraction of its size and a check
//! writes only its own new items. At least [`HOT`] items stay unpacked: a feed of up to
//! that many items decompresses nothing.
//!
//! The store keeps the newest [`Store::items_kept`] items of each watch: as many as a
//! feed shows (`feed.max_items`, at most `ITEMS_KEPT`), since nothing reads more. Every
//! commit drops what lies below that window, whatever kept it (an older version, a
//! larger `feed.max_items`); raising the window later brings nothing back. With the
//! default window (100, no more than [`HOT`]) nothing is ever packed.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::Ordering;

use super::writes::Writes;
use super::{decode, encode, keys, Store, StoreError, ITEMS_KEPT};
use crate::model::{Item, WatchId};

/// Items always kept one by one.
pub(crate) const HOT: u64 = 100;
/// Items per packed chunk.
pub(crate) const CHUNK: u64 = 100;
/// Leading byte of a packed chunk: then the span of sequence numbers it covers (u32 BE;
/// its items, all those of the span still stored, are at most that many), then the
/// deflated JSON.
const CHUNK_V4: u8 = 4;
/// A chunk never inflates to more than this (a damaged value cannot take the memory).
const CHUNK_MAX_BYTES: usize = 16 << 20;

fn corrupt(key: &[u8], reason: &str) -> StoreError {
    StoreError::Corrupt {
        key: String::from_utf8_lossy(key).into_owned(),
        reason: reason.into(),
    }
}

fn encode_chunk(items: &[Item], span: u64) -> Vec<u8> {
    let json = serde_json::to_vec(items).expect("invariant: items serialize to JSON");
    let mut out = vec![CHUNK_V4];
    out.extend_from_slice(&u32::try_from(span).unwrap_or(u32::MAX).to_be_bytes());
    out.extend_from_slice(&super::deflate::deflate(&json, 6));
    out
}

fn chunk_span(key: &[u8], v: &[u8]) -> Result<u64, StoreError> {
    match v.split_first() {
        Some((&CHUNK_V4, rest)) if rest.len() >= 4 => Ok(u64::from(u32::from_be_bytes(
            rest[..4]
                .try_into()
                .map_err(|_| corrupt(key, "short chunk"))?,
        ))),
        _ => Err(corrupt(key, "not an item chunk")),
    }
}

fn decode_chunk(key: &[u8], v: &[u8]) -> Result<Vec<Item>, StoreError> {
    let n = chunk_span(key, v)?;
    let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&v[5..], CHUNK_MAX_BYTES)
        .map_err(|_| corrupt(key, "chunk does not inflate"))?;
    let items: Vec<Item> =
        serde_json::from_slice(&json).map_err(|e| corrupt(key, &e.to_string()))?;
    if items.len() as u64 > n {
        return Err(corrupt(key, "more items than the chunk's span"));
    }
    Ok(items)
}

fn chunk_key(id: &WatchId, first: u64) -> Vec<u8> {
    let mut k = keys::watch_key(keys::ITEM_CHUNK, id);
    k.extend_from_slice(&first.to_be_bytes());
    k
}

fn chunk_first(key: &[u8]) -> Result<u64, StoreError> {
    key.len()
        .checked_sub(8)
        .and_then(|at| key.get(at..))
        .and_then(|b| b.try_into().ok())
        .map(u64::from_be_bytes)
        .ok_or_else(|| corrupt(key, "malformed chunk key"))
}

/// The first sequence number kept when the highest is `seq` and `kept` items are.
pub(super) fn kept_from(seq: u64, kept: u64) -> u64 {
    seq.saturating_sub(kept) + 1
}

impl Store {
    /// Sets how many items per watch the store keeps, the newest: `feed.max_items`
    /// (clamped to 1..=`ITEMS_KEPT`), set where the service opens the store. Each
    /// watch's next commit drops the older ones; raising it later does not bring back
    /// items already dropped. Clones of the store share it.
    pub fn set_items_kept(&self, n: usize) {
        let n = (n as u64).clamp(1, ITEMS_KEPT);
        self.shared.items_kept.store(n, Ordering::Relaxed);
    }

    /// Items per watch the store keeps (default `DEFAULT_ITEMS_KEPT`).
    pub fn items_kept(&self) -> u64 {
        self.shared.items_kept.load(Ordering::Relaxed)
    }

    /// Adds the full text of stored items and updates the watch's queue of items still
    /// waiting for theirs (`WatchState::full_text`): the queue `took` becomes `left`, and
    /// what was queued since stays ([`crate::model::requeue`]); in one atomic batch,
    /// flushed. Each
    /// `(item id, article HTML)` goes to the stored item with that id (one by one or
    /// packed) unless it already carries content: an article is stored once. A change
    /// bumps the feed stamp, so the feeds' ETags move. Items are committed first by the
    /// check as ever; this comes after, so a crash between the two loses no item.
    pub fn add_full_text(
        &self,
        id: &WatchId,
        contents: &[(String, String)],
        took: &[crate::model::PendingText],
        left: &[crate::model::PendingText],
    ) -> Result<(), StoreError> {
        if let Some(pg) = &self.pg {
            return pg.add_full_text(id, contents, took, left);
        }
        self.shared
            .health
            .guard(|| self.add_full_text_unguarded(id, contents, took, left))
    }

    fn add_full_text_unguarded(
        &self,
        id: &WatchId,
        contents: &[(String, String)],
        took: &[crate::model::PendingText],
        left: &[crate::model::PendingText],
    ) -> Result<(), StoreError> {
        let Some(mut state) = self.state(id)? else {
            return Err(StoreError::NoWatch(id.clone()));
        };
        let db = self.db()?;
        let mut batch = Writes::default();
        let by_id: HashMap<&str, &str> = contents
            .iter()
            .map(|(i, c)| (i.as_str(), c.as_str()))
            .collect();
        let fill = |item: &mut Item| -> bool {
            match by_id.get(item.id.as_str()) {
                Some(&c) if item.content.is_none() => {
                    item.content = Some(c.to_owned());
                    true
                }
                _ => false,
            }
        };
        let mut added = false;
        if !by_id.is_empty() {
            for kv in db.scan_prefix(keys::watch_key(keys::ITEM, id)) {
                let (k, v) = kv?;
                let mut item: Item = decode(&k, &v)?;
                if fill(&mut item) {
                    batch.insert(k, encode(&item));
                    added = true;
                }
            }
            for kv in db.scan_prefix(keys::watch_key(keys::ITEM_CHUNK, id)) {
                let (k, v) = kv?;
                let n = chunk_span(&k, &v)?;
                let mut items = decode_chunk(&k, &v)?;
                let mut changed = false;
                for item in &mut items {
                    changed |= fill(item);
                }
                if changed {
                    batch.insert(k, encode_chunk(&items, n));
                    added = true;
                }
            }
        }
        state.full_text = crate::model::requeue(&state.full_text, took, left);
        batch.insert(keys::watch_key(keys::STATE, id), encode(&state));
        if added {
            self.bump_feed(&mut batch, id, &state)?;
        }
        db.apply_batch(batch.into_batch())?;
        db.flush()?;
        Ok(())
    }

    /// Up to `limit` items, newest first.
    pub fn items(&self, id: &WatchId, limit: usize) -> Result<Vec<Item>, StoreError> {
        if let Some(pg) = &self.pg {
            return pg.items(id, limit);
        }
        let db = self.db_read()?;
        let mut out = Vec::new();
        for kv in db.scan_prefix(keys::watch_key(keys::ITEM, id)).rev() {
            if out.len() >= limit {
                return Ok(out);
            }
            let (k, v) = kv?;
            out.push(decode(&k, &v)?);
        }
        for kv in db.scan_prefix(keys::watch_key(keys::ITEM_CHUNK, id)).rev() {
            if out.len() >= limit {
                break;
            }
            let (k, v) = kv?;
            let chunk = decode_chunk(&k, &v)?;
            out.extend(chunk.into_iter().rev().take(limit - out.len()));
        }
        Ok(out)
    }

    /// The retitles among the items of `id` stored one by one, newest first, until every
    /// id of `to_find` is found (each found one leaves it). An item is decoded only when
    /// its stored bytes hold a retitled id: ids are hex, written into the JSON as they
    /// are, so bytes without any of them are not a retitled item (a check retitles one or
    /// two of a hundred). An id of another shape (never made by this build) turns the
    /// shortcut off.
    fn retitle_singles(
        &self,
        batch: &mut Writes,
        id: &WatchId,
        to_find: &mut HashSet<&str>,
        retitle: &dyn Fn(&mut Item) -> bool,
    ) -> Result<(), StoreError> {
        let db = self.db()?;
        let ids: Vec<&str> = to_find.iter().copied().collect();
        let finders: Option<Vec<memchr::memmem::Finder<'_>>> = ids
            .iter()
            .all(|t| t.bytes().all(|b| b.is_ascii_alphanumeric()))
            .then(|| {
                ids.iter()
                    .map(|t| memchr::memmem::Finder::new(t.as_bytes()))
                    .collect()
            });
        for kv in db.scan_prefix(keys::watch_key(keys::ITEM, id)).rev() {
            let (k, v) = kv?;
            if finders
                .as_ref()
                .is_some_and(|fs| !fs.iter().any(|f| f.find(&v).is_some()))
            {
                continue;
            }
            let mut item: Item = decode(&k, &v)?;
            to_find.remove(item.id.as_str());
            if retitle(&mut item) {
                batch.insert(k, encode(&item));
            }
            if to_find.is_empty() {
                break;
            }
        }
        Ok(())
    }

    /// Adds to `batch` the item writes of a check: `new` items (oldest first) ending at
    /// sequence `seq`, the `retitled` ones, the removal of every item below the kept
    /// window (packed or not, however it got there), and the packing of old items.
    pub(super) fn put_items(
        &self,
        batch: &mut Writes,
        id: &WatchId,
        seq: u64,
        new: &[Item],
        retitled: &[Item],
    ) -> Result<(), StoreError> {
        let db = self.db()?;
        // An edit keeps the item (and its place) and dates it `updated`.
        let titles: HashMap<&str, (&str, i64)> = retitled
            .iter()
            .map(|i| (i.id.as_str(), (i.title.as_str(), i.first_seen)))
            .collect();
        let retitle = |item: &mut Item| -> bool {
            match titles.get(item.id.as_str()) {
                Some(&(t, at)) if item.title != t => {
                    item.title = t.to_owned();
                    item.updated = Some(at);
                    true
                }
                _ => false,
            }
        };
        let bound = kept_from(seq, self.items_kept());
        let first_new = seq + 1 - new.len() as u64;
        // The retitled ids not found yet. A check retitles entries of its page, which are
        // the newest items: the items one by one are searched newest first, and the
        // packed ones only for an id not found among them.
        let mut to_find: HashSet<&str> = titles.keys().copied().collect();
        if !to_find.is_empty() {
            self.retitle_singles(batch, id, &mut to_find, &retitle)?;
        }
        // Packed chunks: retitled, dropped or trimmed at the window's start.
        let mut packed_end = 0; // highest sequence packed
        for kv in db.scan_prefix(keys::watch_key(keys::ITEM_CHUNK, id)) {
            let (k, v) = kv?;
            let first = chunk_first(&k)?;
            let n = chunk_span(&k, &v)?;
            let last = first + n.saturating_sub(1);
            packed_end = packed_end.max(last);
            if last < bound {
                batch.remove(k);
                continue;
            }
            if first >= bound && to_find.is_empty() {
                continue;
            }
            let mut items = decode_chunk(&k, &v)?;
            let mut changed = false;
            for item in &mut items {
                changed |= retitle(item);
            }
            if first < bound {
                // Items are contiguous: the first ones are the oldest sequences.
                let drop = ((bound - first) as usize).min(items.len());
                items.drain(..drop);
                batch.remove(k);
                batch.insert(chunk_key(id, bound), encode_chunk(&items, last + 1 - bound));
            } else if changed {
                batch.insert(k, encode_chunk(&items, n));
            }
        }
        // New items, but those already below the window (more new than it holds).
        for (n, item) in new.iter().enumerate() {
            let s = first_new + n as u64;
            if s >= bound {
                batch.insert(keys::item(id, s), encode(item));
            }
        }
        // Below the window: usually nothing, or the one or two that just left it; all
        // an older version (or a larger window) kept the first time (one seek when none).
        for k in db.range(keys::item(id, 0)..keys::item(id, bound)).keys() {
            batch.remove(k?);
        }
        // Packing: the oldest CHUNK once more than HOT + CHUNK stand one by one.
        let mut from = (packed_end + 1).max(bound);
        while seq + 1 >= from + HOT + CHUNK {
            let mut chunk = Vec::with_capacity(CHUNK as usize);
            for s in from..from + CHUNK {
                let mut item = if s >= first_new {
                    new[(s - first_new) as usize].clone()
                } else {
                    match db.get(keys::item(id, s))? {
                        Some(v) => decode(&keys::item(id, s), &v)?,
                        None => continue,
                    }
                };
                retitle(&mut item);
                chunk.push(item);
                batch.remove(keys::item(id, s));
            }
            if !chunk.is_empty() {
                batch.insert(chunk_key(id, from), encode_chunk(&chunk, CHUNK));
            }
            from += CHUNK;
        }
        Ok(())
    }
}
