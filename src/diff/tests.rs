use std::collections::HashSet;

use proptest::prelude::*;

use super::baseline::{first_lcs, myers, myers_matches, set_difference};
use super::lcs::{alignments, nakatsu, LcsTable};
use super::*;

/// Plain O(mn) dynamic-programming LCS length.
fn dp_lcs(a: &[u32], b: &[u32]) -> usize {
    let mut row = vec![0usize; b.len() + 1];
    for &x in a {
        let mut diag = 0;
        for (j, &y) in b.iter().enumerate() {
            let up = row[j + 1];
            row[j + 1] = if x == y {
                diag + 1
            } else {
                row[j + 1].max(row[j])
            };
            diag = up;
        }
    }
    row[b.len()]
}

/// Panics unless `pairs` is a common subsequence alignment of `a` and `b`.
fn assert_valid(a: &[u32], b: &[u32], pairs: &[(usize, usize)]) {
    for w in pairs.windows(2) {
        assert!(
            w[0].0 < w[1].0 && w[0].1 < w[1].1,
            "not increasing: {pairs:?}"
        );
    }
    for &(i, j) in pairs {
        assert_eq!(a[i], b[j], "unequal pair ({i}, {j})");
    }
}

fn chars(s: &str) -> Vec<u32> {
    s.chars().map(u32::from).collect()
}

fn spell(b: &[u32], pairs: &[(usize, usize)]) -> String {
    pairs
        .iter()
        .map(|&(_, j)| char::from_u32(b[j]).expect("test symbols are chars"))
        .collect()
}

fn b_set(pairs: &[(usize, usize)]) -> Vec<usize> {
    pairs.iter().map(|&(_, j)| j).collect()
}

/// Every set of indices of `b` of size `lcs_len(a, b)` whose elements form a subsequence
/// of `a`, by brute force over subsets (small `b` only).
fn brute_b_sets(a: &[u32], b: &[u32]) -> HashSet<Vec<usize>> {
    let t = dp_lcs(a, b);
    let mut out = HashSet::new();
    for mask in 0u32..(1 << b.len()) {
        if mask.count_ones() as usize != t {
            continue;
        }
        let set: Vec<usize> = (0..b.len()).filter(|j| mask & (1 << j) != 0).collect();
        let mut it = a.iter();
        if set.iter().all(|&j| it.any(|&x| x == b[j])) {
            out.insert(set);
        }
    }
    out
}

// ---------------------------------------------------------------- the paper's example

#[test]
fn paper_example_length_and_diagonals() {
    let (a, b) = (chars("bcdabab"), chars("cbacbaaba"));
    let lcs = nakatsu(&a, &b);
    assert_eq!(lcs.len(), 5);
    assert_valid(&a, &b, lcs.pairs());
    // The paper's path I, the traced LCS: B[1][3][5][6][8] = cabab.
    assert_eq!(b_set(lcs.pairs()), vec![0, 2, 4, 5, 7]);
    assert_eq!(spell(&b, lcs.pairs()), "cabab");
    let table = LcsTable::build(&a, &b, usize::MAX).expect("no budget");
    assert_eq!(table.diagonals(), 7 - 5 + 1);
    // Swapped arguments: same length, pairs still (in a, in b).
    let back = nakatsu(&b, &a);
    assert_eq!(back.len(), 5);
    assert_valid(&b, &a, back.pairs());
}

#[test]
fn paper_example_enumerates_the_four_lcss() {
    let (a, b) = (chars("bcdabab"), chars("cbacbaaba"));
    let all = alignments(&a, &b, 1000);
    assert_eq!(all.lcs_len, 5);
    assert!(!all.limit_hit);
    let mut sets = HashSet::new();
    let mut spelled = HashSet::new();
    for item in &all.items {
        assert_eq!(item.len(), 5);
        assert_valid(&a, &b, item.pairs());
        assert!(sets.insert(b_set(item.pairs())), "duplicate alignment");
        spelled.insert(spell(&b, item.pairs()));
    }
    // The paper's paths I..IV (1-based B indices in the paper).
    for (set, word) in [
        (vec![0, 2, 4, 5, 7], "cabab"),
        (vec![1, 2, 4, 5, 7], "babab"),
        (vec![1, 3, 4, 5, 7], "bcbab"),
        (vec![1, 3, 5, 7, 8], "bcaba"),
    ] {
        assert!(sets.contains(&set), "missing {word} at {set:?}");
        assert!(spelled.contains(word));
    }
    // And nothing else than the true LCS alignments.
    assert_eq!(sets, brute_b_sets(&a, &b));
    // The first one yielded is the traced one.
    assert_eq!(all.items[0], nakatsu(&a, &b));
}

#[test]
fn alignment_limit_is_reported() {
    let (a, b) = (chars("bcdabab"), chars("cbacbaaba"));
    let total = alignments(&a, &b, usize::MAX).items.len();
    assert!(total > 4);
    let one = alignments(&a, &b, 1);
    assert_eq!(one.items.len(), 1);
    assert!(one.limit_hit);
    let exact = alignments(&a, &b, total);
    assert_eq!(exact.items.len(), total);
    assert!(!exact.limit_hit, "limit equal to the count is not a hit");
    let none = alignments(&a, &b, 0);
    assert!(none.items.is_empty());
    assert!(none.limit_hit);
}

#[test]
fn empty_and_disjoint_inputs() {
    assert_eq!(nakatsu(&[], &[]).len(), 0);
    assert_eq!(nakatsu(&[1, 2], &[]).len(), 0);
    assert_eq!(nakatsu(&[], &[1, 2]).len(), 0);
    assert_eq!(nakatsu(&[1, 2, 3], &[4, 5]).len(), 0);
    let all = alignments(&[1, 2, 3], &[4, 5], 10);
    assert_eq!(all.items.len(), 1);
    assert!(all.items[0].is_empty());
    assert!(!all.limit_hit);
    assert_eq!(first_lcs(&[1, 2, 3], &[4, 5]), vec![0, 1]);
}

#[test]
fn cell_budget_refuses_large_tables() {
    let a: Vec<u32> = (0..100).collect();
    let b: Vec<u32> = (0..100).rev().collect();
    assert!(LcsTable::build(&a, &b, 10).is_none());
    let table = LcsTable::build(&a, &b, usize::MAX).expect("no budget");
    assert_eq!(table.len(), 1);
    assert!(table.cells() <= table.diagonals() * table.len());
}

// ---------------------------------------------------------------- against plain DP

fn arrays(max_len: usize) -> impl Strategy<Value = (Vec<u32>, Vec<u32>)> {
    (1u32..=6).prop_flat_map(move |alphabet| {
        (
            prop::collection::vec(0..alphabet, 0..max_len),
            prop::collection::vec(0..alphabet, 0..max_len),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn nakatsu_and_alignments_match_dp((a, b) in arrays(60)) {
        let t = dp_lcs(&a, &b);
        let lcs = nakatsu(&a, &b);
        prop_assert_eq!(lcs.len(), t);
        assert_valid(&a, &b, lcs.pairs());
        let all = alignments(&a, &b, 40);
        prop_assert_eq!(all.lcs_len, t);
        prop_assert!(!all.items.is_empty());
        let mut seen = HashSet::new();
        for item in &all.items {
            prop_assert_eq!(item.len(), t);
            assert_valid(&a, &b, item.pairs());
            prop_assert!(seen.insert(b_set(item.pairs())), "duplicate alignment");
        }
        if a.len() <= b.len() {
            prop_assert_eq!(&all.items[0], &lcs);
        }
    }

    #[test]
    fn enumeration_is_complete_on_small_arrays((a, b) in arrays(11)) {
        let all = alignments(&a, &b, usize::MAX);
        prop_assert!(!all.limit_hit);
        let got: HashSet<Vec<usize>> = all.items.iter().map(|x| b_set(x.pairs())).collect();
        prop_assert_eq!(got.len(), all.items.len());
        prop_assert_eq!(got, brute_b_sets(&a, &b));
    }

    #[test]
    fn myers_is_minimal((a, b) in arrays(60)) {
        let pairs = myers_matches(&a, &b);
        assert_valid(&a, &b, &pairs);
        prop_assert_eq!(pairs.len(), dp_lcs(&a, &b));
        prop_assert_eq!(myers(&a, &b).len(), b.len() - pairs.len());
    }

    #[test]
    fn myers_is_minimal_on_lopsided_arrays(
        a in prop::collection::vec(0u32..4, 0..8),
        b in prop::collection::vec(0u32..4, 0..150),
        swap in any::<bool>(),
    ) {
        let (a, b) = if swap { (b, a) } else { (a, b) };
        let pairs = myers_matches(&a, &b);
        assert_valid(&a, &b, &pairs);
        prop_assert_eq!(pairs.len(), dp_lcs(&a, &b));
    }

    #[test]
    fn diff_keys_inserted_is_set_difference((old, new) in arrays(60)) {
        let out = diff_keys(&old, &new, 16);
        prop_assert!(!out.fallback);
        prop_assert_eq!(out.lcs_len, dp_lcs(&old, &new));
        prop_assert_eq!(&out.inserted, &set_difference(&old, &new));
        prop_assert_eq!(out.inserted.len() + out.moved.len(), new.len() - out.lcs_len);
        let in_old: HashSet<u32> = old.iter().copied().collect();
        prop_assert!(out.moved.iter().all(|&j| in_old.contains(&new[j])));
        prop_assert!(out.moved.windows(2).all(|w| w[0] < w[1]));
        // The unmatched positions (inserted and moved) are those of a true LCS: what stays
        // matched is a common subsequence of length t.
        let unmatched: HashSet<usize> = out.inserted.iter().chain(&out.moved).copied().collect();
        let kept: Vec<u32> = (0..new.len()).filter(|j| !unmatched.contains(j)).map(|j| new[j]).collect();
        prop_assert_eq!(dp_lcs(&old, &kept), kept.len());
        // The rejection count is the same for every alignment (module docs).
        let all = alignments(&old, &new, 20);
        let counts: HashSet<usize> = all.items.iter().map(|x| {
            x.unmatched_b(new.len()).iter().filter(|&&j| in_old.contains(&new[j])).count()
        }).collect();
        prop_assert_eq!(counts.len(), 1);
    }

    #[test]
    fn stripping_does_not_change_results((old, new) in arrays(60), head in prop::collection::vec(10u32..14, 0..6), tail in prop::collection::vec(10u32..14, 0..6)) {
        // Add a shared head and tail so that there is something to strip.
        let old: Vec<u32> = head.iter().chain(&old).chain(&tail).copied().collect();
        let new: Vec<u32> = head.iter().chain(&new).chain(&tail).copied().collect();
        let stripped = diff_impl(&old, &new, 16, Limits::DEFAULT, true);
        let full = diff_impl(&old, &new, 16, Limits::DEFAULT, false);
        prop_assert_eq!(stripped.lcs_len, full.lcs_len);
        prop_assert_eq!(&stripped.inserted, &full.inserted);
        // Which occurrences are `moved` may differ (another LCS alignment), not how many.
        prop_assert_eq!(stripped.moved.len(), full.moved.len());
        prop_assert_eq!(stripped.fallback, full.fallback);
    }

    #[test]
    fn fallback_agrees_on_inserted((old, new) in arrays(60)) {
        let tiny = Limits { cells: 3, ..Limits::DEFAULT };
        let out = diff_keys_with_limits(&old, &new, 16, tiny);
        let exact = diff_keys(&old, &new, 16);
        prop_assert_eq!(&out.inserted, &exact.inserted);
        prop_assert!(out.lcs_len >= exact.lcs_len);
        if out.fallback {
            prop_assert_eq!(out.alignments_examined, 0);
            prop_assert_eq!(out.inserted.len() + out.moved.len(), new.len() - out.lcs_len);
        }
    }
}

// ---------------------------------------------------------------- the improvement

const A: u32 = 1;
const B: u32 = 2;
const C: u32 = 3;
const D: u32 = 4;
const X: u32 = 5;
const RM: u32 = 9;

#[test]
fn read_more_list_gets_one_new_item() {
    let old = [A, RM, B, RM, C, RM];
    let new = [X, RM, A, RM, B, RM, C, RM];
    let out = diff_keys(&old, &new, DEFAULT_MAX_ALIGNMENTS);
    assert_eq!(out.inserted, vec![0], "only X is new");
    assert_eq!(out.moved.len(), 1, "the extra Read more is moved");
    assert_eq!(new[out.moved[0]], RM);
    assert_eq!(out.lcs_len, 6);
    assert!(!out.fallback);
    assert!(out.alignments_examined >= 1);
    // The baseline reports the extra Read more as new.
    let base = first_lcs(&old, &new);
    assert_eq!(base.len(), 2);
    assert!(base.contains(&0));
}

#[test]
fn bumped_item_is_moved_not_new() {
    let old = [A, B, C, D];
    let new = [C, A, B, D];
    let out = diff_keys(&old, &new, DEFAULT_MAX_ALIGNMENTS);
    assert!(out.inserted.is_empty());
    assert_eq!(out.moved, vec![0]);
    assert_eq!(out.lcs_len, 3);
    assert_eq!(first_lcs(&old, &new), vec![0], "the baseline calls it new");
}

/// The one case where the alignment choice shows: repeated keys. Several LCS alignments
/// leave different occurrences unmatched; after classification `inserted` is the same for
/// all (empty here) and only which occurrence is `moved` depends on the alignment.
#[test]
fn alignment_choice_matters_only_for_multiplicities() {
    let old = [A, RM, B];
    // C and D keep the common prefix and suffix empty, so the enumeration is not skipped.
    let new = [C, A, RM, RM, B, D];
    let all = alignments(&old, &new, 10);
    assert!(!all.limit_hit);
    let unmatched: HashSet<Vec<usize>> = all.items.iter().map(|x| x.unmatched_b(6)).collect();
    assert_eq!(unmatched, HashSet::from([vec![0, 2, 5], vec![0, 3, 5]]));
    let out = diff_keys(&old, &new, DEFAULT_MAX_ALIGNMENTS);
    assert_eq!(out.inserted, vec![0, 5]);
    assert!(out.moved == vec![2] || out.moved == vec![3]);
    // No alignment passes the rejection test, and none can do better than the first (the
    // count is the same for all), so only the first is examined.
    assert_eq!(out.alignments_examined, 1);
    let capped = diff_keys(&old, &new, 1);
    assert_eq!(capped.alignments_examined, 1);
    assert_eq!(capped.inserted, out.inserted);
    assert_eq!(capped.moved.len(), out.moved.len());
    // Stripping the common prefix and suffix settles such cases without enumeration.
    let out = diff_keys(&old, &[A, RM, RM, B], DEFAULT_MAX_ALIGNMENTS);
    assert!(out.inserted.is_empty());
    assert_eq!(out.moved.len(), 1);

    // With a new key among them the first alignment passes and nothing more is examined.
    let new = [X, A, RM, B];
    let out = diff_keys(&old, &new, DEFAULT_MAX_ALIGNMENTS);
    assert_eq!(out.inserted, vec![0]);
    assert!(out.moved.is_empty());
    assert_eq!(out.alignments_examined, 1);
}

#[test]
fn identical_and_empty_arrays() {
    let same = [A, B, C];
    let out = diff_keys(&same, &same, 8);
    assert!(out.inserted.is_empty() && out.moved.is_empty());
    assert_eq!(out.lcs_len, 3);
    let out = diff_keys(&[], &same, 8);
    assert_eq!(out.inserted, vec![0, 1, 2]);
    assert_eq!(out.lcs_len, 0);
    let out = diff_keys(&same, &[], 8);
    assert!(out.inserted.is_empty() && out.moved.is_empty());
}

#[test]
fn unrelated_large_pages_are_cheap() {
    let old: Vec<u32> = (0..10_000).collect();
    let new: Vec<u32> = (10_000..20_000).collect();
    let out = diff_keys(&old, &new, DEFAULT_MAX_ALIGNMENTS);
    // nothing in common: every element is set aside, no table is built
    assert_eq!(out.inserted, (0..10_000).collect::<Vec<_>>());
    assert!(out.moved.is_empty());
    assert_eq!(out.lcs_len, 0);
}

#[test]
fn large_similar_pages_do_not_fall_back() {
    // 10,000 links, 50 new ones spread through the page (no common prefix or suffix).
    let old: Vec<u32> = (0..10_000).collect();
    let mut new: Vec<u32> = Vec::new();
    for (q, &x) in old.iter().enumerate() {
        if q % 200 == 0 {
            new.push(100_000 + x);
        }
        new.push(x);
    }
    new.push(200_000);
    let out = diff_keys(&old, &new, DEFAULT_MAX_ALIGNMENTS);
    assert!(!out.fallback);
    assert_eq!(out.lcs_len, 10_000);
    assert_eq!(out.inserted.len(), 51);
    assert_eq!(out.alignments_examined, 1);
}

#[test]
fn scrambled_large_pages_hit_the_cell_budget() {
    // A shuffle of the same 3,000 keys: t is small and the table would need about
    // (m - t) · t cells; with a small cell budget the diff falls back.
    let old: Vec<u32> = (0..3_000).collect();
    let new: Vec<u32> = (0..3_000).map(|x| (x * 7919) % 3_000).collect();
    let limits = Limits {
        cells: 10_000,
        ..Limits::DEFAULT
    };
    let out = diff_keys_with_limits(&old, &new, 8, limits);
    assert!(out.fallback);
    assert!(out.inserted.is_empty() && out.moved.is_empty());
    assert_eq!(out.lcs_len, 3_000);
}

#[test]
fn enumeration_stops_after_the_first_alignment_even_without_a_step_limit() {
    let old = [RM, A, RM, B, RM, C, RM];
    let new = [RM, RM, A, RM, RM, B, RM, RM, C, RM, RM];
    let limits = Limits {
        steps: 0,
        ..Limits::DEFAULT
    };
    let out = diff_keys_with_limits(&old, &new, 100, limits);
    assert_eq!(out.alignments_examined, 1);
    // the first alignment settles the choice, so the step limit is never reached
    assert!(!out.bound_hit);
    assert!(out.inserted.is_empty());
    assert_eq!(out.moved.len(), 4);
}

// ---------------------------------------------------------------- baselines

#[test]
fn baselines_on_a_small_case() {
    let old = [A, B, C, D];
    let new = [X, C, A, B, D, X];
    assert_eq!(set_difference(&old, &new), vec![0, 5]);
    assert_eq!(first_lcs(&old, &new), vec![0, 1, 5]);
    assert_eq!(myers(&old, &new).len(), 3);
    assert!(myers(&old, &new).contains(&0));
}

// ---------------------------------------------------------------- links

fn link(text: &str, url: &str) -> Link {
    Link::new(text, url)
}

#[test]
fn interner_is_dense_and_stable() {
    let mut i = Interner::new();
    assert!(i.is_empty());
    assert_eq!(i.intern_all(["a", "b", "a", "c"]), vec![0, 1, 0, 2]);
    assert_eq!(i.len(), 3);
    assert_eq!(i.get("b"), Some(1));
    assert_eq!(i.get("z"), None);
}

#[test]
fn link_key_joins_text_and_url() {
    let a = link("Details >", "https://x.test/1");
    let b = link("Details >", "https://x.test/2");
    assert_ne!(link_key(&a), link_key(&b));
    assert_eq!(link_key(&a), "Details >\u{1f}https://x.test/1");
}

#[test]
fn new_links_filters_seen_and_duplicate_urls() {
    let old = vec![
        link("Alpha", "https://x.test/a"),
        link("Details >", "https://x.test/a"),
        link("Beta", "https://x.test/b"),
        link("Details >", "https://x.test/b"),
        link("About", "https://x.test/about"),
    ];
    let new = vec![
        link("Gamma", "https://x.test/g"),
        link("Details >", "https://x.test/g"),
        link("Delta", "https://x.test/d"),
        link("Details >", "https://x.test/d"),
        link("Alpha", "https://x.test/a"),
        link("Details >", "https://x.test/a"),
        link("Beta", "https://x.test/b"),
        link("Details >", "https://x.test/b"),
        link("About", "https://x.test/about"),
        link("About", "https://x.test/about"),
    ];
    let nothing_seen = |_: &Link| false;
    // Gamma and Delta, each once although "Details >" links to them too; the repeated
    // About link is moved, not new.
    assert_eq!(new_links(&old, &new, &nothing_seen), vec![0, 2]);
    // Delta was already emitted by this watch: never again.
    let delta_seen = |l: &Link| l.url == "https://x.test/d";
    assert_eq!(new_links(&old, &new, &delta_seen), vec![0]);
    // A bumped item is not new either.
    let bumped = vec![
        link("Beta", "https://x.test/b"),
        link("Alpha", "https://x.test/a"),
        link("Details >", "https://x.test/a"),
        link("Details >", "https://x.test/b"),
        link("About", "https://x.test/about"),
    ];
    assert!(new_links(&old, &bumped, &nothing_seen).is_empty());
}

#[test]
fn new_links_on_first_check_and_identical_pages() {
    let page = vec![
        link("One", "https://x.test/1"),
        link("Two", "https://x.test/2"),
    ];
    assert_eq!(new_links(&[], &page, &|_: &Link| false), vec![0, 1]);
    assert!(new_links(&page, &page, &|_: &Link| false).is_empty());
}

/// [`new_links`] as the improved LCS answers it: the links interned by (text, URL), the
/// `inserted` of [`diff_keys`], then the same filters.
fn new_links_by_lcs<'a>(
    old: &'a [Link],
    new: &'a [Link],
    seen: &dyn Fn(&Link) -> bool,
) -> Vec<usize> {
    let mut ids: crate::hash::HashMap<(&str, &str), u32> = crate::hash::HashMap::default();
    let mut intern = |l: &'a Link| {
        let next = u32::try_from(ids.len()).expect("few keys");
        *ids.entry((l.text.as_str(), l.url.as_str())).or_insert(next)
    };
    let old_ids: Vec<u32> = old.iter().map(&mut intern).collect();
    let new_ids: Vec<u32> = new.iter().map(&mut intern).collect();
    let mut urls = std::collections::HashSet::new();
    diff_keys(&old_ids, &new_ids, DEFAULT_MAX_ALIGNMENTS)
        .inserted
        .into_iter()
        .filter(|&j| !seen(&new[j]))
        .filter(|&j| urls.insert(new[j].url.as_str()))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// The links a check emits are those the improved LCS reports inserted, filtered
    /// alike: with texts and URLs repeated, moved, shared between links, and some seen.
    #[test]
    fn new_links_are_the_lcs_inserted_ones(
        old in proptest::collection::vec(("[ab]{0,1}", "[a-f]"), 0..40),
        new in proptest::collection::vec(("[ab]{0,1}", "[a-h]"), 0..40),
        seen_urls in "[a-h]{0,3}",
    ) {
        let old: Vec<Link> = old.into_iter().map(|(t, u)| link(&t, &u)).collect();
        let new: Vec<Link> = new.into_iter().map(|(t, u)| link(&t, &u)).collect();
        let seen = |l: &Link| seen_urls.contains(l.url.as_str());
        prop_assert_eq!(new_links(&old, &new, &seen), new_links_by_lcs(&old, &new, &seen));
    }
}
