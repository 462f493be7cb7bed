//! What a reader must make durable before it serves: a check's commit that brings new
//! items (or changes what a feed says) is applied without waiting for the disk, and the
//! first reader to serve it flushes.
//!
//! A check used to flush its own batch, so every check that found an item waited for a
//! write and a sync of sled's log, on the CPU pool, whether or not anyone read the feed
//! before sled's own flush (every half second) came. Now the commit counts, and a reader
//! that is about to serve items, a feed's stamp or a check's report asks
//! [`Settle::needed`]; only then does it flush.
//!
//! **Why a reader that saw a commit's items always flushes after it.** The commit raises
//! `in_flight` before it applies its batch, and lowers it after it has raised `applied`.
//! The reader reads first and asks after. If it saw the batch, the batch's raise of
//! `in_flight` came before its read. Either the commit is still in flight (the reader
//! flushes), or it has lowered `in_flight`, and then its raise of `applied`, which came
//! before, is seen too (all four are sequentially consistent): `applied` is above
//! `flushed` unless a flush began after the raise, so after the batch was applied, and
//! sled's flush writes every batch applied before it began.

use std::sync::atomic::{AtomicU64, Ordering::SeqCst};

/// The counts of served commits: begun and not yet counted, applied, and applied before
/// the start of a flush that has ended.
#[derive(Debug, Default)]
pub(super) struct Settle {
    in_flight: AtomicU64,
    applied: AtomicU64,
    flushed: AtomicU64,
}

/// A served commit under way: [`Pending::applied`] once its batch is in the tree;
/// dropped without it (the batch failed), it only ends.
#[must_use]
pub(super) struct Pending<'a>(&'a Settle);

impl Settle {
    /// A served commit begins, before its batch is applied.
    pub(super) fn begin(&self) -> Pending<'_> {
        self.in_flight.fetch_add(1, SeqCst);
        Pending(self)
    }

    /// Whether a reader that has read must flush before it serves what it read.
    pub(super) fn needed(&self) -> bool {
        self.in_flight.load(SeqCst) > 0 || self.applied.load(SeqCst) > self.flushed.load(SeqCst)
    }

    /// The commits a flush that begins now will cover: read before the flush.
    pub(super) fn covered(&self) -> u64 {
        self.applied.load(SeqCst)
    }

    /// A flush that began after `covered` was read has ended.
    pub(super) fn flushed(&self, covered: u64) {
        self.flushed.fetch_max(covered, SeqCst);
    }
}

impl Pending<'_> {
    /// The commit's batch is in the tree: a reader may see it from now on.
    pub(super) fn applied(self) {
        self.0.applied.fetch_add(1, SeqCst);
    }
}

impl Drop for Pending<'_> {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_commit_applied_needs_a_flush_until_one_that_began_after_it_ends() {
        let s = Settle::default();
        assert!(!s.needed(), "nothing committed");
        s.begin().applied();
        assert!(s.needed());
        let covered = s.covered();
        s.begin().applied(); // applied after the flush began: not covered by it
        s.flushed(covered);
        assert!(s.needed(), "the second commit is not on disk yet");
        let covered = s.covered();
        s.flushed(covered);
        assert!(!s.needed());
        // An older flush ending late does not undo a newer one.
        s.flushed(covered - 1);
        assert!(!s.needed());
    }

    #[test]
    fn a_commit_in_flight_needs_a_flush_and_a_failed_one_ends() {
        let s = Settle::default();
        let pending = s.begin();
        assert!(s.needed(), "its items may already be seen");
        drop(pending); // the batch failed: nothing to flush
        assert!(!s.needed());
    }

    /// Copies the files of an open store, as a crash would leave them (the process gone,
    /// what it wrote kept), into a directory of their own.
    fn files_now(from: &std::path::Path, to: &std::path::Path) {
        for e in std::fs::read_dir(from).expect("read_dir") {
            let e = e.expect("entry");
            let dest = to.join(e.file_name());
            if e.file_type().expect("type").is_dir() {
                std::fs::create_dir_all(&dest).expect("mkdir");
                files_now(&e.path(), &dest);
            } else {
                std::fs::copy(e.path(), dest).expect("copy");
            }
        }
    }

    #[test]
    fn items_settled_are_in_the_files_a_crash_would_leave() {
        use crate::store::tests::{item, state, watch};
        use crate::store::{CheckRecord, Store};
        let dir = tempfile::tempdir().expect("tempdir");
        let s = Store::open(dir.path(), 1 << 20).expect("open");
        let w = watch("http://a.example/");
        s.insert_watch(&w, &state(10)).expect("insert");
        assert!(s.settled(), "the insert flushed itself");

        // A check with nothing to serve is not waited for.
        let prev = s.state(&w.id).expect("state").expect("present");
        let mut next = prev.clone();
        next.next_check = 20;
        s.commit_check(&w.id, &prev, &next, &CheckRecord::default())
            .expect("commit");
        assert!(s.settled());

        // One with an item is, until a reader settles it.
        let mut after = next.clone();
        after.item_seq = 1;
        let record = CheckRecord {
            new_items: vec![item("http://a.example/n/1", 30)],
            ..CheckRecord::default()
        };
        s.commit_check(&w.id, &next, &after, &record)
            .expect("commit");
        assert!(!s.settled());
        let served = s.items(&w.id, 10).expect("items");
        s.settle().expect("settle");
        assert!(s.settled());

        let crashed = tempfile::tempdir().expect("tempdir");
        files_now(dir.path(), crashed.path());
        let reopened = Store::open(crashed.path(), 1 << 20).expect("open the copy");
        assert_eq!(reopened.items(&w.id, 10).expect("items"), served);
        assert_eq!(served.len(), 1);
    }
}
