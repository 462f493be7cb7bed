//! Value encodings. Every value starts with a version byte: `1` is JSON (watches,
//! states, items), `2` is the binary link array: for each link, the text and the URL,
//! each as a LEB128 length and UTF-8 bytes. The link array is the largest value and is
//! rewritten by every check that changes a page, so it is kept lean.

use crate::model::Link;

pub const JSON_V1: u8 = 1;
pub const LINKS_V2: u8 = 2;

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
pub fn decode_links(bytes: &[u8]) -> Option<Vec<Link>> {
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
