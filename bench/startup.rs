//! Start-up cost at many watches: what `sitefeed serve` reads of the store, the open
//! before it answers, then, once it answers, the watch count for the gauges (the render
//! index) and the failing watches to re-check; against what it read before the small
//! indices existed (every watch and every state decoded). Run it after dropping the page
//! cache (`echo 3 > /proc/sys/vm/drop_caches`) for a start after a reboot.
//!
//! ```sh
//! cargo run --release --example startup -- --watches 100000 --dir /tmp/sitefeed-startup
//! ```
//!
//! The first run fills the store (one watch in ten failing); later runs reuse it.

use std::path::PathBuf;
use std::time::Instant;

use sitefeed::model::{Status, Watch, WatchId};
use sitefeed::schedule::Adaptive;
use sitefeed::state::WatchState;
use sitefeed::store::Store;

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
}

/// Fills the store with `n` watches, from 8 threads (each insert is flushed; threads
/// share the flushes).
fn fill(store: &Store, n: usize) {
    std::thread::scope(|s| {
        for t in 0..8 {
            s.spawn(move || fill_some(store, (t..n).step_by(8)));
        }
    });
    store.flush().expect("flush");
}

fn fill_some(store: &Store, ks: impl Iterator<Item = usize>) {
    let start = 1_800_000_000_i64;
    for k in ks {
        let url = format!("http://127.0.0.1:8300/site/{k}/");
        let watch = Watch {
            id: WatchId::for_url(&url),
            url,
            title: None,
            depth: 1,
            select: None,
            keywords: Vec::new(),
            created: start,
            strategy: None,
            options: sitefeed::model::WatchOptions::default(),
            render: sitefeed::model::Render::Plain,
        };
        let mut st = WatchState::new(
            start,
            Adaptive {
                a: 3600.0,
                b: 3600.0,
                c: 0.0,
            },
        );
        store.insert_watch(&watch, &st).expect("insert");
        // A state as a watch has it after some checks.
        let prev = st.clone();
        st.checks = 40;
        st.last_check = Some(start);
        st.page_title = Some(format!("Mock News {k} - Latest headlines"));
        st.link_fingerprint = Some("0123456789abcdef0123456789abcdef".into());
        st.raw_fingerprint = Some("0123456789abcdef0123456789abcdef".into());
        if k % 10 == 0 {
            st.status = Status::Error;
            st.error = Some("the server answered 503".into());
            st.consecutive_errors = 3;
        } else {
            st.status = Status::Ok;
        }
        store
            .commit_check(
                &watch.id,
                &prev,
                &st,
                &sitefeed::store::CheckRecord::default(),
            )
            .expect("commit");
        if k % 10_000 == 0 {
            eprintln!("{k} watches");
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = arg(&args, "--watches")
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let dir = arg(&args, "--dir").map_or_else(
        || std::env::temp_dir().join("sitefeed-startup"),
        PathBuf::from,
    );
    let cache = 64 << 20;
    // How many watches the store holds, from a file beside it: counting them here would
    // bring the render index into the page cache before the first timed run.
    let marker = dir.with_extension("watches");
    let have = std::fs::read_to_string(&marker).ok();
    if have.as_deref().map(str::trim) != Some(n.to_string().as_str()) || !dir.exists() {
        let _ = std::fs::remove_dir_all(&dir);
        let store = Store::open(&dir, cache).expect("open");
        fill(&store, n);
        std::fs::write(&marker, n.to_string()).expect("marker");
    }
    println!("| run | open (before the first answer) | watch count + failing watches (after it) | every watch and state decoded (before the indices) |");
    println!("|---|---|---|---|");
    for run in 1..=3 {
        let t = Instant::now();
        let store = Store::open(&dir, cache).expect("open");
        let open = t.elapsed();
        let t = Instant::now();
        let renders = store.watch_renders().expect("renders").len();
        let mut failing = 0;
        for id in store.failing_watches().expect("failing") {
            let w = store.watch(&id).expect("watch");
            let s = store.state(&id).expect("state");
            failing += usize::from(w.is_some() && s.is_some());
        }
        let now = t.elapsed();
        let t = Instant::now();
        let mut before = 0;
        for w in store.watches().expect("watches") {
            if store.state(&w.id).expect("state").is_some() {
                before += 1;
            }
        }
        let then = t.elapsed();
        assert_eq!(renders, n);
        assert_eq!(before, n);
        assert_eq!(failing, n.div_ceil(10));
        println!(
            "| {run} | {:.0} ms | {:.0} ms | {:.0} ms |",
            open.as_secs_f64() * 1000.0,
            now.as_secs_f64() * 1000.0,
            then.as_secs_f64() * 1000.0
        );
    }
}
