//! The seen set: the URLs that left a watch's page (those on it are in its link array),
//! so that a link that comes back is not new again. A URL is known by its key, the
//! first 8 bytes of its MD5 (the id of its item is their hex). The set is bounded by
//! forgetting a URL once it has been gone long enough:
//!
//! - for at least [`FORGET_AFTER_CHECKS`] checks **and** [`FORGET_AFTER_SECS`] (both, so
//!   neither a fast schedule nor a paused watch forgets early), whatever the items, and
//! - only when no kept item links to it (an item the feed may still carry is never
//!   emitted again while it is kept).
//!
//! **Buckets.** The keys are packed into buckets, one sled key each (`U` id n, with n a
//! u32 numbering the watch's buckets), whose value is a version byte, the stamps of the
//! first and of the latest departure in it (unix minutes u32 and the watch's check count
//! u32 each) and the 8-byte keys, 2 KB at most ([`BUCKET_HASHES`]). A check writes the
//! URLs that left its page as a new bucket, stamped with its time and check count, and
//! rewrites nothing; the sweep (every [`SWEEP_EVERY`] checks) merges the small buckets of
//! the last checks into one (while it holds at most [`BUCKET_HASHES`] keys and its
//! departures lie within [`BUCKET_SPAN_CHECKS`] checks), so a watch keeps a few dozen
//! keys for thousands of URLs.
//!
//! A bucket is judged by its latest departure, in time and in checks: it expires when
//! that one is gone long enough, so none of its URLs is forgotten early (one may be kept
//! up to [`BUCKET_SPAN_CHECKS`] checks longer than its own departure asks). The sweep
//! drops an expired bucket whole, or rewrites it with only the keys that kept items link
//! to. A URL that comes back and leaves again is written anew with that departure: the
//! newer copy keeps it as long as its new time says; the older goes with its bucket, or
//! before, when a sweep finds that at least an eighth of that bucket are such copies.
//!
//! **Older stores.** Before buckets, each URL had its own key (`u` id hash) holding its
//! stamp, empty in the first stores, 16 bytes (seconds i64, checks u64) in the first form
//! of the stamp. Such keys count as seen as they are; a watch's sweep moves them into
//! buckets (grouped by their stamps, never later than one judged by its latest) in the
//! same batch that removes them, or forgets them by the same rule, so none is lost.
//!
//! **Why nothing old comes back.** A URL that comes back inside that window is not new.
//! What can come back after it is a link gone from the page for at least a month and a
//! hundred checks whose item, if it had one, is out of the item window; it would be a new
//! item with the same id (`Item::id_for` of its URL) as the one readers got long ago,
//! which readers match by id.
//!
//! The item window is the feed's: the store keeps as many items as a feed shows
//! (`feed.max_items`, default 100), so "kept" and "still in the feed" are the same items
//! and the second rule protects exactly what readers may still see. A smaller window
//! protects fewer URLs by items than the thousand kept before, but the first rule does
//! not depend on items: no URL is forgotten sooner than a month and a hundred checks
//! after it left, so the argument holds unchanged. Raising `max_items` later does not
//! bring dropped items back, so no item leaves a feed and returns to it by that either.

use std::sync::{Mutex, PoisonError};

mod bucket;

use bucket::{bucket_hashes, bucket_seq, corrupt, old_hash, Bucket};
pub(super) use bucket::{Hash, Stamp};

use super::writes::Writes;
use super::{keys, Store, StoreError};
use crate::hash::{HashMap, HashSet};
use crate::model::WatchId;

/// Checks a URL must have been gone before it may be forgotten.
pub(crate) const FORGET_AFTER_CHECKS: u64 = 100;
/// Seconds a URL must have been gone before it may be forgotten (30 days).
pub(crate) const FORGET_AFTER_SECS: i64 = 30 * 86_400;
/// A watch's seen set is swept every this many checks (spread over watches by their
/// own check counts).
pub(crate) const SWEEP_EVERY: u64 = 32;
/// The most URL keys one bucket holds (2 KB of them).
pub(crate) const BUCKET_HASHES: usize = 256;
/// The sweep merges buckets only while their departures lie within this many checks, so
/// that a URL is kept at most that much longer than its own departure asks.
pub(crate) const BUCKET_SPAN_CHECKS: u64 = SWEEP_EVERY;

/// One part the sweep groups into buckets: a stored bucket (by its number) or URLs of
/// the old form (by their keys).
struct Part {
    seq: Option<u32>,
    old_keys: Vec<sled::IVec>,
    bucket: Bucket,
    /// Its bucket must be written even when it stays alone.
    changed: bool,
}

/// Adds to `batch` the URL keys `hashes`, all gone at `stamp`, as new buckets from number
/// `seq` on. Returns the number after the last one written. The numbers are free only
/// while no other write to the watch's seen set runs between the read of `seq` and the
/// batch: the commits and edits of a watch hold its lock, as for its items' sequence.
pub(super) fn put(
    batch: &mut Writes,
    id: &WatchId,
    seq: u32,
    hashes: Vec<Hash>,
    stamp: Stamp,
) -> Result<u32, StoreError> {
    let bucket = Bucket::of(hashes, stamp);
    let mut seq = seq;
    for chunk in bucket.hashes.chunks(BUCKET_HASHES) {
        let b = Bucket {
            hashes: chunk.to_vec(),
            ..bucket.clone()
        };
        batch.insert(keys::seen_bucket(id, seq), b.encode());
        seq = seq
            .checked_add(1)
            .ok_or_else(|| corrupt(&keys::seen_bucket(id, seq), "no bucket number left"))?;
    }
    Ok(seq)
}

/// Questions a watch's seen set answers by a pass over its keys as read, before it sorts
/// them to bisect. A check's analysis asks only about the links its page did not hold
/// before: about three a check on the mock news site. A pass over the 7,000 keys of a
/// watch 2,200 checks old costs a few µs; reading and sorting them took 210–390 µs,
/// reading them alone 60–100. The sort of 7,000 keys as numbers takes 123–130 µs
/// (`bench/README.md`).
const PASSES_BEFORE_SORTING: usize = 8;

/// A watch's seen set read once for many questions (a check's analysis, a deep check's
/// pages). It is read at the first question; the caller holds it no longer than the
/// check, whose own commit is the only write to the set meanwhile.
#[derive(Debug, Default)]
pub struct SeenCache {
    /// The keys, once read (never on PostgreSQL, where the store answers each question).
    keys: Mutex<Option<Keys>>,
    /// Sort the keys when they are read: the caller asks about many URLs.
    many: bool,
}

/// The keys of a seen set as read, then sorted once passes over them would cost more.
/// They are held as numbers (native byte order): compared byte by byte as 8-byte arrays,
/// 7,000 keys took 1.5–1.8 times as long to sort (`bench/README.md`).
#[derive(Debug)]
struct Keys {
    all: Vec<u64>,
    /// Questions answered so far by a pass; `None` once `all` is sorted and deduplicated.
    passes: Option<usize>,
}

impl Keys {
    fn contains(&mut self, hash: Hash) -> bool {
        let key = u64::from_ne_bytes(hash);
        if let Some(passes) = &mut self.passes {
            if *passes < PASSES_BEFORE_SORTING {
                *passes += 1;
                return self.all.contains(&key);
            }
            self.sort();
        }
        self.all.binary_search(&key).is_ok()
    }

    fn sort(&mut self) {
        sort_each_once(&mut self.all);
        self.passes = None;
    }
}

/// Sorts `keys` and keeps each once, for bisection.
fn sort_each_once<T: Ord>(keys: &mut Vec<T>) {
    keys.sort_unstable();
    keys.dedup();
}

impl SeenCache {
    /// For a caller that asks about many URLs (a deep check, about every link of its
    /// pages): the keys are sorted as soon as they are read.
    pub fn for_many() -> Self {
        Self {
            keys: Mutex::default(),
            many: true,
        }
    }

    /// This cache handed to a caller that asks about many URLs (a deep check's crawl,
    /// after its page's analysis asked about a few): the keys already read are kept and
    /// sorted now, so that one check reads its watch's seen set once.
    #[must_use]
    pub fn into_many(self) -> Self {
        let mut keys = self
            .keys
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(read) = &mut keys {
            if read.passes.is_some() {
                read.sort();
            }
        }
        Self {
            keys: Mutex::new(keys),
            many: true,
        }
    }

    /// Whether `url` is in the seen set of `id` (as [`Store::is_seen`]).
    pub fn contains(&self, store: &Store, id: &WatchId, url: &str) -> Result<bool, StoreError> {
        self.contains_key(store, id, url, keys::url_hash(url))
    }

    /// [`SeenCache::contains`] for a caller that has the key of `url` in the seen set
    /// already (the first 8 bytes of its MD5, as the crawl's template hashes each link):
    /// not hashed again.
    pub fn contains_key(
        &self,
        store: &Store,
        id: &WatchId,
        url: &str,
        key: [u8; 8],
    ) -> Result<bool, StoreError> {
        debug_assert_eq!(key, keys::url_hash(url), "the key of another URL");
        if store.pg.is_some() {
            return store.is_seen(id, url);
        }
        let mut cached = self.keys.lock().unwrap_or_else(PoisonError::into_inner);
        if cached.is_none() {
            let mut read = Keys {
                all: store.seen_keys(id)?,
                passes: Some(0),
            };
            if self.many {
                read.sort();
            }
            *cached = Some(read);
        }
        Ok(cached.as_mut().is_some_and(|read| read.contains(key)))
    }
}

impl Store {
    /// Whether `url` was ever seen on this watch's page (and not forgotten).
    pub fn is_seen(&self, id: &WatchId, url: &str) -> Result<bool, StoreError> {
        if let Some(pg) = &self.pg {
            return pg.is_seen(id, url);
        }
        let db = self.db_read()?;
        let hash = keys::url_hash(url);
        if db.contains_key(keys::seen(id, url))? {
            return Ok(true);
        }
        for kv in db.scan_prefix(keys::watch_key(keys::SEEN_BUCKET, id)) {
            let (k, v) = kv?;
            if bucket_hashes(&k, &v)?.any(|h| h == hash) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Every URL key in the seen set of `id` (sled), sorted, each once.
    pub(super) fn seen_hashes(&self, id: &WatchId) -> Result<Vec<Hash>, StoreError> {
        let mut all: Vec<Hash> = self
            .seen_keys(id)?
            .into_iter()
            .map(u64::to_ne_bytes)
            .collect();
        sort_each_once(&mut all);
        Ok(all)
    }

    /// Every URL key in the seen set of `id` (sled) as stored, as a number (native byte
    /// order): a few thousand 8-byte keys read in one go, a URL that left twice twice.
    fn seen_keys(&self, id: &WatchId) -> Result<Vec<u64>, StoreError> {
        let db = self.db_read()?;
        let mut all = Vec::new();
        let prefix = keys::watch_key(keys::SEEN, id);
        for k in db.scan_prefix(&prefix).keys() {
            let k = k?;
            all.push(u64::from_ne_bytes(old_hash(prefix.len(), &k)?));
        }
        for kv in db.scan_prefix(keys::watch_key(keys::SEEN_BUCKET, id)) {
            let (k, v) = kv?;
            all.extend(
                bucket_hashes(&k, &v)?
                    .map(|h| u64::from_ne_bytes(h.try_into().unwrap_or_default())),
            );
        }
        Ok(all)
    }

    /// The number the next bucket of `id` takes: one past the highest stored.
    pub(super) fn next_seen_bucket(&self, id: &WatchId) -> Result<u32, StoreError> {
        let prefix = keys::watch_key(keys::SEEN_BUCKET, id);
        match self.db()?.scan_prefix(&prefix).keys().next_back() {
            None => Ok(0),
            Some(k) => {
                let k = k?;
                bucket_seq(prefix.len(), &k)?
                    .checked_add(1)
                    .ok_or_else(|| corrupt(&k, "no bucket number left"))
            }
        }
    }

    /// Adds to `batch` the sweep of the seen set of `id` at `now` (check count
    /// `checks`): forgets the buckets gone long enough, keeping of them the URLs that
    /// kept items link to; moves the URLs of the old form into buckets, or forgets them
    /// by the same rule (one stored without a stamp gets `now`); merges the small buckets
    /// of the last checks. Returns the number the next new bucket takes.
    pub(super) fn sweep_seen(
        &self,
        batch: &mut Writes,
        id: &WatchId,
        now: i64,
        checks: u64,
    ) -> Result<u32, StoreError> {
        let db = self.db()?;
        // The URL keys of the kept items: the item id is the hex of the same hash.
        let mut kept: HashSet<Hash> = HashSet::default();
        for item in self.items(id, usize::MAX)? {
            if let Some(h) = unhex8(&item.id) {
                kept.insert(h);
            }
        }
        let mut live: Vec<Part> = Vec::new();
        let mut expired: Vec<Part> = Vec::new();
        let mut next: u32 = 0;
        let prefix = keys::watch_key(keys::SEEN_BUCKET, id);
        for kv in db.scan_prefix(&prefix) {
            let (k, v) = kv?;
            let seq = bucket_seq(prefix.len(), &k)?;
            next = next.max(
                seq.checked_add(1)
                    .ok_or_else(|| corrupt(&k, "no bucket number left"))?,
            );
            let mut bucket = Bucket::decode(&k, &v)?;
            if bucket.last.expired(now, checks) {
                let before = bucket.hashes.len();
                bucket.hashes.retain(|h| kept.contains(h));
                if bucket.hashes.is_empty() {
                    batch.remove(k);
                    continue;
                }
                let changed = bucket.hashes.len() != before;
                expired.push(Part {
                    seq: Some(seq),
                    old_keys: Vec::new(),
                    bucket,
                    changed,
                });
            } else {
                live.push(Part {
                    seq: Some(seq),
                    old_keys: Vec::new(),
                    bucket,
                    changed: false,
                });
            }
        }
        let old_prefix = keys::watch_key(keys::SEEN, id);
        for kv in db.scan_prefix(&old_prefix) {
            let (k, v) = kv?;
            let hash = old_hash(old_prefix.len(), &k)?;
            let stamp = Stamp::parse_old(&v)
                .map_err(|()| corrupt(&k, "malformed seen stamp"))?
                .unwrap_or_else(|| Stamp::new(now, checks));
            let gone = stamp.expired(now, checks);
            if gone && !kept.contains(&hash) {
                batch.remove(k);
                continue;
            }
            let part = Part {
                seq: None,
                old_keys: vec![k],
                bucket: Bucket::of(vec![hash], stamp),
                changed: true,
            };
            if gone {
                expired.push(part);
            } else {
                live.push(part);
            }
        }
        drop_superseded(batch, id, &mut live, &mut expired);
        // Buckets in the order of their departures, merged while they stay small and
        // close; what is left of expired buckets, merged while small (every key of them
        // is kept only for its item, whenever it left).
        live.sort_by_key(|p| (p.bucket.first.checks, p.bucket.first.minutes, p.seq));
        for group in groups(live, Some(BUCKET_SPAN_CHECKS)) {
            next = write_group(batch, id, group, next)?;
        }
        for group in groups(expired, None) {
            next = write_group(batch, id, group, next)?;
        }
        Ok(next)
    }

    /// Schema 2 → 3: the seen set in buckets. Nothing is converted here: a seen URL of
    /// schema 2 (its own key) counts as it is, and its watch's next sweep moves it into a
    /// bucket. The version tells an older sitefeed, which would not read the buckets and
    /// so would take their URLs for new, that the store is newer than it understands.
    pub(super) fn migrate_2_to_3(db: &sled::Db) -> Result<(), StoreError> {
        db.insert(keys::SCHEMA, &3u32.to_be_bytes())?;
        db.flush()?;
        tracing::info!(
            "store schema 3: the seen URLs of each watch move into buckets at its next sweep"
        );
        Ok(())
    }

    #[cfg(test)]
    /// URLs in the seen set of `id` (each once, wherever it is stored).
    pub(crate) fn seen_len(&self, id: &WatchId) -> Result<usize, StoreError> {
        if let Some(pg) = &self.pg {
            return pg.seen_len(id);
        }
        Ok(self.seen_hashes(id)?.len())
    }
}

/// Drops from the stored buckets the copies of URLs that left again later: a copy goes
/// when a bucket whose latest departure is not earlier (in time and in checks) holds the
/// URL too, so the URL is kept at least as long. A bucket is rewritten for it only when
/// at least an eighth of its keys go (or all: then it is removed), which bounds both the
/// copies kept and the rewrites.
fn drop_superseded(
    batch: &mut Writes,
    id: &WatchId,
    live: &mut Vec<Part>,
    expired: &mut Vec<Part>,
) {
    // For each URL, the bucket holding it with the latest departure (by check count,
    // then time, then number): that departure and the bucket's place in this order.
    let order = |p: &Part| (p.bucket.last.checks, p.bucket.last.minutes, p.seq);
    let mut latest: HashMap<Hash, (Stamp, Option<u32>)> = HashMap::default();
    for p in live
        .iter()
        .chain(expired.iter())
        .filter(|p| p.seq.is_some())
    {
        for h in &p.bucket.hashes {
            let e = latest.entry(*h).or_insert((p.bucket.last, p.seq));
            if order(p) > (e.0.checks, e.0.minutes, e.1) {
                *e = (p.bucket.last, p.seq);
            }
        }
    }
    for parts in [live, expired] {
        parts.retain_mut(|p| {
            if p.seq.is_none() {
                return true;
            }
            let last = p.bucket.last;
            let superseded = |h: &Hash| {
                latest.get(h).is_some_and(|&(l, seq)| {
                    seq != p.seq && l.minutes >= last.minutes && l.checks >= last.checks
                })
            };
            let n = p.bucket.hashes.iter().filter(|h| superseded(h)).count();
            if n == 0 || 8 * n < p.bucket.hashes.len() {
                return true;
            }
            p.bucket.hashes.retain(|h| !superseded(h));
            if p.bucket.hashes.is_empty() {
                if let Some(seq) = p.seq {
                    batch.remove(keys::seen_bucket(id, seq));
                }
                return false;
            }
            p.changed = true;
            true
        });
    }
}

/// Consecutive parts merged greedily while a bucket holds at most [`BUCKET_HASHES`]
/// keys and, with `span`, its departures lie within that many checks.
fn groups(parts: Vec<Part>, span: Option<u64>) -> Vec<Vec<Part>> {
    let mut out: Vec<Vec<Part>> = Vec::new();
    let mut size = 0usize;
    let (mut first, mut last) = (u32::MAX, 0u32);
    for p in parts {
        let b = &p.bucket;
        let (f, l) = (first.min(b.first.checks), last.max(b.last.checks));
        let fits = size + b.hashes.len() <= BUCKET_HASHES
            && span.is_none_or(|s| u64::from(l.saturating_sub(f)) <= s);
        match out.last_mut() {
            Some(group) if fits => {
                size += b.hashes.len();
                (first, last) = (f, l);
                group.push(p);
            }
            _ => {
                size = b.hashes.len();
                (first, last) = (b.first.checks, b.last.checks);
                out.push(vec![p]);
            }
        }
    }
    out
}

/// Adds to `batch` one group of parts as one bucket (under the lowest number among them,
/// or `next` when none has one) and the removal of the rest. Returns the next free number.
fn write_group(
    batch: &mut Writes,
    id: &WatchId,
    group: Vec<Part>,
    next: u32,
) -> Result<u32, StoreError> {
    if let [only] = group.as_slice() {
        if !only.changed {
            return Ok(next);
        }
    }
    let mut next = next;
    let seq = if let Some(s) = group.iter().filter_map(|p| p.seq).min() {
        s
    } else {
        let s = next;
        next = next
            .checked_add(1)
            .ok_or_else(|| corrupt(&keys::seen_bucket(id, s), "no bucket number left"))?;
        s
    };
    let mut merged: Option<Bucket> = None;
    for p in group {
        for k in p.old_keys {
            batch.remove(k);
        }
        if let Some(s) = p.seq.filter(|&s| s != seq) {
            batch.remove(keys::seen_bucket(id, s));
        }
        match &mut merged {
            None => merged = Some(p.bucket),
            Some(m) => m.merge(p.bucket),
        }
    }
    if let Some(m) = merged {
        batch.insert(keys::seen_bucket(id, seq), m.encode());
    }
    Ok(next)
}

fn unhex8(s: &str) -> Option<Hash> {
    if s.len() != 16 {
        return None;
    }
    let mut out = [0u8; 8];
    for (i, b) in out.iter_mut().enumerate() {
        *b = u8::from_str_radix(s.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

#[cfg(test)]
mod tests;
