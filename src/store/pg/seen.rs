//! The seen set on PostgreSQL, by the rule of `store/seen.rs`: each URL keeps when it
//! last left the page (unix seconds, `left_at`) and the watch's check count then
//! (`left_checks`); every [`SWEEP_EVERY`] checks a commit forgets the URLs gone for at
//! least [`FORGET_AFTER_CHECKS`] checks and [`FORGET_AFTER_SECS`], unless a kept item
//! links to them (an item's id is the hex of the same 8 bytes of MD5 that key the URL).

use tokio_postgres::GenericClient;

use super::md5;
use crate::store::seen::{FORGET_AFTER_CHECKS, FORGET_AFTER_SECS, SWEEP_EVERY};
use crate::store::StoreError;

/// Whether the commit that takes a watch from `prev` to `checks` checks sweeps its set
/// (the sled backend's rule: spread over watches by their own check counts).
pub(super) fn sweeps(prev: u64, checks: u64) -> bool {
    checks.is_multiple_of(SWEEP_EVERY) && checks != prev
}

/// Adds `urls` as gone from the page at `at` after `checks` checks; a URL already in the
/// set takes the new time (it came back and left again).
pub(super) async fn insert(
    tx: &impl GenericClient,
    id: &str,
    urls: &[String],
    at: i64,
    checks: u64,
) -> Result<(), StoreError> {
    let hashes: Vec<Vec<u8>> = urls.iter().map(|u| md5(u)).collect();
    insert_keys(tx, id, &hashes, at, checks).await
}

/// Adds seen-set keys (8 bytes of a URL's MD5) with the time they left the page.
pub(super) async fn insert_keys(
    tx: &impl GenericClient,
    id: &str,
    hashes: &[Vec<u8>],
    at: i64,
    checks: u64,
) -> Result<(), StoreError> {
    if hashes.is_empty() {
        return Ok(());
    }
    tx.execute(
        "INSERT INTO seen (watch_id, url_md5, left_at, left_checks)
         SELECT $1, h, $3, $4 FROM unnest($2::bytea[]) AS t(h)
         ON CONFLICT (watch_id, url_md5)
         DO UPDATE SET left_at = excluded.left_at, left_checks = excluded.left_checks",
        &[&id, &hashes, &at, &super::seq_i64(checks)],
    )
    .await?;
    Ok(())
}

/// Forgets the URLs of `id` gone long enough at `now` (check count `checks`) that no
/// kept item links to, and stamps those stored without a time (before the times were
/// kept: their time starts now). Returns how many it forgets.
pub(super) async fn sweep(
    tx: &impl GenericClient,
    id: &str,
    now: i64,
    checks: u64,
) -> Result<u64, StoreError> {
    let checks = super::seq_i64(checks);
    let forgotten = tx
        .execute(
            "DELETE FROM seen s
             WHERE s.watch_id = $1 AND s.left_at <= $2 AND s.left_checks <= $3
               AND NOT EXISTS (SELECT 1 FROM items i
                               WHERE i.watch_id = $1 AND i.item_id = encode(s.url_md5, 'hex'))",
            &[
                &id,
                &now.saturating_sub(FORGET_AFTER_SECS),
                &(checks - super::seq_i64(FORGET_AFTER_CHECKS)),
            ],
        )
        .await?;
    tx.execute(
        "UPDATE seen SET left_at = $2, left_checks = $3
         WHERE watch_id = $1 AND (left_at IS NULL OR left_checks IS NULL)",
        &[&id, &now, &checks],
    )
    .await?;
    Ok(forgotten)
}
