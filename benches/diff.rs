//! The differ beside Myers' diff from a well-kept crate (imara-diff 0.2) on the same input:
//! arrays of interned link keys of n = 100, 1,000 and 10,000 with 1% and 10% of the entries
//! changed (new ones at the top and in the middle, old ones dropped at the bottom, a few
//! moved to the top), a page with many repeated texts ("Read more" after each entry), and
//! the worst case: two unrelated pages of 10,000 links.
//!
//! Run: `cargo bench --bench diff` (numbers in `bench/README.md`).

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use imara_diff::{Algorithm, Diff, Token};
use sitefeed::diff::{baseline, diff_keys, DEFAULT_MAX_ALIGNMENTS};

/// A tiny deterministic generator, so every run compares the same arrays.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// Old and new arrays of `n` keys where `percent`% of the entries changed. With
/// `repeated`, every entry is followed by the same "Read more" key.
fn arrays(n: usize, percent: usize, repeated: bool, seed: u64) -> (Vec<u32>, Vec<u32>) {
    const READ_MORE: u32 = 0;
    let mut rng = Rng(seed | 1);
    let entries = if repeated { n / 2 } else { n };
    let old: Vec<u32> = (1..=entries as u32).collect();
    let mut new = old.clone();
    let changes = (entries * percent).div_ceil(100);
    for (next, c) in (entries as u32 + 1..).zip(0..changes) {
        match c % 4 {
            // new at the top
            0 => new.insert(0, next),
            // new in the middle
            1 => {
                let at = rng.below(new.len());
                new.insert(at, next);
            }
            // a bumped entry moves to the top
            2 => {
                let at = rng.below(new.len());
                let x = new.remove(at);
                new.insert(0, x);
            }
            // dropped at the bottom
            _ => {
                new.pop();
            }
        }
    }
    let spread = |v: Vec<u32>| {
        if repeated {
            v.into_iter().flat_map(|x| [x, READ_MORE]).collect()
        } else {
            v
        }
    };
    (spread(old), spread(new))
}

fn imara(old: &[u32], new: &[u32]) -> u32 {
    let a: Vec<Token> = old.iter().map(|&x| Token(x)).collect();
    let b: Vec<Token> = new.iter().map(|&x| Token(x)).collect();
    let mut diff = Diff::default();
    // imara-diff sizes tables by the number of distinct tokens.
    let tokens = old.iter().chain(new).max().map_or(0, |&m| m + 1);
    diff.compute_with(Algorithm::Myers, &a, &b, tokens);
    diff.count_additions()
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("diff");
    for &n in &[100usize, 1_000, 10_000] {
        for &(percent, repeated) in &[(1, false), (10, false), (10, true)] {
            let (old, new) = arrays(n, percent, repeated, n as u64 + percent as u64);
            let label = format!(
                "n{n}/{percent}pct{}",
                if repeated { "/repeated" } else { "" }
            );
            g.bench_with_input(BenchmarkId::new("improved-lcs", &label), &(), |b, ()| {
                b.iter(|| diff_keys(black_box(&old), black_box(&new), DEFAULT_MAX_ALIGNMENTS));
            });
            g.bench_with_input(BenchmarkId::new("imara-myers", &label), &(), |b, ()| {
                b.iter(|| imara(black_box(&old), black_box(&new)));
            });
            if n <= 1_000 {
                g.bench_with_input(BenchmarkId::new("own-myers", &label), &(), |b, ()| {
                    b.iter(|| baseline::myers(black_box(&old), black_box(&new)));
                });
            }
        }
    }
    // The worst case: two unrelated pages of 10,000 links (the differ falls back to the
    // multiset difference within its work limits).
    let old: Vec<u32> = (0..10_000).collect();
    let new: Vec<u32> = (10_000..20_000).collect();
    g.bench_function("improved-lcs/unrelated-10000", |b| {
        b.iter(|| diff_keys(black_box(&old), black_box(&new), DEFAULT_MAX_ALIGNMENTS));
    });
    g.bench_function("imara-myers/unrelated-10000", |b| {
        b.iter(|| imara(black_box(&old), black_box(&new)));
    });
    // Unrelated but sharing every key in another order: the LCS table is the costly part.
    let shuffled: Vec<u32> = {
        let mut v = old.clone();
        let mut rng = Rng(99);
        for i in (1..v.len()).rev() {
            v.swap(i, rng.below(i + 1));
        }
        v
    };
    g.bench_function("improved-lcs/shuffled-10000", |b| {
        b.iter(|| {
            diff_keys(
                black_box(&old),
                black_box(&shuffled),
                DEFAULT_MAX_ALIGNMENTS,
            )
        });
    });
    g.bench_function("imara-myers/shuffled-10000", |b| {
        b.iter(|| imara(black_box(&old), black_box(&shuffled)));
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(2)).warm_up_time(std::time::Duration::from_millis(500));
    targets = bench
}
criterion_main!(benches);
