//! CPU-heavy work off the async workers: parsing and analysing pages, the LCS and reading
//! a deep watch's pages run on a pool of its own, one thread per core, so a hostile page
//! that takes seconds to parse never stalls the web server or the fetches of other
//! watches. A check's end runs on the pool too, up to its commit gathered (the store's
//! committer applies it); waits on the disk (edits, removals, flushes) run on tokio's
//! blocking threads ([`wait_on_disk`]).
//!
//! Why threads of its own rather than tokio's blocking pool behind a semaphore: the
//! blocking pool hands each task to whichever of its threads is idle, and a permit freed
//! at the end of a task is taken before that thread is idle again, so the checks wandered
//! over five or more threads; each kept the allocator's pages of every size a check uses.
//! Two threads that always run the checks hold the working set of two checks. Measured
//! in `bench/README.md` ("Where the peak memory is, one thread per core, ...").
//!
//! Two lanes lead to the pool: what a request waits for (a feed's render, a list, a
//! preview: [`run_first`]) is taken before the checks' work ([`run`]), so a reader's
//! answer does not queue behind every analysis that is due.
//!
//! The async runtime gets one worker thread per four cores, at least one
//! ([`async_threads`]): its tasks only wait (for a socket, a timer, the pool, the
//! committer), and a second worker on a small machine mostly adds wake-ups. Each check
//! wakes the runtime when its fetch answers and when the pool and the committer are
//! done; with two workers an idle one is woken to steal the woken task, and every wake of
//! a parked thread is a context switch. Measured in `bench/README.md` ("The async
//! runtime on one thread").
//!
//! May use: nothing.

use std::collections::VecDeque;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock, PoisonError};

/// The worker threads of the async runtime on a machine of `cores` cores: one per four
/// cores, at least one.
pub fn async_threads_for(cores: usize) -> usize {
    (cores / 4).max(1)
}

/// [`async_threads_for`] this machine's cores.
pub fn async_threads() -> usize {
    async_threads_for(cores())
}

/// The cores this process may use (two when the system does not say): the pool's
/// threads, and what the runtime's count is derived from.
fn cores() -> usize {
    std::thread::available_parallelism().map_or(2, std::num::NonZero::get)
}

/// A task for the pool.
type Job = Box<dyn FnOnce() + Send>;

/// The pool's queue: its threads take the first lane's tasks before the other's, each
/// lane in the order its tasks came.
struct Queue {
    lanes: Mutex<Lanes>,
    ready: Condvar,
}

struct Lanes {
    /// What a request waits for.
    first: VecDeque<Job>,
    /// The rest: the checks' work.
    rest: VecDeque<Job>,
}

impl Queue {
    /// The lanes; a panic never happens while they are held, so a poisoned lock is
    /// taken as it is.
    fn lock(&self) -> MutexGuard<'_, Lanes> {
        self.lanes.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn push(&self, job: Job, first: bool) {
        let mut lanes = self.lock();
        if first {
            lanes.first.push_back(job);
        } else {
            lanes.rest.push_back(job);
        }
        drop(lanes);
        self.ready.notify_one();
    }

    /// The next task, once there is one.
    fn next(&self) -> Job {
        let mut lanes = self.lock();
        loop {
            if let Some(job) = lanes.first.pop_front().or_else(|| lanes.rest.pop_front()) {
                return job;
            }
            lanes = self
                .ready
                .wait(lanes)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// The pool's queue, for the process.
static QUEUE: Queue = Queue {
    lanes: Mutex::new(Lanes {
        first: VecDeque::new(),
        rest: VecDeque::new(),
    }),
    ready: Condvar::new(),
};

/// The pool, its threads started on first use. `None` when not one thread could be
/// started; then tasks run on tokio's blocking threads.
fn pool() -> Option<&'static Queue> {
    static STARTED: OnceLock<bool> = OnceLock::new();
    let started = *STARTED.get_or_init(|| {
        let mut started = 0;
        for n in 0..cores() {
            let spawned = std::thread::Builder::new()
                .name(format!("sitefeed-cpu-{n}"))
                .spawn(|| worker(&QUEUE));
            match spawned {
                Ok(_) => started += 1,
                Err(e) => tracing::warn!(error = %e, "cannot start a CPU thread"),
            }
        }
        started > 0
    });
    started.then_some(&QUEUE)
}

/// A pool thread: runs tasks for as long as the process lives. A task's panic goes back
/// to its caller inside the task's result, so the thread lives on.
fn worker(queue: &Queue) {
    loop {
        // The lock is held only to take the next task (a wait for one lets it go), never
        // while running it.
        queue.next()();
    }
}

/// Runs `f` on the CPU pool once one of its threads is free and no task of [`run_first`]
/// nor one of `run` queued earlier waits, and returns its result. A panic in `f`
/// continues in the caller, as if `f` had run there.
pub fn run<T, F>(f: F) -> impl std::future::Future<Output = T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    on_pool(f, false)
}

/// [`run`] for what a request waits for: taken before every task of [`run`] still
/// queued.
pub fn run_first<T, F>(f: F) -> impl std::future::Future<Output = T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    on_pool(f, true)
}

async fn on_pool<T, F>(f: F, first: bool) -> T
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    let Some(pool) = pool() else {
        return wait_on_disk(f).await;
    };
    let (tx, rx) = tokio::sync::oneshot::channel();
    let job: Job = Box::new(move || {
        // The caller may have gone (a shutdown); its result is then dropped here.
        let _ = tx.send(catch_unwind(AssertUnwindSafe(f)));
    });
    pool.push(job, first);
    match rx.await {
        Ok(Ok(v)) => v,
        Ok(Err(panic)) => resume_unwind(panic),
        // The task was dropped without running: not while the pool's threads live.
        Err(_) => std::future::pending().await,
    }
}

/// Runs `f`, which waits on the disk (a store write and its flush, which may also wait
/// for a compaction's copy), on the blocking pool without taking a core's permit, and
/// returns its result. A panic in `f` continues in the caller.
pub async fn wait_on_disk<T, F>(f: F) -> T
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    match tokio::task::spawn_blocking(f).await {
        Ok(v) => v,
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        Err(_) => std::future::pending().await,
    }
}

/// [`wait_on_disk`] for the short writes that come in bursts: a request's add, edit or
/// removal of a watch, and a webhook's outcome (one per watch whose check found items).
/// At most one per core at a time, the others waiting here, off any thread. An import
/// (one request, many writes) and a check's commit do not take a turn: a long import
/// would hold it, and a check's deferral should not wait behind requests.
///
/// Each blocking thread that runs such a write keeps allocator pages that the store's
/// own threads free later, until the thread runs again or ends, 10 s after its last task.
/// Eight clients adding watches at once put eight threads to it, and the peak memory of
/// the benchmark's 1,000 adds rose by about 5 MB; sled makes the flushes one at a time in
/// any case, so more writes in parallel gain little (1,000 adds took 6.6 s from eight
/// clients, 7.6 s from one). Measured in `bench/README.md` ("Writes from requests").
pub async fn write_on_disk<T, F>(f: F) -> T
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    static WRITES: OnceLock<tokio::sync::Semaphore> = OnceLock::new();
    let writes = WRITES.get_or_init(|| tokio::sync::Semaphore::new(cores()));
    // Held until the write's thread has returned its result, so that the next write
    // mostly finds that thread idle instead of starting another. The semaphore is never
    // closed.
    let _permit = writes.acquire().await;
    wait_on_disk(f).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// Runs `n` tasks through `start`, each sleeping 20 ms: none may run on the calling
    /// (async) thread, and at most one per core at the same moment.
    async fn off_the_thread_one_per_core(
        n: usize,
        start: impl Fn(Box<dyn FnOnce() + Send>) -> tokio::task::JoinHandle<()>,
    ) {
        use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
        let here = std::thread::current().id();
        let on_caller = Arc::new(AtomicBool::new(false));
        let now = Arc::new(AtomicUsize::new(0));
        let peak = Arc::new(AtomicUsize::new(0));
        let tasks: Vec<_> = (0..n)
            .map(|_| {
                let (on_caller, now, peak) = (on_caller.clone(), now.clone(), peak.clone());
                start(Box::new(move || {
                    on_caller.fetch_or(std::thread::current().id() == here, SeqCst);
                    let n = now.fetch_add(1, SeqCst) + 1;
                    peak.fetch_max(n, SeqCst);
                    std::thread::sleep(std::time::Duration::from_millis(20));
                    now.fetch_sub(1, SeqCst);
                }))
            })
            .collect();
        for t in tasks {
            t.await.expect("task");
        }
        assert!(!on_caller.load(SeqCst), "a task ran on the async thread");
        let (peak, cores) = (peak.load(SeqCst), cores());
        assert!(peak >= 1 && peak <= cores, "peak {peak} of {cores} cores");
    }

    /// Writes from requests run at most one per core at a time, off the async thread.
    #[tokio::test(flavor = "current_thread")]
    async fn writes_on_disk_run_one_per_core_at_most() {
        off_the_thread_one_per_core(cores() * 4, |job| tokio::spawn(write_on_disk(job))).await;
    }

    /// Up to seven cores the runtime has one worker; from eight on, one per four.
    #[test]
    fn the_async_runtime_has_a_worker_per_four_cores_and_at_least_one() {
        let threads: Vec<usize> = [1, 2, 3, 4, 7, 8, 16, 64]
            .into_iter()
            .map(async_threads_for)
            .collect();
        assert_eq!(threads, [1, 1, 1, 1, 1, 2, 4, 16]);
    }

    /// A wait on the disk leaves the async thread (a current-thread runtime would
    /// otherwise stop while the disk is slow).
    #[tokio::test(flavor = "current_thread")]
    async fn a_wait_on_the_disk_runs_off_the_async_thread() {
        let here = std::thread::current().id();
        let there = wait_on_disk(move || std::thread::current().id()).await;
        assert_ne!(here, there);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn runs_off_the_async_thread_and_bounds_the_parallelism() {
        off_the_thread_one_per_core(cores() * 3, |job| tokio::spawn(run(job))).await;
    }

    /// The checks run on the same few threads, one per core, whatever the order of
    /// their arrival: the allocator then keeps the working set of that many checks.
    #[tokio::test(flavor = "current_thread")]
    async fn tasks_run_on_one_thread_per_core() {
        let cores = cores();
        let tasks: Vec<_> = (0..cores * 20)
            .map(|_| {
                tokio::spawn(run(|| {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                    std::thread::current().id()
                }))
            })
            .collect();
        let mut threads = std::collections::HashSet::new();
        for t in tasks {
            threads.insert(t.await.expect("task"));
        }
        assert!(
            threads.len() <= cores,
            "{} threads for {cores} cores",
            threads.len()
        );
    }

    /// A thread that comes free takes what a request waits for before the checks' tasks
    /// queued earlier.
    #[tokio::test(flavor = "current_thread")]
    async fn a_request_s_task_is_taken_before_the_checks_queued_earlier() {
        use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
        use std::time::Duration;
        let cores = cores();
        // Every pool thread held by a task of ours; the holders let go one at a time.
        let (started, released) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let holders: Vec<_> = (0..cores)
            .map(|_| {
                let (started, released) = (started.clone(), released.clone());
                tokio::spawn(run(move || {
                    let ticket = started.fetch_add(1, SeqCst);
                    while released.load(SeqCst) <= ticket {
                        std::thread::sleep(Duration::from_millis(1));
                    }
                }))
            })
            .collect();
        while started.load(SeqCst) < cores {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        let order = Arc::new(Mutex::new(Vec::new()));
        let task = |name: &'static str| {
            let order = order.clone();
            move || order.lock().expect("order").push(name)
        };
        let mut queued = Vec::new();
        for _ in 0..3 {
            queued.push(tokio::spawn(run(task("check"))));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        queued.push(tokio::spawn(run_first(task("request"))));
        tokio::time::sleep(Duration::from_millis(20)).await;
        // One thread comes free: it takes the request's task, queued last.
        released.store(1, SeqCst);
        while order.lock().expect("order").is_empty() {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        released.store(cores, SeqCst);
        for t in holders.into_iter().chain(queued) {
            t.await.expect("task");
        }
        let order = order.lock().expect("order").clone();
        assert_eq!(order, ["request", "check", "check", "check"]);
    }

    /// A task's panic reaches its caller; the thread that ran it takes the next task.
    #[tokio::test(flavor = "current_thread")]
    async fn a_panic_reaches_the_caller_and_the_pool_lives_on() {
        let cores = cores();
        for _ in 0..=cores {
            let caught = tokio::spawn(run(|| -> u8 { panic!("a hostile page") })).await;
            assert!(caught.is_err_and(|e| e.is_panic()));
        }
        let tasks: Vec<_> = (0..cores * 2).map(|_| tokio::spawn(run(|| 7_u8))).collect();
        for t in tasks {
            assert_eq!(t.await.expect("the pool still runs tasks"), 7);
        }
    }
}
