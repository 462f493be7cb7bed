//! Which backend a [`Store`] runs on: sled (the embedded default) or PostgreSQL
//! (`pg/`), chosen from `[storage]`; the scheduler's side of the host leases, which
//! only the PostgreSQL backend has (with sled one node holds every host); and the start
//! of a check, which takes the hold of its host with the watch and its state. Every
//! other operation dispatches at the top of its method in `mod.rs`.

use std::sync::Arc;
use std::time::Duration;

use super::pg::{PgOptions, PgStore};
use super::CompactPolicy;
use super::{Shared, Store, StoreError};
use crate::config::{Backend, StorageConfig};
use crate::model::{Watch, WatchId};
use crate::state::WatchState;

/// Longest wait between two looks for hosts to claim on PostgreSQL.
const MAX_POLL: Duration = Duration::from_secs(5);

/// What a check starts from ([`Store::begin_check`]).
#[derive(Debug)]
pub struct CheckStart {
    /// The watch as stored now (edited, maybe, since the scheduler read it).
    pub watch: Watch,
    /// A pause the host's lease still carries, which the check must honour.
    pub pause: Option<Duration>,
    /// The watch's state after its last check.
    pub prev: WatchState,
}

/// What a node's scheduler needs to know to share hosts with other nodes.
#[derive(Debug, Clone, Copy)]
pub struct NodeLimits {
    /// The per-host delay, kept across a host's hand-over to another node.
    pub host_delay: Duration,
    /// Most hosts this node holds at once.
    pub max_hosts: usize,
}

impl StoreError {
    /// Whether another node holds the watch's host now: a commit was refused, or a check
    /// by hand was not started.
    pub fn is_lease_lost(&self) -> bool {
        matches!(self, Self::LeaseLost { .. } | Self::HostBusy { .. })
    }
}

impl Store {
    /// Opens the store `storage` names: the sled directory, or the PostgreSQL database
    /// (migrated to the newest schema) as one node among others.
    pub fn from_config(storage: &StorageConfig, node: NodeLimits) -> Result<Self, StoreError> {
        match &storage.backend {
            Backend::Sled => Self::open_with(
                &storage.path,
                storage.cache_bytes,
                CompactPolicy {
                    ratio: storage.compact_ratio,
                    ..CompactPolicy::default()
                },
            ),
            Backend::Postgres { url } => {
                let mut opts = PgOptions::new(url);
                opts.lease = storage.lease;
                opts.renew_every = Some(storage.lease / 3);
                opts.host_delay = node.host_delay;
                opts.max_hosts = node.max_hosts.max(1);
                Self::postgres(opts)
            }
        }
    }

    /// A store on PostgreSQL.
    pub fn postgres(opts: PgOptions) -> Result<Self, StoreError> {
        let pg = PgStore::connect(opts)?;
        Ok(Self {
            shared: Arc::new(Shared::new(
                None,
                None,
                super::compact::Compaction::new(
                    super::CompactPolicy::off(),
                    super::compact::Hint::default(),
                ),
            )),
            pg: Some(pg),
        })
    }

    /// The PostgreSQL backend, when the store is there.
    pub(crate) fn pg(&self) -> Option<&PgStore> {
        self.pg.as_ref()
    }

    /// The scheduler's take of due watches. sled: [`Store::due`]. PostgreSQL: releases
    /// this node's hosts with nothing due or running, claims free hosts with due
    /// watches, and returns the due watches of the hosts it holds, each handed out under
    /// its lease's epoch (its commit is refused once another node holds the host).
    pub fn claim_due(&self, now: i64, limit: usize) -> Result<Vec<(i64, WatchId)>, StoreError> {
        match &self.pg {
            Some(pg) => pg.claim_due(now, limit),
            None => self.due(now, limit),
        }
    }

    /// Before a check by hand of `id` (`check now`): on PostgreSQL, the watch's host is
    /// held by this node for it, so its commit is fenced like a scheduled one. A host
    /// this node holds already keeps its lease; a free one is claimed (a new epoch); one
    /// another node holds is [`StoreError::HostBusy`]. Returns the pause the host's lease
    /// still carries (a `Retry-After`, the per-host delay of a hand-over), which the
    /// check must honour. sled: one node holds every host, `None`.
    pub fn hold_for_check(&self, id: &WatchId) -> Result<Option<std::time::Duration>, StoreError> {
        match &self.pg {
            Some(pg) => pg.hold_for_check(id),
            None => Ok(None),
        }
    }

    /// The check of `id` ended without a commit (an error before it): on PostgreSQL its
    /// hand-out ends, so its host can be let go and its next check is handed out under
    /// the lease's epoch of then. Nothing on sled.
    pub fn check_ended(&self, id: &WatchId) {
        if let Some(pg) = &self.pg {
            pg.check_ended(id);
        }
    }

    /// The store's part of the start of a check of `id`, read in one go (off the async
    /// workers when [`Store::is_remote`]): `None` if the watch is gone; else the watch as
    /// stored, unless `dry_run` the hold of its host ([`Store::hold_for_check`]), and the
    /// watch's last state. A hold that cannot go on to a check is ended.
    pub fn begin_check(
        &self,
        id: &WatchId,
        dry_run: bool,
    ) -> Result<Option<CheckStart>, StoreError> {
        let Some(watch) = self.watch(id)? else {
            return Ok(None);
        };
        let pause = if dry_run {
            None
        } else {
            self.hold_for_check(id)?
        };
        match self.state(id) {
            Ok(Some(prev)) => Ok(Some(CheckStart { watch, pause, prev })),
            other => {
                if !dry_run {
                    self.check_ended(id);
                }
                Err(other
                    .err()
                    .unwrap_or_else(|| StoreError::NoWatch(id.clone())))
            }
        }
    }

    /// Whether the store's reads cross the network (PostgreSQL), so that even a read of
    /// one record waits for a round trip; sled's come from its cache, or from the disk.
    pub fn is_remote(&self) -> bool {
        self.pg.is_some()
    }

    /// How often the scheduler must look for work it could claim even when nothing it
    /// holds is due (other nodes' released or expired hosts); `None` with sled.
    pub fn poll_every(&self) -> Option<Duration> {
        self.pg.as_ref().map(|pg| (pg.lease() / 3).min(MAX_POLL))
    }

    /// Gives up every host this node holds (at shutdown: the others take them at once
    /// instead of after the lease).
    pub fn release_all(&self) -> Result<(), StoreError> {
        match &self.pg {
            Some(pg) => pg.release_all(),
            None => Ok(()),
        }
    }
}
