//! The scheduler's due queue at 100,000 watches (`docs/design.md` §4): the memory it takes
//! and the cost of one scheduling step (take the due batch, then reschedule one watch),
//! with watch states that carry a full daily history.
//!
//! `cargo bench --bench due_queue`. Setup prints the store's size and the process's
//! resident memory before and after loading the watches.
#![allow(
    clippy::cast_possible_wrap,
    reason = "counters below 100,000 and Unix seconds"
)]

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use sitefeed::config::ScheduleConfig;
use sitefeed::model::{Watch, WatchId};
use sitefeed::schedule::{self, Adaptive, Learned, Observation, Outcome};
use sitefeed::state::WatchState;
use sitefeed::store::{CheckRecord, Store};

/// Watches loaded by `cargo bench`; `cargo test --all-targets` runs the same code on
/// a small store, so the test suite stays fast.
fn watches_to_load() -> usize {
    if std::env::args().any(|a| a == "--bench") {
        100_000
    } else {
        2_000
    }
}
const NOW: i64 = 1_800_000_000;

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

/// A schedule state as a periodic watch has it after a few weeks of hourly checks.
fn learned_state(cfg: &ScheduleConfig) -> Learned {
    let mut learned = Learned::default();
    learned.page.effective = 50;
    let mut a = Adaptive::initial(cfg);
    for h in 0..(21 * 24) {
        let obs = Observation {
            outcome: Outcome::Updated,
            new_links: (h % 24) as u32,
        };
        schedule::plan(
            cfg,
            sitefeed::config::Strategy::Periodic,
            &mut a,
            &mut learned,
            obs,
            NOW - 21 * 86_400 + h * 3600,
            3600.0,
        );
    }
    learned
}

fn setup(dir: &std::path::Path) -> (Store, Vec<(WatchId, WatchState)>) {
    let cfg = ScheduleConfig::default();
    let learned = learned_state(&cfg);
    let rss0 = rss_kib();
    let store = Store::open(dir, 16 * 1024 * 1024).expect("store");
    let started = std::time::Instant::now();
    let total = watches_to_load();
    let mut watches = Vec::with_capacity(1000);
    for i in 0..total {
        let url = format!("https://site{}.example/list/{i}", i % 997);
        let w = Watch {
            id: WatchId::for_url(&url),
            url,
            title: None,
            depth: 1,
            select: None,
            keywords: Vec::new(),
            created: NOW - 86_400,
            strategy: None,
            options: sitefeed::model::WatchOptions::default(),
            render: sitefeed::model::Render::Plain,
        };
        // Due times spread over one day; 1% due now.
        let next = NOW - 864 + (i as i64 * 86_400 / total as i64);
        let mut st = WatchState::new(next, Adaptive::initial(&cfg));
        st.learned = learned.clone();
        store.insert_watch(&w, &st).expect("insert");
        // Keep only the states the step benchmark touches, so the resident memory
        // measured is the store's, not this harness's copy.
        if watches.len() < 1000 {
            watches.push((w.id, st));
        }
    }
    store.flush().expect("flush");
    let state_bytes = serde_json::to_vec(&watches[0].1).map_or(0, |v| v.len());
    eprintln!(
        "{total} watches loaded in {:.1}s; one WatchState is {state_bytes} bytes of JSON; \
         store on disk {:.1} MB; resident memory +{:.1} MB (sled cache capped at 16 MB)",
        started.elapsed().as_secs_f64(),
        store.size_on_disk() as f64 / 1e6,
        (rss_kib().saturating_sub(rss0)) as f64 / 1024.0,
    );
    (store, watches)
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tempdir");
    let (store, mut watches) = setup(dir.path());
    let cfg = ScheduleConfig::default();
    let mut g = c.benchmark_group("due_queue_100k");
    g.sample_size(30);

    g.bench_function("next_due", |b| {
        b.iter(|| black_box(store.next_due().expect("next_due")));
    });
    g.bench_function("due_batch_64", |b| {
        b.iter(|| black_box(store.due(NOW, 64).expect("due")));
    });
    // One scheduling step: take the due batch, plan the first watch's next check and
    // commit its new state (moving its due entry), as a check without new links does.
    let mut k = 0usize;
    g.bench_function("step_due64_plan_commit", |b| {
        b.iter(|| {
            let due = store.due(NOW, 64).expect("due");
            black_box(&due);
            let (id, prev) = &mut watches[k % 1000];
            k += 1;
            let mut st = prev.clone();
            let obs = Observation {
                outcome: Outcome::Unchanged,
                new_links: 0,
            };
            let secs = schedule::plan(
                &cfg,
                sitefeed::config::Strategy::Periodic,
                &mut st.sched,
                &mut st.learned,
                obs,
                NOW + k as i64,
                600.0,
            );
            st.next_check = NOW + 86_400 + secs as i64 + (k % 1000) as i64;
            store
                .commit_check(id, prev, &st, &CheckRecord::default())
                .expect("commit");
            *prev = st;
        });
    });
    g.bench_function("plan_periodic_only", |b| {
        let (_, st) = &watches[500];
        b.iter(|| {
            let mut st = st.clone();
            let obs = Observation {
                outcome: Outcome::Updated,
                new_links: 3,
            };
            black_box(schedule::plan(
                &cfg,
                sitefeed::config::Strategy::Periodic,
                &mut st.sched,
                &mut st.learned,
                obs,
                NOW + 600,
                600.0,
            ))
        });
    });
    g.sample_size(10);
    g.bench_function("metrics_due_scan_all", |b| {
        b.iter(|| black_box(store.due(NOW + 86_400, usize::MAX).expect("due").len()));
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
