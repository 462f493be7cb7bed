//! Finding the links that a page gained: the improved LCS of `docs/design.md` §2 (from
//! sections 1.4 and 1.5 of *Website Update Monitor Based on Web Crawler and Improved LCS
//! Algorithms*).
//!
//! The stored link array (old) and the fresh one (new) are compared as arrays of interned
//! keys ([`Interner`], [`link_key`]). [`diff_keys`] strips the common prefix and suffix,
//! runs Nakatsu's LCS ([`lcs`]) on the rest, examines LCS alignments, and reports the
//! elements of new that no alignment-chosen LCS matched, split into really new ones
//! (`inserted`) and ones whose key stands in old (`moved`). [`new_links`] is the product's
//! entry point: the `inserted` links (which it finds without the LCS table, as below),
//! with selective extraction (never emit what this watch already saw) and URL
//! de-duplication; a check, which holds the last page's links by URL already, calls it
//! as [`new_links_where`]. [`baseline`] holds the methods the evaluation compares against.
//!
//! # What the choice of alignment can change
//!
//! Every LCS alignment leaves exactly `n - t` elements of new unmatched, and every element
//! of new whose key does not occur in old is unmatched in *every* alignment (it has no
//! equal partner). So the number of unmatched elements whose key does occur in old is
//! `n - t - |{j : new[j] not in old}|` for every alignment alike. Two consequences:
//!
//! * the paper's rejection test ("an inserted string must not stand on the old page")
//!   passes for all LCS alignments or for none, and "the fewest inserted keys in old" is a
//!   tie between all of them: the alignment kept is always the first one examined;
//! * after the final classification, `inserted` is exactly the set of positions of new
//!   whose key is absent from old (the same as [`baseline::set_difference`]), whatever
//!   alignment is kept. The choice only decides *which* positions are reported as `moved`:
//!   with repeated keys ("Read more" links, multiplicities), which occurrence is the extra
//!   one; with reordered keys, which of the swapped items moved.
//!
//! So [`diff_keys`] examines one alignment, the one Nakatsu's table spells
//! ([`LcsTable::lcs`]): examining more can never change the outcome, and it cost 20× at
//! n = 1,000 (`benches/diff.rs`). The bounded enumeration of `docs/design.md` §2 stays
//! available as [`alignments`] and [`LcsTable::for_each_alignment`], tested against
//! brute force.
//!
//! May use: hash, model.

pub mod baseline;
pub mod lcs;

use crate::hash::{HashMap, HashSet};

use crate::model::Link;

pub use lcs::{alignments, nakatsu, Alignments, Lcs, LcsTable};

/// Maps strings to dense `u32` ids (0, 1, 2, … in order of first sight), so that arrays of
/// strings can be compared as arrays of integers. Equal strings get equal ids within one
/// interner; ids from different interners are unrelated.
#[derive(Debug, Default, Clone)]
pub struct Interner {
    ids: HashMap<String, u32>,
}

impl Interner {
    /// An empty interner.
    pub fn new() -> Self {
        Self::default()
    }

    /// The id of `s`, allocating the next one if `s` is new.
    pub fn intern(&mut self, s: &str) -> u32 {
        if let Some(&id) = self.ids.get(s) {
            return id;
        }
        let id = u32::try_from(self.ids.len())
            .expect("invariant: fewer than 2^32 distinct keys in one comparison");
        self.ids.insert(s.to_owned(), id);
        id
    }

    /// The ids of `strings`, in order.
    #[cfg(test)]
    pub(crate) fn intern_all<'a>(
        &mut self,
        strings: impl IntoIterator<Item = &'a str>,
    ) -> Vec<u32> {
        strings.into_iter().map(|s| self.intern(s)).collect()
    }

    /// The id of `s` if it was interned.
    pub fn get(&self, s: &str) -> Option<u32> {
        self.ids.get(s).copied()
    }

    /// The number of distinct strings interned.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether nothing was interned.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }
}

/// The comparison key of a link: its text and URL together, separated by U+001F (unit
/// separator, which normalized link text and URLs do not contain). Both count because on
/// some sites link texts are generic ("Details >") and new entries differ only by URL.
pub fn link_key(link: &Link) -> String {
    format!("{}\u{1f}{}", link.text, link.url)
}

/// How many alignments [`new_links`] examines.
pub const DEFAULT_MAX_ALIGNMENTS: usize = 64;

/// The work limits of [`diff_keys_with_limits`]. Past any of them the diff does not fail:
/// it falls back or stops enumerating, and says so in [`DiffOutcome`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Up-front cap on `(m - u + 1) · m`, where `m` is the shorter length after stripping
    /// the common prefix and suffix and `u` the size of the multiset intersection of the two
    /// arrays. Since `t <= u`, at least `m - u + 1` diagonals of Nakatsu's matrix are needed
    /// and `(m - u + 1) · m` is the paper's `O(n (m - t))` bound at its most favourable.
    /// Above the cap the arrays are too unlike for an alignment to mean anything and the
    /// diff falls back at once, without building anything (e.g. two unrelated pages of
    /// 10,000 links: `10,001 · 10,000 > 2^24`).
    pub work: usize,
    /// Hard cap on the cells of Nakatsu's matrix (4 bytes each), which bounds memory and the
    /// table's time (one binary search per cell). Checked while the table grows; above it
    /// the diff falls back.
    pub cells: usize,
    /// Cap on candidate tests of an alignment enumeration after the first alignment
    /// (see [`LcsTable::for_each_alignment`]). [`diff_keys_with_limits`] no longer
    /// enumerates (it keeps the first alignment), so it does not use this.
    pub steps: usize,
}

impl Limits {
    /// `work` 2^24, `cells` 2^21 (8 MiB), `steps` 2^20: a few tens of milliseconds at most.
    /// A page of 1,000 links always fits (at most `(m - t + 1) · t <= 250,500` cells); one
    /// of 10,000 links fits when its LCS misses at most about 200 links (2%) outside the
    /// common prefix and suffix.
    pub const DEFAULT: Self = Self {
        work: 1 << 24,
        cells: 1 << 21,
        steps: 1 << 20,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// The result of comparing an old array of keys with a new one.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DiffOutcome {
    /// Indices into new, in page order, of elements whose key does not occur in old: the
    /// new items.
    pub inserted: Vec<usize>,
    /// Indices into new, in page order, that the kept LCS alignment left unmatched but whose
    /// key does occur in old: a moved or repeated item, not a new one. Disjoint from
    /// `inserted`.
    pub moved: Vec<usize>,
    /// The LCS length of the whole arrays (common prefix and suffix included). Under
    /// `fallback`, the number of elements paired by the multiset difference instead, which
    /// is an upper bound of the LCS length.
    pub lcs_len: usize,
    /// How many LCS alignments the rejection test examined (0 under `fallback`).
    pub alignments_examined: usize,
    /// The enumeration stopped at `max_alignments` or at the step limit while alignments
    /// may remain unexamined. Never set under `fallback`.
    pub bound_hit: bool,
    /// The LCS was not computed because the arrays exceeded [`Limits`]; the result comes
    /// from the multiset difference (see [`diff_keys_with_limits`]).
    pub fallback: bool,
}

/// The improved LCS diff of `old` against `new` with [`Limits::DEFAULT`]; see
/// [`diff_keys_with_limits`].
pub fn diff_keys(old: &[u32], new: &[u32], max_alignments: usize) -> DiffOutcome {
    diff_keys_with_limits(old, new, max_alignments, Limits::DEFAULT)
}

/// The improved LCS diff of `old` against `new` (`docs/design.md` §2).
///
/// 1. Strip the common prefix and suffix (they belong to an LCS; most list pages change at
///    the top, so what remains is usually small).
/// 2. Set aside the elements whose key does not occur on the other side (they can never
///    be matched). Unless [`Limits`] say the rest is too large, run Nakatsu's algorithm on
///    it and take the LCS alignment it spells. The paper's rejection test (fewest
///    unmatched elements of new whose key occurs in old) ties between all alignments
///    (module docs), so this first one is kept; `max_alignments` and `limits.steps` no
///    longer bound anything here and are kept for the callers' sake.
/// 3. Classify the unmatched elements of new: key absent from old → `inserted`; key
///    present in old → `moved`.
///
/// Fallback (`fallback = true`): when `(m - u + 1) · m > limits.work` or the table would
/// exceed `limits.cells` cells, the middle parts are compared as multisets instead: each
/// element of new, in page order, is paired with an unpaired equal element of old if one
/// is left, and the unpaired ones are classified as in step 3. `inserted` is the same as
/// the LCS would give; `moved` then holds only surplus occurrences of repeated keys (not
/// reorderings).
///
/// Guarantees: `inserted` and `moved` are disjoint, increasing, and together are the
/// elements of new left unmatched by an LCS (or by the multiset pairing under fallback);
/// `inserted` is always `{ j : new[j] does not occur in old }`.
/// Cost: `O(n + m)` (keys are renumbered densely, hashing only sparse ones) plus, unless
/// falling back, the table within `limits`.
pub(crate) fn diff_keys_with_limits(
    old: &[u32],
    new: &[u32],
    max_alignments: usize,
    limits: Limits,
) -> DiffOutcome {
    diff_impl(old, new, max_alignments, limits, true)
}

fn diff_impl(
    old: &[u32],
    new: &[u32],
    max_alignments: usize,
    limits: Limits,
    strip: bool,
) -> DiffOutcome {
    let (pre, suf) = if strip {
        common_affixes(old, new)
    } else {
        (0, 0)
    };
    // Dense symbol numbers: the sets and counts below are arrays, not hash tables (the
    // hashing was most of the cost at n = 1,000).
    let (old_d, new_d, alphabet) = lcs::dense(old, new);
    let mut in_old = vec![false; alphabet];
    for &x in &old_d {
        in_old[x as usize] = true;
    }
    let old_mid = &old_d[pre..old.len() - suf];
    let new_mid = &new_d[pre..new.len() - suf];
    let classify = |unmatched_mid: &[usize], outcome: &mut DiffOutcome| {
        for &j in unmatched_mid {
            if in_old[new_mid[j] as usize] {
                outcome.moved.push(pre + j);
            } else {
                outcome.inserted.push(pre + j);
            }
        }
    };

    // Elements whose key does not occur on the other side can never be matched: set them
    // aside (as GNU diff does), so the table is built for the rest only. An LCS of the
    // rest is an LCS of the whole; the set-aside elements of new are all `inserted`.
    let mut in_old_mid = vec![false; alphabet];
    for &x in old_mid {
        in_old_mid[x as usize] = true;
    }
    let mut in_new_mid = vec![false; alphabet];
    for &x in new_mid {
        in_new_mid[x as usize] = true;
    }
    let old_at: Vec<usize> = (0..old_mid.len())
        .filter(|&i| in_new_mid[old_mid[i] as usize])
        .collect();
    let new_at: Vec<usize> = (0..new_mid.len())
        .filter(|&j| in_old_mid[new_mid[j] as usize])
        .collect();
    let a: Vec<u32> = old_at.iter().map(|&i| old_mid[i]).collect();
    let b: Vec<u32> = new_at.iter().map(|&j| new_mid[j]).collect();
    let m = a.len().min(b.len());
    let u = multiset_intersection(&a, &b, alphabet);
    let table = if (m - u + 1).saturating_mul(m) > limits.work {
        None
    } else {
        LcsTable::build(&a, &b, limits.cells)
    };
    let Some(table) = table else {
        let (paired, unpaired) = multiset_difference(old_mid, new_mid, alphabet);
        let mut outcome = DiffOutcome {
            lcs_len: pre + suf + paired,
            fallback: true,
            ..DiffOutcome::default()
        };
        classify(&unpaired, &mut outcome);
        return outcome;
    };

    // The rejection test counts the unmatched elements whose key occurs in old. That count
    // is the same for every LCS alignment (module docs), so the first alignment is as good
    // as any other and examining more could never change the choice (64 of them cost 20x
    // at n = 1,000 in `benches/diff.rs`). The first alignment is the one Nakatsu's table
    // spells by tracing back ([`LcsTable::lcs`], `O(m)`); the bounded enumeration
    // ([`LcsTable::for_each_alignment`], [`alignments`]) stays for callers that want more.
    // `max_alignments` and `limits.steps` bound nothing here any more.
    let _ = (max_alignments, limits.steps);
    let unmatched = lcs::unmatched(
        table.lcs().pairs().iter().map(|&(_, j)| new_at[j]),
        new_mid.len(),
    );
    let mut outcome = DiffOutcome {
        lcs_len: pre + suf + table.len(),
        alignments_examined: 1,
        bound_hit: false,
        ..DiffOutcome::default()
    };
    classify(&unmatched, &mut outcome);
    outcome
}

/// The lengths of the longest common prefix and then the longest common suffix of the
/// remainders (they never overlap).
fn common_affixes(a: &[u32], b: &[u32]) -> (usize, usize) {
    let pre = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suf = a[pre..]
        .iter()
        .rev()
        .zip(b[pre..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    (pre, suf)
}

/// The size of the multiset intersection of `a` and `b` (symbols below `alphabet`): an
/// upper bound of their LCS length.
fn multiset_intersection(a: &[u32], b: &[u32], alphabet: usize) -> usize {
    let mut counts = vec![0u32; alphabet];
    for &x in a {
        counts[x as usize] += 1;
    }
    let mut common = 0;
    for &x in b {
        let c = &mut counts[x as usize];
        if *c > 0 {
            *c -= 1;
            common += 1;
        }
    }
    common
}

/// Pairs each element of `new`, in order, with an unpaired equal element of `old` if one
/// is left (symbols below `alphabet`). Returns the number paired and the indices of `new`
/// left unpaired, increasing.
fn multiset_difference(old: &[u32], new: &[u32], alphabet: usize) -> (usize, Vec<usize>) {
    let mut counts = vec![0u32; alphabet];
    for &x in old {
        counts[x as usize] += 1;
    }
    let mut paired = 0;
    let mut unpaired = Vec::new();
    for (j, &x) in new.iter().enumerate() {
        let c = &mut counts[x as usize];
        if *c > 0 {
            *c -= 1;
            paired += 1;
        } else {
            unpaired.push(j);
        }
    }
    (paired, unpaired)
}

/// The indices of the links of `new` to emit as new feed items, in page order.
///
/// Links are compared by [`link_key`]. Returned: the links that [`diff_keys`] reports
/// `inserted` (key absent from old; `moved` ones are never returned) for which `seen` is
/// `false` (selective extraction: never emit what this watch already saw), and of those
/// only the first link with each URL.
///
/// `inserted` is the same for every LCS alignment: exactly the links whose key does not
/// stand in old (module docs). The LCS decides only which links are `moved`, which this
/// function never returns, so a check looks each key up in a set of old's keys instead of
/// building the LCS table: the same links, without the table's work (a property test holds
/// it to the LCS's answer).
pub fn new_links<'a>(old: &'a [Link], new: &'a [Link], seen: &dyn Fn(&Link) -> bool) -> Vec<usize> {
    // Keyed by (text, URL) borrowed from the arrays: the pair is [`link_key`]'s equality
    // without building a key string per link.
    let mut in_old: HashSet<(&str, &str)> = HashSet::default();
    in_old.reserve(old.len());
    in_old.extend(old.iter().map(|l| (l.text.as_str(), l.url.as_str())));
    new_links_where(
        new,
        &|_, l: &Link| in_old.contains(&(l.text.as_str(), l.url.as_str())),
        seen,
    )
}

/// [`new_links`] for a caller that already holds the old page's keys: `stood(j, l)`, for
/// `l` = `new[j]`, says whether `l`'s (text, URL) pair stands on the old page. A caller
/// whose `seen` holds every URL of the old page may answer by the URL alone: a link whose
/// URL stood there is left out either way.
pub fn new_links_where(
    new: &[Link],
    stood: &dyn Fn(usize, &Link) -> bool,
    seen: &dyn Fn(&Link) -> bool,
) -> Vec<usize> {
    let mut urls: HashSet<&str> = HashSet::default();
    new.iter()
        .enumerate()
        .filter(|&(j, l)| !stood(j, l))
        .filter(|&(_, l)| !seen(l))
        .filter(|(_, l)| urls.insert(l.url.as_str()))
        .map(|(j, _)| j)
        .collect()
}

#[cfg(test)]
mod tests;
