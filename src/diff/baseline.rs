//! The methods the evaluation compares the improved LCS with (`docs/design.md` §2). Each
//! returns the indices of `new` it considers inserted, increasing.

// Myers' notation: a, b, n, m, d, k, x, y.
#![allow(clippy::many_single_char_names)]

use crate::hash::HashSet;
use std::ops::Range;

use super::lcs;

/// The paper's baseline (its Table 3): the elements of `new` left unmatched by the single
/// LCS that Nakatsu's algorithm traces ([`lcs::nakatsu`]); no alignment rejection, no
/// moved-classification, no prefix/suffix stripping.
///
/// The traced LCS is a true LCS (the carried-over cells of the final diagonal are skipped);
/// reading the final diagonal's values directly, as the paper's "special case" warns,
/// would not be. Cost as [`lcs::nakatsu`]: no cap.
pub fn first_lcs(old: &[u32], new: &[u32]) -> Vec<usize> {
    lcs::nakatsu(old, new).unmatched_b(new.len())
}

/// The elements of `new` that Myers' diff marks as insertions.
///
/// A minimal edit script (so the unmatched elements of `new` are those of some LCS) by the
/// linear-space divide-and-conquer variant of Myers' O(ND) algorithm ("An O(ND) difference
/// algorithm and its variations", 1986, section 4b), after stripping the common prefix and
/// suffix at every level and setting aside elements absent from the other array, as `diff`
/// tools do. Written here rather than taken from a crate to keep the dependency list as it
/// is, and because `imara-diff` 0.2's `MyersMinimal` is not minimal on heavily repeated
/// keys (its git-style preprocessing prunes very frequent tokens: for `[2, 2, 2, 2]`
/// against `[0, 2, 3, 0, 0]` it matches nothing). No heuristics: `O((n + m) · D)` time, with `D`
/// the edit distance among elements the arrays share, and `O(n + m)` memory.
pub fn myers(old: &[u32], new: &[u32]) -> Vec<usize> {
    let matched = myers_matches(old, new);
    lcs::unmatched(matched.into_iter().map(|(_, j)| j), new.len())
}

/// The indices of `new` whose key does not occur in `old` at all.
pub fn set_difference(old: &[u32], new: &[u32]) -> Vec<usize> {
    let in_old: HashSet<u32> = old.iter().copied().collect();
    new.iter()
        .enumerate()
        .filter(|(_, x)| !in_old.contains(x))
        .map(|(j, _)| j)
        .collect()
}

/// The matched pairs `(in old, in new)` of Myers' minimal diff, increasing in both.
///
/// Elements whose key does not occur in the other array at all can never be matched; they
/// are set aside first (as GNU diff and git do), which keeps the result minimal and makes
/// pages with little in common cheap.
pub(crate) fn myers_matches(old: &[u32], new: &[u32]) -> Vec<(usize, usize)> {
    let in_old: HashSet<u32> = old.iter().copied().collect();
    let in_new: HashSet<u32> = new.iter().copied().collect();
    let old_at: Vec<usize> = (0..old.len())
        .filter(|&i| in_new.contains(&old[i]))
        .collect();
    let new_at: Vec<usize> = (0..new.len())
        .filter(|&j| in_old.contains(&new[j]))
        .collect();
    let a: Vec<u32> = old_at.iter().map(|&i| old[i]).collect();
    let b: Vec<u32> = new_at.iter().map(|&j| new[j]).collect();
    let mut out = Vec::new();
    let d_max = (a.len() + b.len()).div_ceil(2) + 1;
    let mut vf = V::new(d_max);
    let mut vb = V::new(d_max);
    conquer(&a, 0..a.len(), &b, 0..b.len(), &mut vf, &mut vb, &mut out);
    out.into_iter()
        .map(|(i, j)| (old_at[i], new_at[j]))
        .collect()
}

/// A furthest-reaching array indexed by diagonal `k` in `-d_max..=d_max`.
struct V {
    offset: isize,
    v: Vec<isize>,
}

impl V {
    fn new(d_max: usize) -> Self {
        Self {
            offset: signed(d_max) + 1,
            v: vec![0; 2 * d_max + 3],
        }
    }

    fn get(&self, k: isize) -> isize {
        self.v[(k + self.offset) as usize]
    }

    fn set(&mut self, k: isize, x: isize) {
        self.v[(k + self.offset) as usize] = x;
    }
}

/// `x` as `isize`: slice lengths always fit.
fn signed(x: usize) -> isize {
    isize::try_from(x).expect("invariant: slice lengths fit in isize")
}

/// Appends the matches of `a[ar]` and `b[br]` to `out`, in order.
fn conquer(
    a: &[u32],
    mut ar: Range<usize>,
    b: &[u32],
    mut br: Range<usize>,
    vf: &mut V,
    vb: &mut V,
    out: &mut Vec<(usize, usize)>,
) {
    while !ar.is_empty() && !br.is_empty() && a[ar.start] == b[br.start] {
        out.push((ar.start, br.start));
        ar.start += 1;
        br.start += 1;
    }
    let mut suffix = 0;
    while ar.end - suffix > ar.start
        && br.end - suffix > br.start
        && a[ar.end - suffix - 1] == b[br.end - suffix - 1]
    {
        suffix += 1;
    }
    ar.end -= suffix;
    br.end -= suffix;
    if !ar.is_empty() && !br.is_empty() {
        let (x, y) = middle_snake(a, ar.clone(), b, br.clone(), vf, vb);
        conquer(a, ar.start..x, b, br.start..y, vf, vb, out);
        conquer(a, x..ar.end, b, y..br.end, vf, vb, out);
    }
    for q in 0..suffix {
        out.push((ar.end + q, br.end + q));
    }
}

/// A split point `(x, y)` (absolute indices) on a minimal edit path of `a[ar]` and `b[br]`,
/// both non-empty and with no common prefix or suffix: the start of the middle snake.
/// Since the edit distance is then at least 2, the point is neither corner, so both halves
/// are smaller than the whole.
fn middle_snake(
    a: &[u32],
    ar: Range<usize>,
    b: &[u32],
    br: Range<usize>,
    vf: &mut V,
    vb: &mut V,
) -> (usize, usize) {
    let n = signed(ar.len());
    let m = signed(br.len());
    let (a0, b0) = (signed(ar.start), signed(br.start));
    let (a_end, b_end) = (signed(ar.end), signed(br.end));
    let at = |x: isize| a[x as usize];
    let bt = |y: isize| b[y as usize];
    let delta = n - m;
    let odd = delta & 1 == 1;
    vf.set(1, 0);
    vb.set(1, 0);
    let d_max = (n + m + 1) / 2 + 1;
    for d in 0..d_max {
        // Forward paths from the top-left corner.
        for k in (-d..=d).rev().step_by(2) {
            let mut x = if k == -d || (k != d && vf.get(k - 1) < vf.get(k + 1)) {
                vf.get(k + 1)
            } else {
                vf.get(k - 1) + 1
            };
            let (x0, y0) = (x, x - k);
            let mut y = y0;
            while x < n && y < m && at(a0 + x) == bt(b0 + y) {
                x += 1;
                y += 1;
            }
            vf.set(k, x);
            if odd && (k - delta).abs() < d && x + vb.get(-(k - delta)) >= n {
                return ((a0 + x0) as usize, (b0 + y0) as usize);
            }
        }
        // Backward paths from the bottom-right corner, in reversed coordinates.
        for k in (-d..=d).rev().step_by(2) {
            let mut x = if k == -d || (k != d && vb.get(k - 1) < vb.get(k + 1)) {
                vb.get(k + 1)
            } else {
                vb.get(k - 1) + 1
            };
            let mut y = x - k;
            while x < n && y < m && at(a_end - 1 - x) == bt(b_end - 1 - y) {
                x += 1;
                y += 1;
            }
            vb.set(k, x);
            if !odd && (k - delta).abs() <= d && x + vf.get(-(k - delta)) >= n {
                return ((a_end - x) as usize, (b_end - y) as usize);
            }
        }
    }
    unreachable!("the forward and backward paths always meet by d = ceil((n + m) / 2)")
}
