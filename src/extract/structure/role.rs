//! The roles of a page's links: an element's signature (its tag and first digit-free
//! class name), a link's role as the hash of the signatures above it, and the roles told
//! apart by a link's place among its siblings ([`refine_roles`]).
//!
//! Uses [`super`]'s anchors only.

use super::Anchor;

/// FNV-1a of `bytes`, continuing from `seed`.
pub(super) fn fnv(seed: u64, bytes: &[u8]) -> u64 {
    let mut h = seed;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

pub(super) const FNV_SEED: u64 = 0xcbf2_9ce4_8422_2325;

/// Signature of an element: its tag and its first class name without digits. Only the
/// first: variants (`card card--unavailable`, `item item--hot`) add modifier classes after
/// the base one, and entries of one list must keep one role; names with digits
/// (`post-1234`) are per item.
pub(super) fn signature(tag: &str, class: Option<&str>) -> u64 {
    let first = class
        .unwrap_or("")
        .split_ascii_whitespace()
        .find(|c| !c.bytes().any(|b| b.is_ascii_digit()));
    let h = fnv(FNV_SEED, tag.as_bytes());
    match first {
        Some(c) => fnv(fnv(h, b"."), c.as_bytes()),
        None => h,
    }
}

/// Links of one role that stand side by side in one repeated element (`<li><a>Title</a>
/// <a>Comments</a></li>`, again and again) play different parts: their roles are told
/// apart by their place among the role's links in that element (first, second, ...; up
/// to the eighth). A role whose links each stand in an element of their own, or all in
/// one element (a flat list split by `<br>`), keeps its role.
pub(super) fn refine_roles(anchors: &mut [Anchor]) {
    use crate::hash::{map_with_capacity, set_with_capacity, HashMap, HashSet};
    let parent = |a: &Anchor| a.ctx.path.len().checked_sub(2).map(|k| a.ctx.path[k]);
    // Per role: its links and the count of distinct parents they stand in, counted by
    // one set of (role, parent) pairs sized for every link at once (a set of parents
    // per role grew, and was rehashed, a few times for each long list).
    let mut stats: HashMap<u64, (usize, usize)> = HashMap::default();
    let mut pairs: HashSet<(u64, u32)> = set_with_capacity(anchors.len());
    for a in anchors.iter() {
        let e = stats.entry(a.ctx.role).or_default();
        e.0 += 1;
        if let Some(p) = parent(a) {
            e.1 += usize::from(pairs.insert((a.ctx.role, p)));
        }
    }
    let split: HashSet<u64> = stats
        .into_iter()
        .filter(|&(_, (links, parents))| parents >= 2 && links > parents)
        .map(|(role, _)| role)
        .collect();
    if split.is_empty() {
        return;
    }
    let mut place: HashMap<(u64, u32), u8> = map_with_capacity(pairs.len());
    for a in anchors.iter_mut() {
        if !split.contains(&a.ctx.role) {
            continue;
        }
        let Some(p) = parent(a) else { continue };
        let k = place.entry((a.ctx.role, p)).or_default();
        a.ctx.role = fnv(a.ctx.role, &[*k]);
        *k = (*k + 1).min(7);
    }
}
