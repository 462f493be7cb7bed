//! `[storage]`: where the store lives: a sled directory (the embedded default, one
//! node) or a PostgreSQL database that many nodes share, and how long a node's hold on a
//! host lasts there. Uses the config's shared helpers.

use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;

use super::{positive, Bad, ConfigError};

const DEFAULT_DATA: &str = "data";
/// sled's page cache. At 1,000 watches 4 MB gave the same CPU per check as 16 MB and
/// about 20 MB less memory, and 2 MB about 2 MB less again within the spread of the CPU
/// figures (`bench/README.md`): a check reads only its own watch's few keys, which no
/// cache of this size keeps from one of its checks to the next. It does not bound what
/// sled keeps of records of some KB ([`StorageConfig::cache_bytes`]).
const DEFAULT_CACHE_BYTES: u64 = 2 * 1024 * 1024;
/// Default `storage.lease_secs`.
pub const DEFAULT_LEASE_SECS: u64 = 30;

/// Default `storage.compact_ratio`: compact when the file is more than this many times
/// the live data (a fresh copy is 2.5 to 3 times it: `bench/README.md`).
pub const DEFAULT_COMPACT_RATIO: u64 = 4;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawStorage {
    pub path: Option<PathBuf>,
    pub cache_bytes: Option<u64>,
    pub backend: Option<String>,
    pub url: Option<String>,
    pub lease_secs: Option<u64>,
    pub compact_ratio: Option<u64>,
}

/// The validated `[storage]` section.
#[derive(Debug, Clone)]
pub struct StorageConfig {
    pub path: PathBuf,
    /// sled page cache. It bounds what sled keeps of pages of small records only: of
    /// records of some KB it keeps about a page per cache shard, whatever this says
    /// (`docs/design.md`, section 11).
    pub cache_bytes: u64,
    /// Where the store lives: sled in `path` (one node), or PostgreSQL (many nodes).
    pub backend: Backend,
    /// PostgreSQL: how long a node's hold on a host lasts without renewal (a dead node's
    /// hosts move on after it).
    pub lease: Duration,
    /// sled: compact the store when its file exceeds this many times its live data
    /// (and 32 MB); 0: never (`store/compact.rs`).
    pub compact_ratio: u64,
}

/// `storage.backend`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Backend {
    /// The embedded default: a sled database in `storage.path`.
    Sled,
    /// A PostgreSQL database shared by every node (`storage.url`).
    Postgres { url: String },
}

impl RawStorage {
    pub(super) fn validate(self, bad: Bad<'_>) -> Result<StorageConfig, ConfigError> {
        let url = self.url.as_deref().map_or("", str::trim);
        let backend = match self.backend.as_deref().map(str::trim) {
            None | Some("sled") => Backend::Sled,
            Some("postgres" | "postgresql") if url.is_empty() => {
                return Err(bad(
                    "storage.url",
                    "the postgres backend needs storage.url (or SITEFEED_DATABASE_URL), e.g. postgres://sitefeed@db:5432/sitefeed".into(),
                ))
            }
            Some("postgres" | "postgresql") => Backend::Postgres {
                url: url.to_owned(),
            },
            Some(other) => {
                return Err(bad(
                    "storage.backend",
                    format!("`{other}` is not a backend: use \"sled\" or \"postgres\""),
                ))
            }
        };
        let compact_ratio = match self.compact_ratio {
            None => DEFAULT_COMPACT_RATIO,
            Some(r @ (0 | 2..=1000)) => r,
            Some(r) => {
                return Err(bad(
                    "storage.compact_ratio",
                    format!(
                    "{r} is not a ratio to compact at: use 0 (off) or 2 to 1000 (the default is 4)"
                ),
                ))
            }
        };
        Ok(StorageConfig {
            compact_ratio,
            path: self.path.unwrap_or_else(|| PathBuf::from(DEFAULT_DATA)),
            cache_bytes: self.cache_bytes.unwrap_or(DEFAULT_CACHE_BYTES),
            backend,
            lease: Duration::from_secs(positive(
                bad,
                "storage.lease_secs",
                self.lease_secs,
                DEFAULT_LEASE_SECS,
            )?),
        })
    }
}
