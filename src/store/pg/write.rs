//! The PostgreSQL backend's writes of a check: one transaction per commit, fenced by
//! the host lease's epoch when the scheduler handed the watch out.

use super::{decode_links, from_json, md5, seen, to_json, watch_id, Db, PgStore};
use crate::model::Watch;
use crate::model::{Link, WatchId};
use crate::state::WatchState;
use crate::store::{codec, CheckRecord, StoreError};

impl Db {
    pub(super) async fn commit(
        &self,
        a: Commit,
        fence: Option<(String, i64)>,
    ) -> Result<(), StoreError> {
        let mut c = self.pool.get().await?;
        let tx = c.transaction().await?;
        if tx
            .query_opt("SELECT 1 FROM watches WHERE id = $1 FOR UPDATE", &[&a.id])
            .await?
            .is_none()
        {
            return Err(StoreError::NoWatch(watch_id(a.id.clone())?));
        }
        if let Some(pause) = a.host_pause {
            // The host asked for a pause: its lease keeps it for the next holder (never
            // shortening one it has). Before the fence's shared lock, so two such
            // commits on one host queue on the row instead of deadlocking on an upgrade.
            tx.execute(
                "UPDATE host_leases
                 SET not_before = greatest(not_before, now() + $2::float8 * interval '1 millisecond')
                 WHERE host = (SELECT host FROM watches WHERE id = $1)",
                &[&a.id, &(pause.as_millis() as f64)],
            )
            .await?;
        }
        if let Some((host, epoch)) = fence {
            // FOR SHARE: a claim of this host (FOR UPDATE SKIP LOCKED) passes it by until
            // this commit ends, so the lease cannot move between this check and the commit.
            let row = tx
                .query_opt(
                    "SELECT holder, epoch FROM host_leases WHERE host = $1 FOR SHARE",
                    &[&host],
                )
                .await?;
            let ours = row.is_some_and(|r| {
                r.get::<_, Option<&str>>(0) == Some(&*self.node) && r.get::<_, i64>(1) == epoch
            });
            if !ours {
                return Err(StoreError::LeaseLost { host });
            }
        }
        tx.execute(
            "UPDATE watches SET state = $2, next_check = $3, links = coalesce($4, links),
                 crawl = coalesce($5, crawl),
                 change_seq = CASE WHEN $6 THEN nextval('feed_seq') ELSE change_seq END
             WHERE id = $1",
            &[&a.id, &a.state, &a.next_check, &a.links, &a.crawl, &a.bump],
        )
        .await?;
        // The sweep first: a URL that leaves the page now gets its new time below.
        if a.sweep {
            seen::sweep(&*tx, &a.id, a.at, a.checks).await?;
        }
        seen::insert(&*tx, &a.id, &a.seen, a.at, a.checks).await?;
        if !a.pages.is_empty() {
            let (hashes, links): (Vec<Vec<u8>>, Vec<Vec<u8>>) = a.pages.into_iter().unzip();
            insert_pages(&*tx, &a.id, &hashes, &links).await?;
        }
        if !a.retitled.is_empty() {
            let (ids, titles): (Vec<String>, Vec<String>) = a.retitled.into_iter().unzip();
            tx.execute(
                "UPDATE items SET item = jsonb_set(item, '{title}', to_jsonb(t.title))
                 FROM unnest($2::text[], $3::text[]) AS t(id, title)
                 WHERE items.watch_id = $1 AND items.item_id = t.id
                   AND items.item->>'title' IS DISTINCT FROM t.title",
                &[&a.id, &ids, &titles],
            )
            .await?;
        }
        if !a.items.is_empty() {
            let mut ids = Vec::new();
            let mut seqs = Vec::new();
            let mut items = Vec::new();
            for (id, seq, item) in a.items {
                ids.push(id);
                seqs.push(seq);
                items.push(item);
            }
            tx.execute(
                "INSERT INTO items (watch_id, item_id, seq, item)
                 SELECT $1, i, s, j FROM unnest($2::text[], $3::int8[], $4::jsonb[]) AS t(i, s, j)
                 ON CONFLICT (watch_id, item_id) DO NOTHING",
                &[&a.id, &ids, &seqs, &items],
            )
            .await?;
        }
        tx.execute(
            "DELETE FROM items WHERE watch_id = $1 AND seq < $2",
            &[&a.id, &a.keep_from],
        )
        .await?;
        tx.commit().await?;
        Ok(())
    }
}

/// A check's writes, owned, ready for SQL.
pub(super) struct Commit {
    id: String,
    state: serde_json::Value,
    next_check: i64,
    links: Option<Vec<u8>>,
    crawl: Option<serde_json::Value>,
    seen: Vec<String>,
    /// When the check ran and the watch's check count after it (the seen URLs' stamp).
    at: i64,
    checks: u64,
    /// The seen set is swept in this commit.
    sweep: bool,
    /// (page URL's key, encoded links), one per URL.
    pages: Vec<(Vec<u8>, Vec<u8>)>,
    /// (item id, new title)
    retitled: Vec<(String, String)>,
    /// (item id, sequence number, item)
    items: Vec<(String, i64, serde_json::Value)>,
    /// Items below this sequence number leave the window (those an older version or a
    /// larger `feed.max_items` kept too: the delete runs on every commit).
    keep_from: i64,
    /// The feed changes: a new feed stamp.
    bump: bool,
    /// The pause the host asked for (`Retry-After`), for its lease.
    host_pause: Option<std::time::Duration>,
}

impl Commit {
    pub(super) fn new(
        id: &WatchId,
        prev: &WatchState,
        state: &WatchState,
        record: &CheckRecord,
        kept: u64,
    ) -> Self {
        let first_seq = state.item_seq + 1 - record.new_items.len() as u64;
        let mut pages: std::collections::BTreeMap<Vec<u8>, &[Link]> =
            std::collections::BTreeMap::default();
        if let Some(c) = &record.crawl {
            for (u, l) in &c.pages {
                pages.insert(md5(u), l);
            }
        }
        Self {
            id: id.as_str().to_owned(),
            state: to_json(state),
            next_check: state.next_check,
            links: record.links.as_deref().map(codec::encode_links),
            crawl: record.crawl.as_ref().map(|c| to_json(&c.state)),
            seen: record.seen_urls.clone(),
            at: state.last_check.unwrap_or_default(),
            checks: state.checks,
            sweep: seen::sweeps(prev.checks, state.checks),
            pages: pages
                .into_iter()
                .map(|(h, l)| (h, codec::encode_links(l)))
                .collect(),
            retitled: record
                .retitled
                .iter()
                .map(|i| (i.id.clone(), i.title.clone()))
                .collect(),
            items: record
                .new_items
                .iter()
                .enumerate()
                .map(|(n, i)| (i.id.clone(), seq_i64(first_seq + n as u64), to_json(i)))
                .collect(),
            keep_from: seq_i64(crate::store::items::kept_from(state.item_seq, kept)),
            bump: !record.new_items.is_empty()
                || !record.retitled.is_empty()
                || crate::store::stamp::feed_facts(prev) != crate::store::stamp::feed_facts(state),
            host_pause: record.host_pause,
        }
    }
}

/// A sequence number as PostgreSQL's `int8` (they never come near 2^63).
pub(crate) fn seq_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

pub(super) async fn insert_pages(
    tx: &impl tokio_postgres::GenericClient,
    id: &str,
    hashes: &[Vec<u8>],
    links: &[Vec<u8>],
) -> Result<(), StoreError> {
    if hashes.is_empty() {
        return Ok(());
    }
    tx.execute(
        "INSERT INTO pages (watch_id, url_md5, links)
         SELECT $1, h, l FROM unnest($2::bytea[], $3::bytea[]) AS t(h, l)
         ON CONFLICT (watch_id, url_md5) DO UPDATE SET links = excluded.links",
        &[&id, &hashes, &links],
    )
    .await?;
    Ok(())
}

impl PgStore {
    /// As [`crate::store::Store::update_watch`].
    pub fn update_watch(
        &self,
        watch: &Watch,
        rebaseline: bool,
        note: Option<String>,
        due_at: Option<i64>,
    ) -> Result<(), StoreError> {
        let (key, w, paused) = (
            watch.id.as_str().to_owned(),
            to_json(watch),
            watch.options.paused,
        );
        self.write(move |db| async move {
            let mut c = db.pool.get().await?;
            let tx = c.transaction().await?;
            let Some(row) = tx
                .query_opt(
                    "SELECT state, links FROM watches WHERE id = $1 FOR UPDATE",
                    &[&key],
                )
                .await?
            else {
                return Err(StoreError::NoWatch(watch_id(key)?));
            };
            let mut state: WatchState = from_json(&key, row.get(0))?;
            if rebaseline {
                let links = match row.get::<_, Option<Vec<u8>>>(1) {
                    Some(b) => decode_links(&key, &b)?,
                    None => Vec::new(),
                };
                let urls: Vec<String> = links.into_iter().map(|l| l.url).collect();
                // As on sled: stamped with the last check, when they were on the page.
                let at = crate::store::self_now(&state);
                seen::insert(&*tx, &key, &urls, at, state.checks).await?;
                state.link_fingerprint = None;
                state.raw_fingerprint = None;
                state.etag = None;
                state.last_modified = None;
                state.entry_roles.clear();
            }
            if note.is_some() {
                state.note = note;
            }
            if let Some(at) = due_at {
                state.next_check = at;
            }
            tx.execute(
                "UPDATE watches SET watch = $2, state = $3, next_check = $4, paused = $5,
                     links = CASE WHEN $6 THEN NULL ELSE links END,
                     change_seq = nextval('feed_seq')
                 WHERE id = $1",
                &[
                    &key,
                    &w,
                    &to_json(&state),
                    &state.next_check,
                    &paused,
                    &rebaseline,
                ],
            )
            .await?;
            tx.commit().await?;
            Ok(())
        })
    }

    /// As [`crate::store::Store::add_full_text`]: the articles into the items that have
    /// none yet, the queue into the state (merged under the row lock with what another
    /// node's check queued meanwhile), a new change sequence when an item changed.
    pub fn add_full_text(
        &self,
        id: &WatchId,
        contents: &[(String, String)],
        took: &[crate::model::PendingText],
        left: &[crate::model::PendingText],
    ) -> Result<(), StoreError> {
        let key = id.as_str().to_owned();
        let (ids, texts): (Vec<String>, Vec<String>) = contents.iter().cloned().unzip();
        let (took, left) = (took.to_vec(), left.to_vec());
        self.write(move |db| async move {
            let mut c = db.pool.get().await?;
            let tx = c.transaction().await?;
            let mut state = locked_state(&tx, &key).await?;
            state.full_text = crate::model::requeue(&state.full_text, &took, &left);
            let added = if ids.is_empty() {
                0
            } else {
                tx.execute(
                    "UPDATE items SET item = jsonb_set(item, '{content}', to_jsonb(t.content))
                     FROM unnest($2::text[], $3::text[]) AS t(id, content)
                     WHERE items.watch_id = $1 AND items.item_id = t.id
                       AND items.item->'content' IS NULL",
                    &[&key, &ids, &texts],
                )
                .await?
            };
            tx.execute(
                "UPDATE watches SET state = $2,
                     change_seq = CASE WHEN $3 THEN nextval('feed_seq') ELSE change_seq END
                 WHERE id = $1",
                &[&key, &to_json(&state), &(added > 0)],
            )
            .await?;
            tx.commit().await?;
            Ok(())
        })
    }

    pub fn set_webhook_outcome(
        &self,
        id: &WatchId,
        at: i64,
        error: Option<String>,
    ) -> Result<(), StoreError> {
        let key = id.as_str().to_owned();
        self.write(move |db| async move {
            let mut c = db.pool.get().await?;
            let tx = c.transaction().await?;
            let mut state = locked_state(&tx, &key).await?;
            state.webhook_at = Some(at);
            state.webhook_error = error;
            tx.execute(
                "UPDATE watches SET state = $2 WHERE id = $1",
                &[&key, &to_json(&state)],
            )
            .await?;
            tx.commit().await?;
            Ok(())
        })
    }
}

/// The state of watch `key`, its row locked for the rest of the transaction.
async fn locked_state(
    tx: &tokio_postgres::Transaction<'_>,
    key: &str,
) -> Result<WatchState, StoreError> {
    let Some(row) = tx
        .query_opt(
            "SELECT state FROM watches WHERE id = $1 FOR UPDATE",
            &[&key],
        )
        .await?
    else {
        return Err(StoreError::NoWatch(watch_id(key.to_owned())?));
    };
    from_json(key, row.get(0))
}
