//! One known page's fields in a crawl state's binary form (`crawl_codec.rs`): a bit set
//! of the fields present, then those fields in declaration order; and the numbers the
//! whole state is written with.

use super::super::codec::{get_ref, get_var, put_str, put_var};
use crate::model::crawl::{Digest, Kind, PageState, Signature};

/// Kinds by their byte.
pub(super) const KINDS: [Kind; 5] = [
    Kind::List,
    Kind::Leaf,
    Kind::Hub,
    Kind::Duplicate,
    Kind::Unusable,
];

/// The byte of a kind: its place in [`KINDS`].
pub(super) fn kind_byte(kind: Kind) -> u8 {
    match kind {
        Kind::List => 0,
        Kind::Leaf => 1,
        Kind::Hub => 2,
        Kind::Duplicate => 3,
        Kind::Unusable => 4,
    }
}

// Bits of a page's field set.
pub(super) const WHY: u32 = 1;
pub(super) const TITLE: u32 = 1 << 1;
pub(super) const RAW_FP: u32 = 1 << 2;
pub(super) const LINK_FP: u32 = 1 << 3;
pub(super) const ETAG: u32 = 1 << 4;
pub(super) const LAST_MODIFIED: u32 = 1 << 5;
pub(super) const SIGNATURE: u32 = 1 << 6;
pub(super) const RELEVANCE: u32 = 1 << 7;
pub(super) const INHERITED: u32 = 1 << 8;
pub(super) const CASH: u32 = 1 << 9;
pub(super) const TUNNEL: u32 = 1 << 10;
pub(super) const NOFOLLOW: u32 = 1 << 11;
pub(super) const PAGE_BITS: u32 = (1 << 12) - 1;

pub(super) fn put_page(out: &mut Vec<u8>, p: &PageState) {
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

/// The fields of one page, as [`Pages`](crate::model::crawl::Pages) asks for them: all of `fields`, as [`put_page`]
/// wrote them.
pub(super) fn page_at(fields: &[u8]) -> Option<PageState> {
    let mut r = fields;
    let page = get_page(&mut r, false)?;
    r.is_empty().then_some(page)
}

/// Steps over a page's fields as [`get_page`] reads them (version 6), checking what it
/// checks (their bits, the kind, each string's UTF-8, each number's range) without
/// building the page: its level, kind and signature.
pub(super) fn skip_page(r: &mut &[u8]) -> Option<(u8, Kind, Option<Signature>)> {
    let (level, kind, set) = get_head(r)?;
    let present = |bit: u32| set & bit != 0;
    for bit in [WHY, TITLE] {
        if present(bit) {
            get_ref(r)?;
        }
    }
    for bit in [RAW_FP, LINK_FP] {
        if present(bit) {
            *r = r.get(16..)?;
        }
    }
    for bit in [ETAG, LAST_MODIFIED] {
        if present(bit) {
            get_ref(r)?;
        }
    }
    let signature = if present(SIGNATURE) {
        Some(get_signature(r)?)
    } else {
        None
    };
    get_u32(r)?;
    for bit in [RELEVANCE, INHERITED, CASH, TUNNEL] {
        if present(bit) {
            get_f64(r)?;
        }
    }
    get_var(r)?;
    get_var(r)?;
    get_var(r)?;
    get_u32(r)?;
    Some((level, kind, signature))
}

/// A page as [`put_page`] wrote it; with `hex_digests` (version 5), each digest a string
/// of hex digits (one that is not reads as no digest: the page is read again).
pub(super) fn get_page(r: &mut &[u8], hex_digests: bool) -> Option<PageState> {
    let (level, kind, set) = get_head(r)?;
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
        Some(get_signature(r)?)
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

/// The start of a page's bytes, read by [`get_page`] and [`skip_page`] alike: its level,
/// its kind and the set of its fields present (no bit beyond [`PAGE_BITS`]).
fn get_head(r: &mut &[u8]) -> Option<(u8, Kind, u32)> {
    let level = get_u8(r)?;
    let kind = *KINDS.get(usize::from(get_u8(r)?))?;
    let set = get_u32(r)?;
    (set & !PAGE_BITS == 0).then_some((level, kind, set))
}

/// A near-duplicate signature as [`put_page`] writes it: the hash's eight bytes, then
/// the count of tokens.
fn get_signature(r: &mut &[u8]) -> Option<Signature> {
    Some(Signature {
        hash: get_fixed(r)?,
        tokens: get_u32(r)?,
    })
}

/// Zero, positive only: a negative zero keeps its sign through its bytes.
pub(super) fn is_zero(f: f64) -> bool {
    f.to_bits() == 0
}

pub(super) fn put_f64(out: &mut Vec<u8>, f: f64) {
    out.extend_from_slice(&f.to_le_bytes());
}

pub(super) fn get_f64(r: &mut &[u8]) -> Option<f64> {
    get_fixed(r).map(f64::from_bits)
}

pub(super) fn put_i64(out: &mut Vec<u8>, n: i64) {
    // Zigzag: 0, -1, 1, -2 ... as 0, 1, 2, 3 ..., so a small time of either sign is short.
    put_var(
        out,
        u64::from_ne_bytes(((n << 1) ^ (n >> 63)).to_ne_bytes()),
    );
}

pub(super) fn get_i64(r: &mut &[u8]) -> Option<i64> {
    let z = get_var(r)?;
    let half = i64::from_ne_bytes((z >> 1).to_ne_bytes());
    Some(if z & 1 == 0 { half } else { !half })
}

pub(super) fn get_u32(r: &mut &[u8]) -> Option<u32> {
    u32::try_from(get_var(r)?).ok()
}

/// Eight little-endian bytes.
pub(super) fn get_fixed(r: &mut &[u8]) -> Option<u64> {
    let (head, rest) = r.split_first_chunk::<8>()?;
    *r = rest;
    Some(u64::from_le_bytes(*head))
}

pub(super) fn get_u8(r: &mut &[u8]) -> Option<u8> {
    let (&b, rest) = r.split_first()?;
    *r = rest;
    Some(b)
}
