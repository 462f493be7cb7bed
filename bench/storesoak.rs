//! Store soak: how many bytes a watch takes on disk after many checks.
//!
//! An in-process generator stands in for the fetch and the analysis: each watch has a
//! news page of about 485 links (navigation, "most read", partners, 100 entries with
//! author, comments and "Read more" links, footer) that evolves on every check as the
//! project's mock news site does (0–5 new entries on top with the oldest dropped, now and
//! then an old entry bumped to the top or a title edited); each entry has a title, an
//! author and an 18–30 word summary, which its item carries. Each check commits what the
//! real check path commits (new link array, the URLs that left the page, new and
//! retitled items, the new state) through `Store::commit_check`, with the clock one hour
//! further per round. Prints bytes on disk per watch (the data directory's files) every
//! `--every` rounds.
//!
//! Compaction runs as `serve` runs it: the store opens with the policy of
//! `storage.compact_ratio` (`--compact-ratio`, default the store's default; 0 = off;
//! `--compact-min-mb` sets the size below which it never compacts, default 32) and
//! [`Store::maybe_compact`] is called after every round, as `serve`'s store does every
//! ten minutes (a round is an hour of the watches' clock). The compactions, the live
//! bytes they copied and how long writes waited for them are printed at the end.
//!
//! The store keeps per watch the newest `--items-kept` items (default 100, as `serve`
//! keeps `feed.max_items` of them).
//!
//! ```sh
//! cargo run --release --example storesoak -- --watches 100 --checks 1000 --every 100
//! cargo run --release --example storesoak -- --watches 100 --checks 1000 --every 100 --compact-ratio 0
//! ```

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

use sitefeed::model::{Item, Link, Status, Watch, WatchId};
use sitefeed::schedule::Adaptive;
use sitefeed::state::WatchState;
use sitefeed::store::{CheckRecord, CompactOutcome, CompactPolicy, Store};

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn chance(&mut self, p: f64) -> bool {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 > 1.0 - p
    }
}

const WORDS: &[&str] = &[
    "council", "river", "vote", "market", "storm", "school", "budget", "bridge", "festival",
    "police", "health", "energy", "housing", "court", "rail", "harbour", "museum", "strike",
    "election", "garden", "airport", "water", "library", "union", "science", "football",
];

struct Entry {
    id: u64,
    title: String,
    author: String,
    summary: String,
}

struct Page {
    k: usize,
    base: String,
    entries: Vec<Entry>,
    next_id: u64,
    rng: Rng,
}

impl Page {
    fn new(k: usize) -> Self {
        let mut p = Page {
            k,
            base: format!("http://127.0.0.1:8300/site/{k}"),
            entries: Vec::new(),
            next_id: 0,
            rng: Rng(0x9E37_79B9_7F4A_7C15 ^ (k as u64 + 1).wrapping_mul(0x1234_5678_9ABC_DEF1)),
        };
        for _ in 0..100 {
            let e = p.new_entry();
            p.entries.insert(0, e);
        }
        p
    }

    fn words(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| WORDS[self.rng.below(WORDS.len() as u64) as usize])
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn new_entry(&mut self) -> Entry {
        let id = self.next_id;
        self.next_id += 1;
        let n = 3 + self.rng.below(5) as usize;
        let m = 18 + self.rng.below(13) as usize;
        Entry {
            id,
            title: self.words(n),
            author: self.words(2),
            summary: self.words(m),
        }
    }

    /// One version further; returns the ids of the new entries and of the edited one.
    fn advance(&mut self) -> (Vec<u64>, Option<u64>) {
        let r = self.rng.below(100);
        let n_new = match r {
            0..=29 => 0,
            30..=54 => 1,
            55..=74 => 2,
            75..=86 => 3,
            87..=94 => 4,
            _ => 5,
        };
        let mut new = Vec::new();
        for _ in 0..n_new {
            let e = self.new_entry();
            new.push(e.id);
            self.entries.insert(0, e);
        }
        self.entries.truncate(100);
        if self.rng.chance(0.15) {
            let i = 10 + self.rng.below(90) as usize;
            let e = self.entries.remove(i);
            let to = self.rng.below(3) as usize;
            self.entries.insert(to, e);
        }
        let mut edited = None;
        if self.rng.chance(0.10) {
            let i = self.rng.below(30) as usize;
            self.entries[i].title.push_str(" (updated)");
            edited = Some(self.entries[i].id);
        }
        (new, edited)
    }

    fn item_url(&self, id: u64) -> String {
        format!("{}/item/{id}", self.base)
    }

    fn links(&self) -> Vec<Link> {
        let mut out = Vec::with_capacity(485);
        for i in 0..30 {
            out.push(Link::new(
                format!("Section {i}"),
                format!("http://127.0.0.1:8300/section/{i}/"),
            ));
        }
        for i in 0..15 {
            out.push(Link::new(
                format!("Popular story number {i} of site {}", self.k),
                format!("http://127.0.0.1:8300/popular/{}/{i}", self.k),
            ));
        }
        for i in 0..10 {
            out.push(Link::new(
                format!("Partner {i}"),
                format!("https://partner{i}.example/"),
            ));
        }
        for e in &self.entries {
            let url = self.item_url(e.id);
            out.push(Link::new(e.title.clone(), url.clone()));
            out.push(Link::new(
                e.author.clone(),
                format!(
                    "http://127.0.0.1:8300/author/{}",
                    e.author.replace(' ', "-")
                ),
            ));
            out.push(Link::new(
                format!("{} comments", e.id % 400),
                format!("{url}#comments"),
            ));
            out.push(Link::new("Read more", url));
        }
        for i in 0..30 {
            out.push(Link::new(
                format!("Footer {i}"),
                format!("http://127.0.0.1:8300/footer/{i}/"),
            ));
        }
        out
    }
}

/// One check of one watch: the page one version further, committed as the check path
/// commits it.
fn check(store: &Store, id: &WatchId, page: &mut Page, round: u64, now: i64) {
    let prev = store.state(id).expect("state").expect("present");
    let old = if round == 0 {
        Vec::new()
    } else {
        store.links(id).expect("links")
    };
    let (new_ids, edited) = if round == 0 {
        (Vec::new(), None)
    } else {
        page.advance()
    };
    let links = page.links();
    let now_urls: HashSet<&str> = links.iter().map(|l| l.url.as_str()).collect();
    let mut left = HashSet::new();
    let seen_urls: Vec<String> = old
        .iter()
        .filter(|l| !now_urls.contains(l.url.as_str()) && left.insert(l.url.clone()))
        .map(|l| l.url.clone())
        .collect();
    let item = |page: &Page, id: u64| {
        let e = page.entries.iter().find(|e| e.id == id).expect("entry");
        let url = page.item_url(id);
        Item {
            id: Item::id_for(&url),
            title: e.title.clone(),
            link: url,
            first_seen: now,
            // What the entry-content pass reads from the entry's block.
            summary: Some(e.summary.clone()),
            author: Some(e.author.clone()),
            published: Some(now - 600),
            ..Item::default()
        }
    };
    let new_items: Vec<Item> = new_ids.iter().rev().map(|&i| item(page, i)).collect();
    let retitled: Vec<Item> = edited.into_iter().map(|i| item(page, i)).collect();
    let mut st = prev.clone();
    st.status = Status::Ok;
    st.checks += 1;
    st.last_check = Some(now);
    st.next_check = now + 3600;
    st.link_fingerprint = Some(format!("{:016x}", page.rng.next()));
    st.raw_fingerprint = Some(format!("{:032x}", page.rng.next()));
    st.link_count = links.len() as u64;
    st.item_seq += new_items.len() as u64;
    st.item_count += new_items.len() as u64;
    if !new_items.is_empty() {
        st.last_change = Some(now);
    }
    let record = CheckRecord {
        links: Some(links),
        seen_urls,
        new_items,
        retitled,
        ..CheckRecord::default()
    };
    store.commit_check(id, &prev, &st, &record).expect("commit");
}

fn du(path: &Path) -> u64 {
    let mut n = 0;
    if let Ok(rd) = std::fs::read_dir(path) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                n += du(&p);
            } else if let Ok(m) = e.metadata() {
                n += m.len();
            }
        }
    }
    n
}

fn arg(args: &[String], name: &str, default: u64) -> u64 {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let watches = arg(&args, "--watches", 1000) as usize;
    let checks = arg(&args, "--checks", 2000);
    let every = arg(&args, "--every", 250);
    let cache_mb = arg(&args, "--cache-mb", 64);
    let dir: PathBuf = args
        .iter()
        .position(|a| a == "--dir")
        .and_then(|i| args.get(i + 1))
        .map_or_else(
            || std::env::temp_dir().join("sitefeed-storesoak"),
            PathBuf::from,
        );
    let _ = std::fs::remove_dir_all(&dir);
    let policy = CompactPolicy {
        ratio: arg(&args, "--compact-ratio", CompactPolicy::default().ratio),
        min_bytes: arg(
            &args,
            "--compact-min-mb",
            CompactPolicy::default().min_bytes >> 20,
        ) << 20,
        every: None,
    };
    let store = Store::open_with(&dir, cache_mb << 20, policy).expect("open store");
    // Items kept per watch, as `serve` sets it from `feed.max_items` (default 100).
    let items_kept = arg(&args, "--items-kept", sitefeed::model::DEFAULT_ITEMS_KEPT);
    store.set_items_kept(usize::try_from(items_kept).unwrap_or(usize::MAX));
    let mut compactions: Vec<sitefeed::store::Compacted> = Vec::new();
    let start = 1_800_000_000_i64;
    let mut pages = Vec::new();
    let mut ids = Vec::new();
    for k in 0..watches {
        let p = Page::new(k);
        let watch = Watch {
            id: WatchId::for_url(&format!("{}/", p.base)),
            url: format!("{}/", p.base),
            title: None,
            depth: 1,
            select: None,
            keywords: Vec::new(),
            created: start,
            strategy: None,
            options: sitefeed::model::WatchOptions::default(),
            render: sitefeed::model::Render::Plain,
        };
        let st = WatchState::new(
            start,
            Adaptive {
                a: 3600.0,
                b: 3600.0,
                c: 0.0,
            },
        );
        store.insert_watch(&watch, &st).expect("insert");
        ids.push(watch.id);
        pages.push(p);
    }
    println!(
        "| checks per watch | bytes per watch on disk (files) | sled size_on_disk per watch \
         | live bytes per watch (keys + values) | disk ÷ live | resident MB | compactions | seconds |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    let t0 = Instant::now();
    for round in 0..=checks {
        let now = start + i64::try_from(round).unwrap_or(0) * 3600;
        for (page, id) in pages.iter_mut().zip(&ids) {
            check(&store, id, page, round, now);
        }
        match store.maybe_compact() {
            Ok(CompactOutcome::Compacted(c)) => compactions.push(c),
            Ok(_) => {}
            Err(e) => eprintln!("compaction failed: {e}"),
        }
        if round % every == 0 || round == checks {
            store.flush().expect("flush");
            let files = du(&dir);
            let live: u64 = store.usage().expect("usage").iter().map(|u| u.bytes).sum();
            println!(
                "| {round} | {} | {} | {} | {:.1} | {} | {} | {:.0} |",
                files / watches as u64,
                store.size_on_disk() / watches as u64,
                live / watches as u64,
                files as f64 / live.max(1) as f64,
                resident_mb(),
                compactions.len(),
                t0.elapsed().as_secs_f64()
            );
        }
    }
    print_compactions(&compactions);
    print_usage(&store, watches);
}

/// The live bytes per watch by key kind (`keys.rs` names the kinds).
fn print_usage(store: &Store, watches: usize) {
    println!();
    println!("| kind | keys per watch | live bytes per watch |");
    println!("|---|---|---|");
    for u in store.usage().expect("usage") {
        println!(
            "| `{}` | {:.1} | {} |",
            u.kind,
            u.keys as f64 / watches as f64,
            u.bytes / watches as u64
        );
    }
}

/// One row per compaction: what it copied and how long writes waited.
fn print_compactions(compactions: &[sitefeed::store::Compacted]) {
    println!();
    println!("| compaction | live MB copied | keys | file MB before → after | writes waited (ms) | ms per live MB |");
    println!("|---|---|---|---|---|---|");
    for (i, c) in compactions.iter().enumerate() {
        let live_mb = c.live_bytes as f64 / f64::from(1 << 20);
        println!(
            "| {} | {live_mb:.1} | {} | {:.1} → {:.1} | {} | {:.0} |",
            i + 1,
            c.keys,
            c.before as f64 / f64::from(1 << 20),
            c.after as f64 / f64::from(1 << 20),
            c.took.as_millis(),
            c.took.as_secs_f64() * 1000.0 / live_mb.max(0.001)
        );
    }
}

/// Resident memory of this process (Linux; 0 elsewhere).
fn resident_mb() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |pages| (pages * 4096) >> 20)
}
