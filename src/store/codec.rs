//! Value encodings. Every value starts with a version byte: `1` is JSON (watches,
//! states, items), `2` is the binary link array: the count, then for each link the text
//! and the URL, each as a LEB128 length and UTF-8 bytes; `7` is the same array packed
//! as an LZ4 block (its plain length, then the block of version 2 without the version
//! byte); `4`, the same deflated, is still read. `3` is a link array as a delta against
//! the one before it: copies of runs of the old array and the new links in between. The
//! link array is the largest value; a check that changes a page writes a delta, not the
//! array. `6` is a deep watch's crawl state in binary (`crawl_codec.rs`), with the LEB128
//! numbers and strings defined here; `5`, the same with each page's digests in hex, is
//! still read.

use std::borrow::Cow;

use crate::hash::HashMap;
use crate::model::Link;

pub const JSON_V1: u8 = 1;
pub(crate) const LINKS_V2: u8 = 2;
pub(crate) const LINKS_DELTA_V3: u8 = 3;
pub(crate) const LINKS_DEFLATED_V4: u8 = 4;
pub(crate) const LINKS_LZ4_V7: u8 = 7;

/// Link arrays of at least this many plain bytes are stored packed (when that is
/// smaller).
const PACK_FROM: usize = 256;
/// The most an LZ4 block expands to: 255 bytes of output for each byte of a run's
/// length (and the block's last literals), so a damaged plain length past this is
/// rejected before anything is allocated for it.
const LZ4_MAX_RATIO: usize = 255;
/// The largest plain link array read back: a corrupt length cannot make us allocate
/// more.
const MAX_LINKS_BYTES: usize = 64 << 20;

/// Delta op: copy `len` links of the old array from `from`.
const OP_COPY: u8 = 0;
/// Delta op: `n` new links follow.
const OP_INSERT: u8 = 1;

/// `new` as a delta against `old` (what [`replay`] turns back into `new`).
pub(crate) fn encode_delta(old: &[Link], new: &[Link]) -> Vec<u8> {
    let mut first: HashMap<(&str, &str), usize> = HashMap::default();
    first.reserve(old.len());
    for (i, l) in old.iter().enumerate() {
        first.entry((l.url.as_str(), l.text.as_str())).or_insert(i);
    }
    let mut out = vec![LINKS_DELTA_V3];
    put_len(&mut out, new.len());
    let mut inserts: Vec<&Link> = Vec::new();
    // The current copy run: (from, len).
    let mut run: Option<(usize, usize)> = None;
    let flush_inserts = |out: &mut Vec<u8>, inserts: &mut Vec<&Link>| {
        if !inserts.is_empty() {
            out.push(OP_INSERT);
            put_len(out, inserts.len());
            for l in inserts.drain(..) {
                put_str(out, &l.text);
                put_str(out, &l.url);
            }
        }
    };
    let flush_run = |out: &mut Vec<u8>, run: &mut Option<(usize, usize)>| {
        if let Some((from, len)) = run.take() {
            out.push(OP_COPY);
            put_len(out, from);
            put_len(out, len);
        }
    };
    for l in new {
        if let Some((from, len)) = &mut run {
            if old.get(*from + *len) == Some(l) {
                *len += 1;
                continue;
            }
        }
        flush_run(&mut out, &mut run);
        if let Some(&j) = first.get(&(l.url.as_str(), l.text.as_str())) {
            flush_inserts(&mut out, &mut inserts);
            run = Some((j, 1));
        } else {
            inserts.push(l);
        }
    }
    flush_run(&mut out, &mut run);
    flush_inserts(&mut out, &mut inserts);
    out
}

/// The link array that a full array (`base`, as [`encode_links`] writes it) and the
/// deltas written after it make, applied in order; `None` if the bytes are not such an
/// array and deltas of it.
///
/// The deltas are replayed on indices into the links they name (those of the full array
/// and those the deltas insert), borrowed from the bytes; only the final array's links
/// become strings. A chain of deltas costs a few integers per link and delta, not a copy
/// of the array per delta.
pub(crate) fn replay(base: &[u8], deltas: &[&[u8]]) -> Option<Vec<Link>> {
    let payload = payload(base)?;
    let mut strs = Strings::new(&payload);
    let n = strs.len()?;
    // Each link takes at least two bytes: a hostile length cannot make us allocate more.
    let mut pool: Vec<(&str, &str)> = Vec::with_capacity(n.min(strs.left() / 2));
    for _ in 0..n {
        let text = strs.str()?;
        let url = strs.str()?;
        pool.push((text, url));
    }
    if strs.left() != 0 {
        return None;
    }
    let mut ids: Vec<usize> = (0..n).collect();
    let mut next = Vec::new();
    for delta in deltas {
        replay_delta(&ids, delta, &mut pool, &mut next)?;
        std::mem::swap(&mut ids, &mut next);
    }
    Some(
        ids.iter()
            .map(|&i| {
                let (text, url) = pool[i];
                Link {
                    text: text.to_owned(),
                    url: url.to_owned(),
                }
            })
            .collect(),
    )
}

/// One delta over `ids` (indices into `pool`) into `out`; the links it inserts join
/// `pool`. `None` if the bytes are not a delta of an array of `ids.len()` links.
fn replay_delta<'a>(
    ids: &[usize],
    bytes: &'a [u8],
    pool: &mut Vec<(&'a str, &'a str)>,
    out: &mut Vec<usize>,
) -> Option<()> {
    let (&tag, mut rest) = bytes.split_first()?;
    if tag != LINKS_DELTA_V3 {
        return None;
    }
    let n = get_len(&mut rest)?;
    out.clear();
    out.reserve(n.min(ids.len() + rest.len()));
    while !rest.is_empty() {
        let (&op, r) = rest.split_first()?;
        rest = r;
        match op {
            OP_COPY => {
                let from = get_len(&mut rest)?;
                let len = get_len(&mut rest)?;
                if from.checked_add(len)? > ids.len() || out.len().checked_add(len)? > n {
                    return None;
                }
                out.extend_from_slice(&ids[from..from + len]);
            }
            OP_INSERT => {
                let k = get_len(&mut rest)?;
                for _ in 0..k {
                    let text = get_ref(&mut rest)?;
                    let url = get_ref(&mut rest)?;
                    out.push(pool.len());
                    pool.push((text, url));
                }
            }
            _ => return None,
        }
        if out.len() > n {
            return None;
        }
    }
    (out.len() == n).then_some(())
}

/// The link array `links` as stored: the count and, for each link, its text and URL
/// (version 2), packed as one LZ4 block (version 7) when that makes it smaller. A page's
/// links compress well (URLs share their site and paths, texts repeat "Read more"), and
/// the store holds one such array per watch: a quarter of the bytes is a quarter of the
/// memory its reads keep and of what a compaction copies. LZ4 rather than deflate: a
/// check that changed its page reads the array back, and a 485-link news page (28 KB
/// plain) unpacks in about 5 µs where it inflated in 26, for 7.9 KB stored instead of
/// 6.7 (`bench/README.md`).
pub fn encode_links(links: &[Link]) -> Vec<u8> {
    let size: usize = links.iter().map(|l| l.text.len() + l.url.len() + 4).sum();
    let mut out = Vec::with_capacity(1 + 5 + size);
    out.push(LINKS_V2);
    put_len(&mut out, links.len());
    for l in links {
        put_str(&mut out, &l.text);
        put_str(&mut out, &l.url);
    }
    if out.len() < PACK_FROM {
        return out;
    }
    let plain = &out[1..];
    let room = lz4_flex::block::get_maximum_output_size(plain.len());
    let mut packed = Vec::with_capacity(1 + 10 + room);
    packed.push(LINKS_LZ4_V7);
    put_len(&mut packed, plain.len());
    let head = packed.len();
    packed.resize(head + room, 0);
    match lz4_flex::block::compress_into(plain, &mut packed[head..]) {
        Ok(n) if head + n < out.len() => {
            packed.truncate(head + n);
            packed
        }
        _ => out,
    }
}

/// Decodes a link array; `None` if the bytes are not one.
pub(crate) fn decode_links(bytes: &[u8]) -> Option<Vec<Link>> {
    replay(bytes, &[])
}

/// The bytes of a link array after its version byte, unpacked when it is packed.
fn payload(bytes: &[u8]) -> Option<Cow<'_, [u8]>> {
    let (&tag, mut rest) = bytes.split_first()?;
    match tag {
        LINKS_V2 => Some(Cow::Borrowed(rest)),
        LINKS_LZ4_V7 => {
            let len = get_len(&mut rest)?;
            if len > MAX_LINKS_BYTES || len > rest.len().saturating_mul(LZ4_MAX_RATIO) {
                return None;
            }
            let mut out = vec![0; len];
            let n = lz4_flex::block::decompress_into(rest, &mut out).ok()?;
            (n == len).then_some(Cow::Owned(out))
        }
        LINKS_DEFLATED_V4 => {
            let len = get_len(&mut rest)?;
            if len > MAX_LINKS_BYTES {
                return None;
            }
            super::deflate::inflate_exact(rest, len).map(Cow::Owned)
        }
        _ => None,
    }
}

pub(super) fn put_len(out: &mut Vec<u8>, n: usize) {
    put_var(out, n as u64);
}

/// `n` in LEB128: seven bits a byte, low bits first.
pub(super) fn put_var(out: &mut Vec<u8>, mut n: u64) {
    loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

pub(super) fn put_str(out: &mut Vec<u8>, s: &str) {
    put_len(out, s.len());
    out.extend_from_slice(s.as_bytes());
}

pub(super) fn get_len(input: &mut &[u8]) -> Option<usize> {
    usize::try_from(get_var(input)?).ok()
}

/// A LEB128 number; `None` if the bytes end first or it does not fit in 64 bits.
pub(super) fn get_var(input: &mut &[u8]) -> Option<u64> {
    let mut n: u64 = 0;
    for shift in (0..64).step_by(7) {
        let (&b, rest) = input.split_first()?;
        *input = rest;
        n |= u64::from(b & 0x7f).checked_shl(shift)?;
        if b & 0x80 == 0 {
            return Some(n);
        }
    }
    None
}

/// Reads lengths and length-prefixed strings off `bytes`, as [`get_len`] and [`get_ref`]
/// do, with the same results, but checks UTF-8 by runs: the longest valid run from a
/// string's start is checked once, and every later string inside it is cut from it (a
/// cut off a char boundary is invalid UTF-8, as [`std::str::from_utf8`] would find).
/// The lengths between the strings are mostly ASCII bytes, so one run usually spans the
/// array, where a check per string cost more than the check itself for short strings.
struct Strings<'a> {
    bytes: &'a [u8],
    at: usize,
    /// The valid run: `bytes[from..from + run.len()]`.
    from: usize,
    run: &'a str,
}

impl<'a> Strings<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Self {
            bytes,
            at: 0,
            from: 0,
            run: "",
        }
    }

    /// Bytes not read yet.
    fn left(&self) -> usize {
        self.bytes.len() - self.at
    }

    fn len(&mut self) -> Option<usize> {
        let mut rest = &self.bytes[self.at..];
        let n = get_len(&mut rest);
        self.at = self.bytes.len() - rest.len();
        n
    }

    fn str(&mut self) -> Option<&'a str> {
        let len = self.len()?;
        let start = self.at;
        let end = start.checked_add(len).filter(|&e| e <= self.bytes.len())?;
        self.at = end;
        if start < self.from || end > self.from + self.run.len() {
            let tail = &self.bytes[start..];
            let valid = match std::str::from_utf8(tail) {
                Ok(all) => all,
                Err(e) => std::str::from_utf8(&tail[..e.valid_up_to()]).ok()?,
            };
            self.from = start;
            self.run = valid;
        }
        self.run.get(start - self.from..end - self.from)
    }
}

pub(super) fn get_ref<'a>(input: &mut &'a [u8]) -> Option<&'a str> {
    let len = get_len(input)?;
    if len > input.len() {
        return None;
    }
    let (s, rest) = input.split_at(len);
    *input = rest;
    std::str::from_utf8(s).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn links_round_trip(raw in proptest::collection::vec((".{0,200}", ".{0,300}"), 0..50)) {
            let links: Vec<Link> = raw.into_iter().map(|(t, u)| Link::new(t, u)).collect();
            prop_assert_eq!(decode_links(&encode_links(&links)), Some(links));
        }

        /// The reader by runs reads what reading string by string reads, from valid
        /// arrays (short and long strings, any characters) and from any bytes at all.
        #[test]
        fn strings_by_runs_read_as_one_by_one(
            strs in proptest::collection::vec(".{0,150}", 0..12),
            noise in proptest::collection::vec(any::<u8>(), 0..40),
            at in any::<prop::sample::Index>(),
        ) {
            let mut bytes = Vec::new();
            for s in &strs {
                put_str(&mut bytes, s);
            }
            let clean = bytes.clone();
            // The same with arbitrary bytes spliced in somewhere.
            let i = at.index(bytes.len() + 1);
            bytes.splice(i..i, noise.iter().copied());
            for input in [&clean[..], &bytes[..], &noise[..]] {
                let mut by_runs = Strings::new(input);
                let mut one_by_one = input;
                for _ in 0..=strs.len() {
                    prop_assert_eq!(by_runs.str(), get_ref(&mut one_by_one));
                    prop_assert_eq!(by_runs.left(), one_by_one.len());
                }
            }
            let mut by_runs = Strings::new(&clean);
            for s in &strs {
                prop_assert_eq!(by_runs.str(), Some(s.as_str()));
            }
        }

        #[test]
        fn garbage_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = decode_links(&bytes);
            let _ = replay(&encode_links(&[Link::new("a", "http://a/")]), &[&bytes]);
            // Garbage behind the packed forms' headers.
            for tag in [LINKS_DEFLATED_V4, LINKS_LZ4_V7] {
                let mut packed = vec![tag, 40];
                packed.extend_from_slice(&bytes);
                let _ = decode_links(&packed);
            }
        }

        /// Any array as a delta of any other turns back into itself, with links repeated,
        /// moved, dropped and new.
        #[test]
        fn delta_round_trip(
            old in proptest::collection::vec(("[ab]{0,2}", "[a-d]{1,2}"), 0..40),
            new in proptest::collection::vec(("[ab]{0,2}", "[a-e]{1,2}"), 0..40),
        ) {
            let old: Vec<Link> = old.into_iter().map(|(t, u)| Link::new(t, u)).collect();
            let new: Vec<Link> = new.into_iter().map(|(t, u)| Link::new(t, u)).collect();
            prop_assert_eq!(replay(&encode_links(&old), &[&encode_delta(&old, &new)]), Some(new));
        }
    }

    #[test]
    fn a_page_with_a_few_new_links_on_top_is_a_small_delta() {
        let old: Vec<Link> = (0..400)
            .map(|i| {
                Link::new(
                    format!("story number {i}"),
                    format!("http://news.example/item/{i}"),
                )
            })
            .collect();
        let mut new: Vec<Link> = (400..403)
            .map(|i| {
                Link::new(
                    format!("story number {i}"),
                    format!("http://news.example/item/{i}"),
                )
            })
            .collect();
        new.extend_from_slice(&old[..397]);
        let delta = encode_delta(&old, &new);
        assert!(delta.len() < 150, "{} bytes", delta.len());
        assert!(
            delta.len() * 10 < encode_links(&new).len(),
            "the whole array, deflated, is far larger"
        );
        assert_eq!(replay(&encode_links(&old), &[&delta]), Some(new));
        // A delta does not apply to an array too short for its copies.
        assert_eq!(replay(&encode_links(&old[..100]), &[&delta]), None);
    }

    /// A news page's links: a menu, then entries with their author, comments and
    /// "Read more" links on one site.
    fn news_page(first: usize) -> Vec<Link> {
        let mut links: Vec<Link> = (0..20)
            .map(|i| {
                Link::new(
                    format!("Section {i}"),
                    format!("https://news.example/section/{i}/"),
                )
            })
            .collect();
        for e in (first..first + 100).rev() {
            let item = format!("https://news.example/2026/11/story-{e}");
            links.push(Link::new(
                format!("Council backs plan number {e} for the river"),
                &item,
            ));
            links.push(Link::new(
                format!("Author {}", e % 17),
                format!("https://news.example/author/{}", e % 17),
            ));
            links.push(Link::new(
                format!("{} comments", e % 50),
                format!("{item}#comments"),
            ));
            links.push(Link::new("Read more", item));
        }
        links
    }

    /// A page's array is stored packed, in under a third of its plain size, and reads
    /// back as it was; a short array stays plain.
    #[test]
    fn a_page_array_is_packed() {
        let links = news_page(1000);
        let plain: usize = links.iter().map(|l| l.text.len() + l.url.len() + 2).sum();
        let enc = encode_links(&links);
        assert_eq!(enc[0], LINKS_LZ4_V7);
        assert!(enc.len() * 3 < plain, "{} of {plain} bytes", enc.len());
        assert_eq!(decode_links(&enc), Some(links));
        let short = [Link::new("a", "http://a/")];
        assert_eq!(encode_links(&short)[0], LINKS_V2);
        assert_eq!(decode_links(&encode_links(&short)), Some(short.to_vec()));
        // As repetitive as an array gets: one link over and over.
        let same = vec![Link::new("Read more", "https://news.example/a"); 5_000];
        let enc = encode_links(&same);
        assert_eq!(enc[0], LINKS_LZ4_V7);
        assert_eq!(decode_links(&enc), Some(same));
    }

    /// The array `links` as earlier builds stored it: deflated at level 1.
    fn deflated_v4(links: &[Link]) -> Vec<u8> {
        let mut plain = Vec::new();
        put_len(&mut plain, links.len());
        for l in links {
            put_str(&mut plain, &l.text);
            put_str(&mut plain, &l.url);
        }
        let mut out = vec![LINKS_DEFLATED_V4];
        put_len(&mut out, plain.len());
        out.extend_from_slice(&super::super::deflate::deflate(&plain, 1));
        out
    }

    /// An array stored deflated by an earlier build still reads, alone and under the
    /// deltas written after it.
    #[test]
    fn a_deflated_array_of_an_earlier_build_still_reads() {
        let old = news_page(500);
        let new = news_page(503);
        let base = deflated_v4(&old);
        assert_eq!(decode_links(&base).as_ref(), Some(&old));
        let delta = encode_delta(&old, &new);
        assert_eq!(replay(&base, &[&delta]), Some(new));
    }

    /// A chain of deltas over a deflated array replays to the last array; a chain out of
    /// order or cut short of a delta's copies does not.
    #[test]
    fn a_chain_of_deltas_replays_in_order() {
        let pages: Vec<Vec<Link>> = (0..12).map(|k| news_page(1000 + 3 * k)).collect();
        let base = encode_links(&pages[0]);
        let deltas: Vec<Vec<u8>> = pages
            .windows(2)
            .map(|w| encode_delta(&w[0], &w[1]))
            .collect();
        let chain: Vec<&[u8]> = deltas.iter().map(Vec::as_slice).collect();
        for k in 0..chain.len() {
            assert_eq!(
                replay(&base, &chain[..=k]).as_ref(),
                Some(&pages[k + 1]),
                "{k}"
            );
        }
        // Each delta is a few new entries, not a page.
        assert!(deltas.iter().all(|d| d.len() < 1_000));
        // Links repeated on one page (an entry's title and "Read more" share a URL) and
        // moved ones come back from the pool, once per place.
        let mut swapped = chain.clone();
        swapped.swap(0, 1);
        assert_ne!(replay(&base, &swapped).as_ref(), Some(&pages[chain.len()]));
        let short = encode_links(&pages[0][..50]);
        assert_eq!(replay(&short, &chain[..1]), None);
    }

    /// A packed array, LZ4 or deflated, cut anywhere or with a wrong plain length, is
    /// rejected.
    #[test]
    fn a_damaged_packed_array_is_rejected() {
        let links = news_page(7);
        for enc in [encode_links(&links), deflated_v4(&links)] {
            let tag = enc[0];
            assert!(tag == LINKS_LZ4_V7 || tag == LINKS_DEFLATED_V4);
            for cut in 0..enc.len() {
                assert_eq!(decode_links(&enc[..cut]), None, "{tag}: cut at {cut}");
            }
            let mut rest = &enc[1..];
            let len = get_len(&mut rest).expect("length");
            for wrong in [len - 1, len + 1, MAX_LINKS_BYTES + 1] {
                let mut bad = vec![tag];
                put_len(&mut bad, wrong);
                bad.extend_from_slice(rest);
                assert_eq!(decode_links(&bad), None, "{tag}: length {wrong} for {len}");
            }
        }
    }

    #[test]
    fn truncation_and_trailing_bytes_are_rejected() {
        let enc = encode_links(&[Link::new("héllo", "http://x/"), Link::new("", "http://y/")]);
        for cut in 0..enc.len() {
            assert_eq!(decode_links(&enc[..cut]), None, "cut at {cut}");
        }
        let mut longer = enc.clone();
        longer.push(0);
        assert_eq!(decode_links(&longer), None);
        // A length of 300 takes two LEB128 bytes.
        let long = Link::new("t".repeat(300), "u");
        assert_eq!(
            decode_links(&encode_links(std::slice::from_ref(&long))),
            Some(vec![long])
        );
    }
}
