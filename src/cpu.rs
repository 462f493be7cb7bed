//! CPU-heavy work off the async workers: parsing and analysing pages, the LCS, reading a
//! deep watch's pages and sled's flush run on tokio's blocking threads, at most as many
//! at once as the machine has cores, so a hostile page that takes seconds to parse never
//! stalls the web server or the fetches of other watches.
//!
//! May use: nothing.

use std::sync::{Arc, OnceLock};

use tokio::sync::Semaphore;

/// The pool's bound: one task per core.
fn permits() -> &'static Arc<Semaphore> {
    static PERMITS: OnceLock<Arc<Semaphore>> = OnceLock::new();
    PERMITS.get_or_init(|| {
        let cores = std::thread::available_parallelism().map_or(2, std::num::NonZero::get);
        Arc::new(Semaphore::new(cores))
    })
}

/// Runs `f` on the blocking pool once a core is free, and returns its result. A panic
/// in `f` continues in the caller, as if `f` had run there.
pub async fn run<T, F>(f: F) -> T
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    let permit = permits()
        .clone()
        .acquire_owned()
        .await
        .expect("invariant: the CPU pool's semaphore is never closed");
    let task = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        f()
    });
    match task.await {
        Ok(v) => v,
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        // Cancelled: only when the runtime shuts down, which drops this future too.
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

#[cfg(test)]
mod tests {
    use super::*;

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
        let here = std::thread::current().id();
        let there = run(move || std::thread::current().id()).await;
        assert_ne!(here, there);
        let cores = std::thread::available_parallelism().map_or(2, std::num::NonZero::get);
        let now = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let peak = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let tasks: Vec<_> = (0..cores * 3)
            .map(|_| {
                let (now, peak) = (now.clone(), peak.clone());
                tokio::spawn(run(move || {
                    use std::sync::atomic::Ordering::SeqCst;
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
        let peak = peak.load(std::sync::atomic::Ordering::SeqCst);
        assert!(peak >= 1 && peak <= cores, "peak {peak} of {cores} cores");
    }
}
