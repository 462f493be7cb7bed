//! A deep watch's crawl state ([`CrawlState`]) in binary (value version 6). The state is
//! the largest value a deep check reads, on every check, for the handful of pages it
//! fetches: its pages are read as an index over the values ([`read_state`]), each page's
//! fields decoded when the crawl asks for the page (`crawl_page_codec.rs` holds their
//! form). This form keeps the same values in well under half
//! the bytes of JSON (400 fetched pages: 80 KB against 198 KB in version 5, which held
//! each digest in hex; 34 bytes less per page since), without field names,
//! number formatting or string escapes.
//!
//! After the version byte: the root URL (a presence byte, then the string), the root's
//! relevance, the pages fetched by the last check, then three arrays, each a LEB128 count
//! first:
//! - pages: URL, level, kind, a bit set of the fields that follow (optional strings and
//!   digests, non-zero floats, the signature, `nofollow`), then those fields in
//!   declaration order, each digest as its 16 bytes;
//! - the frontier: URL, level, a bit set of its non-zero floats, then those floats;
//! - the template sample: each page's hash and its (URL hash, role) pairs.
//!
//! Strings are a LEB128 length and UTF-8 bytes, counts and unsigned integers LEB128,
//! Unix times zigzag LEB128, floats their 8 little-endian bytes (bit for bit). A value
//! that does not read to its last byte exactly is rejected. What is allocated before the
//! bytes are read is bounded by the bytes left, so a corrupt count cannot ask for more.
//!
//! A delta (version 7, `crawl.rs` writes them) has the same layout with only the pages
//! that changed since the values before it, and a tag before each entry of its sample:
//! the entry written out, or the place of the same entry in the sample before. Read
//! after those values, it adds or replaces its pages and replaces the rest of the state.
//!
//! Version 5, which wrote each digest as a string of 32 hex digits, and JSON values
//! (version 1) written before the binary form are still read.

use std::collections::VecDeque;

use super::codec::{get_len, get_ref, put_len, put_str, put_var};
use crate::model::crawl::{Candidate, CrawlState, Entry, Pages, SampledPage, StoredPage, Value};
use page::{
    get_f64, get_fixed, get_page, get_u32, get_u8, is_zero, page_at, put_f64, put_page, skip_page,
};

/// Digests as hex strings (read only).
pub(crate) const CRAWL_V5: u8 = 5;
/// Digests as their bytes (written).
pub(crate) const CRAWL_V6: u8 = 6;
/// A delta against the state before it ([`encode_delta`]).
pub(crate) const CRAWL_DELTA_V7: u8 = 7;

/// The fewest bytes a page's entry takes ([`put_entry`]): nine one-byte fields (the URL's
/// length, level, kind, fields present, links, two times, items, failures).
const MIN_PAGE_ENTRY: usize = 9;

/// The state as stored.
pub(crate) fn encode(state: &CrawlState) -> Vec<u8> {
    let mut out = write(CRAWL_V6, state, state.pages.len(), state.pages.entries());
    put_len(&mut out, state.sample.pages.len());
    for s in &state.sample.pages {
        put_sampled(&mut out, s);
    }
    out
}

fn put_sampled(out: &mut Vec<u8>, s: &SampledPage) {
    out.extend_from_slice(&s.page.to_le_bytes());
    put_len(out, s.links.len());
    for (a, b) in &s.links {
        out.extend_from_slice(&a.to_le_bytes());
        out.extend_from_slice(&b.to_le_bytes());
    }
}

/// A delta: the state's head (root, frontier, sample) and the pages `changed` names, in
/// the layout of [`encode`] under version 7, save that each entry of the sample starts
/// with a LEB128 tag: 0 when the entry follows, `j + 1` when it is entry `j` of the
/// sample before (`sample_from`, by the entry's place in the state's sample). Read and
/// applied with [`apply_delta`] on the state before it, it gives `state` back when every
/// page not named is as it was. A name that is not a page of the state is left out.
pub(crate) fn encode_delta(
    state: &CrawlState,
    changed: &[&str],
    sample_from: &[Option<usize>],
) -> Vec<u8> {
    let pages: Vec<_> = changed
        .iter()
        .filter_map(|&url| state.pages.get(url).map(|page| Entry::Page { url, page }))
        .collect();
    let mut out = write(CRAWL_DELTA_V7, state, pages.len(), pages.into_iter());
    put_len(&mut out, state.sample.pages.len());
    for (i, s) in state.sample.pages.iter().enumerate() {
        if let Some(j) = sample_from.get(i).copied().flatten() {
            put_len(&mut out, j + 1);
        } else {
            out.push(0);
            put_sampled(&mut out, s);
        }
    }
    out
}

/// The bytes [`encode`] writes for one page, URL first, appended to `out`: a page as
/// stored is copied.
fn put_entry(out: &mut Vec<u8>, entry: Entry<'_>) {
    match entry {
        Entry::Stored { url, fields } => {
            put_str(out, url);
            out.extend_from_slice(fields);
        }
        Entry::Page { url, page } => {
            put_str(out, url);
            put_page(out, page);
        }
    }
}

/// All but the sample. `n_pages` is the number of `pages` (the full map, or the pages of
/// a delta).
fn write<'a>(
    version: u8,
    state: &CrawlState,
    n_pages: usize,
    pages: impl Iterator<Item = Entry<'a>>,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 + n_pages * 120 + state.frontier.len() * 60);
    out.push(version);
    put_opt(&mut out, state.root_url.as_deref());
    put_f64(&mut out, state.root_relevance);
    put_var(&mut out, state.last_fetched.into());
    put_len(&mut out, n_pages);
    for entry in pages {
        put_entry(&mut out, entry);
    }
    put_len(&mut out, state.frontier.len());
    for c in &state.frontier {
        put_str(&mut out, &c.url);
        out.push(c.level);
        let floats = [c.cash, c.potential, c.inherited, c.tunnel];
        let set = floats
            .iter()
            .enumerate()
            .filter(|(_, f)| !is_zero(**f))
            .fold(0u8, |set, (i, _)| set | 1 << i);
        out.push(set);
        for f in floats.into_iter().filter(|f| !is_zero(*f)) {
            put_f64(&mut out, f);
        }
    }
    out
}

/// A state read back; `None` if the bytes are not one written by [`encode`].
#[cfg(test)]
pub(crate) fn decode(bytes: &[u8]) -> Option<CrawlState> {
    read_state(vec![std::sync::Arc::new(bytes.to_vec())])
}

/// The state that a full state and the deltas written after it, in order, make; `None`
/// if they are not such values. Every page's bytes are checked here; its fields are
/// decoded when the crawl asks for the page ([`Pages::stored`]), from the values
/// themselves, which the pages keep.
pub(crate) fn read_state(values: Vec<Value>) -> Option<CrawlState> {
    let mut state: Option<CrawlState> = None;
    let mut pages = Vec::new();
    for (i, value) in values.iter().enumerate() {
        let mut d = decode_value((**value).as_ref())?;
        pages.extend(d.pages.drain(..).map(|p| StoredPage { value: i, ..p }));
        match &mut state {
            None if d.copies.is_none() => state = Some(d.state),
            // Only the pages of a state of version 5 are read into it (decoded): it was
            // never followed by deltas.
            Some(s) if s.pages.is_empty() => apply_delta(s, d)?,
            _ => return None,
        }
    }
    let mut state = state?;
    if !pages.is_empty() {
        state.pages = Pages::stored(values, pages, page_at);
    }
    Some(state)
}

/// A state or a delta as read.
pub(crate) struct Decoded {
    /// The state without its pages, save for version 5, whose pages are decoded.
    pub state: CrawlState,
    /// A delta's sample: for each entry, the entry of the sample before that it is
    /// (its own place in `state` then holds an empty one). `None` for a full state.
    pub copies: Option<Vec<Option<usize>>>,
    /// The pages (versions 6 and 7), in the order written: where the URL and the fields
    /// of each lie in the value, its level and its kind (the value's place left 0).
    pub pages: Vec<StoredPage>,
}

/// The rest of `delta` (a [`Decoded`] delta; its pages are not read here) applied to the
/// state before it: the rest of the state taken from it, the sample's entries copied
/// from the sample before where the delta says so. `None` if `delta` is a full state or
/// copies an entry the sample before does not have.
pub(crate) fn apply_delta(state: &mut CrawlState, delta: Decoded) -> Option<()> {
    let copies = delta.copies?;
    let CrawlState {
        frontier,
        mut sample,
        root_url,
        root_relevance,
        last_fetched,
        ..
    } = delta.state;
    for (entry, from) in sample.pages.iter_mut().zip(copies) {
        if let Some(j) = from {
            *entry = state.sample.pages.get(j)?.clone();
        }
    }
    state.frontier = frontier;
    state.sample = sample;
    state.root_url = root_url;
    state.root_relevance = root_relevance;
    state.last_fetched = last_fetched;
    Some(())
}

/// The pages at the head of `r` (which ends where the value of `len` bytes ends): where
/// each lies in the value, its level and its kind. The vector is sized once, to no more
/// entries than the bytes left could hold, whatever a damaged count says.
fn index_pages(r: &mut &[u8], len: usize) -> Option<Vec<StoredPage>> {
    let n = get_len(r)?;
    let mut pages = Vec::with_capacity(n.min(r.len() / MIN_PAGE_ENTRY));
    for _ in 0..n {
        let url = get_ref(r)?;
        let start = len - r.len();
        let (level, kind, signature) = skip_page(r)?;
        pages.push(StoredPage {
            value: 0,
            url: start - url.len()..start,
            fields: start..len - r.len(),
            level,
            kind,
            signature,
        });
    }
    Some(pages)
}

/// The pages at the head of `r` as version 5 wrote them, decoded. Collected in a vector,
/// then into the map: a map built from a sorted sequence is built in one sweep.
fn read_v5_pages(r: &mut &[u8]) -> Option<Pages> {
    let n = get_len(r)?;
    let mut pages = Vec::with_capacity(n.min(r.len() / MIN_PAGE_ENTRY));
    for _ in 0..n {
        let url = get_ref(r)?;
        let page = get_page(r, true)?;
        pages.push((url.to_owned(), page));
    }
    Some(pages.into_iter().collect())
}

/// A state or a delta read back, its pages as found in `bytes` (version 5: decoded).
pub(crate) fn decode_value(bytes: &[u8]) -> Option<Decoded> {
    let (&version, mut r) = bytes.split_first()?;
    let (hex_digests, delta) = match version {
        CRAWL_V5 => (true, false),
        CRAWL_V6 => (false, false),
        CRAWL_DELTA_V7 => (false, true),
        _ => return None,
    };
    let r = &mut r;
    let mut state = CrawlState {
        root_url: match get_u8(r)? {
            0 => None,
            1 => Some(get_ref(r)?.to_owned()),
            _ => return None,
        },
        root_relevance: get_f64(r)?,
        last_fetched: get_u32(r)?,
        ..CrawlState::default()
    };
    let pages = if hex_digests {
        state.pages = read_v5_pages(r)?;
        Vec::new()
    } else {
        index_pages(r, bytes.len())?
    };
    let n = get_len(r)?;
    state.frontier = Vec::with_capacity(n.min(r.len()));
    for _ in 0..n {
        let url = get_ref(r)?.to_owned();
        let level = get_u8(r)?;
        let set = get_u8(r)?;
        if set > 0b1111 {
            return None;
        }
        let mut floats = [0.0; 4];
        for (i, f) in floats.iter_mut().enumerate() {
            if set & 1 << i != 0 {
                *f = get_f64(r)?;
            }
        }
        let [cash, potential, inherited, tunnel] = floats;
        state.frontier.push(Candidate {
            url,
            level,
            cash,
            potential,
            inherited,
            tunnel,
        });
    }
    let n = get_len(r)?;
    let mut sample = VecDeque::with_capacity(n.min(r.len()));
    let mut copies = delta.then(|| Vec::with_capacity(n.min(r.len())));
    for _ in 0..n {
        if let Some(copies) = &mut copies {
            let tag = get_len(r)?;
            if tag > 0 {
                copies.push(Some(tag - 1));
                sample.push_back(SampledPage {
                    page: 0,
                    links: Vec::new(),
                });
                continue;
            }
            copies.push(None);
        }
        let page = get_fixed(r)?;
        let k = get_len(r)?;
        if k.checked_mul(16)? > r.len() {
            return None;
        }
        let mut links = Vec::with_capacity(k);
        for _ in 0..k {
            links.push((get_fixed(r)?, get_fixed(r)?));
        }
        sample.push_back(SampledPage { page, links });
    }
    state.sample.pages = sample;
    r.is_empty().then_some(Decoded {
        state,
        copies,
        pages,
    })
}

fn put_opt(out: &mut Vec<u8>, s: Option<&str>) {
    match s {
        None => out.push(0),
        Some(s) => {
            out.push(1);
            put_str(out, s);
        }
    }
}

#[path = "crawl_page_codec.rs"]
mod page;

#[cfg(test)]
#[path = "crawl_codec_tests.rs"]
mod tests;
