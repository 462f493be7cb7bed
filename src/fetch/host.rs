//! Per-host politeness: the [`HostKey`] a request is counted against, and the
//! [`HostGates`] that space requests to one host.
//!
//! # Architecture
//!
//! Every request (a page, a redirect hop, a robots.txt) first takes a [`HostPermit`] from
//! the gate of its host. A gate lets at most `per_host_concurrency` requests (1 by default)
//! be in flight, and starts a request no sooner than `per_host_delay` after the previous
//! one *ended* (so the server sees the gap even when a response was slow), nor before a
//! `Retry-After` the host asked for. Waiters are served in arrival order (tokio's
//! semaphore is fair).
//!
//! Waiting is bounded so one slow, failing or unwilling host never ties up the workers
//! that other hosts need: a check that would wait longer than it may (a long
//! `Retry-After`, a host that is failing, more than a few checks already queued for the
//! host, or a turn that does not come within `max_wait`) gets a [`GateError`], which the
//! check turns into a *deferral*: its watch is simply due again later, and no request
//! was sent. So a host holds at most `1 + max_waiters` workers, for a bounded time.
//!
//! A host whose requests time out, cannot be connected to or answer 5xx (after the
//! retries) is *failing*: it is paused for 30 s, doubling per consecutive failure up to
//! [`MAX_FAILURE_PAUSE`], and a success ends the pause. The other watches of that host
//! are deferred meanwhile instead of each spending a worker on the same timeout.
//!
//! State is in memory only: it is about the next minutes, and a restart forgets nothing
//! that matters (the scheduler spreads the first checks anyway).

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;
use url::Url;

/// Checks that may queue for one host before more are deferred (fewer with a small
/// worker pool: at most a quarter of `fetch.global_concurrency`).
pub(crate) const MAX_WAITERS: usize = 4;
/// Checks that may queue for one host with a pool of `workers` checks.
pub fn max_waiters(workers: usize) -> usize {
    (workers / 4).clamp(1, MAX_WAITERS)
}

/// Pause of a failing host after its first failure; doubles per failure.
pub(crate) const FAILURE_PAUSE: Duration = Duration::from_secs(30);
/// Longest pause of a failing host.
pub(crate) const MAX_FAILURE_PAUSE: Duration = Duration::from_secs(3600);
/// Longest robots.txt `Crawl-delay` honoured.
pub(crate) const MAX_CRAWL_DELAY: Duration = Duration::from_secs(60);
/// Longest `Retry-After` honoured (a longer one is taken as this).
pub(crate) const MAX_RETRY_AFTER: Duration = Duration::from_secs(7 * 86_400);
/// Hosts remembered before idle ones are forgotten.
const MAX_HOSTS: usize = 10_000;

/// The unit of politeness: a host name (lower-case; IP literals as written by the URL
/// parser) and a port, where the scheme's default port (80, 443) counts as none.
///
/// Why host and port: a port is a separate server process (and on 127.0.0.1 the only
/// thing telling test sites apart), while `http://x/` and `https://x/` are one site, so
/// default ports fold together. Why not the IP: name-based virtual hosts on one address
/// are independent sites, and the address is only known after DNS, below the gate.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HostKey {
    host: String,
    port: Option<u16>,
}

impl HostKey {
    /// The key of `url`; `None` for URLs without a host.
    pub fn of(url: &Url) -> Option<Self> {
        let host = url.host_str()?.to_ascii_lowercase();
        let port = url.port().filter(|&p| p != 80 && p != 443);
        Some(Self { host, port })
    }

    pub fn host(&self) -> &str {
        &self.host
    }
}

impl std::fmt::Display for HostKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.port {
            Some(p) => write!(f, "{}:{p}", self.host),
            None => f.write_str(&self.host),
        }
    }
}

/// Why a host is paused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pause {
    /// It asked for it (`Retry-After`).
    RetryAfter,
    /// Its last `n` requests failed (timeouts, no connection, 5xx).
    Failing(u32),
}

/// Why a request was not let through to its host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum GateError {
    /// The host is paused for `wait` more.
    Backoff { wait: Duration, why: Pause },
    /// `waiters` checks are already queued for the host; about `wait` until a turn.
    Busy { waiters: usize, wait: Duration },
}

impl GateError {
    /// How long until trying again makes sense.
    pub fn wait(&self) -> Duration {
        match self {
            Self::Backoff { wait, .. } | Self::Busy { wait, .. } => *wait,
        }
    }
}

#[derive(Debug)]
struct Timing {
    /// Earliest start of the next request (previous end + delay).
    next_start: Option<Instant>,
    /// Earliest start of the next request, and why (`Retry-After`, failures).
    not_before: Option<Instant>,
    why: Pause,
    /// Consecutive host-level failures.
    failures: u32,
    /// robots.txt `Crawl-delay`, when longer than the configured delay.
    crawl_delay: Option<Duration>,
    /// Smoothed duration of a request to this host, for wait estimates.
    typical: Duration,
    last_used: Instant,
}

#[derive(Debug)]
struct Host {
    slots: Arc<Semaphore>,
    timing: Mutex<Timing>,
    waiters: AtomicUsize,
    robots_waiters: AtomicUsize,
}

impl Host {
    fn timing(&self) -> std::sync::MutexGuard<'_, Timing> {
        self.timing
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The gates of all hosts.
#[derive(Debug)]
pub(crate) struct HostGates {
    hosts: Mutex<HashMap<HostKey, Arc<Host>>>,
    delay: Duration,
    per_host: usize,
    max_waiters: usize,
}

/// Leave to send one request to a host; dropping it ends the request and starts the
/// host's delay.
#[derive(Debug)]
pub(crate) struct HostPermit {
    host: Arc<Host>,
    delay: Duration,
    started: Instant,
    _slot: OwnedSemaphorePermit,
}

impl Drop for HostPermit {
    fn drop(&mut self) {
        let now = Instant::now();
        let mut t = self.host.timing();
        let next = now + t.crawl_delay.unwrap_or_default().max(self.delay);
        t.next_start = Some(t.next_start.map_or(next, |n| n.max(next)));
        let took = now - self.started;
        t.typical = (t.typical * 3 + took) / 4;
        t.last_used = now;
    }
}

/// Counts a waiter of a host for as long as it lives.
struct Waiting(Arc<Host>);

/// Counts a check waiting for its host's robots.txt for as long as it lives.
#[derive(Debug)]
pub(crate) struct RobotsTicket(Arc<Host>);

impl Drop for RobotsTicket {
    fn drop(&mut self) {
        self.0.robots_waiters.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        self.0.waiters.fetch_sub(1, Ordering::SeqCst);
    }
}

impl HostGates {
    /// Gates spacing requests to one host by `delay`, `per_host` at a time, for a pool
    /// of `workers` checks.
    pub fn new(delay: Duration, per_host: usize, workers: usize) -> Self {
        Self {
            hosts: Mutex::new(HashMap::new()),
            delay,
            per_host: per_host.max(1),
            max_waiters: max_waiters(workers),
        }
    }

    fn host(&self, key: &HostKey) -> Arc<Host> {
        let mut hosts = self
            .hosts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if hosts.len() >= MAX_HOSTS && !hosts.contains_key(key) {
            let now = Instant::now();
            hosts.retain(|_, h| {
                Arc::strong_count(h) > 1 || {
                    let t = h.timing();
                    t.not_before.is_some_and(|nb| nb > now)
                        || now.duration_since(t.last_used) < Duration::from_secs(3600)
                }
            });
        }
        hosts
            .entry(key.clone())
            .or_insert_with(|| {
                Arc::new(Host {
                    slots: Arc::new(Semaphore::new(self.per_host)),
                    timing: Mutex::new(Timing {
                        next_start: None,
                        not_before: None,
                        why: Pause::RetryAfter,
                        failures: 0,
                        crawl_delay: None,
                        typical: Duration::from_millis(500),
                        last_used: Instant::now(),
                    }),
                    waiters: AtomicUsize::new(0),
                    robots_waiters: AtomicUsize::new(0),
                })
            })
            .clone()
    }

    fn effective_delay(&self, t: &Timing) -> Duration {
        t.crawl_delay.unwrap_or_default().max(self.delay)
    }

    /// Waits for the turn of a request to `key`, at most about `max_wait`.
    pub async fn acquire(
        &self,
        key: &HostKey,
        max_wait: Duration,
    ) -> Result<HostPermit, GateError> {
        let host = self.host(key);
        let backoff = |host: &Host| {
            let now = Instant::now();
            let t = host.timing();
            t.not_before
                .and_then(|nb| nb.checked_duration_since(now))
                .filter(|&w| w > max_wait)
                .map(|wait| GateError::Backoff { wait, why: t.why })
        };
        if let Some(e) = backoff(&host) {
            return Err(e);
        }
        let busy = |waiters: usize| {
            let t = host.timing();
            let per = self.effective_delay(&t) + t.typical;
            GateError::Busy {
                waiters,
                wait: per * u32::try_from(waiters + 1).unwrap_or(u32::MAX)
                    / u32::try_from(self.per_host).unwrap_or(1),
            }
        };
        let slot = if let Ok(slot) = host.slots.clone().try_acquire_owned() {
            slot
        } else {
            // Only a request that has to wait counts as a waiter.
            let ahead = host.waiters.fetch_add(1, Ordering::SeqCst);
            let _waiting = Waiting(host.clone());
            if ahead >= self.max_waiters {
                return Err(busy(ahead));
            }
            match tokio::time::timeout(max_wait, host.slots.clone().acquire_owned()).await {
                Ok(slot) => slot.expect("invariant: host semaphores are never closed"),
                Err(_) => return Err(busy(host.waiters.load(Ordering::SeqCst).saturating_sub(1))),
            }
        };
        // A 429 or a failure may have come in while this request queued.
        if let Some(e) = backoff(&host) {
            return Err(e);
        }
        let start = {
            let mut t = host.timing();
            let now = Instant::now();
            let start = [Some(now), t.next_start, t.not_before]
                .into_iter()
                .flatten()
                .max()
                .unwrap_or(now);
            if self.per_host > 1 {
                // Several in flight: space their starts too.
                t.next_start = Some(start + self.effective_delay(&t));
            }
            t.last_used = now;
            start
        };
        if start > Instant::now() {
            tokio::time::sleep_until(start).await;
        }
        Ok(HostPermit {
            host,
            delay: self.delay,
            started: Instant::now(),
            _slot: slot,
        })
    }

    /// A place among the checks of `key` that wait for its robots.txt, which another
    /// check is fetching: at most as many as may wait for the gate, so a host whose
    /// robots.txt hangs holds no more workers than one whose pages hang.
    pub(crate) fn robots_ticket(&self, key: &HostKey) -> Result<RobotsTicket, GateError> {
        let host = self.host(key);
        let ahead = host.robots_waiters.fetch_add(1, Ordering::SeqCst);
        let ticket = RobotsTicket(host.clone());
        if ahead >= self.max_waiters {
            let t = host.timing();
            let wait = (self.effective_delay(&t) + t.typical)
                * u32::try_from(ahead + 1).unwrap_or(u32::MAX);
            return Err(GateError::Busy {
                waiters: ahead,
                wait,
            });
        }
        Ok(ticket)
    }

    /// Records that `key` asked not to be contacted for `wait` (`Retry-After`).
    pub(crate) fn back_off(&self, key: &HostKey, wait: Duration) {
        self.pause(key, wait.min(MAX_RETRY_AFTER), Pause::RetryAfter);
    }

    /// Records a host-level failure (timeout, no connection, 5xx): pauses the host.
    pub fn failed(&self, key: &HostKey) {
        let host = self.host(key);
        let n = {
            let mut t = host.timing();
            t.failures = t.failures.saturating_add(1);
            t.failures
        };
        let pause = FAILURE_PAUSE
            .saturating_mul(2u32.saturating_pow(n.saturating_sub(1).min(16)))
            .min(MAX_FAILURE_PAUSE);
        self.pause(key, pause, Pause::Failing(n));
    }

    /// Records a success: a failing host is failing no more.
    pub fn succeeded(&self, key: &HostKey) {
        let host = self.host(key);
        let mut t = host.timing();
        if t.failures > 0 {
            t.failures = 0;
            if matches!(t.why, Pause::Failing(_)) {
                t.not_before = None;
            }
        }
    }

    fn pause(&self, key: &HostKey, wait: Duration, why: Pause) {
        let until = Instant::now() + wait;
        let host = self.host(key);
        let mut t = host.timing();
        if t.not_before.is_none_or(|nb| nb < until) {
            t.not_before = Some(until);
            t.why = why;
        }
    }

    /// Sets the host's robots.txt `Crawl-delay` (capped at [`MAX_CRAWL_DELAY`]).
    pub(crate) fn set_crawl_delay(&self, key: &HostKey, delay: Option<Duration>) {
        let host = self.host(key);
        host.timing().crawl_delay = delay.map(|d| d.min(MAX_CRAWL_DELAY));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(s: &str) -> HostKey {
        HostKey::of(&Url::parse(s).expect("test url")).expect("has host")
    }

    #[test]
    fn host_key_folds_default_ports_and_case() {
        assert_eq!(
            key("http://Example.ORG/a"),
            key("https://example.org:443/b")
        );
        assert_eq!(key("http://example.org:80/"), key("https://example.org/"));
        assert_ne!(key("http://127.0.0.1:8001/"), key("http://127.0.0.1:8002/"));
        assert_ne!(key("http://a.example/"), key("http://b.example/"));
        assert_eq!(key("http://127.0.0.1:8001/x").to_string(), "127.0.0.1:8001");
        assert_eq!(key("https://example.org/").to_string(), "example.org");
        assert!(HostKey::of(&Url::parse("data:text/html,x").expect("url")).is_none());
    }

    /// Runs `n` requests to one host through the gate; returns their (start, end).
    async fn run_requests(
        gates: Arc<HostGates>,
        n: usize,
        work: Duration,
    ) -> Vec<(Instant, Instant)> {
        let log = Arc::new(Mutex::new(Vec::new()));
        let mut tasks = Vec::new();
        for _ in 0..n {
            let (gates, log) = (gates.clone(), log.clone());
            tasks.push(tokio::spawn(async move {
                let k = key("http://h.example/");
                let p = gates.acquire(&k, Duration::from_secs(3600)).await;
                let p = p.expect("admitted");
                let start = Instant::now();
                tokio::time::sleep(work).await;
                let end = Instant::now();
                drop(p);
                log.lock().expect("log").push((start, end));
            }));
        }
        for t in tasks {
            t.await.expect("task");
        }
        let mut v = log.lock().expect("log").clone();
        v.sort();
        v
    }

    #[tokio::test(start_paused = true)]
    async fn one_in_flight_and_delay_after_each_end() {
        let gates = Arc::new(HostGates::new(Duration::from_secs(1), 1, 32));
        let log = run_requests(gates, MAX_WAITERS, Duration::from_millis(300)).await;
        assert_eq!(log.len(), MAX_WAITERS);
        for w in log.windows(2) {
            assert!(w[1].0 >= w[0].1 + Duration::from_secs(1), "{w:?}");
        }
    }

    #[tokio::test(start_paused = true)]
    async fn other_hosts_do_not_wait() {
        let gates = HostGates::new(Duration::from_secs(10), 1, 32);
        let a = gates
            .acquire(&key("http://a.example/"), Duration::ZERO)
            .await;
        let t0 = Instant::now();
        let b = gates
            .acquire(&key("http://b.example/"), Duration::ZERO)
            .await;
        assert!(a.is_ok() && b.is_ok());
        assert_eq!(Instant::now(), t0, "b.example did not wait for a.example");
    }

    #[tokio::test(start_paused = true)]
    async fn long_retry_after_defers_short_one_waits() {
        let gates = HostGates::new(Duration::ZERO, 1, 32);
        let k = key("http://h.example/");
        gates.back_off(&k, Duration::from_secs(120));
        let err = gates
            .acquire(&k, Duration::from_secs(20))
            .await
            .expect_err("deferred");
        assert!(
            matches!(err, GateError::Backoff { wait, why: Pause::RetryAfter } if wait > Duration::from_secs(119))
        );
        let t0 = Instant::now();
        let p = gates.acquire(&k, Duration::from_secs(300)).await;
        assert!(p.is_ok());
        assert!(Instant::now() >= t0 + Duration::from_secs(120));
    }

    #[tokio::test(start_paused = true)]
    async fn a_full_queue_defers_newcomers() {
        let gates = Arc::new(HostGates::new(Duration::from_secs(1), 1, 32));
        let k = key("http://h.example/");
        let held = gates.acquire(&k, Duration::ZERO).await.expect("first");
        let mut queued = Vec::new();
        for _ in 0..MAX_WAITERS {
            let (g, k) = (gates.clone(), k.clone());
            queued.push(tokio::spawn(async move {
                g.acquire(&k, Duration::from_secs(60)).await.map(drop)
            }));
        }
        tokio::task::yield_now().await;
        let err = gates
            .acquire(&k, Duration::from_secs(60))
            .await
            .expect_err("busy");
        assert!(matches!(err, GateError::Busy { waiters, .. } if waiters == MAX_WAITERS));
        drop(held);
        for q in queued {
            assert!(q.await.expect("task").is_ok());
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_small_pool_queues_fewer_and_waits_are_bounded() {
        let gates = Arc::new(HostGates::new(Duration::ZERO, 1, 8));
        let k = key("http://h.example/");
        let _held = gates.acquire(&k, Duration::ZERO).await.expect("first");
        let mut waiters = Vec::new();
        for _ in 0..2 {
            let (g, k) = (gates.clone(), k.clone());
            waiters.push(tokio::spawn(async move {
                g.acquire(&k, Duration::from_secs(5)).await.map(drop)
            }));
            for _ in 0..3 {
                tokio::task::yield_now().await;
            }
        }
        // 8 workers: 2 may wait for one host; a third is deferred at once.
        let err = gates
            .acquire(&k, Duration::from_secs(5))
            .await
            .expect_err("busy");
        assert!(matches!(err, GateError::Busy { waiters: 2, .. }), "{err:?}");
        // The held request never ends: the waiters give up after max_wait.
        let t0 = Instant::now();
        for w in waiters {
            assert!(matches!(
                w.await.expect("task"),
                Err(GateError::Busy { .. })
            ));
        }
        assert_eq!(Instant::now(), t0 + Duration::from_secs(5));
    }

    #[tokio::test(start_paused = true)]
    async fn a_failing_host_is_paused_until_it_succeeds() {
        let gates = HostGates::new(Duration::ZERO, 1, 32);
        let k = key("http://h.example/");
        gates.failed(&k);
        gates.failed(&k);
        let err = gates
            .acquire(&k, Duration::from_secs(20))
            .await
            .expect_err("paused");
        assert!(
            matches!(err, GateError::Backoff { wait, why: Pause::Failing(2) } if wait > Duration::from_secs(59)),
            "{err:?}"
        );
        let other = gates
            .acquire(&key("http://other.example/"), Duration::ZERO)
            .await;
        assert!(other.is_ok());
        gates.succeeded(&k);
        assert!(gates.acquire(&k, Duration::ZERO).await.is_ok());
    }

    #[tokio::test(start_paused = true)]
    async fn crawl_delay_raises_the_delay() {
        let gates = HostGates::new(Duration::from_millis(100), 1, 32);
        let k = key("http://h.example/");
        gates.set_crawl_delay(&k, Some(Duration::from_secs(5)));
        drop(gates.acquire(&k, Duration::ZERO).await.expect("first"));
        let t0 = Instant::now();
        drop(
            gates
                .acquire(&k, Duration::from_secs(60))
                .await
                .expect("second"),
        );
        assert!(Instant::now() >= t0 + Duration::from_secs(5));
    }
}
