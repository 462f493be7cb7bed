//! Scans of many keys that leave sled's page cache at its size.
//!
//! sled 0.34 does not act on each use of a page: it shards its cache 256 ways and records
//! a page's uses in a queue per shard, which it reads (and evicts by) only when 64 uses
//! have gathered. A scan uses each page once or twice, so on a store of some thousands of
//! pages no queue fills, nothing is evicted, and every page the scan read stays in memory
//! until later uses push it out: scanning a 0.9 GiB store (121,000 keys, 53 MB of keys
//! and values) took 60 MiB more resident memory, whatever the cache's size. Reading each
//! key once more by [`sled::Tree::get`] adds a use of the page just read for every key on
//! it, so the queues fill as the scan goes and the cache evicts: 23 MiB more on the same
//! store, for a fifth more time (see `bench/README.md`). Pages of few large records get
//! few such uses, so on them the scan still keeps more than the cache's size.

use sled::IVec;

/// Every key and value of `tree` in order, each read a second time by key so that sled's
/// cache evicts as the scan goes (see the module's notes).
pub(super) fn evicting(tree: &sled::Tree) -> impl Iterator<Item = sled::Result<(IVec, IVec)>> + '_ {
    evicting_prefix(tree, &[])
}

/// [`evicting`] over the keys that start with `prefix` only (every watch record, say).
pub(super) fn evicting_prefix<'a>(
    tree: &'a sled::Tree,
    prefix: &[u8],
) -> impl Iterator<Item = sled::Result<(IVec, IVec)>> + 'a {
    tree.scan_prefix(prefix).map(move |kv| {
        let (k, v) = kv?;
        tree.get(&k)?;
        Ok((k, v))
    })
}
