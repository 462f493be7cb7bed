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
//!
//! **A reopen.** After a storage failure the database is closed and opened again from
//! its files ([`super::Store::recover`]): a commit applied and not yet flushed is gone
//! with the old one. A reader that read it and settles after the reopen would flush the
//! new database and serve what it holds no more. So a reader takes a [`Reading`] before
//! it reads, and settling fails when a reopen that may have dropped a served commit
//! came since.

use std::sync::atomic::{AtomicU64, Ordering::SeqCst};

/// The counts of served commits: begun and not yet counted, applied, and applied before
/// the start of a flush that has ended.
#[derive(Debug, Default)]
pub(super) struct Settle {
    in_flight: AtomicU64,
    applied: AtomicU64,
    flushed: AtomicU64,
    /// Reopens of the database that may have dropped a served commit.
    lost: AtomicU64,
}

/// Taken before a reader reads what it will serve, and handed to
/// [`super::Store::settle`]: which reopens the reader knew of.
#[derive(Debug, Clone, Copy, Default)]
pub struct Reading(u64);

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

    /// A reader is about to read what it will serve.
    pub(super) fn reading(&self) -> Reading {
        Reading(self.lost.load(SeqCst))
    }

    /// The database is reopened, no commit under way (its gate is closed): what was
    /// applied and not flushed may be gone with the old one.
    pub(super) fn reopening(&self) {
        if self.needed() {
            self.lost.fetch_add(1, SeqCst);
        }
    }

    /// Whether a reopen since `reading` may have dropped something the reader read.
    pub(super) fn lost_since(&self, reading: Reading) -> bool {
        self.lost.load(SeqCst) != reading.0
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

    #[test]
    fn a_reopen_with_a_commit_not_flushed_fails_the_readings_made_before_it() {
        let s = Settle::default();
        let before = s.reading();
        s.reopening(); // nothing applied: nothing lost
        assert!(!s.lost_since(before));
        s.begin().applied();
        let read = s.reading();
        s.reopening();
        assert!(s.lost_since(read));
        assert!(!s.lost_since(s.reading()), "a reading after the reopen");
    }

    /// A store in a directory of its own, holding one watch.
    fn a_store_with_a_watch() -> (tempfile::TempDir, crate::store::Store, crate::model::Watch) {
        use crate::store::tests::{state, watch};
        let dir = tempfile::tempdir().expect("tempdir");
        let s = crate::store::Store::open(dir.path(), 1 << 20).expect("open");
        let w = watch("http://a.example/");
        s.insert_watch(&w, &state(10)).expect("insert");
        (dir, s, w)
    }

    #[test]
    fn what_was_read_before_a_reopen_that_dropped_a_commit_is_never_settled() {
        use crate::store::tests::item;
        use crate::store::{CheckRecord, StoreError};
        let (_dir, s, w) = a_store_with_a_watch();
        let mut n = 0;
        let mut commit_an_item = || {
            n += 1;
            let prev = s.state(&w.id).expect("state").expect("present");
            let mut next = prev.clone();
            next.item_seq += 1;
            let record = CheckRecord {
                new_items: vec![item(&format!("http://a.example/n/{n}"), 30 + n)],
                ..CheckRecord::default()
            };
            s.commit_check(&w.id, &prev, &next, &record)
                .expect("commit");
        };

        // Read, then the reopen, then settled: by this reader alone, and after another
        // reader settled the new database.
        commit_an_item();
        let alone = s.reading();
        assert_eq!(s.items(&w.id, 10).expect("items").len(), 1);
        let after_another = s.reading();
        s.reopen().expect("reopen");
        assert!(matches!(s.settle(alone), Err(StoreError::Reopened)));
        let later = s.reading();
        s.items(&w.id, 10).expect("items");
        s.settle(later).expect("a reading after the reopen settles");
        assert!(!s.settled(after_another));
        assert!(matches!(s.settle(after_another), Err(StoreError::Reopened)));

        // A reopen with every served commit on disk drops none of them.
        commit_an_item();
        let settled = s.reading();
        s.items(&w.id, 10).expect("items");
        s.settle(settled).expect("settle");
        let before = s.reading();
        s.reopen().expect("reopen");
        s.settle(before).expect("nothing was lost");
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
        use crate::store::tests::item;
        use crate::store::{CheckRecord, Store};
        let (dir, s, w) = a_store_with_a_watch();
        assert!(s.settled(s.reading()), "the insert flushed itself");

        // A check with nothing to serve is not waited for.
        let prev = s.state(&w.id).expect("state").expect("present");
        let mut next = prev.clone();
        next.next_check = 20;
        s.commit_check(&w.id, &prev, &next, &CheckRecord::default())
            .expect("commit");
        assert!(s.settled(s.reading()));

        // One with an item is, until a reader settles it.
        let mut after = next.clone();
        after.item_seq = 1;
        let record = CheckRecord {
            new_items: vec![item("http://a.example/n/1", 30)],
            ..CheckRecord::default()
        };
        s.commit_check(&w.id, &next, &after, &record)
            .expect("commit");
        assert!(!s.settled(s.reading()));
        let reading = s.reading();
        let served = s.items(&w.id, 10).expect("items");
        s.settle(reading).expect("settle");
        assert!(s.settled(s.reading()));

        let crashed = tempfile::tempdir().expect("tempdir");
        files_now(dir.path(), crashed.path());
        let reopened = Store::open(crashed.path(), 1 << 20).expect("open the copy");
        assert_eq!(reopened.items(&w.id, 10).expect("items"), served);
        assert_eq!(served.len(), 1);
    }
}
