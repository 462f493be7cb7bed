//! Key layout of the one sled tree. Every key starts with a one-byte kind and the
//! 12-byte watch id, so one watch's data is one prefix range per kind. Numbers are
//! big-endian so that byte order is numeric order.
//!
//! | key | value |
//! |---|---|
//! | `v` | schema version (u32 BE) |
//! | `w` id | [`Watch`](crate::model::Watch) |
//! | `s` id | [`WatchState`](crate::state::WatchState), written by a check without its page statistics' reference keys |
//! | `R` id | those reference keys (`reference.rs`), written when they change |
//! | `l` id | the last link array |
//! | `i` id seq(u64) | an [`Item`](crate::model::Item); newest = highest seq |
//! | `I` id first_seq(u64) | older items packed by a hundred (`items.rs`) |
//! | `L` id n(u32) | a delta of the link array (`codec.rs`), applied in order after `l` |
//! | `U` id n(u32) | a bucket of the seen set (`seen.rs`): version byte 1, the stamps of its first and latest departure (unix minutes u32, check count u32 each), then up to 256 keys md5(url)[..8] of URLs that left the page |
//! | `u` id md5(url)[..8] | a seen URL of the form before buckets (schema 2 and older), read as it is until its watch's sweep moves it into a bucket: when it last left the page (unix minutes u32, check count u32); empty in stores written before that was kept |
//! | `q` id | the watch's feed stamp: change sequence (u64), failing since (i64, when failing) |
//! | `f` id | empty: the watch is failing (its last check was an error) |
//! | `r` id | the watch's render mode (JSON), counted at start-up without reading watches |
//! | `d` next_check(u64) id | empty: the due index, ordered by time |
//! | `c` id | a deep watch's [`CrawlState`](crate::model::crawl::CrawlState) |
//! | `C` id n(u32) | a delta of the crawl state (`crawl_codec.rs`), applied in order after `c` |
//! | `p` id md5(url)[..8] | the last link array of one page of a deep watch's site |

use crate::model::WatchId;

pub const SCHEMA: &[u8] = b"v";
pub(crate) const WATCH: u8 = b'w';
pub(crate) const STATE: u8 = b's';
pub(crate) const LINKS: u8 = b'l';
pub(crate) const ITEM: u8 = b'i';
/// A seen URL of the old form, one key each (read, and moved into buckets by sweeps).
pub(crate) const SEEN: u8 = b'u';
/// A bucket of seen URLs.
pub(crate) const SEEN_BUCKET: u8 = b'U';
pub(crate) const DUE: u8 = b'd';
pub(crate) const CRAWL: u8 = b'c';
pub const PAGE: u8 = b'p';
pub(crate) const LINK_DELTA: u8 = b'L';
pub(crate) const CRAWL_DELTA: u8 = b'C';
pub(crate) const ITEM_CHUNK: u8 = b'I';
pub(crate) const FEED: u8 = b'q';
pub(crate) const FAILING: u8 = b'f';
pub(crate) const RENDER: u8 = b'r';
/// The page statistics' reference keys, apart from the state.
pub(crate) const REFERENCE: u8 = b'R';

/// The kinds whose keys are `kind id`, one per watch.
pub(crate) const PER_WATCH: [u8; 8] =
    [WATCH, STATE, LINKS, CRAWL, FEED, FAILING, RENDER, REFERENCE];
/// The kinds whose keys are ranges under `kind id`.
pub(crate) const PER_WATCH_RANGES: [u8; 7] = [
    ITEM,
    SEEN,
    SEEN_BUCKET,
    PAGE,
    LINK_DELTA,
    ITEM_CHUNK,
    CRAWL_DELTA,
];

pub fn link_delta(id: &WatchId, n: u32) -> Vec<u8> {
    let mut k = watch_key(LINK_DELTA, id);
    k.extend_from_slice(&n.to_be_bytes());
    k
}

pub fn crawl_delta(id: &WatchId, n: u32) -> Vec<u8> {
    let mut k = watch_key(CRAWL_DELTA, id);
    k.extend_from_slice(&n.to_be_bytes());
    k
}

/// The number at the end of a delta's key ([`link_delta`], [`crawl_delta`]); 0 if the
/// key is too short to hold one.
pub(crate) fn delta_number(key: &[u8]) -> u32 {
    key.len()
        .checked_sub(4)
        .and_then(|at| key.get(at..))
        .and_then(|b| b.try_into().ok())
        .map_or(0, u32::from_be_bytes)
}

/// The watch id at the end of a `kind id` key.
pub fn id_of(key: &[u8]) -> Option<WatchId> {
    WatchId::parse(std::str::from_utf8(key.get(1..)?).ok()?)
}

/// `kind id`: the whole key of a per-watch record, or the prefix of its ranges.
pub(crate) fn watch_key(kind: u8, id: &WatchId) -> Vec<u8> {
    let mut k = Vec::with_capacity(1 + id.as_str().len() + 8);
    k.push(kind);
    k.extend_from_slice(id.as_str().as_bytes());
    k
}

pub fn item(id: &WatchId, seq: u64) -> Vec<u8> {
    let mut k = watch_key(ITEM, id);
    k.extend_from_slice(&seq.to_be_bytes());
    k
}

/// The key of a URL in the seen set: the first 8 bytes of its MD5 (its item's id is
/// their hex).
pub fn url_hash(url: &str) -> [u8; 8] {
    use md5::{Digest, Md5};
    let mut h = [0u8; 8];
    h.copy_from_slice(&Md5::digest(url.as_bytes())[..8]);
    h
}

/// The key of a seen URL of the old form.
pub fn seen(id: &WatchId, url: &str) -> Vec<u8> {
    let mut k = watch_key(SEEN, id);
    k.extend_from_slice(&url_hash(url));
    k
}

/// The key of bucket `n` of a watch's seen set.
pub fn seen_bucket(id: &WatchId, n: u32) -> Vec<u8> {
    let mut k = watch_key(SEEN_BUCKET, id);
    k.extend_from_slice(&n.to_be_bytes());
    k
}

pub fn page(id: &WatchId, url: &str) -> Vec<u8> {
    use md5::{Digest, Md5};
    let mut k = watch_key(PAGE, id);
    k.extend_from_slice(&Md5::digest(url.as_bytes())[..8]);
    k
}

/// Due key: time first so a range scan from the start yields the earliest.
pub fn due(at: i64, id: &WatchId) -> Vec<u8> {
    let mut k = Vec::with_capacity(1 + 8 + 12);
    k.push(DUE);
    k.extend_from_slice(&time_bytes(at));
    k.extend_from_slice(id.as_str().as_bytes());
    k
}

/// Upper bound (exclusive) of due keys at or before `at`.
pub(crate) fn due_until(at: i64) -> Vec<u8> {
    let mut k = vec![DUE];
    k.extend_from_slice(&time_bytes(at.saturating_add(1)));
    k
}

/// Splits a due key into its time and watch id.
pub(crate) fn parse_due(key: &[u8]) -> Option<(i64, WatchId)> {
    if key.len() < 9 || key[0] != DUE {
        return None;
    }
    let t = u64::from_be_bytes(key[1..9].try_into().ok()?);
    let at = i64::from_be_bytes((t ^ (1 << 63)).to_be_bytes());
    let id = WatchId::parse(std::str::from_utf8(&key[9..]).ok()?)?;
    Some((at, id))
}

/// Order-preserving encoding of a signed time.
fn time_bytes(at: i64) -> [u8; 8] {
    (u64::from_be_bytes(at.to_be_bytes()) ^ (1 << 63)).to_be_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn due_keys_sort_by_time_and_round_trip() {
        let id = WatchId::for_url("http://a/");
        let mut keys = [
            due(5, &id),
            due(-3, &id),
            due(1_700_000_000, &id),
            due(0, &id),
        ];
        keys.sort();
        let times: Vec<i64> = keys
            .iter()
            .map(|k| parse_due(k).expect("due key").0)
            .collect();
        assert_eq!(times, [-3, 0, 5, 1_700_000_000]);
        assert!(due(5, &id) < due_until(5));
        assert!(due(6, &id) > due_until(5));
        assert_eq!(parse_due(&due(7, &id)).expect("due key").1, id);
    }
}
