//! The PostgreSQL backend of the store: the operations of the sled backend on one
//! database that many sitefeed nodes share. It owns the SQL, the schema migrations
//! (`migrate.rs`, files in `migrations/`) and the host leases (`lease.rs`); it uses the
//! store's own types and codec, `tokio_postgres` and `deadpool_postgres`.
//!
//! **Blocking.** The store's interface is synchronous (sled answers from memory) and is
//! called from async handlers, the scheduler and the CPU pool. This backend keeps its
//! network I/O off the caller's runtime: every operation runs on a small runtime of its
//! own, where the connection pool lives, and the caller waits for the answer: on a
//! worker of a multi-thread runtime inside `block_in_place` (the worker's other tasks
//! move to another thread meanwhile), anywhere else (the blocking and CPU pools, a
//! current-thread test runtime, a plain thread) by a plain wait, which cannot deadlock
//! since the I/O never needs the caller's runtime.
//!
//! **Rows.** One row per watch (settings and state as JSON, as sled keeps them, beside
//! the columns the due index and the leases query), one per item with a unique
//! `(watch_id, item_id)` (an entry is stored once, whatever retries or nodes do), one
//! per seen URL and per deep page. Every commit is one transaction.

pub mod lease;
mod migrate;
mod sched;
mod seen;
mod stamp;
#[cfg(test)]
pub(crate) mod tests;
mod transfer;
mod write;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use md5::{Digest, Md5};
use serde::{de::DeserializeOwned, Serialize};
use tokio_postgres::NoTls;

use super::commit::logged_state;
use super::{codec, health::Health, CheckRecord, StoreError};
use crate::model::{Item, Link, Watch, WatchId};
use crate::state::WatchState;
pub(crate) use write::seq_i64;
use write::Commit;

/// How to reach the database and how this node takes part.
#[derive(Debug, Clone)]
pub struct PgOptions {
    /// `postgres://user@host:port/db` (libpq URL or key=value form).
    pub url: String,
    /// A schema to create and use instead of the URL's `search_path` (tests).
    pub schema: Option<String>,
    /// This node's name in the leases (unique per process).
    pub node: String,
    /// How long a host lease lasts without renewal: a dead node's hosts move on after it.
    pub lease: Duration,
    /// Renew held leases this often (`None`: never, for tests of lost leases).
    pub renew_every: Option<Duration>,
    /// The per-host delay, kept across hand-overs of a host.
    pub host_delay: Duration,
    /// Most hosts held at once.
    pub max_hosts: usize,
    /// Connections in the pool.
    pub pool_size: usize,
}

impl PgOptions {
    pub fn new(url: &str) -> Self {
        let lease = Duration::from_secs(30);
        Self {
            url: url.to_owned(),
            schema: None,
            node: node_name(),
            lease,
            renew_every: Some(lease / 3),
            host_delay: Duration::ZERO,
            max_hosts: 64,
            pool_size: 8,
        }
    }
}

/// A name for this process among the nodes: host name, process id, a random suffix.
pub(crate) fn node_name() -> String {
    let host = std::env::var("HOSTNAME")
        .ok()
        .filter(|h| !h.is_empty())
        .or_else(|| {
            std::fs::read_to_string("/etc/hostname")
                .ok()
                .map(|h| h.trim().to_owned())
                .filter(|h| !h.is_empty())
        })
        .unwrap_or_else(|| "node".into());
    format!("{host}-{}-{:04x}", std::process::id(), fastrand::u16(..))
}

/// The lease key of a watch's URL: its host, lower case, and a non-default port (the
/// same grouping as the fetcher's host gate).
pub(crate) fn host_key(url: &str) -> String {
    let Ok(u) = url::Url::parse(url) else {
        return String::new();
    };
    let host = u.host_str().unwrap_or_default().to_ascii_lowercase();
    match u.port().filter(|&p| p != 80 && p != 443) {
        Some(p) => format!("{host}:{p}"),
        None => host,
    }
}

impl From<tokio_postgres::Error> for StoreError {
    fn from(e: tokio_postgres::Error) -> Self {
        match e.as_db_error() {
            Some(db) => StoreError::Pg(format!("{} ({})", db.message(), db.code().code())),
            None => StoreError::Pg(match std::error::Error::source(&e) {
                Some(s) => format!("{e}: {s}"),
                None => e.to_string(),
            }),
        }
    }
}

impl From<deadpool_postgres::PoolError> for StoreError {
    fn from(e: deadpool_postgres::PoolError) -> Self {
        match e {
            deadpool_postgres::PoolError::Backend(e) => e.into(),
            e => StoreError::Pg(format!("no database connection: {e}")),
        }
    }
}

/// The backend's own runtime, shut down without waiting when the store goes.
struct Rt(Option<tokio::runtime::Runtime>);

impl Rt {
    fn handle(&self) -> &tokio::runtime::Handle {
        self.0
            .as_ref()
            .expect("invariant: the runtime lives until drop")
            .handle()
    }
}

impl Drop for Rt {
    fn drop(&mut self) {
        if let Some(rt) = self.0.take() {
            rt.shutdown_background();
        }
    }
}

/// What the async operations need: the pool and this node's name and leases.
#[derive(Clone)]
struct Db {
    pool: Pool,
    node: Arc<str>,
    leases: Arc<lease::Leases>,
    opts: Arc<PgOptions>,
}

/// The store on PostgreSQL; clones share one pool.
#[derive(Clone)]
pub(crate) struct PgStore {
    inner: Arc<Inner>,
}

struct Inner {
    // Dropped first: the runtime stops before the pool goes.
    rt: Rt,
    db: Db,
    health: Health,
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgStore")
            .field("node", &self.inner.db.node)
            .finish_non_exhaustive()
    }
}

impl PgStore {
    /// Connects, creates the schema if asked, runs the migrations and starts renewing
    /// this node's leases.
    pub fn connect(opts: PgOptions) -> Result<Self, StoreError> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("sitefeed-pg")
            .enable_all()
            .build()
            .map_err(|e| StoreError::Pg(format!("cannot start the database runtime: {e}")))?;
        let mut cfg: tokio_postgres::Config = opts
            .url
            .parse()
            .map_err(|e| StoreError::Pg(format!("storage.url does not parse: {e}")))?;
        if let Some(schema) = &opts.schema {
            if schema.is_empty()
                || !schema
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
            {
                return Err(StoreError::Pg(format!("bad schema name {schema:?}")));
            }
            cfg.options(format!("-c search_path={schema}"));
        }
        if cfg.get_connect_timeout().is_none() {
            cfg.connect_timeout(Duration::from_secs(10));
        }
        let mgr = Manager::from_config(
            cfg,
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = {
            let _entered = rt.enter();
            Pool::builder(mgr)
                .max_size(opts.pool_size.max(1))
                .runtime(deadpool_postgres::Runtime::Tokio1)
                .wait_timeout(Some(Duration::from_secs(30)))
                .create_timeout(Some(Duration::from_secs(10)))
                .build()
                .map_err(|e| StoreError::Pg(format!("cannot build the pool: {e}")))?
        };
        let store = Self {
            inner: Arc::new(Inner {
                rt: Rt(Some(rt)),
                db: Db {
                    pool,
                    node: opts.node.clone().into(),
                    leases: Arc::default(),
                    opts: Arc::new(opts),
                },
                health: Health::default(),
            }),
        };
        store.call(|db| async move {
            let mut c = db.pool.get().await?;
            if let Some(schema) = &db.opts.schema {
                c.batch_execute(&format!("CREATE SCHEMA IF NOT EXISTS {schema}"))
                    .await?;
            }
            migrate::run(&mut c).await?;
            Ok(())
        })?;
        if let Some(every) = store.inner.db.opts.renew_every {
            let db = store.inner.db.clone();
            store.inner.rt.handle().spawn(async move {
                let mut tick = tokio::time::interval(every);
                loop {
                    tick.tick().await;
                    if let Err(e) = db.renew().await {
                        tracing::warn!(error = %e, "cannot renew host leases");
                    }
                }
            });
        }
        Ok(store)
    }

    /// How long a host lease lasts without renewal.
    pub fn lease(&self) -> Duration {
        self.inner.db.opts.lease
    }

    /// Runs `f` on the backend's runtime and waits for it (see the module's comment).
    fn call<T, F>(&self, f: impl FnOnce(Db) -> F) -> Result<T, StoreError>
    where
        F: Future<Output = Result<T, StoreError>> + Send + 'static,
        T: Send + 'static,
    {
        let fut = f(self.inner.db.clone());
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        self.inner.rt.handle().spawn(async move {
            let _ = tx.send(fut.await);
        });
        let wait = move || rx.recv().unwrap_or(Err(StoreError::Closed));
        match tokio::runtime::Handle::try_current() {
            Ok(h) if h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
                tokio::task::block_in_place(wait)
            }
            _ => wait(),
        }
    }

    /// A write: its failure for want of a database is recorded in the health.
    fn write<T, F>(&self, f: impl FnOnce(Db) -> F) -> Result<T, StoreError>
    where
        F: Future<Output = Result<T, StoreError>> + Send + 'static,
        T: Send + 'static,
    {
        self.inner.health.guard(|| self.call(f))
    }

    pub fn failing(&self) -> Option<String> {
        self.inner.health.failing()
    }

    pub fn simulate_full_disk(&self, on: bool) {
        self.inner.health.simulate_full(on);
    }

    /// `Ok` when the database answers a write again.
    pub fn recover(&self) -> Result<(), StoreError> {
        self.inner.health.reopened();
        self.write(|db| async move {
            db.pool.get().await?.execute("SELECT 1", &[]).await?;
            Ok(())
        })
    }

    pub fn insert_watch(&self, watch: &Watch, state: &WatchState) -> Result<bool, StoreError> {
        let (w, s) = (to_json(watch), to_json(state));
        let id = watch.id.as_str().to_owned();
        let host = host_key(&watch.url);
        let (next, paused) = (state.next_check, watch.options.paused);
        self.write(move |db| async move {
            let mut c = db.pool.get().await?;
            let tx = c.transaction().await?;
            let n = tx
                .execute(
                    "INSERT INTO watches (id, host, watch, state, next_check, paused)
                     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING",
                    &[&id, &host, &w, &s, &next, &paused],
                )
                .await?;
            tx.execute(
                "INSERT INTO host_leases (host) VALUES ($1) ON CONFLICT DO NOTHING",
                &[&host],
            )
            .await?;
            tx.commit().await?;
            Ok(n == 1)
        })
    }

    pub fn remove_watch(&self, id: &WatchId) -> Result<bool, StoreError> {
        self.inner.db.leases.done(id);
        let id = id.as_str().to_owned();
        self.write(move |db| async move {
            let n = db
                .pool
                .get()
                .await?
                .execute("DELETE FROM watches WHERE id = $1", &[&id])
                .await?;
            Ok(n == 1)
        })
    }

    /// One JSON column of one watch.
    fn column<T: DeserializeOwned + Send + 'static>(
        &self,
        id: &WatchId,
        sql: &'static str,
    ) -> Result<Option<T>, StoreError> {
        let key = id.as_str().to_owned();
        self.call(move |db| async move {
            let row = db.pool.get().await?.query_opt(sql, &[&key]).await?;
            match row.and_then(|r| r.get::<_, Option<serde_json::Value>>(0)) {
                Some(v) => from_json(&key, v).map(Some),
                None => Ok(None),
            }
        })
    }

    pub fn watch(&self, id: &WatchId) -> Result<Option<Watch>, StoreError> {
        self.column(id, "SELECT watch FROM watches WHERE id = $1")
    }

    pub fn state(&self, id: &WatchId) -> Result<Option<WatchState>, StoreError> {
        self.column(id, "SELECT state FROM watches WHERE id = $1")
    }

    pub fn crawl(&self, id: &WatchId) -> Result<crate::model::crawl::CrawlState, StoreError> {
        Ok(self
            .column(id, "SELECT crawl FROM watches WHERE id = $1")?
            .unwrap_or_default())
    }

    /// All watches, ordered by id.
    pub fn watches(&self) -> Result<Vec<Watch>, StoreError> {
        self.call(|db| async move {
            db.pool
                .get()
                .await?
                .query("SELECT id, watch FROM watches ORDER BY id", &[])
                .await?
                .into_iter()
                .map(|r| from_json(r.get::<_, &str>(0), r.get(1)))
                .collect()
        })
    }

    pub fn links(&self, id: &WatchId) -> Result<Vec<Link>, StoreError> {
        let key = id.as_str().to_owned();
        self.call(move |db| async move {
            let row = db
                .pool
                .get()
                .await?
                .query_opt("SELECT links FROM watches WHERE id = $1", &[&key])
                .await?;
            match row.and_then(|r| r.get::<_, Option<Vec<u8>>>(0)) {
                Some(b) => decode_links(&key, &b),
                None => Ok(Vec::new()),
            }
        })
    }

    pub fn page_links(&self, id: &WatchId, url: &str) -> Result<Vec<Link>, StoreError> {
        let (key, hash) = (id.as_str().to_owned(), md5(url));
        self.call(move |db| async move {
            let row = db
                .pool
                .get()
                .await?
                .query_opt(
                    "SELECT links FROM pages WHERE watch_id = $1 AND url_md5 = $2",
                    &[&key, &hash],
                )
                .await?;
            match row {
                Some(r) => decode_links(&key, r.get::<_, &[u8]>(0)),
                None => Ok(Vec::new()),
            }
        })
    }

    pub fn is_seen(&self, id: &WatchId, url: &str) -> Result<bool, StoreError> {
        let (key, hash) = (id.as_str().to_owned(), md5(url));
        self.call(move |db| async move {
            Ok(db
                .pool
                .get()
                .await?
                .query_opt(
                    "SELECT 1 FROM seen WHERE watch_id = $1 AND url_md5 = $2",
                    &[&key, &hash],
                )
                .await?
                .is_some())
        })
    }

    /// Up to `limit` items, newest first.
    pub fn items(&self, id: &WatchId, limit: usize) -> Result<Vec<Item>, StoreError> {
        let key = id.as_str().to_owned();
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.call(move |db| async move {
            db.pool
                .get()
                .await?
                .query(
                    "SELECT item FROM items WHERE watch_id = $1 ORDER BY seq DESC LIMIT $2",
                    &[&key, &limit],
                )
                .await?
                .into_iter()
                .map(|r| from_json(&key, r.get(0)))
                .collect()
        })
    }

    /// Writes a check's results in one transaction, keeping the watch's newest `kept`
    /// items (older ones are deleted, whether or not the check adds any). A check of a
    /// watch that this node's scheduler was handed carries its host lease's epoch: when
    /// another node holds the host now, nothing is written and the error is
    /// [`StoreError::LeaseLost`].
    pub fn commit_check(
        &self,
        id: &WatchId,
        prev: &WatchState,
        state: &WatchState,
        record: &CheckRecord,
        kept: u64,
    ) -> Result<(), StoreError> {
        let fence = self.inner.db.leases.fence(id);
        let commit = Commit::new(id, prev, &logged_state(prev, state, record), record, kept);
        let result = self.write(move |db| async move { db.commit(commit, fence).await });
        if result.is_ok() || matches!(result, Err(StoreError::LeaseLost { .. })) {
            self.inner.db.leases.done(id);
        }
        result
    }

    /// The earliest scheduled check of any unpaused watch.
    pub fn next_due(&self) -> Result<Option<i64>, StoreError> {
        self.call(|db| async move {
            let row = db
                .pool
                .get()
                .await?
                .query_one("SELECT min(next_check) FROM watches WHERE NOT paused", &[])
                .await?;
            Ok(row.get::<_, Option<i64>>(0))
        })
    }

    /// Bytes of the tables (and their indexes and TOAST) in this store's schema.
    pub fn size_on_disk(&self) -> u64 {
        self.call(|db| async move {
            let row = db
                .pool
                .get()
                .await?
                .query_one(
                    "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::int8
                     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                     WHERE c.relkind = 'r' AND n.nspname = current_schema()",
                    &[],
                )
                .await?;
            Ok(row.get::<_, i64>(0) as u64)
        })
        .unwrap_or(0)
    }
}

impl Db {
    async fn renew(&self) -> Result<(), StoreError> {
        let c = self.pool.get().await?;
        lease::renew(&**c, &self.leases, &self.node, self.opts.lease).await
    }
}

/// The key of a URL in the seen set and the pages: the first 8 bytes of its MD5, as
/// the sled backend keys them.
fn md5(s: &str) -> Vec<u8> {
    Md5::digest(s.as_bytes())[..8].to_vec()
}

fn to_json<T: Serialize>(v: &T) -> serde_json::Value {
    serde_json::to_value(v).expect("invariant: model types serialize to JSON")
}

fn from_json<T: DeserializeOwned>(key: &str, v: serde_json::Value) -> Result<T, StoreError> {
    serde_json::from_value(v).map_err(|e| StoreError::Corrupt {
        key: key.to_owned(),
        reason: e.to_string(),
    })
}

fn decode_links(key: &str, bytes: &[u8]) -> Result<Vec<Link>, StoreError> {
    codec::decode_links(bytes).ok_or_else(|| StoreError::Corrupt {
        key: key.to_owned(),
        reason: "malformed link array".into(),
    })
}

/// A watch id read from the database.
fn watch_id(s: String) -> Result<WatchId, StoreError> {
    serde_json::from_value(serde_json::Value::String(s.clone())).map_err(|e| StoreError::Corrupt {
        key: s,
        reason: e.to_string(),
    })
}
