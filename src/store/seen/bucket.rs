//! The seen set's values on sled: a URL's key (the first 8 bytes of its MD5), the stamp
//! of a departure, and a bucket of URL keys with the stamps of its first and latest
//! departure (`BUCKET_V1`, the two stamps, then the keys).

use super::{FORGET_AFTER_CHECKS, FORGET_AFTER_SECS};
use crate::store::StoreError;

/// Leading byte of a bucket's value.
pub(super) const BUCKET_V1: u8 = 1;
/// Version byte and two stamps.
pub(super) const HEADER: usize = 1 + 8 + 8;

/// A URL's key in the seen set: the first 8 bytes of its MD5.
pub(crate) type Hash = [u8; 8];

/// When a URL left the page: unix minutes and the watch's check count (both saturating
/// u32), 8 bytes on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stamp {
    pub(super) minutes: u32,
    pub(super) checks: u32,
}

impl Stamp {
    pub(crate) fn new(at: i64, checks: u64) -> Self {
        Self {
            minutes: u32::try_from(at.max(0) / 60).unwrap_or(u32::MAX),
            checks: u32::try_from(checks).unwrap_or(u32::MAX),
        }
    }

    pub(super) fn bytes(self) -> [u8; 8] {
        let mut v = [0u8; 8];
        v[..4].copy_from_slice(&self.minutes.to_be_bytes());
        v[4..].copy_from_slice(&self.checks.to_be_bytes());
        v
    }

    pub(super) fn parse(v: &[u8]) -> Option<Self> {
        Some(Self {
            minutes: u32::from_be_bytes(v.get(..4)?.try_into().ok()?),
            checks: u32::from_be_bytes(v.get(4..8)?.try_into().ok()?),
        })
    }

    /// The stamp of a URL key of the old form: `Ok(None)` for one stored without a
    /// stamp, `Err` for a value of no known form.
    pub(super) fn parse_old(v: &[u8]) -> Result<Option<Self>, ()> {
        match v.len() {
            0 => Ok(None),
            8 => Self::parse(v).map(Some).ok_or(()),
            16 => {
                // The first form of the stamp: seconds (i64) and checks (u64). Minutes
                // are rounded up, so the URL is not judged to have left earlier.
                let at = i64::from_be_bytes(v.get(..8).ok_or(())?.try_into().map_err(|_| ())?);
                let checks = u64::from_be_bytes(v.get(8..).ok_or(())?.try_into().map_err(|_| ())?);
                Ok(Some(Self::new(at.saturating_add(59), checks)))
            }
            _ => Err(()),
        }
    }

    /// The later of two stamps in time and in checks, each on its own.
    pub(super) fn latest(self, other: Self) -> Self {
        Self {
            minutes: self.minutes.max(other.minutes),
            checks: self.checks.max(other.checks),
        }
    }

    /// The earlier of two stamps in time and in checks, each on its own.
    pub(super) fn earliest(self, other: Self) -> Self {
        Self {
            minutes: self.minutes.min(other.minutes),
            checks: self.checks.min(other.checks),
        }
    }

    /// Whether a URL that left at this stamp has been gone long enough at `now` (check
    /// count `checks`) to be forgotten.
    pub(super) fn expired(self, now: i64, checks: u64) -> bool {
        let at = i64::from(self.minutes) * 60;
        now.saturating_sub(at) >= FORGET_AFTER_SECS
            && checks
                .min(u64::from(u32::MAX))
                .saturating_sub(u64::from(self.checks))
                >= FORGET_AFTER_CHECKS
    }
}

/// A bucket of URL keys with the stamps of its first and latest departure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Bucket {
    pub(super) first: Stamp,
    pub(super) last: Stamp,
    pub(super) hashes: Vec<Hash>,
}

impl Bucket {
    pub(super) fn encode(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(HEADER + 8 * self.hashes.len());
        v.push(BUCKET_V1);
        v.extend_from_slice(&self.first.bytes());
        v.extend_from_slice(&self.last.bytes());
        for h in &self.hashes {
            v.extend_from_slice(h);
        }
        v
    }

    pub(super) fn decode(key: &[u8], v: &[u8]) -> Result<Self, StoreError> {
        let hashes = bucket_hashes(key, v)?;
        let corrupt = || corrupt(key, "malformed seen bucket");
        Ok(Self {
            first: Stamp::parse(v.get(1..9).ok_or_else(corrupt)?).ok_or_else(corrupt)?,
            last: Stamp::parse(v.get(9..17).ok_or_else(corrupt)?).ok_or_else(corrupt)?,
            hashes: hashes.map(|h| h.try_into().unwrap_or_default()).collect(),
        })
    }

    /// A bucket of `hashes` (each once) that all left at `stamp`.
    pub(super) fn of(mut hashes: Vec<Hash>, stamp: Stamp) -> Self {
        hashes.sort_unstable();
        hashes.dedup();
        Self {
            first: stamp,
            last: stamp,
            hashes,
        }
    }

    pub(super) fn merge(&mut self, other: Self) {
        self.first = self.first.earliest(other.first);
        self.last = self.last.latest(other.last);
        self.hashes.extend(other.hashes);
        self.hashes.sort_unstable();
        self.hashes.dedup();
    }
}

/// The keys of a bucket's value, after checking its form.
pub(super) fn bucket_hashes<'v>(
    key: &[u8],
    v: &'v [u8],
) -> Result<impl Iterator<Item = &'v [u8]> + 'v, StoreError> {
    match v.first() {
        Some(&BUCKET_V1) if v.len() >= HEADER && (v.len() - HEADER).is_multiple_of(8) => {
            Ok(v.get(HEADER..).unwrap_or_default().chunks_exact(8))
        }
        Some(&BUCKET_V1) => Err(corrupt(key, "malformed seen bucket")),
        Some(b) => Err(corrupt(key, &format!("unknown seen bucket version {b}"))),
        None => Err(corrupt(key, "empty seen bucket")),
    }
}

pub(super) fn corrupt(key: &[u8], reason: &str) -> StoreError {
    StoreError::Corrupt {
        key: String::from_utf8_lossy(key).into_owned(),
        reason: reason.to_owned(),
    }
}

/// The number of a bucket from its key.
pub(super) fn bucket_seq(prefix_len: usize, key: &[u8]) -> Result<u32, StoreError> {
    key.get(prefix_len..)
        .and_then(|n| n.try_into().ok())
        .map(u32::from_be_bytes)
        .ok_or_else(|| corrupt(key, "malformed seen bucket key"))
}

/// The URL key at the end of a key of the old form.
pub(super) fn old_hash(prefix_len: usize, key: &[u8]) -> Result<Hash, StoreError> {
    key.get(prefix_len..)
        .and_then(|h| h.try_into().ok())
        .ok_or_else(|| corrupt(key, "malformed seen key"))
}
