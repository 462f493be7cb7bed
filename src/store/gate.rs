//! The gate between the store's operations and its sled database: every operation
//! enters it for as long as it uses the database ([`DbRef`]); a compaction or a reopen
//! closes it and waits until no operation is inside, so nothing uses a handle on a
//! database that is being replaced. A thread that is inside may enter again (one
//! operation calling another).

use std::collections::HashMap;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::ThreadId;

use super::StoreError;

/// Which threads use the database now, and whether a compaction (or a reopen) waits for
/// them to finish to have it alone.
#[derive(Debug, Default)]
pub(super) struct Gate {
    inner: Mutex<GateInner>,
    changed: Condvar,
}

#[derive(Debug, Default)]
struct GateInner {
    holders: HashMap<ThreadId, usize>,
    closed: bool,
}

/// One thread's use of the database; ends when dropped.
#[derive(Debug)]
pub(super) struct Entered<'a> {
    gate: &'a Gate,
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

    /// Waits while the gate is closed, unless this thread is already in.
    pub fn enter(&self) -> Entered<'_> {
        let me = std::thread::current().id();
        let mut g = self.lock();
        while g.closed && !g.holders.contains_key(&me) {
            g = self.changed.wait(g).unwrap_or_else(PoisonError::into_inner);
        }
        *g.holders.entry(me).or_insert(0) += 1;
        Entered { gate: self }
    }

    /// Closes the gate and waits until no thread is in. Refused (rather than waiting
    /// for itself for ever) on a thread that is in.
    pub fn close(&self) -> Result<Closed<'_>, StoreError> {
        let me = std::thread::current().id();
        let mut g = self.lock();
        if g.holders.contains_key(&me) {
            return Err(StoreError::Db(sled::Error::Unsupported(
                "the store cannot be compacted or reopened from inside one of its operations"
                    .into(),
            )));
        }
        while g.closed {
            g = self.changed.wait(g).unwrap_or_else(PoisonError::into_inner);
        }
        g.closed = true;
        while !g.holders.is_empty() {
            g = self.changed.wait(g).unwrap_or_else(PoisonError::into_inner);
        }
        Ok(Closed { gate: self })
    }
}

impl Drop for Entered<'_> {
    fn drop(&mut self) {
        let me = std::thread::current().id();
        let mut g = self.gate.lock();
        if let Some(n) = g.holders.get_mut(&me) {
            *n -= 1;
            if *n == 0 {
                g.holders.remove(&me);
                if g.holders.is_empty() {
                    self.gate.changed.notify_all();
                }
            }
        }
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
            self.lock().closed
        }
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
}
