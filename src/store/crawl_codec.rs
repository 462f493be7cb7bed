//! A deep watch's crawl state ([`CrawlState`]) in binary (value version 6). The state is
//! the largest value a deep check reads, decoded on every check for the handful of pages
//! it fetched. This form keeps the same values in well under half
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

use super::codec::{get_len, get_ref, get_var, put_len, put_str, put_var};
use crate::model::crawl::{Candidate, CrawlState, Digest, Kind, PageState, SampledPage, Signature};

/// Digests as hex strings (read only).
pub(crate) const CRAWL_V5: u8 = 5;
/// Digests as their bytes (written).
pub(crate) const CRAWL_V6: u8 = 6;
/// A delta against the state before it ([`encode_delta`]).
pub(crate) const CRAWL_DELTA_V7: u8 = 7;

/// Kinds by their byte.
const KINDS: [Kind; 5] = [
    Kind::List,
    Kind::Leaf,
    Kind::Hub,
    Kind::Duplicate,
    Kind::Unusable,
];

/// The byte of a kind: its place in [`KINDS`].
fn kind_byte(kind: Kind) -> u8 {
    match kind {
        Kind::List => 0,
        Kind::Leaf => 1,
        Kind::Hub => 2,
        Kind::Duplicate => 3,
        Kind::Unusable => 4,
    }
}

// Bits of a page's field set.
const WHY: u32 = 1;
const TITLE: u32 = 1 << 1;
const RAW_FP: u32 = 1 << 2;
const LINK_FP: u32 = 1 << 3;
const ETAG: u32 = 1 << 4;
const LAST_MODIFIED: u32 = 1 << 5;
const SIGNATURE: u32 = 1 << 6;
const RELEVANCE: u32 = 1 << 7;
const INHERITED: u32 = 1 << 8;
const CASH: u32 = 1 << 9;
const TUNNEL: u32 = 1 << 10;
const NOFOLLOW: u32 = 1 << 11;
const PAGE_BITS: u32 = (1 << 12) - 1;
/// The fewest bytes a page's entry takes ([`put_entry`]): nine one-byte fields (the URL's
/// length, level, kind, fields present, links, two times, items, failures).
const MIN_PAGE_ENTRY: usize = 9;

/// The state as stored.
pub(crate) fn encode(state: &CrawlState) -> Vec<u8> {
    let mut out = write(CRAWL_V6, state, state.pages.len(), state.pages.iter());
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
        .filter_map(|url| state.pages.get_key_value(*url))
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

/// The bytes [`encode`] writes for one page, URL first, appended to `out`.
fn put_entry(out: &mut Vec<u8>, url: &str, page: &PageState) {
    put_str(out, url);
    put_page(out, page);
}

/// All but the sample. `n_pages` is the number of `pages` (the full map, or the pages of
/// a delta).
fn write<'a>(
    version: u8,
    state: &CrawlState,
    n_pages: usize,
    pages: impl Iterator<Item = (&'a String, &'a PageState)>,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 + n_pages * 120 + state.frontier.len() * 60);
    out.push(version);
    put_opt(&mut out, state.root_url.as_deref());
    put_f64(&mut out, state.root_relevance);
    put_var(&mut out, state.last_fetched.into());
    put_len(&mut out, n_pages);
    for (url, p) in pages {
        put_entry(&mut out, url, p);
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
    decode_value(bytes)
        .filter(|d| d.copies.is_none())
        .map(|d| d.state)
}

/// A state or a delta as read.
pub(crate) struct Decoded {
    pub state: CrawlState,
    /// A delta's sample: for each entry, the entry of the sample before that it is
    /// (its own place in `state` then holds an empty one). `None` for a full state.
    pub copies: Option<Vec<Option<usize>>>,
}

/// `delta` (a [`Decoded`] delta) applied to the state before it: its pages added or
/// replaced, the rest of the state taken from it, the sample's entries copied from the
/// sample before where the delta says so. `None` if `delta` is a full state or copies
/// an entry the sample before does not have.
pub(crate) fn apply_delta(state: &mut CrawlState, delta: Decoded) -> Option<()> {
    let copies = delta.copies?;
    let CrawlState {
        pages,
        frontier,
        mut sample,
        root_url,
        root_relevance,
        last_fetched,
    } = delta.state;
    for (entry, from) in sample.pages.iter_mut().zip(copies) {
        if let Some(j) = from {
            *entry = state.sample.pages.get(j)?.clone();
        }
    }
    state.pages.read_more(pages);
    state.frontier = frontier;
    state.sample = sample;
    state.root_url = root_url;
    state.root_relevance = root_relevance;
    state.last_fetched = last_fetched;
    Some(())
}

/// A state or a delta read back (its pages not noted as changed).
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
    // Collected in a vector, then into the map: a map built from a sorted sequence is
    // built in one sweep, without comparing keys down the tree (400 pages inserted one by
    // one took twice as long). The vector is sized once (grown as it filled, it was
    // reallocated seven times for 400 pages), to no more entries than the bytes left
    // could hold, whatever a damaged count says.
    let n = get_len(r)?;
    let mut pages = Vec::with_capacity(n.min(r.len() / MIN_PAGE_ENTRY));
    for _ in 0..n {
        let url = get_ref(r)?;
        let page = get_page(r, hex_digests)?;
        pages.push((url.to_owned(), page));
    }
    state.pages = pages.into_iter().collect();
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
    r.is_empty().then_some(Decoded { state, copies })
}

fn put_page(out: &mut Vec<u8>, p: &PageState) {
    out.push(p.level);
    out.push(kind_byte(p.kind));
    let strings = [(WHY, &p.why), (TITLE, &p.title)];
    let digests = [(RAW_FP, &p.raw_fingerprint), (LINK_FP, &p.link_fingerprint)];
    let validators = [(ETAG, &p.etag), (LAST_MODIFIED, &p.last_modified)];
    let floats = [
        (RELEVANCE, p.relevance),
        (INHERITED, p.inherited),
        (CASH, p.cash),
        (TUNNEL, p.tunnel),
    ];
    let mut set = 0;
    for (bit, s) in strings.iter().chain(&validators) {
        if s.is_some() {
            set |= bit;
        }
    }
    for (bit, d) in digests {
        if d.is_some() {
            set |= bit;
        }
    }
    for (bit, f) in floats {
        if !is_zero(f) {
            set |= bit;
        }
    }
    if p.signature.is_some() {
        set |= SIGNATURE;
    }
    if p.nofollow {
        set |= NOFOLLOW;
    }
    put_var(out, set.into());
    for (_, s) in strings {
        if let Some(s) = s {
            put_str(out, s);
        }
    }
    for (_, d) in digests {
        if let Some(d) = d {
            out.extend_from_slice(&d.0);
        }
    }
    for (_, s) in validators {
        if let Some(s) = s {
            put_str(out, s);
        }
    }
    if let Some(sig) = p.signature {
        out.extend_from_slice(&sig.hash.to_le_bytes());
        put_var(out, sig.tokens.into());
    }
    put_var(out, p.links.into());
    for (_, f) in floats {
        if !is_zero(f) {
            put_f64(out, f);
        }
    }
    put_i64(out, p.found);
    put_i64(out, p.fetched);
    put_var(out, p.items);
    put_var(out, p.failures.into());
}

/// A page as [`put_page`] wrote it; with `hex_digests` (version 5), each digest a string
/// of hex digits (one that is not reads as no digest: the page is read again).
fn get_page(r: &mut &[u8], hex_digests: bool) -> Option<PageState> {
    let level = get_u8(r)?;
    let kind = *KINDS.get(usize::from(get_u8(r)?))?;
    let set = get_u32(r)?;
    if set & !PAGE_BITS != 0 {
        return None;
    }
    let string = |bit: u32, r: &mut &[u8]| -> Option<Option<String>> {
        if set & bit == 0 {
            return Some(None);
        }
        get_ref(r).map(|s| Some(s.to_owned()))
    };
    let why = string(WHY, r)?;
    let title = string(TITLE, r)?;
    let digest = |bit: u32, r: &mut &[u8]| -> Option<Option<Digest>> {
        if set & bit == 0 {
            return Some(None);
        }
        if hex_digests {
            return get_ref(r).map(Digest::from_hex);
        }
        let (d, rest) = r.split_first_chunk::<16>()?;
        *r = rest;
        Some(Some(Digest(*d)))
    };
    let raw_fingerprint = digest(RAW_FP, r)?;
    let link_fingerprint = digest(LINK_FP, r)?;
    let etag = string(ETAG, r)?;
    let last_modified = string(LAST_MODIFIED, r)?;
    let signature = if set & SIGNATURE == 0 {
        None
    } else {
        Some(Signature {
            hash: get_fixed(r)?,
            tokens: get_u32(r)?,
        })
    };
    let links = get_u32(r)?;
    let float = |bit: u32, r: &mut &[u8]| -> Option<f64> {
        if set & bit == 0 {
            return Some(0.0);
        }
        get_f64(r)
    };
    let relevance = float(RELEVANCE, r)?;
    let inherited = float(INHERITED, r)?;
    let cash = float(CASH, r)?;
    let tunnel = float(TUNNEL, r)?;
    Some(PageState {
        level,
        kind,
        why,
        title,
        raw_fingerprint,
        link_fingerprint,
        etag,
        last_modified,
        signature,
        links,
        relevance,
        inherited,
        cash,
        tunnel,
        found: get_i64(r)?,
        fetched: get_i64(r)?,
        items: get_var(r)?,
        failures: get_u32(r)?,
        nofollow: set & NOFOLLOW != 0,
    })
}

/// Zero, positive only: a negative zero keeps its sign through its bytes.
fn is_zero(f: f64) -> bool {
    f.to_bits() == 0
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

fn put_f64(out: &mut Vec<u8>, f: f64) {
    out.extend_from_slice(&f.to_le_bytes());
}

fn get_f64(r: &mut &[u8]) -> Option<f64> {
    get_fixed(r).map(f64::from_bits)
}

fn put_i64(out: &mut Vec<u8>, n: i64) {
    // Zigzag: 0, -1, 1, -2 ... as 0, 1, 2, 3 ..., so a small time of either sign is short.
    put_var(
        out,
        u64::from_ne_bytes(((n << 1) ^ (n >> 63)).to_ne_bytes()),
    );
}

fn get_i64(r: &mut &[u8]) -> Option<i64> {
    let z = get_var(r)?;
    let half = i64::from_ne_bytes((z >> 1).to_ne_bytes());
    Some(if z & 1 == 0 { half } else { !half })
}

fn get_u32(r: &mut &[u8]) -> Option<u32> {
    u32::try_from(get_var(r)?).ok()
}

/// Eight little-endian bytes.
fn get_fixed(r: &mut &[u8]) -> Option<u64> {
    let (head, rest) = r.split_first_chunk::<8>()?;
    *r = rest;
    Some(u64::from_le_bytes(*head))
}

fn get_u8(r: &mut &[u8]) -> Option<u8> {
    let (&b, rest) = r.split_first()?;
    *r = rest;
    Some(b)
}

#[cfg(test)]
#[path = "crawl_codec_tests.rs"]
mod tests;
