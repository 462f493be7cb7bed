//! A scan of the whole store (its usage by kind, the compaction's measure of the live
//! bytes and its copy) leaves the store's pages on disk: the resident memory grows by the
//! page cache, not by the store.
//!
//! Alone in its file so that its test binary runs nothing beside it: the figure read is
//! the whole process's resident memory (Linux only; elsewhere the test has nothing to
//! read and passes).

use sitefeed::store::{CompactPolicy, Store};

/// Keys and the bytes of each value: 20 MB of values in some thousands of sled pages.
const KEYS: u32 = 100_000;
const VALUE: usize = 200;
/// The store's page cache, as small as a user may set it.
const CACHE: u64 = 1 << 20;

/// The process's resident memory in KiB, from `/proc/self/status`.
fn resident_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// A sled database at `path` holding `KEYS` values under one key prefix the store does
/// not use, written in batches and flushed.
fn fill(path: &std::path::Path) -> sled::Result<()> {
    let db = sled::Config::new()
        .path(path)
        .cache_capacity(CACHE)
        .open()?;
    let mut batch = sled::Batch::default();
    for i in 0..KEYS {
        let mut key = b"~".to_vec();
        key.extend_from_slice(&i.to_be_bytes());
        // Values that do not compress away, should sled ever compress.
        let value: Vec<u8> = (0..VALUE)
            .map(|j| (i as usize * 31 + j * 7) as u8)
            .collect();
        batch.insert(key, value);
        if i % 1_000 == 999 {
            db.apply_batch(std::mem::take(&mut batch))?;
        }
    }
    db.apply_batch(batch)?;
    db.flush()?;
    Ok(())
}

#[test]
fn a_whole_store_scan_does_not_keep_the_store_in_memory() {
    sitefeed::alloc::low_memory_defaults();
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("db");
    fill(&path).expect("fill the database");
    let store = Store::open_with(&path, CACHE, CompactPolicy::off()).expect("open the store");
    let Some(before) = resident_kib() else {
        eprintln!("no /proc/self/status here: nothing to measure");
        return;
    };

    let usage = store.usage().expect("usage");
    let ours = usage
        .iter()
        .find(|u| u.kind == '~')
        .expect("the filled keys counted");
    assert_eq!(ours.keys, u64::from(KEYS));
    assert_eq!(ours.bytes, u64::from(KEYS) * (5 + VALUE as u64));
    let after = resident_kib().expect("VmRSS");

    // The values alone are 20 MB (19,531 KiB); kept in memory as sled's pages they would
    // take more. The cache is 1 MiB: a scan that lets it evict grows by a few MiB.
    let grown = after.saturating_sub(before);
    eprintln!("the scan grew the resident memory by {grown} KiB (from {before})");
    assert!(
        grown < 8 * 1024,
        "a scan of 20 MB of values grew the resident memory by {grown} KiB (from {before})"
    );
}
