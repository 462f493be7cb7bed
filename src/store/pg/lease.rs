//! Host leases: which node checks which host (`docs/design.md`, "Many nodes on one
//! PostgreSQL"). A node claims hosts that have due watches with `SELECT … FOR UPDATE
//! SKIP LOCKED` (two nodes never wait on, or take, the same host), holds each until its
//! expiry (database time, renewed while the node lives), and runs only the due watches
//! of hosts it holds, through its own host gate: so one host sees one node at a time.
//! Every claim raises the host's epoch; a watch handed to the scheduler carries the
//! epoch it was handed under, and its commit is refused unless the lease still has that
//! epoch and holder (fencing). A host with nothing due and nothing running is released
//! with `not_before` = now + the per-host delay, which the next holder waits out; a
//! `Retry-After` a check got moves `not_before` too (never earlier), so the pause holds
//! for whichever node takes the host next. A check by hand holds the host like a
//! scheduled one ([`hold`]).
//!
//! This file keeps the node's own view (held hosts, handed watches) and the SQL of
//! claiming, renewing and releasing; it uses only `tokio_postgres`.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use tokio_postgres::GenericClient;

use crate::model::WatchId;
use crate::store::StoreError;

/// How many of the earliest due watches a claim looks at to find free hosts.
const CLAIM_WINDOW: i64 = 4096;

/// The node's view of its leases.
#[derive(Debug, Default)]
pub struct Leases {
    inner: Mutex<View>,
    /// Taken by [`release_idle`] and [`hold`] for their whole run: a host is never let go
    /// between a check by hand's look at its lease and its hand-out (which would leave
    /// that check a stale epoch).
    handing: tokio::sync::Mutex<()>,
}

#[derive(Debug, Default)]
struct View {
    /// Hosts this node holds, with the epoch of its lease.
    held: HashMap<String, i64>,
    /// Watches handed to the scheduler and not yet committed: their host and the epoch
    /// they were handed under.
    handed: HashMap<WatchId, (String, i64)>,
}

impl Leases {
    fn view(&self) -> std::sync::MutexGuard<'_, View> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Hosts held, with their epochs.
    pub fn held(&self) -> Vec<(String, i64)> {
        self.view()
            .held
            .iter()
            .map(|(h, e)| (h.clone(), *e))
            .collect()
    }

    /// The lease a handed-out watch's commit must still hold.
    pub(crate) fn fence(&self, id: &WatchId) -> Option<(String, i64)> {
        self.view().handed.get(id).cloned()
    }

    /// The watch's check is committed (or refused for good): it no longer keeps its host.
    pub fn done(&self, id: &WatchId) {
        self.view().handed.remove(id);
    }

    /// Hosts held with no watch handed out (candidates for release).
    fn idle(&self) -> Vec<String> {
        let v = self.view();
        v.held
            .keys()
            .filter(|h| !v.handed.values().any(|(hh, _)| hh == *h))
            .cloned()
            .collect()
    }

    /// Keeps only the `kept` hosts of those that were renewed.
    fn renewed(&self, asked: &[String], kept: &[String]) {
        let mut v = self.view();
        for h in asked {
            if !kept.contains(h) {
                v.held.remove(h);
                tracing::warn!(host = %h, "lease lost to another node; its checks in flight will not be saved");
            }
        }
    }
}

/// Extends this node's leases; forgets those another node took.
pub(crate) async fn renew(
    c: &impl GenericClient,
    leases: &Leases,
    node: &str,
    ttl: Duration,
) -> Result<(), StoreError> {
    let (hosts, epochs): (Vec<String>, Vec<i64>) = leases.held().into_iter().unzip();
    if hosts.is_empty() {
        return Ok(());
    }
    let kept: Vec<String> = c
        .query(
            "UPDATE host_leases l SET expires_at = now() + $4::float8 * interval '1 millisecond'
             FROM unnest($1::text[], $2::int8[]) AS t(host, epoch)
             WHERE l.host = t.host AND l.epoch = t.epoch AND l.holder = $3
             RETURNING l.host",
            &[&hosts, &epochs, &node, &(ttl.as_millis() as f64)],
        )
        .await?
        .iter()
        .map(|r| r.get(0))
        .collect();
    leases.renewed(&hosts, &kept);
    Ok(())
}

/// Releases held hosts that have nothing handed out and nothing due at `now`; the next
/// holder may start on them after `delay`.
pub(crate) async fn release_idle(
    c: &impl GenericClient,
    leases: &Leases,
    node: &str,
    now: i64,
    delay: Duration,
) -> Result<(), StoreError> {
    let _handing = leases.handing.lock().await;
    let idle = leases.idle();
    if idle.is_empty() {
        return Ok(());
    }
    let busy: Vec<String> = c
        .query(
            "SELECT DISTINCT host FROM watches
             WHERE host = ANY($1) AND NOT paused AND next_check <= $2",
            &[&idle, &now],
        )
        .await?
        .iter()
        .map(|r| r.get(0))
        .collect();
    let free: Vec<String> = idle.into_iter().filter(|h| !busy.contains(h)).collect();
    release(c, leases, node, &free, delay).await
}

/// Gives up `hosts`, which the next holder starts on after `delay` (or after the pause
/// a host asked for, when that ends later).
pub async fn release(
    c: &impl GenericClient,
    leases: &Leases,
    node: &str,
    hosts: &[String],
    delay: Duration,
) -> Result<(), StoreError> {
    if hosts.is_empty() {
        return Ok(());
    }
    c.execute(
        "UPDATE host_leases SET holder = NULL, expires_at = '-infinity',
                not_before = greatest(not_before, now() + $3::float8 * interval '1 millisecond')
         WHERE host = ANY($1) AND holder = $2",
        &[&hosts, &node, &(delay.as_millis() as f64)],
    )
    .await?;
    let mut v = leases.view();
    for h in hosts {
        v.held.remove(h);
    }
    Ok(())
}

/// Claims up to `want` free hosts (no holder, or an expired one, and past their
/// `not_before`) among those of the earliest due watches at `now`.
pub(crate) async fn claim(
    c: &impl GenericClient,
    leases: &Leases,
    node: &str,
    now: i64,
    want: usize,
    ttl: Duration,
) -> Result<(), StoreError> {
    if want == 0 {
        return Ok(());
    }
    let rows = c
        .query(
            "WITH due AS (
                 SELECT host, min(next_check) AS at FROM (
                     SELECT host, next_check FROM watches
                     WHERE NOT paused AND next_check <= $1
                     ORDER BY next_check LIMIT $2) d
                 GROUP BY host),
             free AS (
                 SELECT l.host FROM host_leases l JOIN due ON due.host = l.host
                 WHERE (l.holder IS NULL OR l.expires_at < now()) AND l.not_before <= now()
                 ORDER BY due.at, l.host
                 LIMIT $3
                 FOR UPDATE OF l SKIP LOCKED)
             UPDATE host_leases l
             SET holder = $4, epoch = l.epoch + 1,
                 expires_at = now() + $5::float8 * interval '1 millisecond'
             FROM free WHERE l.host = free.host
             RETURNING l.host, l.epoch",
            &[
                &now,
                &CLAIM_WINDOW,
                &i64::try_from(want).unwrap_or(i64::MAX),
                &node,
                &(ttl.as_millis() as f64),
            ],
        )
        .await?;
    let mut v = leases.view();
    for r in rows {
        let (host, epoch): (String, i64) = (r.get(0), r.get(1));
        tracing::debug!(%host, epoch, "host lease claimed");
        v.held.insert(host, epoch);
    }
    Ok(())
}

/// The due watches (at `now`) of the hosts this node holds, earliest first; each is
/// recorded as handed out under its host's current epoch.
pub(crate) async fn due_held(
    c: &impl GenericClient,
    leases: &Leases,
    now: i64,
    limit: usize,
    hand_out: bool,
) -> Result<Vec<(i64, WatchId)>, StoreError> {
    let hosts: Vec<String> = leases.held().into_iter().map(|(h, _)| h).collect();
    if hosts.is_empty() {
        return Ok(Vec::new());
    }
    let rows = c
        .query(
            "SELECT next_check, id, host FROM watches
             WHERE NOT paused AND next_check <= $1 AND host = ANY($2)
             ORDER BY next_check, id LIMIT $3",
            &[&now, &hosts, &i64::try_from(limit).unwrap_or(i64::MAX)],
        )
        .await?;
    let mut v = leases.view();
    let mut out = Vec::with_capacity(rows.len());
    for r in rows {
        let (at, id, host): (i64, String, String) = (r.get(0), r.get(1), r.get(2));
        let id = super::watch_id(id)?;
        if hand_out {
            if let Some(&epoch) = v.held.get(&host) {
                v.handed.entry(id.clone()).or_insert((host, epoch));
            }
        }
        out.push((at, id));
    }
    Ok(out)
}

/// Holds the host of watch `id` for a check by hand and hands the watch out under the
/// lease's epoch: a host this node holds keeps its lease, a free (or expired) one is
/// claimed for this node with a new epoch, whatever is due; one another node holds is
/// [`StoreError::HostBusy`]. Returns how long the lease's `not_before` still runs (a
/// `Retry-After`, a hand-over's per-host delay), `None` when it has passed.
pub async fn hold(
    c: &mut tokio_postgres::Client,
    leases: &Leases,
    node: &str,
    id: &WatchId,
    ttl: Duration,
) -> Result<Option<Duration>, StoreError> {
    let _handing = leases.handing.lock().await;
    let tx = c.transaction().await?;
    let Some(row) = tx
        .query_opt(
            "SELECT l.host, l.holder, l.epoch, l.expires_at > now(),
                    CASE WHEN l.not_before > now()
                         THEN ceil(extract(epoch FROM l.not_before - now()) * 1000)::int8
                         ELSE 0 END
             FROM watches w JOIN host_leases l ON l.host = w.host
             WHERE w.id = $1
             FOR UPDATE OF l",
            &[&id.as_str()],
        )
        .await?
    else {
        return Err(StoreError::NoWatch(id.clone()));
    };
    let (host, holder, epoch, live, wait_ms): (String, Option<String>, i64, bool, i64) =
        (row.get(0), row.get(1), row.get(2), row.get(3), row.get(4));
    let epoch = match holder {
        Some(h) if live && h == node => epoch,
        Some(holder) if live => return Err(StoreError::HostBusy { host, holder }),
        _ => {
            let row = tx
                .query_one(
                    "UPDATE host_leases SET holder = $2, epoch = epoch + 1,
                         expires_at = now() + $3::float8 * interval '1 millisecond'
                     WHERE host = $1 RETURNING epoch",
                    &[&host, &node, &(ttl.as_millis() as f64)],
                )
                .await?;
            tracing::debug!(%host, "host lease claimed for a check by hand");
            row.get(0)
        }
    };
    tx.commit().await?;
    let mut v = leases.view();
    v.held.insert(host.clone(), epoch);
    v.handed.insert(id.clone(), (host, epoch));
    Ok((wait_ms > 0).then(|| Duration::from_millis(wait_ms.unsigned_abs())))
}
