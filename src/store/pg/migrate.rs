//! Versioned schema migrations: the SQL files of `migrations/`, compiled in, applied in
//! order at start, each once, in one transaction under an advisory lock (nodes that
//! start together wait for each other; none sees half a schema). Applied versions and
//! their checksums are kept in `schema_migrations`; a database that has a version this
//! build does not know, or a known one whose text changed, is refused.

use md5::{Digest, Md5};
use tokio_postgres::Client;

use crate::store::StoreError;

/// (version, name, SQL), oldest first. A released file is never edited: add one.
const MIGRATIONS: &[(i32, &str, &str)] = &[
    (1, "init", include_str!("../../../migrations/0001_init.sql")),
    (
        2,
        "seen_times",
        include_str!("../../../migrations/0002_seen_times.sql"),
    ),
    (
        3,
        "state_log_arrays",
        include_str!("../../../migrations/0003_state_log_arrays.sql"),
    ),
];

/// Key of the advisory lock that serializes migrations (any fixed number).
const LOCK_KEY: i64 = 0x5173_6665_6564;

/// The newest schema version this build knows.
pub fn latest() -> i32 {
    MIGRATIONS.last().map_or(0, |m| m.0)
}

fn checksum(sql: &str) -> String {
    use std::fmt::Write;
    Md5::digest(sql.as_bytes())
        .iter()
        .fold(String::new(), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

/// Brings the schema (the connection's `search_path`) to the newest version. Returns
/// the versions applied now.
pub async fn run(client: &mut Client) -> Result<Vec<i32>, StoreError> {
    let tx = client.transaction().await?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&LOCK_KEY])
        .await?;
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations (
             version int PRIMARY KEY,
             name text NOT NULL,
             checksum text NOT NULL,
             applied_at timestamptz NOT NULL DEFAULT now())",
    )
    .await?;
    let applied: Vec<(i32, String)> = tx
        .query("SELECT version, checksum FROM schema_migrations", &[])
        .await?
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    for (version, sum) in &applied {
        match MIGRATIONS.iter().find(|m| m.0 == *version) {
            None => {
                return Err(StoreError::Pg(format!(
                    "the database has schema version {version}, newer than this sitefeed understands ({}); upgrade sitefeed",
                    latest()
                )))
            }
            Some(m) if checksum(m.2) != *sum => {
                return Err(StoreError::Pg(format!(
                    "schema migration {version} ({}) differs from the one applied to this database",
                    m.1
                )))
            }
            Some(_) => {}
        }
    }
    let mut done = Vec::new();
    for (version, name, sql) in MIGRATIONS {
        if applied.iter().any(|(v, _)| v == version) {
            continue;
        }
        tx.batch_execute(sql).await?;
        tx.execute(
            "INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)",
            &[version, name, &checksum(sql)],
        )
        .await?;
        tracing::info!(version, name, "schema migration applied");
        done.push(*version);
    }
    tx.commit().await?;
    Ok(done)
}
