//! The reference keys of a watch's page statistics
//! ([`PageStats::reference`](crate::schedule::page::PageStats)) under a key of their own
//! (`R` id), apart from the state: they change only when a page is redesigned, and the
//! state is written whole by every check. A commit writes the state without them and
//! writes them when they changed (or are not stored apart yet); reading a state puts them
//! back. States written otherwise (an edit, a transfer, stores of schema 4) hold them
//! inline, which a read takes as they are.
//!
//! The value: version byte 1, then the keys as the page statistics pack them
//! ([`pack_keys`]).

use super::writes::Writes;
use super::{encode, keys, Store, StoreError};
use crate::model::WatchId;
use crate::schedule::page::{pack_keys, unpack_keys};
use crate::state::WatchState;

const V1: u8 = 1;

fn encode_keys(reference: &[u16]) -> Vec<u8> {
    let mut out = vec![V1];
    out.extend(pack_keys(reference));
    out
}

fn decode_keys(key: &[u8], bytes: &[u8]) -> Result<Vec<u16>, StoreError> {
    let keys = match bytes.split_first() {
        Some((&V1, rest)) => unpack_keys(rest),
        _ => None,
    };
    keys.ok_or_else(|| StoreError::Corrupt {
        key: String::from_utf8_lossy(key).into_owned(),
        reason: "malformed reference keys".into(),
    })
}

impl Store {
    /// The state of `id` with its reference keys, wherever they are stored (sled).
    pub(super) fn read_state(&self, id: &WatchId) -> Result<Option<WatchState>, StoreError> {
        let Some(mut state) = self.get::<WatchState>(&keys::watch_key(keys::STATE, id))? else {
            return Ok(None);
        };
        if state.learned.page.reference.is_empty() {
            let key = keys::watch_key(keys::REFERENCE, id);
            if let Some(v) = self.db_read()?.get(&key)? {
                state.learned.page.reference = decode_keys(&key, &v)?;
            }
        }
        Ok(Some(state))
    }

    /// Adds the writes of a check's `state` to `batch`: the state without its reference
    /// keys, and the keys apart when they differ from `prev`'s or are not stored apart.
    pub(super) fn put_state_apart(
        &self,
        batch: &mut Writes,
        id: &WatchId,
        prev: &WatchState,
        state: &mut WatchState,
    ) -> Result<(), StoreError> {
        let key = keys::watch_key(keys::REFERENCE, id);
        let reference = std::mem::take(&mut state.learned.page.reference);
        if reference.is_empty() {
            if !prev.learned.page.reference.is_empty() {
                batch.remove(key);
            }
        } else if reference != prev.learned.page.reference || !self.db_read()?.contains_key(&key)? {
            batch.insert(key, encode_keys(&reference));
        }
        batch.insert(keys::watch_key(keys::STATE, id), encode(&*state));
        state.learned.page.reference = reference;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::pg::tests::{state, watch};
    use super::super::suite::check_at;
    use super::*;
    use crate::model::Link;

    fn stored_state_json(s: &Store, id: &WatchId) -> serde_json::Value {
        let key = keys::watch_key(keys::STATE, id);
        let raw = s
            .db()
            .expect("db")
            .get(&key)
            .expect("get")
            .expect("present");
        super::super::decode(&key, &raw).expect("JSON")
    }

    fn stored_apart(s: &Store, id: &WatchId) -> Option<Vec<u16>> {
        let key = keys::watch_key(keys::REFERENCE, id);
        let v = s.db().expect("db").get(&key).expect("get")?;
        Some(decode_keys(&key, &v).expect("decodes"))
    }

    /// The reference keys of the state a read gives.
    fn read_keys(s: &Store, id: &WatchId) -> Vec<u16> {
        s.state(id)
            .expect("read")
            .expect("present")
            .learned
            .page
            .reference
    }

    /// Whether the stored state holds its reference keys itself.
    fn held_inline(s: &Store, id: &WatchId) -> bool {
        stored_state_json(s, id)["learned"]["page"]
            .get("reference")
            .is_some()
    }

    fn links() -> Vec<Link> {
        vec![Link::new("x", "http://a.example/x")]
    }

    /// A check writes the state without its reference keys and the keys apart; a read
    /// gives the state whole; a check that keeps them does not write them again, and a
    /// redesign's new keys replace them.
    #[test]
    fn a_check_keeps_the_reference_apart_and_reads_it_back() {
        let dir = tempfile::tempdir().expect("tempdir");
        let s = super::super::suite::open_when_free(dir.path());
        let w = watch("http://a.example/");
        s.insert_watch(&w, &state(10)).expect("insert");
        let prev = s.state(&w.id).expect("read").expect("present");
        let mut next = prev.clone();
        next.learned.page.reference = vec![3, 70, 9000];
        next.checks += 1;
        s.commit_check(&w.id, &prev, &next, &super::super::CheckRecord::default())
            .expect("commit");
        assert!(!held_inline(&s, &w.id));
        assert_eq!(stored_apart(&s, &w.id), Some(vec![3, 70, 9000]));
        assert_eq!(read_keys(&s, &w.id), vec![3, 70, 9000]);

        // Kept: the state read back is whole after further checks.
        check_at(&s, &w, 100, links(), &[], Vec::new());
        let read = s.state(&w.id).expect("read").expect("present");
        assert_eq!(read.learned.page.reference, vec![3, 70, 9000]);
        assert_eq!(read.checks, 2);

        // A redesign: new keys replace the old ones.
        let mut redesigned = read.clone();
        redesigned.learned.page.reference = vec![5];
        s.commit_check(
            &w.id,
            &read,
            &redesigned,
            &super::super::CheckRecord::default(),
        )
        .expect("commit");
        assert_eq!(stored_apart(&s, &w.id), Some(vec![5]));
        assert_eq!(read_keys(&s, &w.id), vec![5]);

        // Removing the watch removes them.
        assert!(s.remove_watch(&w.id).expect("remove"));
        assert_eq!(stored_apart(&s, &w.id), None);
    }

    /// A state that holds its keys inline (an edit's write, a store of schema 4) reads
    /// them as they are, and the next check moves them apart although they did not
    /// change.
    #[test]
    fn keys_held_inline_are_read_and_moved_apart() {
        let dir = tempfile::tempdir().expect("tempdir");
        let s = super::super::suite::open_when_free(dir.path());
        let w = watch("http://a.example/");
        let mut st = state(10);
        st.learned.page.reference = vec![1, 2, 3];
        s.insert_watch(&w, &st).expect("insert");
        assert_eq!(stored_apart(&s, &w.id), None);
        assert!(held_inline(&s, &w.id));
        assert_eq!(read_keys(&s, &w.id), vec![1, 2, 3]);

        check_at(&s, &w, 100, links(), &[], Vec::new());
        assert_eq!(stored_apart(&s, &w.id), Some(vec![1, 2, 3]));
        assert!(!held_inline(&s, &w.id));
        assert_eq!(read_keys(&s, &w.id), vec![1, 2, 3]);
    }

    /// Damaged keys are an error, not an empty reference.
    #[test]
    fn malformed_keys_are_an_error() {
        for bad in [&[][..], &[2, 0, 0][..], &[1, 0][..]] {
            assert!(decode_keys(b"Rx", bad).is_err(), "{bad:?}");
        }
        assert_eq!(
            decode_keys(b"Rx", &encode_keys(&[1, 65535])).expect("ok"),
            vec![1, 65535]
        );
        // Read as the sorted set a reference is, whatever order the bytes hold.
        assert_eq!(
            decode_keys(b"Rx", &[1, 9, 0, 2, 0, 9, 0]).expect("ok"),
            vec![2, 9]
        );
    }
}
