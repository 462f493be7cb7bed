//! The writes of one store operation, applied atomically. Our own list rather than
//! `sled::Batch`, which cannot be read back: the group commit (`durable.rs`) joins the
//! batches of the checks that end together into one sled batch.
//!
//! May use: nothing.

use sled::IVec;

/// Writes in the order they were made; a later write of a key replaces an earlier one.
#[derive(Debug, Default)]
pub(super) struct Batch {
    writes: Vec<(IVec, Option<IVec>)>,
}

impl Batch {
    pub(super) fn insert<K: Into<IVec>, V: Into<IVec>>(&mut self, key: K, value: V) {
        self.writes.push((key.into(), Some(value.into())));
    }

    pub(super) fn remove<K: Into<IVec>>(&mut self, key: K) {
        self.writes.push((key.into(), None));
    }

    /// Adds the writes of `later` after these.
    pub(super) fn append(&mut self, later: Self) {
        self.writes.extend(later.writes);
    }

    /// The batch sled applies.
    pub(super) fn into_sled(self) -> sled::Batch {
        let mut batch = sled::Batch::default();
        for (key, value) in self.writes {
            match value {
                Some(v) => batch.insert(key, v),
                None => batch.remove(key),
            }
        }
        batch
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn later_writes_of_a_key_win_across_joined_batches() {
        let db = sled::Config::new().temporary(true).open().expect("db");
        db.insert("gone", "x").expect("insert");
        db.insert("kept", "x").expect("insert");
        let mut a = Batch::default();
        a.insert("k", "1");
        a.remove("gone");
        a.insert("back", "1");
        let mut b = Batch::default();
        b.insert("k", "2");
        b.remove("back");
        a.append(b);
        db.apply_batch(a.into_sled()).expect("apply");
        let get = |k: &str| db.get(k).expect("get").map(|v| v.to_vec());
        assert_eq!(get("k"), Some(b"2".to_vec()));
        assert_eq!(get("gone"), None);
        assert_eq!(get("back"), None, "removed by the later batch");
        assert_eq!(get("kept"), Some(b"x".to_vec()));
    }
}
