//! The PostgreSQL side of moving a store between backends (`store::transfer`).

use crate::model::WatchId;
use crate::store::transfer::{Counts, Transfer, WatchDump};
use crate::store::StoreError;

use super::{from_json, host_key, seq_i64, to_json, watch_id, PgStore};

impl Transfer for PgStore {
    fn watch_ids(&self) -> Result<Vec<WatchId>, StoreError> {
        self.call(|db| async move {
            db.pool
                .get()
                .await?
                .query("SELECT id FROM watches ORDER BY id", &[])
                .await?
                .into_iter()
                .map(|r| watch_id(r.get(0)))
                .collect()
        })
    }

    fn dump(&self, id: &WatchId) -> Result<Option<WatchDump>, StoreError> {
        let key = id.as_str().to_owned();
        self.call(move |db| async move {
            let c = db.pool.get().await?;
            let Some(row) = c
                .query_opt(
                    "SELECT watch, state, links, crawl FROM watches WHERE id = $1",
                    &[&key],
                )
                .await?
            else {
                return Ok(None);
            };
            let crawl = match row.get::<_, Option<serde_json::Value>>(3) {
                Some(v) => Some(from_json(&key, v)?),
                None => None,
            };
            let items = c
                .query(
                    "SELECT seq, item FROM items WHERE watch_id = $1 ORDER BY seq",
                    &[&key],
                )
                .await?
                .into_iter()
                .map(|r| Ok((r.get::<_, i64>(0) as u64, from_json(&key, r.get(1))?)))
                .collect::<Result<Vec<_>, StoreError>>()?;
            let seen = c
                .query(
                    "SELECT url_md5 FROM seen WHERE watch_id = $1 ORDER BY url_md5",
                    &[&key],
                )
                .await?
                .into_iter()
                .map(|r| r.get(0))
                .collect();
            let pages = c
                .query(
                    "SELECT url_md5, links FROM pages WHERE watch_id = $1 ORDER BY url_md5",
                    &[&key],
                )
                .await?
                .into_iter()
                .map(|r| (r.get(0), r.get(1)))
                .collect();
            Ok(Some(WatchDump {
                watch: from_json(&key, row.get(0))?,
                state: from_json(&key, row.get(1))?,
                links: row.get(2),
                crawl,
                items,
                seen,
                pages,
            }))
        })
    }

    fn import(&self, d: &WatchDump) -> Result<(), StoreError> {
        let d = d.clone();
        self.write(move |db| async move {
            let mut c = db.pool.get().await?;
            let tx = c.transaction().await?;
            let key = d.watch.id.as_str();
            let host = host_key(&d.watch.url);
            let crawl = d.crawl.as_ref().map(to_json);
            tx.execute(
                "INSERT INTO watches (id, host, watch, state, next_check, paused, links, crawl)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                &[
                    &key,
                    &host,
                    &to_json(&d.watch),
                    &to_json(&d.state),
                    &d.state.next_check,
                    &d.watch.options.paused,
                    &d.links,
                    &crawl,
                ],
            )
            .await?;
            tx.execute(
                "INSERT INTO host_leases (host) VALUES ($1) ON CONFLICT DO NOTHING",
                &[&host],
            )
            .await?;
            let (mut ids, mut seqs, mut items) = (Vec::new(), Vec::new(), Vec::new());
            for (seq, item) in &d.items {
                ids.push(item.id.clone());
                seqs.push(seq_i64(*seq));
                items.push(to_json(item));
            }
            // The sled backend may hold one entry twice (under two sequence numbers,
            // from before entries were keyed): the newest is kept.
            tx.execute(
                "INSERT INTO items (watch_id, item_id, seq, item)
                 SELECT $1, i, s, j FROM unnest($2::text[], $3::int8[], $4::jsonb[]) AS t(i, s, j)
                 ORDER BY s DESC
                 ON CONFLICT (watch_id, item_id) DO NOTHING",
                &[&key, &ids, &seqs, &items],
            )
            .await?;
            // As on sled: the URLs' time starts at the watch's last check.
            let at = d.state.last_check.unwrap_or_default();
            super::seen::insert_keys(&*tx, key, &d.seen, at, d.state.checks).await?;
            let (hashes, links): (Vec<Vec<u8>>, Vec<Vec<u8>>) = d.pages.iter().cloned().unzip();
            super::write::insert_pages(&*tx, key, &hashes, &links).await?;
            tx.commit().await?;
            Ok(())
        })
    }

    fn counts(&self) -> Result<Counts, StoreError> {
        self.call(|db| async move {
            let r = db
                .pool
                .get()
                .await?
                .query_one(
                    "SELECT (SELECT count(*) FROM watches), (SELECT count(*) FROM items),
                            (SELECT count(*) FROM seen), (SELECT count(*) FROM pages)",
                    &[],
                )
                .await?;
            let n = |i: usize| r.get::<_, i64>(i) as u64;
            Ok(Counts {
                watches: n(0),
                items: n(1),
                seen: n(2),
                pages: n(3),
            })
        })
    }
}
