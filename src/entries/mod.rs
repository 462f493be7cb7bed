//! Entries, not links: what a person calls new on a list page is an *entry* (a
//! topic, a notice, an offer), and an entry often has several links: a forum topic row
//! links its author, its node and its last replier; an offer card has a details link and
//! an order button; a news item has "Read more" and "12 comments". The feed gets one item
//! per entry, its main link. This module finds the entries of a page from its structure
//! only (no site-specific rules) and decides which new links become items.
//!
//! # Grouping ([`group`])
//!
//! Every link has a *role*: the signatures (tag and class names) of the elements above
//! it ([`structure::Context::role`]). Links of one role that occurs at least twice form a
//! column of a repeated structure (all topic titles, all author links, all "Read more"s).
//! Roles are taken in order of how much they look like titles: links with text of their
//! own before image-only ones, heading links first, then by the share of distinct texts
//! (titles differ, "Read more" and node names repeat), then, among roles with mostly
//! distinct texts, the longer texts, then the role that comes first on the page.
//!
//! For each link `M` of a role, its entry is the largest element around it that holds no
//! other link of the same role (with another URL) and no link already given to an entry:
//! in a topic list, the row. Since an element's links are contiguous in document order,
//! that element is found from `M`'s nearest same-role neighbours alone (the deepest
//! ancestor `M` shares with either of them, one level down). All links in it not yet
//! grouped join `M`'s entry, with `M` as its main link. Links left over stand alone.
//!
//! # Which new links become items ([`decide`])
//!
//! The decision on every link of a page, by structure: see [`decide`].
//!
//! May use: extract, hash, model.

pub mod content;
pub mod date;
pub mod decide;
pub mod hygiene;
mod last;
pub mod structure;
mod titles;
mod urls;

use crate::hash::{HashMap, HashSet};

use crate::model::Link;

pub use last::LastPage;
pub use structure::{anchor_context, Blocks, Context, PageText, Structure};
pub(crate) use urls::{shape, url_kind};

/// The entries of a page: which entry each link belongs to, and each entry's main link.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Entries {
    /// `entry_of[i]` is the entry of link `i`.
    pub entry_of: Vec<usize>,
    /// `main[e]` is the index of the main link of entry `e`.
    pub main: Vec<usize>,
    /// `container[e]`: the element that holds entry `e` (`None` for a link standing
    /// alone).
    pub container: Vec<Option<u32>>,
}

#[derive(Default)]
struct RoleStat {
    links: Vec<usize>,
    /// How many distinct texts its links have.
    texts: usize,
    chars: usize,
    heading: bool,
    with_text: usize,
}

/// Groups the links of a page into entries. `ctx[i]` is the context of `links[i]`
/// ([`Structure::ctx`]); links without one stand alone. Cost: `O(n · depth + n log n)`.
pub fn group(links: &[Link], ctx: &[Option<Context>]) -> Entries {
    const NONE: (usize, usize) = (usize::MAX, 0);
    let n = links.len();
    let mut roles: HashMap<u64, RoleStat> = HashMap::default();
    // The distinct texts of every role, in one set sized for all links at once (a set
    // per role grew, and was rehashed, a few times for each long list).
    let mut texts: HashSet<(u64, &str)> = crate::hash::set_with_capacity(n);
    // Per element id (ids are dense, counted in document order): the first and last
    // link inside it, `NONE` for an element that holds none.
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    for (i, c) in ctx.iter().enumerate().take(n) {
        let Some(c) = c else { continue };
        let r = roles.entry(c.role).or_default();
        r.links.push(i);
        r.texts += usize::from(texts.insert((c.role, links[i].text.as_str())));
        r.chars += links[i].text.chars().count();
        r.heading |= c.heading;
        r.with_text += usize::from(c.has_text);
        for &id in &c.path {
            let id = id as usize;
            if ranges.len() <= id {
                ranges.resize(id + 1, NONE);
            }
            let r = &mut ranges[id];
            if r.0 == usize::MAX {
                r.0 = i;
            }
            r.1 = i;
        }
    }
    let mut order: Vec<(&u64, &RoleStat)> =
        roles.iter().filter(|(_, r)| r.links.len() >= 2).collect();
    order.sort_by_key(|(_, r)| {
        let count = r.links.len();
        // 0 when all texts are equal, 8 when at least 80% differ (a pair of equal texts
        // is 0): titles of a list mostly differ, and one story shown in two sections
        // must not hand the first place to a role of three section links.
        let distinct = ((r.texts - 1) * 10 / (count - 1)).min(8);
        let mean_len = if distinct >= 5 { r.chars / count } else { 0 };
        (
            std::cmp::Reverse(r.with_text * 2 > count),
            std::cmp::Reverse(r.heading),
            std::cmp::Reverse(distinct),
            std::cmp::Reverse(mean_len),
            r.links[0],
        )
    });

    let rivals = Rivals::new(links, ctx);
    let mut entry_of: Vec<Option<usize>> = vec![None; n];
    let mut grouped = Grouped::new(n);
    // (an entry per link at most)
    let mut main: Vec<usize> = Vec::with_capacity(n);
    let mut container: Vec<Option<u32>> = Vec::with_capacity(n);
    for (_, r) in order {
        if r.with_text * 2 <= r.links.len() {
            // Image-only links (icons, banners) cannot be an entry's main link.
            continue;
        }
        for (p, &m) in r.links.iter().enumerate() {
            if entry_of[m].is_some() {
                continue;
            }
            let Some(cm) = ctx[m].as_ref().filter(|c| c.has_text) else {
                continue;
            };
            let url = links[m].url.as_str();
            let prev = r.links[..p].iter().rev().find(|&&q| links[q].url != url);
            let next = r.links[p + 1..].iter().find(|&&q| links[q].url != url);
            if prev.is_none() && next.is_none() {
                // All links of the role have one URL: not a repeated structure.
                continue;
            }
            let shared = |q: Option<&usize>| {
                q.and_then(|&q| ctx[q].as_ref()).map_or(0, |cq| {
                    cm.path
                        .iter()
                        .zip(&cq.path)
                        .take_while(|(a, b)| a == b)
                        .count()
                })
            };
            let top = shared(prev).max(shared(next)).min(cm.path.len() - 1);
            // The highest element below the shared ancestors whose links are all free.
            let (id, range) = cm.path[top..]
                .iter()
                .filter_map(|&id| {
                    let r = *ranges.get(id as usize)?;
                    (r.0 != usize::MAX).then_some((Some(id), r))
                })
                .find(|&(_, (lo, hi))| !grouped.any_in(lo, hi) && !rivals.within(lo, hi, url))
                .unwrap_or((None, (m, m)));
            let e = main.len();
            main.push(m);
            container.push(id);
            for (i, slot) in entry_of
                .iter_mut()
                .enumerate()
                .take(range.1 + 1)
                .skip(range.0)
            {
                if slot.is_none() {
                    *slot = Some(e);
                    grouped.insert(i);
                }
            }
        }
    }
    attach_labels(links, &roles, ctx, entry_of, &main, &container)
}

/// Which links are grouped already, as counts a range of links is asked for in `O(log n)`
/// (a Fenwick tree): whether the links `lo..=hi` hold one.
struct Grouped(Vec<u32>);

impl Grouped {
    fn new(n: usize) -> Self {
        Self(vec![0; n + 1])
    }

    /// Link `i` is grouped (once).
    fn insert(&mut self, i: usize) {
        let mut k = i + 1;
        while k < self.0.len() {
            self.0[k] += 1;
            k += k & k.wrapping_neg();
        }
    }

    /// Grouped links among the first `i`.
    fn before(&self, i: usize) -> u32 {
        let (mut k, mut sum) = (i, 0);
        while k > 0 {
            sum += self.0[k];
            k &= k - 1;
        }
        sum
    }

    fn any_in(&self, lo: usize, hi: usize) -> bool {
        self.before(hi + 1) > self.before(lo)
    }
}

/// A text that reads as a title: wide, and several words (or mostly non-ASCII script,
/// which may not separate words), not one token such as a file name.
fn title_like(s: &str) -> bool {
    if s.is_ascii() {
        // A byte at a time, as nearly every link text on most pages is.
        let mut words = 0;
        let mut in_word = false;
        for b in s.bytes() {
            let word = !ascii_space(b);
            words += usize::from(word && !in_word);
            in_word = word;
        }
        return words >= 3 && width(s) >= 20;
    }
    let chars = s.chars().count();
    width(s) >= 20
        && (s.split_whitespace().count() >= 3
            || s.chars().filter(|c| !c.is_ascii()).count() * 2 > chars)
}

/// An ASCII byte that `char::is_whitespace` calls white space.
fn ascii_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r')
}

/// Title-like links: text of their own, in a heading or [`title_like`]. An entry's element holds
/// no title-like link to another URL: when the tag and class names of a section's
/// teasers vary, the element around one teaser that holds none of its own role can be
/// the whole section, and it must not swallow the other teasers.
struct Rivals<'a> {
    links: &'a [Link],
    strong: Vec<bool>,
    /// `before[i]`: title-like links among the first `i`.
    before: Vec<usize>,
}

impl<'a> Rivals<'a> {
    fn new(links: &'a [Link], ctx: &[Option<Context>]) -> Self {
        let strong: Vec<bool> = (0..links.len())
            .map(|i| {
                ctx.get(i)
                    .and_then(Option::as_ref)
                    .is_some_and(|c| c.has_text && (c.heading || title_like(&links[i].text)))
            })
            .collect();
        let mut before = Vec::with_capacity(strong.len() + 1);
        before.push(0usize);
        for &s in &strong {
            before.push(before.last().copied().unwrap_or(0) + usize::from(s));
        }
        Self {
            links,
            strong,
            before,
        }
    }

    /// Links `lo..=hi` hold a title-like link to another URL than `url` (a range of more
    /// than 64 links that holds any title-like link is taken to hold one).
    fn within(&self, lo: usize, hi: usize, url: &str) -> bool {
        if self.before[hi + 1] == self.before[lo] {
            return false;
        }
        hi - lo > 64 || (lo..=hi).any(|i| self.strong[i] && self.links[i].url != url)
    }
}

/// A file's URL without the extensions of its last segment (`…/tool-2.5.0` for
/// `…/tool-2.5.0.tar.gz`, `.zip` and `.tar.gz.asc`); `None` for a URL that names no file,
/// or whose query names it (`show.asp?id=512` and `show.asp?id=513` are two notices).
fn file_stem(url: &str) -> Option<&str> {
    // One run over the bytes: no `?` anywhere; the last `/` before the fragment.
    let (mut end, mut slash) = (None, None);
    for (i, &c) in url.as_bytes().iter().enumerate() {
        match c {
            b'?' => return None,
            b'#' if end.is_none() => end = Some(i),
            b'/' if end.is_none() => slash = Some(i),
            _ => {}
        }
    }
    let u = &url[..end.unwrap_or(url.len())];
    let seg = slash? + 1;
    let mut stem = u;
    while let Some(p) = stem.as_bytes()[seg..].iter().rposition(|&c| c == b'.') {
        let ext = &stem[seg + p + 1..];
        if !(1..=4).contains(&ext.len())
            || !ext.starts_with(|c: char| c.is_ascii_alphabetic())
            || !ext.bytes().all(|c| c.is_ascii_alphanumeric())
        {
            break;
        }
        stem = &stem[..seg + p];
    }
    (stem.len() < u.len() && stem.len() > seg).then_some(stem)
}

/// The last steps of [`group`]: one file in several formats is one entry; repeated
/// labels of flat lists join their title's entry; entries are numbered in page order;
/// links left over stand alone.
fn attach_labels(
    links: &[Link],
    roles: &HashMap<u64, RoleStat>,
    ctx: &[Option<Context>],
    mut entry_of: Vec<Option<usize>>,
    main: &[usize],
    container: &[Option<u32>],
) -> Entries {
    let n = entry_of.len();
    // Flat lists (`<a>Title</a> <a>More</a><br>` in one cell): a link whose role is a
    // repeated label (at least three links, one text) and that stands alone joins the
    // entry of the link right before it when both have the same parent element.
    let mut size = vec![0usize; main.len()];
    for e in entry_of.iter().flatten() {
        size[*e] += 1;
    }
    for i in 1..n {
        let (Some(ci), Some(cp)) = (&ctx[i], &ctx[i - 1]) else {
            continue;
        };
        // Only a link that stands alone joins another entry: most links of a list page
        // are in entries of several, and nothing below is read for them.
        if entry_of[i].is_some_and(|e| size[e] != 1) {
            continue;
        }
        let label = roles
            .get(&ci.role)
            .is_some_and(|r| r.links.len() >= 3 && r.texts == 1);
        let parent = |c: &Context| c.path.len().checked_sub(1).map(|k| c.path[..k].to_vec());
        // A download offered in several formats (a release's tarballs, a notice as PDF
        // and as DOC), side by side in one block: one entry, whatever list items or
        // cells each link stands in.
        let common = ci
            .path
            .iter()
            .zip(&cp.path)
            .take_while(|(a, b)| a == b)
            .count();
        let formats = links[i].url != links[i - 1].url
            && ci.path.len().max(cp.path.len()) <= common + 3
            && file_stem(&links[i].url).is_some_and(|s| file_stem(&links[i - 1].url) == Some(s));
        // A label in an element of its own right after its entry's last link (a
        // release's "Release notes" paragraph after its list of files) joins it too.
        let near = ci.path.len() <= common + 2 && cp.path.len() <= common + 3;
        if (label || formats) && (formats || near || parent(ci) == parent(cp)) {
            if let Some(e) = entry_of[i - 1] {
                if let Some(old) = entry_of[i] {
                    size[old] = 0;
                }
                entry_of[i] = Some(e);
                size[e] += 1;
            }
        }
    }
    // Number the entries in page order, leaving out emptied ones, and let every link left
    // over stand alone.
    let mut renumber: Vec<Option<usize>> = vec![None; main.len()];
    let mut mains = Vec::new();
    let mut containers = Vec::new();
    let mut push = |main: usize, container: Option<u32>| {
        mains.push(main);
        containers.push(container);
        mains.len() - 1
    };
    let entry_of = entry_of
        .into_iter()
        .enumerate()
        .map(|(i, e)| match e {
            Some(e) => *renumber[e].get_or_insert_with(|| push(main[e], container[e])),
            None => push(i, None),
        })
        .collect();
    Entries {
        entry_of,
        main: mains,
        container: containers,
    }
}

/// The texts that stand once on each page, on URLs of one shape ([`shape`]), the old URL
/// gone from the new page.
pub(crate) fn moved_slots<'a>(old: &[Link], new: &'a [Link]) -> HashSet<&'a str> {
    let mut old_texts: HashMap<&str, (usize, &str)> = HashMap::default();
    old_texts.reserve(old.len());
    for l in old {
        let e = old_texts
            .entry(l.text.as_str())
            .or_insert((0, l.url.as_str()));
        e.0 += 1;
    }
    // Most links stand under their old URL: the new page's text counts and URLs are
    // gathered only once a link does not.
    let mut new_texts: Option<HashMap<&str, usize>> = None;
    let mut new_urls: Option<HashSet<&str>> = None;
    let mut candidates: Vec<&Link> = Vec::new();
    for l in new {
        let Some(&(count, url)) = old_texts.get(l.text.as_str()) else {
            continue;
        };
        if l.text.is_empty() || count != 1 || url == l.url {
            continue;
        }
        let counts = new_texts.get_or_insert_with(|| {
            let mut counts: HashMap<&str, usize> = HashMap::default();
            for l in new {
                *counts.entry(l.text.as_str()).or_default() += 1;
            }
            counts
        });
        if counts.get(l.text.as_str()) != Some(&1) {
            continue;
        }
        let urls = new_urls.get_or_insert_with(|| new.iter().map(|l| l.url.as_str()).collect());
        if !urls.contains(url) && shape(url) == shape(&l.url) {
            candidates.push(l);
        }
    }
    // A pager moves as a block: one lone moved link (an "Add to calendar" whose target
    // carries a timestamp) is not taken for one.
    let mut per_shape: HashMap<String, usize> = HashMap::default();
    for l in &candidates {
        *per_shape.entry(shape(&l.url)).or_default() += 1;
    }
    candidates
        .into_iter()
        .filter(|l| per_shape.get(&shape(&l.url)).is_some_and(|&c| c >= 2))
        .map(|l| l.text.as_str())
        .collect()
}

/// How many roles a watch remembers.
pub(crate) const MAX_ROLES: usize = 2048;

/// The roles to remember after a page: the page's own, then as many of `known` as fit.
pub fn remember(known: &[u64], page: &[u64]) -> Vec<u64> {
    let mut out: Vec<u64> = page.to_vec();
    let set: HashSet<u64> = page.iter().copied().collect();
    out.extend(
        known
            .iter()
            .filter(|r| !set.contains(r))
            .take(MAX_ROLES.saturating_sub(page.len())),
    );
    out.truncate(MAX_ROLES);
    out
}

/// Display width of a title: CJK, kana and hangul count two.
pub(crate) fn width(s: &str) -> usize {
    if s.is_ascii() {
        return s.bytes().filter(|&b| !ascii_space(b)).count();
    }
    s.chars()
        .filter(|c| !c.is_whitespace())
        .map(|c| if u32::from(c) >= 0x2E80 { 2 } else { 1 })
        .sum()
}

#[cfg(test)]
mod tests;
