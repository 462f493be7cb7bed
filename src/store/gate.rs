//! The gate between the store's operations and its sled database: every operation
//! enters it for as long as it uses the database ([`DbRef`]), to write or to read only.
//! A compaction first keeps writes out while it copies (reads go on: nothing changes
//! under them), then everyone out for the swap; a reopen keeps everyone out. So no write
//! is lost in the copy, and nothing uses a handle on a database that is being replaced.
//! A thread that is inside may enter again (one operation calling another); a thread
//! that only reads must not start a write before its read ends (a store operation that
//! writes enters to write from its start).

use std::collections::HashMap;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::ThreadId;

use super::StoreError;

/// Which threads use the database now (to read, or to write), and whether a compaction
/// or a reopen keeps writes out (the copy) or everyone out (the swap).
#[derive(Debug, Default)]
pub(super) struct Gate {
    inner: Mutex<GateInner>,
    changed: Condvar,
}

#[derive(Debug, Default)]
struct GateInner {
    holders: HashMap<ThreadId, Held>,
    /// Writes wait (a compaction copies the database).
    writes_closed: bool,
    /// Everything waits (the copy is swapped in, or the database reopened).
    closed: bool,
    /// Threads waiting for the gate to change: an operation that leaves wakes them only
    /// when there are some (a wake is a system call, and most operations leave a gate
    /// nobody waits at).
    waiting: usize,
}

/// What one thread holds: entries to read and entries to write.
#[derive(Debug, Default, Clone, Copy)]
struct Held {
    reads: usize,
    writes: usize,
}

/// One thread's use of the database; ends when dropped.
#[derive(Debug)]
pub(super) struct Entered<'a> {
    gate: &'a Gate,
    write: bool,
}

/// Writes kept out; the gate opens to them again when dropped.
#[derive(Debug)]
pub(super) struct WritesClosed<'a> {
    gate: &'a Gate,
}

/// Both closed; reads, then writes, are let in again when dropped (fields drop in order).
#[derive(Debug)]
pub(super) struct FullyClosed<'a> {
    _all: Closed<'a>,
    _writes: WritesClosed<'a>,
}

/// The database to oneself; the gate opens again when dropped.
#[derive(Debug)]
pub(super) struct Closed<'a> {
    gate: &'a Gate,
}

impl Gate {
    fn lock(&self) -> MutexGuard<'_, GateInner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn wait<'g>(&self, mut g: MutexGuard<'g, GateInner>) -> MutexGuard<'g, GateInner> {
        g.waiting += 1;
        let mut g = self.changed.wait(g).unwrap_or_else(PoisonError::into_inner);
        g.waiting -= 1;
        g
    }

    /// Enters to write: waits while writes are kept out, unless this thread already
    /// writes (one operation calling another).
    pub fn enter(&self) -> Entered<'_> {
        let me = std::thread::current().id();
        let mut g = self.lock();
        while (g.writes_closed || g.closed) && g.holders.get(&me).is_none_or(|h| h.writes == 0) {
            g = self.wait(g);
        }
        g.holders.entry(me).or_default().writes += 1;
        Entered {
            gate: self,
            write: true,
        }
    }

    /// Enters to read only: waits only while everything is kept out (a swap, a
    /// reopen), unless this thread is already in. A read goes on while a compaction
    /// copies the database: nothing writes meanwhile, and the copy holds what it reads.
    pub fn enter_read(&self) -> Entered<'_> {
        let me = std::thread::current().id();
        let mut g = self.lock();
        while g.closed && !g.holders.contains_key(&me) {
            g = self.wait(g);
        }
        g.holders.entry(me).or_default().reads += 1;
        Entered {
            gate: self,
            write: false,
        }
    }

    /// Keeps writes out and waits until no thread writes; reads go on. Refused
    /// (rather than waiting for itself for ever) on a thread that is in.
    pub fn close_writes(&self) -> Result<WritesClosed<'_>, StoreError> {
        let me = std::thread::current().id();
        let mut g = self.lock();
        if g.holders.contains_key(&me) {
            return Err(StoreError::Db(sled::Error::Unsupported(
                "the store cannot be compacted or reopened from inside one of its operations"
                    .into(),
            )));
        }
        while g.writes_closed || g.closed {
            g = self.wait(g);
        }
        g.writes_closed = true;
        while g.holders.values().any(|h| h.writes > 0) {
            g = self.wait(g);
        }
        Ok(WritesClosed { gate: self })
    }

    /// Keeps everyone out and waits until no thread is in (a reopen).
    pub fn close(&self) -> Result<FullyClosed<'_>, StoreError> {
        let writes = self.close_writes()?;
        let all = self.close_all(&writes);
        Ok(FullyClosed {
            _all: all,
            _writes: writes,
        })
    }

    /// With writes kept out, keeps reads out too and waits until no thread is in.
    pub fn close_all<'a>(&'a self, _writes: &WritesClosed<'a>) -> Closed<'a> {
        let mut g = self.lock();
        g.closed = true;
        while !g.holders.is_empty() {
            g = self.wait(g);
        }
        Closed { gate: self }
    }
}

impl Drop for Entered<'_> {
    fn drop(&mut self) {
        let me = std::thread::current().id();
        let waiting = {
            let mut g = self.gate.lock();
            let Some(h) = g.holders.get_mut(&me) else {
                return;
            };
            if self.write {
                h.writes -= 1;
            } else {
                h.reads -= 1;
            }
            if h.reads == 0 && h.writes == 0 {
                g.holders.remove(&me);
            }
            g.waiting > 0
        };
        // Woken after the lock is let go. Each waiter counted had let the lock go inside
        // `Condvar::wait` before the count was read under it, so the wake reaches it; one
        // that comes later takes the lock and sees the change itself.
        if waiting {
            self.gate.changed.notify_all();
        }
    }
}

impl Drop for WritesClosed<'_> {
    fn drop(&mut self) {
        self.gate.lock().writes_closed = false;
        self.gate.changed.notify_all();
    }
}

impl Drop for Closed<'_> {
    fn drop(&mut self) {
        self.gate.lock().closed = false;
        self.gate.changed.notify_all();
    }
}

/// The database of a store operation: derefs to the [`sled::Db`], and keeps the
/// operation inside the gate while it lives.
pub(super) struct DbRef<'a> {
    db: sled::Db,
    _entered: Entered<'a>,
}

impl<'a> DbRef<'a> {
    pub fn new(db: sled::Db, entered: Entered<'a>) -> Self {
        Self {
            db,
            _entered: entered,
        }
    }
}

impl std::ops::Deref for DbRef<'_> {
    type Target = sled::Db;

    fn deref(&self) -> &sled::Db {
        &self.db
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::Gate;

    impl Gate {
        fn is_closed(&self) -> bool {
            let g = self.lock();
            g.closed || g.writes_closed
        }

        fn all_closed(&self) -> bool {
            self.lock().closed
        }

        fn waiting(&self) -> usize {
            self.lock().waiting
        }
    }

    /// The threads waiting are counted while they wait and no longer once woken, so an
    /// operation that leaves wakes them when there are some and makes no wake otherwise.
    #[test]
    fn waiters_are_counted_while_they_wait() {
        let gate = Arc::new(Gate::default());
        drop(gate.enter());
        drop(gate.enter_read());
        assert_eq!(gate.waiting(), 0, "nobody waits at an open gate");
        let inside = gate.enter();
        let closing = {
            let gate = gate.clone();
            std::thread::spawn(move || drop(gate.close().expect("close")))
        };
        // The closer waits for the operation inside.
        spin_until(|| gate.waiting() == 1);
        let_run();
        assert_eq!(gate.waiting(), 1);
        drop(inside);
        closing.join().expect("closer");
        assert_eq!(gate.waiting(), 0, "the woken closer is no longer counted");
        drop(gate.enter());
        assert_eq!(gate.waiting(), 0);
    }

    /// Spins until `cond` holds (no clock: the other thread gets many chances to run).
    fn spin_until(cond: impl Fn() -> bool) {
        while !cond() {
            std::thread::yield_now();
        }
    }

    /// Lets other threads run a while.
    fn let_run() {
        for _ in 0..10_000 {
            std::thread::yield_now();
        }
    }

    #[test]
    fn closing_the_gate_waits_for_the_operations_inside_and_lets_them_enter_again() {
        use std::sync::atomic::{AtomicBool, Ordering};
        let gate = Arc::new(Gate::default());
        let closed = Arc::new(AtomicBool::new(false));
        let inside = gate.enter();
        let closing = {
            let (gate, closed) = (gate.clone(), closed.clone());
            std::thread::spawn(move || {
                let c = gate.close().expect("close");
                closed.store(true, Ordering::SeqCst);
                drop(c);
            })
        };
        spin_until(|| gate.is_closed() || closed.load(Ordering::SeqCst));
        let_run();
        assert!(
            !closed.load(Ordering::SeqCst),
            "closed while an operation was inside"
        );
        // The operation inside may enter again (one operation calling another).
        let nested = gate.enter();
        drop(nested);
        let_run();
        assert!(!closed.load(Ordering::SeqCst));
        drop(inside);
        closing.join().expect("closer");
        assert!(closed.load(Ordering::SeqCst));
    }

    #[test]
    fn an_operation_waits_while_the_gate_is_closed() {
        use std::sync::atomic::{AtomicBool, Ordering};
        let gate = Arc::new(Gate::default());
        let entered = Arc::new(AtomicBool::new(false));
        let closed = gate.close().expect("close");
        let op = {
            let (gate, entered) = (gate.clone(), entered.clone());
            std::thread::spawn(move || {
                let _in = gate.enter();
                entered.store(true, Ordering::SeqCst);
            })
        };
        let_run();
        assert!(!entered.load(Ordering::SeqCst), "entered a closed gate");
        drop(closed);
        op.join().expect("op");
        assert!(entered.load(Ordering::SeqCst));
    }

    /// A compaction's copy keeps writes out but lets reads go on; its swap waits for
    /// the reads inside and keeps new ones out; writes wait for both.
    #[test]
    fn reads_go_on_while_writes_wait_and_the_swap_waits_for_the_reads() {
        use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
        let gate = Arc::new(Gate::default());
        let flag = || Arc::new(AtomicBool::new(false));
        let (copying, go_swap, swapped, release, wrote) = (flag(), flag(), flag(), flag(), flag());
        let compactor = {
            let (gate, copying, go_swap, swapped, release) = (
                gate.clone(),
                copying.clone(),
                go_swap.clone(),
                swapped.clone(),
                release.clone(),
            );
            std::thread::spawn(move || {
                let writes = gate.close_writes().expect("close writes");
                copying.store(true, SeqCst);
                spin_until(|| go_swap.load(SeqCst));
                let all = gate.close_all(&writes);
                swapped.store(true, SeqCst);
                spin_until(|| release.load(SeqCst));
                drop(all);
                drop(writes);
            })
        };
        spin_until(|| copying.load(SeqCst));
        // A read enters at once during the copy.
        drop(gate.enter_read());
        // A write waits.
        let writer = {
            let (gate, wrote) = (gate.clone(), wrote.clone());
            std::thread::spawn(move || {
                let _in = gate.enter();
                wrote.store(true, SeqCst);
            })
        };
        let_run();
        assert!(!wrote.load(SeqCst), "a write entered during the copy");
        // The swap waits for a read inside.
        let reading = gate.enter_read();
        go_swap.store(true, SeqCst);
        spin_until(|| gate.all_closed());
        let_run();
        assert!(!swapped.load(SeqCst), "swapped under a read");
        drop(reading);
        spin_until(|| swapped.load(SeqCst));
        let_run();
        assert!(!wrote.load(SeqCst), "a write entered during the swap");
        release.store(true, SeqCst);
        compactor.join().expect("compactor");
        writer.join().expect("writer");
        assert!(wrote.load(SeqCst), "the write went in after the compaction");
    }
}
