//! The PostgreSQL backend's side of the scheduler: the due watches of the hosts this
//! node holds, claiming and releasing hosts, renewing leases (SQL in `lease.rs`).

use std::time::Duration;

use super::{lease, PgStore};
use crate::model::WatchId;
use crate::store::StoreError;

impl PgStore {
    /// The due watches (at `now`) of the hosts this node holds, earliest first. Claims
    /// nothing: [`PgStore::claim_due`] does.
    pub fn due(&self, now: i64, limit: usize) -> Result<Vec<(i64, WatchId)>, StoreError> {
        self.call(move |db| async move {
            let c = db.pool.get().await?;
            lease::due_held(&**c, &db.leases, now, limit, false).await
        })
    }

    /// The scheduler's take: releases held hosts with nothing due or running, claims
    /// free hosts with due watches, and hands out the due watches of the held hosts.
    pub fn claim_due(&self, now: i64, limit: usize) -> Result<Vec<(i64, WatchId)>, StoreError> {
        self.call(move |db| async move {
            let c = db.pool.get().await?;
            let (node, leases, o) = (&*db.node, &*db.leases, &*db.opts);
            lease::release_idle(&**c, leases, node, now, o.host_delay).await?;
            let want = o.max_hosts.saturating_sub(leases.held().len());
            lease::claim(&**c, leases, node, now, want, o.lease).await?;
            lease::due_held(&**c, leases, now, limit, true).await
        })
    }

    /// As [`crate::store::Store::hold_for_check`]. A watch the scheduler handed out keeps
    /// the epoch it was handed under (its commit is fenced by it).
    pub fn hold_for_check(&self, id: &WatchId) -> Result<Option<Duration>, StoreError> {
        if self.inner.db.leases.fence(id).is_some() {
            return Ok(None);
        }
        let id = id.clone();
        self.call(move |db| async move {
            let mut c = db.pool.get().await?;
            lease::hold(&mut c, &db.leases, &db.node, &id, db.opts.lease).await
        })
    }

    /// As [`crate::store::Store::check_ended`].
    pub fn check_ended(&self, id: &WatchId) {
        self.inner.db.leases.done(id);
    }

    /// Gives up every host this node holds (at shutdown: the others take them at once).
    pub fn release_all(&self) -> Result<(), StoreError> {
        self.call(|db| async move {
            let c = db.pool.get().await?;
            let hosts: Vec<String> = db.leases.held().into_iter().map(|(h, _)| h).collect();
            lease::release(&**c, &db.leases, &db.node, &hosts, db.opts.host_delay).await
        })
    }

    #[cfg(test)]
    /// Hosts this node holds, with their epochs.
    pub fn held(&self) -> Vec<(String, i64)> {
        self.inner.db.leases.held()
    }
}
