//! The seen set: the URLs that left a watch's page (those on it are in its link array),
//! so that a link that comes back is not new again. Each URL keeps when it last left the
//! page (time and check count); the set is bounded by forgetting a URL once it has been
//! gone long enough:
//!
//! - for at least [`FORGET_AFTER_CHECKS`] checks **and** [`FORGET_AFTER_SECS`] (both, so
//!   neither a fast schedule nor a paused watch forgets early), whatever the items, and
//! - only when no kept item links to it (an item the feed may still carry is never
//!   emitted again while it is kept).
//!
//! A URL that comes back inside that window is refreshed when it leaves again. What can
//! come back after it is a link gone from the page for at least a month and a hundred
//! checks whose item, if it had one, is out of the item window; it would be a new item
//! with the same id (`Item::id_for` of its URL) as the one readers got long ago, which
//! readers match by id.
//!
//! The item window is the feed's: the store keeps as many items as a feed shows
//! (`feed.max_items`, default 100), so "kept" and "still in the feed" are the same items
//! and the second rule protects exactly what readers may still see. A smaller window
//! protects fewer URLs by items than the thousand kept before, but the first rule does
//! not depend on items: no URL is forgotten sooner than a month and a hundred checks
//! after it left, so the argument holds unchanged. Raising `max_items` later does not
//! bring dropped items back, so no item leaves a feed and returns to it by that either.

use std::collections::HashSet;

use super::{keys, Store, StoreError};
use crate::model::WatchId;

/// Checks a URL must have been gone before it may be forgotten.
pub(crate) const FORGET_AFTER_CHECKS: u64 = 100;
/// Seconds a URL must have been gone before it may be forgotten (30 days).
pub(crate) const FORGET_AFTER_SECS: i64 = 30 * 86_400;
/// A watch's seen set is swept every this many checks (spread over watches by their
/// own check counts).
pub(crate) const SWEEP_EVERY: u64 = 32;

/// When a URL left the page: unix minutes (u32) and the watch's check count (u32,
/// saturating), 8 bytes.
pub(super) fn stamp(at: i64, checks: u64) -> [u8; 8] {
    let minutes = u32::try_from(at.max(0) / 60).unwrap_or(u32::MAX);
    let checks = u32::try_from(checks).unwrap_or(u32::MAX);
    let mut v = [0u8; 8];
    v[..4].copy_from_slice(&minutes.to_be_bytes());
    v[4..].copy_from_slice(&checks.to_be_bytes());
    v
}

/// Unix seconds and check count of a stamp; `None` for a URL stored without one.
fn parse_stamp(v: &[u8]) -> Option<(i64, u64)> {
    if v.len() == 16 {
        // The first form of the stamp: seconds (i64) and checks (u64).
        let at = i64::from_be_bytes(v.get(..8)?.try_into().ok()?);
        let checks = u64::from_be_bytes(v.get(8..)?.try_into().ok()?);
        return Some((at, checks));
    }
    let minutes = u32::from_be_bytes(v.get(..4)?.try_into().ok()?);
    let checks = u32::from_be_bytes(v.get(4..8)?.try_into().ok()?);
    Some((i64::from(minutes) * 60, u64::from(checks)))
}

impl Store {
    /// Adds to `batch` the forgetting of the URLs of `id` gone long enough at `now`
    /// (check count `checks`), and a stamp for the URLs stored without one (by an older
    /// version: their time starts now). Returns how many URLs it forgets.
    pub(super) fn sweep_seen(
        &self,
        batch: &mut sled::Batch,
        id: &WatchId,
        now: i64,
        checks: u64,
    ) -> Result<usize, StoreError> {
        let db = self.db()?;
        // The URL hashes of the kept items: the item id is the hex of the same hash.
        let mut kept: HashSet<[u8; 8]> = HashSet::new();
        for item in self.items(id, usize::MAX)? {
            if let Some(h) = unhex8(&item.id) {
                kept.insert(h);
            }
        }
        let prefix = keys::watch_key(keys::SEEN, id);
        let mut forgotten = 0;
        for kv in db.scan_prefix(&prefix) {
            let (k, v) = kv?;
            match parse_stamp(&v) {
                None => batch.insert(k, &stamp(now, checks)),
                Some((at, n)) => {
                    let gone_long = now.saturating_sub(at) >= FORGET_AFTER_SECS
                        && checks.min(u64::from(u32::MAX)).saturating_sub(n) >= FORGET_AFTER_CHECKS;
                    let hash: Option<[u8; 8]> =
                        k.get(prefix.len()..).and_then(|h| h.try_into().ok());
                    if gone_long && hash.is_some_and(|h| !kept.contains(&h)) {
                        batch.remove(k);
                        forgotten += 1;
                    }
                }
            }
        }
        Ok(forgotten)
    }

    #[cfg(test)]
    /// URLs in the seen set of `id`.
    pub(crate) fn seen_len(&self, id: &WatchId) -> Result<usize, StoreError> {
        if let Some(pg) = &self.pg {
            return pg.seen_len(id);
        }
        Ok(self
            .db_read()?
            .scan_prefix(keys::watch_key(keys::SEEN, id))
            .count())
    }
}

fn unhex8(s: &str) -> Option<[u8; 8]> {
    if s.len() != 16 {
        return None;
    }
    let mut out = [0u8; 8];
    for (i, b) in out.iter_mut().enumerate() {
        *b = u8::from_str_radix(s.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}
