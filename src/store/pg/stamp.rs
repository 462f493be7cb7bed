//! The PostgreSQL backend's small per-watch reads: feed stamps, the failing and render
//! indices, seen counts, and the space each table takes.

use super::{from_json, watch_id, PgStore};
use crate::model::WatchId;
use crate::store::StoreError;

impl PgStore {
    /// The feed stamp: the change sequence (bumped by every write that changes the
    /// feed) and since when the watch fails. One indexed read.
    pub fn feed_stamp(&self, id: &WatchId) -> Result<Option<crate::state::FeedStamp>, StoreError> {
        let key = id.as_str().to_owned();
        self.call(move |db| async move {
            let row = db
                .pool
                .get()
                .await?
                .query_opt(
                    "SELECT change_seq, state->>'status' = 'error', (state->>'error_since')::int8
                     FROM watches WHERE id = $1",
                    &[&key],
                )
                .await?;
            Ok(row.map(|r| crate::state::FeedStamp {
                seq: r.get::<_, i64>(0) as u64,
                error_since: if r.get::<_, Option<bool>>(1) == Some(true) {
                    r.get(2)
                } else {
                    None
                },
            }))
        })
    }

    /// The render mode of every watch (a plain watch's JSON has no `render`: SQL NULL).
    pub fn watch_renders(&self) -> Result<Vec<crate::model::Render>, StoreError> {
        self.call(|db| async move {
            db.pool
                .get()
                .await?
                .query("SELECT id, watch->'render' FROM watches", &[])
                .await?
                .into_iter()
                .map(|r| match r.get::<_, Option<serde_json::Value>>(1) {
                    Some(v) => from_json(r.get::<_, &str>(0), v),
                    None => Ok(crate::model::Render::default()),
                })
                .collect()
        })
    }

    /// Ids of the watches whose last check failed.
    pub fn failing_watches(&self) -> Result<Vec<WatchId>, StoreError> {
        self.call(|db| async move {
            db.pool
                .get()
                .await?
                .query(
                    "SELECT id FROM watches WHERE state->>'status' = 'error' ORDER BY id",
                    &[],
                )
                .await?
                .into_iter()
                .map(|r| watch_id(r.get(0)))
                .collect()
        })
    }

    #[cfg(test)]
    /// URLs in the seen set of `id`.
    pub(crate) fn seen_len(&self, id: &WatchId) -> Result<usize, StoreError> {
        let key = id.as_str().to_owned();
        self.call(move |db| async move {
            let r = db
                .pool
                .get()
                .await?
                .query_one("SELECT count(*) FROM seen WHERE watch_id = $1", &[&key])
                .await?;
            Ok(r.get::<_, i64>(0) as usize)
        })
    }

    /// Rows and bytes (with indexes and TOAST) by table, as the sled backend's key
    /// kinds: `w` watches, `i` items, `u` seen URLs, `p` deep pages, `h` host leases.
    pub fn usage(&self) -> Result<Vec<crate::store::Usage>, StoreError> {
        self.call(|db| async move {
            let c = db.pool.get().await?;
            let mut out = Vec::new();
            for (kind, table) in [
                ('w', "watches"),
                ('i', "items"),
                ('u', "seen"),
                ('p', "pages"),
                ('h', "host_leases"),
            ] {
                let r = c
                    .query_one(
                        &format!(
                            "SELECT count(*), pg_total_relation_size('{table}'::regclass) FROM {table}"
                        ),
                        &[],
                    )
                    .await?;
                out.push(crate::store::Usage {
                    kind,
                    keys: r.get::<_, i64>(0) as u64,
                    bytes: r.get::<_, i64>(1) as u64,
                });
            }
            Ok(out)
        })
    }
}
