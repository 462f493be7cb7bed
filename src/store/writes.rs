//! The writes of one commit, gathered before they are applied: what the store's helpers
//! add to, so that the writes of several checks can be merged into one sled batch
//! (`commit.rs`), which `sled::Batch` does not allow.
//!
//! May use: nothing.

/// The writes of one commit, in order: a later write of a key overrides an earlier one.
#[derive(Debug, Default)]
pub(super) struct Writes(Vec<(sled::IVec, Option<sled::IVec>)>);

impl Writes {
    pub(super) fn insert<K: Into<sled::IVec>, V: Into<sled::IVec>>(&mut self, key: K, value: V) {
        self.0.push((key.into(), Some(value.into())));
    }

    pub(super) fn remove<K: Into<sled::IVec>>(&mut self, key: K) {
        self.0.push((key.into(), None));
    }

    /// Adds these writes to `batch`, after what it holds.
    pub(super) fn add_to(self, batch: &mut sled::Batch) {
        for (k, v) in self.0 {
            match v {
                Some(v) => batch.insert(k, v),
                None => batch.remove(k),
            }
        }
    }

    /// The writes as one sled batch.
    pub(super) fn into_batch(self) -> sled::Batch {
        let mut batch = sled::Batch::default();
        self.add_to(&mut batch);
        batch
    }
}
