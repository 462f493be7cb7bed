//! Hash maps and sets for in-memory data of one analysis (URLs, texts, roles, ids of a
//! page): std's maps with foldhash, a fast non-cryptographic hasher, instead of SipHash,
//! which cost about 8% of a check's CPU. Each process seeds it at random, so a page
//! cannot be built to make the maps degrade. Uses nothing else of the crate.
//!
//! May use: nothing.

/// A `HashMap` with foldhash. Make one with `HashMap::default()`.
pub type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;
/// A `HashSet` with foldhash. Make one with `HashSet::default()`.
pub type HashSet<T> = std::collections::HashSet<T, foldhash::fast::RandomState>;

/// An empty `HashMap` with room for `n` entries.
pub fn map_with_capacity<K, V>(n: usize) -> HashMap<K, V> {
    HashMap::with_capacity_and_hasher(n, foldhash::fast::RandomState::default())
}

/// An empty `HashSet` with room for `n` entries.
pub fn set_with_capacity<T>(n: usize) -> HashSet<T> {
    HashSet::with_capacity_and_hasher(n, foldhash::fast::RandomState::default())
}
