//! Longest common subsequence (LCS) of two arrays of interned keys, by Nakatsu, Kambayashi
//! and Yajima (1982), and the enumeration of LCS alignments that the improved diff needs
//! (`docs/design.md` §2; sections 1.4 and 1.5 of *Website Update Monitor Based on Web
//! Crawler and Improved LCS Algorithms*).
//!
//! # Notation
//!
//! As in the paper, `A = A[1..m]` is the shorter array and `B = B[1..n]` the longer one
//! (the functions here swap their arguments internally when needed and always report
//! pairs as `(index in a, index in b)`, 0-based). `L_i(k)` is the smallest `j` such that
//! `LCS(A[1..i], B[1..j])` has length `k`. Theorem 4: `L_{i+1}(k) = min(j, L_i(k))`, where
//! `j` is the smallest index with `A[i+1] = B[j]` and `j > L_i(k-1)` (`L_i(0) = 0`).
//!
//! The cell `(k, i)` lies on diagonal `d = i - k + 1`; it depends on `(k - 1, i - 1)` (the
//! previous cell of the same diagonal) and on `(k, i - 1)` (the same row of diagonal
//! `d - 1`). So the matrix is filled diagonal by diagonal: diagonal `d` runs
//! `L(1, d), L(2, d + 1), …` until a cell is undefined (then every later cell of that
//! diagonal is undefined too) or until it reaches row `m`. The first diagonal that reaches
//! row `m` is diagonal `d* = m - t + 1`, where `t` is the LCS length; the computation stops
//! there. At most `m - t + 1` diagonals of at most `t` cells are stored, and each cell costs
//! one binary search in the occurrence list of a symbol: `O((m - t + 1) · t · log n)` time
//! and `O((m - t + 1) · t + n)` memory — within the paper's `O(n (m - t))`.
//!
//! # Carried-over cells
//!
//! A cell where `L_{i+1}(k) = L_i(k)` was carried over ("virtual point" in the paper) does
//! not stand for a match of `A[i+1]`. The values on the final diagonal therefore do *not*
//! in general spell an LCS; [`LcsTable::lcs`] traces back through the table (a cell is a
//! real match iff `A[i] = B[L_i(k)]` and `L_{i-1}(k-1) < L_i(k)`, otherwise it was carried
//! over from `(k, i - 1)`).

// The paper's notation: a, b, i, j, k, m, n, t, d.
#![allow(clippy::many_single_char_names)]

use crate::hash::HashMap;
use std::ops::ControlFlow;

/// Marks "undefined" in the stored matrix and "absent" in lookups. Positions are 1-based,
/// so a valid position is always below this.
const NONE: u32 = u32::MAX;

/// One LCS alignment: the matched index pairs `(index in a, index in b)`, 0-based,
/// strictly increasing in both components, with `a[i] == b[j]` for every pair.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Lcs {
    pairs: Vec<(usize, usize)>,
}

impl Lcs {
    /// The LCS length `t` (the number of matched pairs).
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// Whether the two arrays have no element in common.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// The matched pairs `(i_a, j_b)`, increasing in both components.
    pub fn pairs(&self) -> &[(usize, usize)] {
        &self.pairs
    }

    /// The indices `0..b_len` of `b` that this alignment leaves unmatched ("inserted"), in
    /// increasing order. `b_len` must be the length of the `b` the alignment was made for.
    pub(crate) fn unmatched_b(&self, b_len: usize) -> Vec<usize> {
        unmatched(self.pairs.iter().map(|&(_, j)| j), b_len)
    }
}

/// The indices of `0..len` not yielded by `matched`, which must be strictly increasing and
/// below `len`.
pub(crate) fn unmatched(matched: impl IntoIterator<Item = usize>, len: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut next = 0;
    for j in matched {
        out.extend(next..j);
        next = j + 1;
    }
    out.extend(next..len);
    out
}

/// A bounded set of LCS alignments of `a` and `b`, as returned by [`alignments`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Alignments {
    /// The LCS length `t`; every item has exactly this many pairs.
    pub lcs_len: usize,
    /// Distinct LCS alignments: no two of them match the same set of indices of `b` (so no
    /// two leave the same elements of `b` "inserted"). Never empty unless `limit` was 0.
    pub items: Vec<Lcs>,
    /// `true` iff more alignments exist than were returned (the enumeration stopped at
    /// `limit` and found that at least one more exists). `false` means `items` holds
    /// every distinct set of matched `b` indices.
    pub limit_hit: bool,
}

/// One LCS of `a` and `b` by Nakatsu, Kambayashi and Yajima (1982).
///
/// Guarantees: `len()` is the LCS length; the pairs strictly increase in both components
/// and match equal keys. The alignment is the one found by tracing back from the end of
/// the final diagonal (for each pair, from the last: the largest index of the shorter
/// array, matched to the smallest possible index of the longer one).
///
/// Cost: `O((m - t + 1) · t · log n + n)` time and `O((m - t + 1) · t + n)` memory, with
/// `m` the shorter length, `n` the longer and `t` the LCS length. No cap: callers that take
/// arbitrary input should use [`LcsTable::build`] with a cell budget.
pub fn nakatsu(a: &[u32], b: &[u32]) -> Lcs {
    LcsTable::build(a, b, usize::MAX)
        .expect("invariant: no cell budget, and page arrays are shorter than 2^32 - 1")
        .lcs()
}

/// Up to `limit` distinct LCS alignments of `a` and `b` (the paper's "all LCSs", bounded).
///
/// Guarantees: every item is a true LCS alignment (length `t`, pairs strictly increasing
/// in both components, equal keys); no two items match the same set of `b` indices; when
/// `limit_hit` is `false` the items are *all* such sets. Alignments that differ only in
/// which `a` index a `b` index is paired with are not told apart (they leave the same
/// elements of `b` inserted), one representative is returned.
///
/// Bound: at most `limit` alignments are built. The enumeration backtracks over the
/// Nakatsu table without dead ends (every branch it enters completes to an LCS), so the
/// work is `O((limit + 1) · t · (r + 1) · log m)` where `r = n_b - t` when `b` is the longer
/// array and `r = m - t` otherwise, and memory is the table plus `O(t)` per returned item.
/// The table itself is unbounded here; see [`LcsTable::build`] for a budgeted one.
pub fn alignments(a: &[u32], b: &[u32], limit: usize) -> Alignments {
    let table = LcsTable::build(a, b, usize::MAX)
        .expect("invariant: no cell budget, and page arrays are shorter than 2^32 - 1");
    let mut items = Vec::new();
    let run = table.for_each_alignment(limit, usize::MAX, |pairs| {
        items.push(Lcs {
            pairs: pairs.to_vec(),
        });
        ControlFlow::Continue(())
    });
    Alignments {
        lcs_len: table.len(),
        items,
        limit_hit: run.bound_hit,
    }
}

/// How a call of [`LcsTable::for_each_alignment`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Enumeration {
    /// How many alignments were passed to the callback.
    pub yielded: usize,
    /// The enumeration was cut by `limit` (and at least one more alignment exists) or by
    /// `max_steps` (more may exist). `false` when it ran to completion or the callback
    /// stopped it.
    pub bound_hit: bool,
    /// The callback returned `ControlFlow::Break`.
    pub stopped: bool,
}

/// The stored part of the Nakatsu matrix (diagonals `1..=m - t + 1`), with the occurrence
/// lists needed to extend it and to enumerate alignments.
#[derive(Debug, Clone)]
pub struct LcsTable<'s> {
    /// The shorter array (`A`, length `m`).
    short: &'s [u32],
    /// The longer array (`B`, length `n`).
    long: &'s [u32],
    /// `a` was the longer argument, so `short` is `b`.
    swapped: bool,
    /// Diagonal `d` (1-based) is `cells[starts[d - 1]..starts[d]]`; its `k`-th entry
    /// (1-based) is `L_{d+k-1}(k)`, a 1-based position in `long`.
    starts: Vec<usize>,
    cells: Vec<u32>,
    /// The LCS length.
    t: usize,
    /// Ascending 1-based positions in `long` of each symbol of `short`...
    long_occ: Lists,
    /// ...indexed per position of `short` (`NONE`: the symbol does not occur in `long`).
    short_to_long: Vec<u32>,
}

impl<'s> LcsTable<'s> {
    /// Runs Nakatsu's algorithm on `a` and `b`, storing at most `max_cells` cells.
    ///
    /// Returns `None` when more than `max_cells` cells would be needed, or when the longer
    /// array has `2^32 - 1` elements or more. The number of cells is at most
    /// `(m - t + 1) · t`, and the time is that many binary searches plus `m - t + 1`, so
    /// `max_cells` bounds both memory (4 bytes a cell) and time.
    pub fn build(a: &'s [u32], b: &'s [u32], max_cells: usize) -> Option<Self> {
        let swapped = a.len() > b.len();
        let (short, long) = if swapped { (b, a) } else { (a, b) };
        if long.len() >= NONE as usize {
            return None;
        }
        let m = short.len();
        let (long_occ, short_to_long) = occurrences(long, short);
        let mut cells: Vec<u32> = Vec::new();
        let mut starts = vec![0];
        let mut t = 0;
        // The cells of diagonal d - 1.
        let mut prev = 0..0;
        for d in 1..=m {
            let start = cells.len();
            let mut k = 1;
            while d + k - 1 <= m {
                let i = d + k - 1;
                // L_{i-1}(k-1): the previous cell of this diagonal (0 for k = 1).
                let lower = if k == 1 { 0 } else { cells[start + k - 2] };
                let matched = next_after(&long_occ, short_to_long[i - 1], lower);
                // L_{i-1}(k): row k of diagonal d - 1, undefined past its end.
                let carried = if k <= prev.len() {
                    cells[prev.start + k - 1]
                } else {
                    NONE
                };
                let v = matched.min(carried);
                if v == NONE {
                    break;
                }
                if cells.len() >= max_cells {
                    return None;
                }
                cells.push(v);
                k += 1;
            }
            starts.push(cells.len());
            let len = cells.len() - start;
            if len > 0 && d + len - 1 == m {
                t = len;
                break;
            }
            prev = start..cells.len();
        }
        // If no diagonal reached row m, diagonal m has no cell: no symbol of `short`
        // occurs in `long`, and t = 0.
        Some(Self {
            short,
            long,
            swapped,
            starts,
            cells,
            t,
            long_occ,
            short_to_long,
        })
    }

    /// The LCS length `t`.
    pub fn len(&self) -> usize {
        self.t
    }

    /// Whether the LCS is empty.
    pub fn is_empty(&self) -> bool {
        self.t == 0
    }

    /// The number of stored cells (the memory the table holds, 4 bytes each).
    pub fn cells(&self) -> usize {
        self.cells.len()
    }

    #[cfg(test)]
    /// The number of diagonals computed, `m - t + 1` (or `m` when `t = 0`).
    pub(crate) fn diagonals(&self) -> usize {
        self.starts.len() - 1
    }

    /// `L_i(k)` (1-based), `None` if undefined. Only cells on computed diagonals may be
    /// asked for; every query made by this module is (see the bounds in
    /// `for_each_alignment`).
    fn l(&self, k: usize, i: usize) -> Option<usize> {
        if k == 0 {
            return Some(0);
        }
        if k > i {
            return None;
        }
        let d = i - k + 1;
        debug_assert!(d < self.starts.len(), "query of an uncomputed diagonal");
        let (s, e) = (*self.starts.get(d - 1)?, *self.starts.get(d)?);
        (k - 1 < e - s).then(|| self.cells[s + k - 1] as usize)
    }

    /// A 1-based internal pair `(i in short, j in long)` as a 0-based `(in a, in b)` pair.
    fn orient(&self, i: usize, j: usize) -> (usize, usize) {
        if self.swapped {
            (j - 1, i - 1)
        } else {
            (i - 1, j - 1)
        }
    }

    /// The LCS spelled by tracing back from the end of the final diagonal (see
    /// [`nakatsu`]).
    pub fn lcs(&self) -> Lcs {
        let mut pairs = Vec::with_capacity(self.t);
        let (mut k, mut i) = (self.t, self.short.len());
        while k > 0 {
            let j = self
                .l(k, i)
                .expect("invariant: the traced cell is defined and on a computed diagonal");
            let real = self.short[i - 1] == self.long[j - 1]
                && (k == 1 || self.l(k - 1, i - 1).is_some_and(|p| p < j));
            if real {
                pairs.push(self.orient(i, j));
                k -= 1;
            }
            // Real match: continue at (k - 1, i - 1). Carried over: L_{i-1}(k) = j,
            // continue at (k, i - 1).
            i -= 1;
        }
        pairs.reverse();
        Lcs { pairs }
    }

    /// Calls `f` with up to `limit` distinct LCS alignments (pairs `(in a, in b)`, 0-based,
    /// increasing), stopping early when `f` returns `ControlFlow::Break`.
    ///
    /// Distinct means: no two alignments match the same set of indices of `b` (the second
    /// argument of [`LcsTable::build`]). Together, without bounds, they are every such set.
    ///
    /// Method: backtracking from the last pair to the first. For pair `k` within bounds
    /// `A[1..ia]`, `B[1..jb]`, each candidate index of `b`'s side is tried in increasing
    /// order; its partner on the other side is the largest equal element within bounds (the
    /// choice that leaves the most room for pairs `1..k-1`), and the candidate is taken only
    /// if pairs `1..k-1` still fit: `L_{i-1}(k-1) < j`, read from the stored diagonals. So
    /// every branch entered completes to an LCS (no dead ends), and the queried cells all lie
    /// on diagonals `<= m - t + 1`, which are stored. When `b` is the longer array the first
    /// alignment yielded is the one [`LcsTable::lcs`] traces.
    ///
    /// Bounds: `limit` alignments at most; `max_steps` candidate tests at most (each one or
    /// two binary searches), counted from the start but never stopping before the first
    /// alignment, which costs at most `t · (r + 1)` tests, `r` as in [`alignments`]. At
    /// either bound the enumeration stops and reports `bound_hit`. Memory: `O(t)` besides
    /// the table (and `O(n)` occurrence lists when `b` is the longer array).
    pub(crate) fn for_each_alignment<F>(
        &self,
        limit: usize,
        max_steps: usize,
        mut f: F,
    ) -> Enumeration
    where
        F: FnMut(&[(usize, usize)]) -> ControlFlow<()>,
    {
        let t = self.t;
        if t == 0 {
            // Exactly one alignment: the empty one.
            if limit == 0 {
                return Enumeration {
                    yielded: 0,
                    bound_hit: true,
                    stopped: false,
                };
            }
            let stopped = f(&[]).is_break();
            return Enumeration {
                yielded: 1,
                bound_hit: false,
                stopped,
            };
        }
        // Whether `b` (the side whose matched sets must be distinct) is the longer array.
        let target_long = !self.swapped;
        let (short_occ, long_to_short) = if target_long {
            occurrences(self.short, self.long)
        } else {
            (Lists::default(), Vec::new())
        };
        let finder = Finder {
            table: self,
            target_long,
            short_occ: &short_occ,
            long_to_short: &long_to_short,
        };

        let (m, n) = (self.short.len(), self.long.len());
        let mut path = vec![(0usize, 0usize); t];
        let mut out = Vec::with_capacity(t);
        let mut stack = vec![Frame {
            k: t,
            ia: m,
            jb: n,
            next: finder.first_candidate(t, m),
        }];
        let mut yielded = 0;
        let mut steps = 0usize;
        while let Some(top) = stack.last_mut() {
            let hi = if target_long { top.jb } else { top.ia };
            let mut found = None;
            while top.next <= hi {
                if yielded > 0 && steps >= max_steps {
                    return Enumeration {
                        yielded,
                        bound_hit: true,
                        stopped: false,
                    };
                }
                steps += 1;
                let p = top.next;
                top.next += 1;
                if let Some(pair) = finder.candidate(top.k, top.ia, top.jb, p) {
                    found = Some(pair);
                    break;
                }
            }
            let k = top.k;
            let Some((i, j)) = found else {
                stack.pop();
                continue;
            };
            if yielded == limit {
                // A valid branch remains and branches have no dead ends: one more exists.
                return Enumeration {
                    yielded,
                    bound_hit: true,
                    stopped: false,
                };
            }
            path[k - 1] = (i, j);
            if k == 1 {
                out.clear();
                out.extend(path.iter().map(|&(i, j)| self.orient(i, j)));
                yielded += 1;
                if f(&out).is_break() {
                    return Enumeration {
                        yielded,
                        bound_hit: false,
                        stopped: true,
                    };
                }
            } else {
                stack.push(Frame {
                    k: k - 1,
                    ia: i - 1,
                    jb: j - 1,
                    next: finder.first_candidate(k - 1, i - 1),
                });
            }
        }
        Enumeration {
            yielded,
            bound_hit: false,
            stopped: false,
        }
    }
}

/// One level of the backtracking: pair `k` is to be placed within `A[1..ia]`, `B[1..jb]`
/// (a feasible state: `L_ia(k) <= jb`); `next` is the next candidate index to try on the
/// target side.
#[derive(Debug)]
struct Frame {
    k: usize,
    ia: usize,
    jb: usize,
    next: usize,
}

/// Candidate tests of the enumeration.
struct Finder<'t, 's> {
    table: &'t LcsTable<'s>,
    target_long: bool,
    /// Positions in `short` of each symbol of `long` (only when `target_long`).
    short_occ: &'t Lists,
    long_to_short: &'t [u32],
}

impl Finder<'_, '_> {
    /// The smallest target index that can hold pair `k` within `A[1..ia]`: `L_ia(k)` on the
    /// long side (by definition no smaller `j` works); `k` on the short side.
    fn first_candidate(&self, k: usize, ia: usize) -> usize {
        if self.target_long {
            self.table
                .l(k, ia)
                .expect("invariant: frames are pushed only for feasible states")
        } else {
            k
        }
    }

    /// Pair `k` at target index `p`, with the largest partner within bounds, if pairs
    /// `1..k-1` still fit before it. Returns the internal 1-based `(i, j)`.
    fn candidate(&self, k: usize, ia: usize, jb: usize, p: usize) -> Option<(usize, usize)> {
        let table = self.table;
        let (i, j) = if self.target_long {
            let list = *self.long_to_short.get(p - 1)?;
            let i = last_at_most(self.short_occ, list, ia)?;
            (i, p)
        } else {
            let list = *table.short_to_long.get(p - 1)?;
            let j = last_at_most(&table.long_occ, list, jb)?;
            (p, j)
        };
        let fits = k == 1 || table.l(k - 1, i - 1).is_some_and(|lj| lj < j);
        fits.then_some((i, j))
    }
}

/// Lists of positions in one flat array (no allocation per symbol): list `l` is
/// `flat[start[l]..start[l + 1]]`.
#[derive(Debug, Clone, Default)]
pub(crate) struct Lists {
    start: Vec<u32>,
    flat: Vec<u32>,
}

impl Lists {
    fn get(&self, list: u32) -> Option<&[u32]> {
        let l = list as usize;
        let (s, e) = (*self.start.get(l)?, *self.start.get(l + 1)?);
        self.flat.get(s as usize..e as usize)
    }
}

/// Keys below this multiple of the arrays' total length are used as indices directly
/// (interned keys always are); sparser keys are renumbered through a hash map first.
const DENSE_FACTOR: usize = 4;

/// `of` and `by` as dense symbol numbers `0..alphabet` (equal keys, equal numbers), and
/// the alphabet size. Interned keys pass through as they are, without hashing.
pub(crate) fn dense(of: &[u32], by: &[u32]) -> (Vec<u32>, Vec<u32>, usize) {
    let max = of
        .iter()
        .chain(by)
        .copied()
        .max()
        .map_or(0, |m| m as usize + 1);
    if max <= DENSE_FACTOR * (of.len() + by.len()) + 64 {
        return (of.to_vec(), by.to_vec(), max);
    }
    let mut index: HashMap<u32, u32> = crate::hash::map_with_capacity(of.len() + by.len());
    let mut number = |s: u32| {
        let next = index.len() as u32;
        *index.entry(s).or_insert(next)
    };
    let a: Vec<u32> = of.iter().map(|&s| number(s)).collect();
    let b: Vec<u32> = by.iter().map(|&s| number(s)).collect();
    (a, b, index.len())
}

/// For each distinct symbol of `of`, its ascending 1-based positions in `of`; and for each
/// element of `by`, the index of its symbol's list (`NONE` if the symbol is not in `of`).
fn occurrences(of: &[u32], by: &[u32]) -> (Lists, Vec<u32>) {
    let (of, by, alphabet) = dense(of, by);
    let mut start = vec![0u32; alphabet + 1];
    for &s in &of {
        start[s as usize + 1] += 1;
    }
    for l in 0..alphabet {
        start[l + 1] += start[l];
    }
    let mut fill = start.clone();
    let mut flat = vec![0u32; of.len()];
    for (p, &s) in of.iter().enumerate() {
        flat[fill[s as usize] as usize] = p as u32 + 1;
        fill[s as usize] += 1;
    }
    let by_list = by
        .iter()
        .map(|&s| {
            if start[s as usize] == start[s as usize + 1] {
                NONE
            } else {
                s
            }
        })
        .collect();
    (Lists { start, flat }, by_list)
}

/// The smallest position greater than `x` in list `list` (`NONE` if none).
fn next_after(lists: &Lists, list: u32, x: u32) -> u32 {
    let Some(l) = lists.get(list) else {
        return NONE;
    };
    l.get(l.partition_point(|&p| p <= x))
        .copied()
        .unwrap_or(NONE)
}

/// The largest position at most `x` in list `list`, if any.
fn last_at_most(lists: &Lists, list: u32, x: usize) -> Option<usize> {
    let l = lists.get(list)?;
    let idx = l.partition_point(|&p| p as usize <= x);
    idx.checked_sub(1).map(|q| l[q] as usize)
}
