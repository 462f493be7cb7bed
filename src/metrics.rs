//! Counters and gauges for `/metrics`, in Prometheus text format. Each is kept up to
//! date where things change (a check, an added or removed watch, the scheduler's look at
//! the due index), so a scrape reads numbers and never the store.
//!
//! The watch gauges start from one count of the store (its render index), taken after
//! start-up rather than on the way to the first answer: with 100,000 watches that scan
//! takes 0.1 s from the page cache and more than half a second from a cold disk. The
//! count holds the census lock alone; every add and removal holds it shared around its
//! write and its gauge update ([`Metrics::changing_watches`]), so a watch added or
//! removed during the count is neither counted twice nor lost.
//!
//! May use: fetch, model.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError, RwLock};
use std::time::Duration;

use crate::model::Render;

/// The slot of a render mode in the gauges.
fn render_slot(r: Render) -> usize {
    match r {
        Render::Plain => 0,
        Render::Browser => 1,
        Render::Auto => 2,
    }
}

/// Upper bounds of the check latency histogram, seconds.
const BUCKETS: [f64; 10] = [0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0];

#[derive(Debug, Default)]
pub struct Metrics {
    checks: AtomicU64,
    new_items: AtomicU64,
    site_pages: AtomicU64,
    /// Watches in the store.
    watches: AtomicU64,
    /// Watches by how they read their page (plain, browser, auto).
    by_render: [AtomicU64; 3],
    /// Whether the watch gauges have been counted from the store.
    counted: AtomicBool,
    /// Held alone by the count, shared by adds and removals (see the module's notes).
    census: RwLock<()>,
    /// Due watches not started yet, at the scheduler's last look.
    queued: AtomicU64,
    /// Checks running now.
    running: AtomicU64,
    errors: Mutex<BTreeMap<&'static str, u64>>,
    latency: Mutex<Histogram>,
}

#[derive(Debug, Default)]
struct Histogram {
    counts: [u64; BUCKETS.len()],
    sum: f64,
    count: u64,
}

impl Metrics {
    /// One check: its new items, the pages of its site it fetched, the kind of its
    /// failure, how long it took.
    pub fn record_check(
        &self,
        new_items: usize,
        site_pages: u32,
        error_kind: Option<&'static str>,
        took: Duration,
    ) {
        self.checks.fetch_add(1, Ordering::Relaxed);
        self.new_items
            .fetch_add(new_items as u64, Ordering::Relaxed);
        self.site_pages
            .fetch_add(u64::from(site_pages), Ordering::Relaxed);
        if let Some(kind) = error_kind {
            let mut e = self
                .errors
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            *e.entry(kind).or_default() += 1;
        }
        let secs = took.as_secs_f64();
        let mut h = self
            .latency
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for (i, b) in BUCKETS.iter().enumerate() {
            if secs <= *b {
                h.counts[i] += 1;
            }
        }
        h.sum += secs;
        h.count += 1;
    }

    /// Counts the watches once, from how each reads its page (`scan`, the store's render
    /// index), unless they are counted already; adds and removals wait meanwhile. A failed
    /// scan leaves them uncounted, for the next call to try again.
    pub fn count_watches<E>(&self, scan: impl FnOnce() -> Result<Vec<Render>, E>) -> Result<(), E> {
        let _alone = self.census.write().unwrap_or_else(PoisonError::into_inner);
        if self.counted.load(Ordering::Acquire) {
            return Ok(());
        }
        let mut by_render = [0u64; 3];
        for r in scan()? {
            by_render[render_slot(r)] += 1;
        }
        self.watches
            .store(by_render.iter().sum(), Ordering::Relaxed);
        for (g, v) in self.by_render.iter().zip(by_render) {
            g.store(v, Ordering::Relaxed);
        }
        self.counted.store(true, Ordering::Release);
        Ok(())
    }

    /// Whether [`Metrics::count_watches`] has counted the watches.
    pub fn watches_counted(&self) -> bool {
        self.counted.load(Ordering::Acquire)
    }

    /// Runs `change`, which adds or removes a watch and updates the gauges with
    /// [`Metrics::watch_added`] or [`Metrics::watch_removed`], outside a count: a count
    /// in progress finishes first, one that starts later sees the change in the store.
    pub fn changing_watches<T>(&self, change: impl FnOnce() -> T) -> T {
        let _shared = self.census.read().unwrap_or_else(PoisonError::into_inner);
        change()
    }

    pub fn watch_added(&self, render: Render) {
        self.watches.fetch_add(1, Ordering::Relaxed);
        self.by_render[render_slot(render)].fetch_add(1, Ordering::Relaxed);
    }

    pub fn watch_removed(&self, render: Render) {
        for g in [&self.watches, &self.by_render[render_slot(render)]] {
            let _ = g.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1));
        }
    }

    /// Watches by render mode, as kept up to date by [`Metrics::watch_added`] and
    /// [`Metrics::watch_removed`].
    pub fn by_render(&self) -> [(&'static str, usize); 3] {
        [Render::Plain, Render::Browser, Render::Auto].map(|r| {
            (
                r.as_str(),
                self.by_render[render_slot(r)].load(Ordering::Relaxed) as usize,
            )
        })
    }

    /// The scheduler's view: due watches waiting, checks running.
    pub fn set_queue(&self, queued: usize, running: usize) {
        self.queued.store(queued as u64, Ordering::Relaxed);
        self.running.store(running as u64, Ordering::Relaxed);
    }

    /// Checks running now (when one ends).
    pub fn set_running(&self, running: usize) {
        self.running.store(running as u64, Ordering::Relaxed);
    }

    /// Prometheus text exposition. `store_bytes` and `storage_failing` come from the
    /// store without reading its records.
    pub fn render(&self, store_bytes: u64, storage_failing: bool) -> String {
        let watches = self.watches.load(Ordering::Relaxed);
        let due = self.queued.load(Ordering::Relaxed);
        let running = self.running.load(Ordering::Relaxed);
        let mut s = String::new();
        let _ = writeln!(
            s,
            "# HELP sitefeed_checks_total Checks run.\n# TYPE sitefeed_checks_total counter"
        );
        let _ = writeln!(
            s,
            "sitefeed_checks_total {}",
            self.checks.load(Ordering::Relaxed)
        );
        let _ = writeln!(s, "# HELP sitefeed_check_errors_total Failed checks by kind.\n# TYPE sitefeed_check_errors_total counter");
        for (k, v) in self
            .errors
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
        {
            let _ = writeln!(s, "sitefeed_check_errors_total{{kind=\"{k}\"}} {v}");
        }
        let _ = writeln!(s, "# HELP sitefeed_new_items_total Items found new.\n# TYPE sitefeed_new_items_total counter");
        let _ = writeln!(
            s,
            "sitefeed_new_items_total {}",
            self.new_items.load(Ordering::Relaxed)
        );
        let _ = writeln!(s, "# HELP sitefeed_site_pages_fetched_total Pages of their sites deep watches fetched beyond their own.\n# TYPE sitefeed_site_pages_fetched_total counter");
        let _ = writeln!(
            s,
            "sitefeed_site_pages_fetched_total {}",
            self.site_pages.load(Ordering::Relaxed)
        );
        let h = self
            .latency
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let _ = writeln!(s, "# HELP sitefeed_check_duration_seconds Time of a check, fetch included.\n# TYPE sitefeed_check_duration_seconds histogram");
        for (i, b) in BUCKETS.iter().enumerate() {
            let _ = writeln!(
                s,
                "sitefeed_check_duration_seconds_bucket{{le=\"{b}\"}} {}",
                h.counts[i]
            );
        }
        let _ = writeln!(
            s,
            "sitefeed_check_duration_seconds_bucket{{le=\"+Inf\"}} {}",
            h.count
        );
        let _ = writeln!(s, "sitefeed_check_duration_seconds_sum {}", h.sum);
        let _ = writeln!(s, "sitefeed_check_duration_seconds_count {}", h.count);
        let _ = writeln!(s, "# HELP sitefeed_watches Watches in the store.\n# TYPE sitefeed_watches gauge\nsitefeed_watches {watches}");
        let _ = writeln!(s, "# HELP sitefeed_queue_depth Watches due and waiting for a worker or their host.\n# TYPE sitefeed_queue_depth gauge\nsitefeed_queue_depth {due}");
        let _ = writeln!(s, "# HELP sitefeed_checks_running Checks running now.\n# TYPE sitefeed_checks_running gauge\nsitefeed_checks_running {running}");
        let _ = writeln!(s, "# HELP sitefeed_storage_failing 1 while the store refuses writes (a full disk).\n# TYPE sitefeed_storage_failing gauge\nsitefeed_storage_failing {}", u8::from(storage_failing));
        let _ = writeln!(s, "# HELP sitefeed_store_bytes Store size on disk.\n# TYPE sitefeed_store_bytes gauge\nsitefeed_store_bytes {store_bytes}");
        s
    }

    /// The headless browser and the watches by how they read their page.
    pub fn render_browser(
        by_render: &[(&str, usize)],
        health: Option<&crate::fetch::browser::Health>,
        requests: u64,
    ) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "# HELP sitefeed_watches_by_render Watches by how they read their page (plain, browser, auto).\n# TYPE sitefeed_watches_by_render gauge");
        for (r, n) in by_render {
            let _ = writeln!(s, "sitefeed_watches_by_render{{render=\"{r}\"}} {n}");
        }
        let Some(h) = health else { return s };
        let up = u8::from(h.state == "running");
        let _ = writeln!(s, "# HELP sitefeed_browser_up Whether the headless browser is running (0 before its first render).\n# TYPE sitefeed_browser_up gauge\nsitefeed_browser_up {up}");
        let _ = writeln!(s, "# HELP sitefeed_browser_renders_total Pages rendered in the browser.\n# TYPE sitefeed_browser_renders_total counter\nsitefeed_browser_renders_total {}", h.renders);
        let _ = writeln!(s, "# HELP sitefeed_browser_render_failures_total Renders that failed.\n# TYPE sitefeed_browser_render_failures_total counter\nsitefeed_browser_render_failures_total {}", h.failures);
        let _ = writeln!(s, "# HELP sitefeed_browser_restarts_total Browsers started after the first (it died, leaked or reached browser.max_renders).\n# TYPE sitefeed_browser_restarts_total counter\nsitefeed_browser_restarts_total {}", h.restarts);
        let ok = h.renders.saturating_sub(h.failures);
        let mean = h.mean_render_ms.unwrap_or(0);
        let _ = writeln!(s, "# HELP sitefeed_browser_render_seconds Time of successful renders.\n# TYPE sitefeed_browser_render_seconds summary\nsitefeed_browser_render_seconds_sum {}\nsitefeed_browser_render_seconds_count {ok}", (mean * ok) as f64 / 1000.0);
        let _ = writeln!(s, "# HELP sitefeed_browser_requests_total Requests of rendered pages: answered through the fetcher, refused (address guard, robots.txt), blocked unsent (types, limits).\n# TYPE sitefeed_browser_requests_total counter");
        let _ = writeln!(
            s,
            "sitefeed_browser_requests_total{{outcome=\"answered\"}} {requests}"
        );
        let _ = writeln!(
            s,
            "sitefeed_browser_requests_total{{outcome=\"refused\"}} {}",
            h.refused
        );
        let _ = writeln!(
            s,
            "sitefeed_browser_requests_total{{outcome=\"blocked\"}} {}",
            h.blocked
        );
        let _ = writeln!(s, "# HELP sitefeed_browser_tabs_busy Tabs rendering now, of browser.tabs.\n# TYPE sitefeed_browser_tabs_busy gauge\nsitefeed_browser_tabs_busy {}", h.tabs_busy);
        if let Some(m) = h.memory_bytes {
            let _ = writeln!(s, "# HELP sitefeed_browser_memory_bytes Memory of the launched browser's processes (proportional set size) at the last render.\n# TYPE sitefeed_browser_memory_bytes gauge\nsitefeed_browser_memory_bytes {m}");
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    fn gauges(m: &Metrics) -> (u64, [(&'static str, usize); 3]) {
        (m.watches.load(Ordering::Relaxed), m.by_render())
    }

    #[test]
    fn a_watch_added_during_the_count_is_counted_once() {
        let m = Metrics::default();
        let (scanning, started) = mpsc::channel();
        std::thread::scope(|s| {
            let counter = s.spawn(|| {
                m.count_watches(|| {
                    scanning.send(()).expect("send");
                    // The add below is on its way while the store is being read.
                    std::thread::sleep(Duration::from_millis(100));
                    Ok::<_, ()>(vec![Render::Plain, Render::Plain, Render::Auto])
                })
            });
            started.recv().expect("the count started");
            m.changing_watches(|| m.watch_added(Render::Browser));
            counter.join().expect("join").expect("count");
        });
        assert_eq!(
            gauges(&m),
            (4, [("plain", 2), ("browser", 1), ("auto", 1)]),
            "the three watches the scan read and the one added after it"
        );
    }

    #[test]
    fn the_count_replaces_what_came_before_it_and_is_taken_once() {
        let m = Metrics::default();
        assert!(!m.watches_counted());
        // Added before the count: the scan reads it from the store.
        m.changing_watches(|| m.watch_added(Render::Plain));
        m.count_watches(|| Ok::<_, ()>(vec![Render::Plain, Render::Browser]))
            .expect("count");
        assert!(m.watches_counted());
        assert_eq!(gauges(&m).0, 2);
        m.count_watches(|| -> Result<Vec<Render>, ()> { panic!("counted twice") })
            .expect("second count");
        m.changing_watches(|| m.watch_removed(Render::Browser));
        assert_eq!(gauges(&m), (1, [("plain", 1), ("browser", 0), ("auto", 0)]));
    }

    #[test]
    fn a_failed_count_is_tried_again() {
        let m = Metrics::default();
        assert_eq!(
            m.count_watches(|| Err::<Vec<Render>, _>("disk")),
            Err("disk")
        );
        assert!(!m.watches_counted());
        m.count_watches(|| Ok::<_, ()>(vec![Render::Auto]))
            .expect("count");
        assert_eq!(gauges(&m).0, 1);
    }
}
