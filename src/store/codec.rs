//! Value encodings. Every value starts with a version byte: `1` is JSON (watches,
//! states, items), `2` is the binary link array: for each link, the text and the URL,
//! each as a LEB128 length and UTF-8 bytes; `3` is a link array as a delta against the
//! one before it: copies of runs of the old array and the new links in between. The link
//! array is the largest value; a check that changes a page writes a delta, not the array.

use std::collections::HashMap;

use crate::model::Link;

pub const JSON_V1: u8 = 1;
pub(crate) const LINKS_V2: u8 = 2;
pub(crate) const LINKS_DELTA_V3: u8 = 3;

/// Delta op: copy `len` links of the old array from `from`.
const OP_COPY: u8 = 0;
/// Delta op: `n` new links follow.
const OP_INSERT: u8 = 1;

/// `new` as a delta against `old` (what [`apply_delta`] turns back into `new`).
pub(crate) fn encode_delta(old: &[Link], new: &[Link]) -> Vec<u8> {
    let mut first: HashMap<(&str, &str), usize> = HashMap::with_capacity(old.len());
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

/// The link array a delta makes of `old`; `None` if the bytes are not a delta of it.
/// Takes `old` by value: its links move into the result (a link copied twice is cloned
/// once), so replaying a chain of deltas costs no string copies for the links it keeps.
pub(crate) fn apply_delta(old: Vec<Link>, bytes: &[u8]) -> Option<Vec<Link>> {
    let (&tag, mut rest) = bytes.split_first()?;
    if tag != LINKS_DELTA_V3 {
        return None;
    }
    let n = get_len(&mut rest)?;
    let mut links: Vec<Link> = Vec::with_capacity(n.min(old.len() + rest.len()));
    // Each old link, until it moves; then where it went.
    let mut slots: Vec<Option<Link>> = old.into_iter().map(Some).collect();
    let mut moved_to = vec![usize::MAX; slots.len()];
    while !rest.is_empty() {
        let (&op, r) = rest.split_first()?;
        rest = r;
        match op {
            OP_COPY => {
                let from = get_len(&mut rest)?;
                let len = get_len(&mut rest)?;
                if from.checked_add(len)? > slots.len() || links.len().checked_add(len)? > n {
                    return None;
                }
                for i in from..from + len {
                    let link = match slots[i].take() {
                        Some(l) => {
                            moved_to[i] = links.len();
                            l
                        }
                        None => links.get(moved_to[i])?.clone(),
                    };
                    links.push(link);
                }
            }
            OP_INSERT => {
                let k = get_len(&mut rest)?;
                for _ in 0..k {
                    let text = get_str(&mut rest)?;
                    let url = get_str(&mut rest)?;
                    links.push(Link { text, url });
                }
            }
            _ => return None,
        }
        if links.len() > n {
            return None;
        }
    }
    (links.len() == n).then_some(links)
}

pub fn encode_links(links: &[Link]) -> Vec<u8> {
    let size: usize = links.iter().map(|l| l.text.len() + l.url.len() + 4).sum();
    let mut out = Vec::with_capacity(1 + 5 + size);
    out.push(LINKS_V2);
    put_len(&mut out, links.len());
    for l in links {
        put_str(&mut out, &l.text);
        put_str(&mut out, &l.url);
    }
    out
}

/// Decodes a link array; `None` if the bytes are not one.
pub(crate) fn decode_links(bytes: &[u8]) -> Option<Vec<Link>> {
    let (&tag, mut rest) = bytes.split_first()?;
    if tag != LINKS_V2 {
        return None;
    }
    let n = get_len(&mut rest)?;
    // Each link takes at least two bytes: a hostile length cannot make us allocate more.
    let mut links = Vec::with_capacity(n.min(rest.len() / 2));
    for _ in 0..n {
        let text = get_str(&mut rest)?;
        let url = get_str(&mut rest)?;
        links.push(Link { text, url });
    }
    rest.is_empty().then_some(links)
}

fn put_len(out: &mut Vec<u8>, mut n: usize) {
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

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_len(out, s.len());
    out.extend_from_slice(s.as_bytes());
}

fn get_len(input: &mut &[u8]) -> Option<usize> {
    let mut n: usize = 0;
    for shift in (0..64).step_by(7) {
        let (&b, rest) = input.split_first()?;
        *input = rest;
        n |= usize::from(b & 0x7f).checked_shl(shift)?;
        if b & 0x80 == 0 {
            return Some(n);
        }
    }
    None
}

fn get_str(input: &mut &[u8]) -> Option<String> {
    let len = get_len(input)?;
    if len > input.len() {
        return None;
    }
    let (s, rest) = input.split_at(len);
    *input = rest;
    String::from_utf8(s.to_vec()).ok()
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

        #[test]
        fn garbage_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = decode_links(&bytes);
            let _ = apply_delta(vec![Link::new("a", "http://a/")], &bytes);
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
            prop_assert_eq!(apply_delta(old.clone(), &encode_delta(&old, &new)), Some(new));
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
        assert!(encode_links(&new).len() > 10_000);
        assert_eq!(apply_delta(old.clone(), &delta), Some(new));
        // A delta does not apply to an array too short for its copies.
        assert_eq!(apply_delta(old[..100].to_vec(), &delta), None);
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
