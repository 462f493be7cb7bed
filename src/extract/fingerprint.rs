//! Fingerprints of a check (`docs/design.md` §1, steps 2 and 4): the MD5 of the raw body,
//! and the MD5 of the denoised link array, which a visit counter, a clock or a rotating ad
//! does not change.

use md5::{Digest, Md5};

use crate::model::Link;

/// MD5 of the body bytes.
pub fn raw(body: &[u8]) -> [u8; 16] {
    Md5::digest(body).into()
}

/// MD5 of the link array: for each link in order, its text and its URL, each preceded by
/// its length in bytes (8 bytes, little-endian), so no two different arrays hash the same
/// input (`[("ab", "c")]` and `[("a", "bc")]`, or one link and two, differ).
pub fn links(links: &[Link]) -> [u8; 16] {
    // The fields are gathered in a buffer on the stack and hashed a buffer at a time:
    // four calls of the hasher per link, most with a few bytes, cost more than the copy,
    // and one buffer for the whole array was a fresh allocation of tens of KB per check.
    let mut h = Md5::new();
    let mut buf = [0u8; 8192];
    let mut used = 0;
    let mut put = |bytes: &[u8], h: &mut Md5| {
        if used + bytes.len() > buf.len() {
            h.update(&buf[..used]);
            used = 0;
        }
        if bytes.len() > buf.len() {
            h.update(bytes);
        } else {
            buf[used..used + bytes.len()].copy_from_slice(bytes);
            used += bytes.len();
        }
    };
    for link in links {
        for field in [&link.text, &link.url] {
            put(&(field.len() as u64).to_le_bytes(), &mut h);
            put(field.as_bytes(), &mut h);
        }
    }
    h.update(&buf[..used]);
    h.finalize().into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::hex;

    #[test]
    fn raw_is_md5() {
        assert_eq!(hex(&raw(b"")), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(
            hex(&raw(b"The quick brown fox jumps over the lazy dog")),
            "9e107d9d372bb6826bd81d3542a419d6"
        );
    }

    #[test]
    fn link_fingerprint_is_unambiguous() {
        let l = |t: &str, u: &str| Link::new(t, u);
        let variants = [
            vec![],
            vec![l("", "")],
            vec![l("", ""), l("", "")],
            vec![l("ab", "c")],
            vec![l("a", "bc")],
            vec![l("a", "b"), l("c", "d")],
            vec![l("a", "bc"), l("", "d")],
            vec![l("c", "d"), l("a", "b")],
        ];
        let prints: Vec<_> = variants.iter().map(|v| links(v)).collect();
        for i in 0..prints.len() {
            for j in i + 1..prints.len() {
                assert_ne!(
                    prints[i], prints[j],
                    "{:?} vs {:?}",
                    variants[i], variants[j]
                );
            }
        }
        assert_eq!(links(&variants[5]), links(&variants[5].clone()));
    }

    /// The MD5 of the fields fed to the hasher one by one, each after its length.
    fn fields_in_order(list: &[Link]) -> [u8; 16] {
        let mut h = Md5::new();
        for l in list {
            for f in [&l.text, &l.url] {
                h.update((f.len() as u64).to_le_bytes());
                h.update(f.as_bytes());
            }
        }
        h.finalize().into()
    }

    /// The fingerprint is the MD5 of the fields fed one after another, as stored
    /// fingerprints were made: a new build sees no change in an unchanged page.
    #[test]
    fn link_fingerprint_is_the_md5_of_the_fields_in_order() {
        let list = vec![
            Link::new("First story", "https://example.org/a/1"),
            Link::new("", "https://example.org/"),
            Link::new("\u{4e2d}\u{6587}", "https://example.org/\u{e9}"),
        ];
        assert_eq!(links(&list), fields_in_order(&list));
        assert_eq!(hex(&links(&[])), "d41d8cd98f00b204e9800998ecf8427e");
    }

    /// Arrays far larger than the hashing buffer, with fields that end on its edge, cross
    /// it, and are longer than it, hash as their fields fed one by one.
    #[test]
    fn long_arrays_and_long_fields_hash_as_the_fields_in_order() {
        let mut rng = fastrand::Rng::with_seed(3);
        for round in 0..40 {
            let list: Vec<Link> = (0..rng.usize(0..700))
                .map(|i| {
                    let n = match (round + i) % 9 {
                        0 => rng.usize(8_000..20_000),
                        1 => 8192 - 16,
                        _ => rng.usize(0..90),
                    };
                    Link::new("t".repeat(rng.usize(0..40)), "u".repeat(n))
                })
                .collect();
            assert_eq!(links(&list), fields_in_order(&list), "round {round}");
        }
    }
}
