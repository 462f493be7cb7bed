//! What scheduling needs to know about a page's links: its effective link count v
//! (definition 2 of *Research on Incremental Updating Strategy of Web Forum Based on
//! Statistics*) and whether a check probably lost items.
//!
//! **v.** The paper: fetch the page at t1 and t2 far enough apart that every item link
//! was replaced; the links of t2 not on the page at t1 are its effective links, the rest
//! (menus, footers) are noise. Here t1 is a reference snapshot (the first successful
//! check, kept as a sorted set of 16-bit URL hashes: two bytes per link) and v is the
//! largest number of links seen at once that are not in it. Until the page has turned
//! over once, that undercounts v, which errs on the side of checking more often.
//!
//! **Probable loss.** A list page holds its newest K items; if more than K arrive between
//! two checks, some scroll off unseen. A check can tell only that the whole previous list
//! is gone: none of the previous check's item links (those not in the reference, or, while
//! there are none, any link at all) is still on the page.

use std::hash::Hasher;

use serde::{Deserialize, Serialize};

/// The key function of a reference made now: [`link_key`]. Scheme 0 was the FNV-1a of
/// the URL, one byte at a time (2.4 times slower on the mock site's URLs of about 65
/// bytes); a reference of it is replaced at the next check ([`PageStats::apply`]).
const KEY_SCHEME: u8 = 1;

/// A link's key: SipHash-1-3 of its URL under the key (0, 0), a published function, so a
/// key stored today means the same URL in any later build.
pub fn link_key(url: &str) -> u64 {
    let mut h = siphasher::sip::SipHasher13::new_with_keys(0, 0);
    h.write(url.as_bytes());
    h.finish()
}

/// The 16-bit key a page's snapshot keeps of a link's key ([`link_key`]): two URLs of a
/// page meet on one about once in 65,536 pairs.
pub fn short(key: u64) -> u16 {
    (key ^ (key >> 16) ^ (key >> 32) ^ (key >> 48)) as u16
}

/// The scheduling facts of one successful check that changed the link array.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageFacts {
    /// Links on the new page that are not in the reference snapshot.
    pub effective: u32,
    /// The whole previous list scrolled off: items were probably lost.
    pub probable_loss: bool,
    /// The new page shares no link at all with the previous one.
    shares_nothing: bool,
    /// The new page's short keys, sorted and deduplicated, when they become the reference
    /// ([`PageStats::measure`] decides).
    keys: Option<Vec<u16>>,
}

/// Per-watch page statistics, in the store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PageStats {
    /// The reference snapshot: sorted short keys of the page's links. Left out of the
    /// JSON when empty; the sled store keeps it apart from the state (`store/reference.rs`).
    #[serde(default, with = "keys", skip_serializing_if = "Vec::is_empty")]
    pub reference: Vec<u16>,
    /// Largest count of links not in the reference seen at once: the estimate of v.
    #[serde(default)]
    pub effective: u32,
    /// Checks that found the whole previous list gone.
    #[serde(default)]
    pub probable_losses: u64,
    #[serde(default)]
    pub last_probable_loss: Option<i64>,
    /// The [`link_key`] the reference's keys come from (absent in a state stored before
    /// there was a choice: read as 0).
    #[serde(default)]
    pub key_scheme: u8,
}

impl Default for PageStats {
    fn default() -> Self {
        Self {
            reference: Vec::new(),
            effective: 0,
            probable_losses: 0,
            last_probable_loss: None,
            key_scheme: KEY_SCHEME,
        }
    }
}

/// A set of short keys ([`short`]): one bit for each of the 65,536 (8 KB). Built once
/// per check from the new page's links, it answers "is this key on the new page" in one
/// step, and gives the keys back sorted without a sort.
struct KeySet(Vec<u64>);

impl KeySet {
    fn new() -> Self {
        Self(vec![0; 1 << 10])
    }

    /// Adds `k`; whether it was absent.
    fn insert(&mut self, k: u16) -> bool {
        let (word, bit) = (usize::from(k >> 6), 1u64 << (k & 63));
        let absent = self.0[word] & bit == 0;
        self.0[word] |= bit;
        absent
    }

    fn contains(&self, k: u16) -> bool {
        self.0[usize::from(k >> 6)] & (1u64 << (k & 63)) != 0
    }

    /// The keys, in ascending order.
    fn sorted(&self) -> Vec<u16> {
        let mut v = Vec::new();
        for (w, &bits) in self.0.iter().enumerate() {
            let mut b = bits;
            while b != 0 {
                let low = b.trailing_zeros();
                // `w` < 1,024 and `low` < 64: the key fits 16 bits.
                v.push(((w << 6) as u16) | low as u16);
                b &= b - 1;
            }
        }
        v
    }
}

impl PageStats {
    /// The facts of a check whose old link array had keys `old` and whose new one has
    /// `new`, with `new_links` new items found. Pure: [`apply`](Self::apply) stores them.
    pub fn measure(
        &self,
        old: impl Iterator<Item = u64>,
        new: impl Iterator<Item = u64>,
        new_links: usize,
    ) -> PageFacts {
        // The reference as a set too: a lookup per link of both pages, where a binary
        // search of the sorted reference mispredicted a branch at most of its steps.
        let mut reference = KeySet::new();
        for &k in &self.reference {
            reference.insert(k);
        }
        let in_ref = |k: u16| reference.contains(k);
        let mut keys = KeySet::new();
        let mut effective = 0u32;
        for k in new.map(short) {
            if keys.insert(k) && !in_ref(k) {
                effective += 1;
            }
        }
        // The old page: any link at all still on the new one, any of its item links
        // (those not in the reference) still there.
        let (mut any_old, mut old_items, mut items_stay) = (false, false, false);
        let mut shares = false;
        for k in old.map(short) {
            any_old = true;
            let stays = keys.contains(k);
            shares |= stays;
            if !in_ref(k) {
                old_items = true;
                items_stay |= stays;
            }
        }
        let shares_nothing = any_old && !shares;
        let probable_loss = new_links > 0
            && if old_items {
                !items_stay
            } else {
                shares_nothing
            };
        // The first check's links become the reference; a page that shares no link at all
        // with its previous version (a redesign) starts a new one, and so does a
        // reference of another key scheme. Only then are the keys wanted, sorted.
        let new_reference =
            self.reference.is_empty() || shares_nothing || self.key_scheme != KEY_SCHEME;
        PageFacts {
            effective,
            probable_loss,
            shares_nothing,
            keys: new_reference.then(|| keys.sorted()),
        }
    }

    /// [`measure`](Self::measure) of a new page against the last one, each URL hashed
    /// once: `new` holds the new page's URLs, each with whether it stood on the last
    /// page, and `left` the last page's URLs that the new one lacks. A URL that stayed
    /// takes its key from the new page; only those that left are hashed again. The facts
    /// are those of the last page's links in full, since each of them is read only for
    /// whether any link of the page (or any not in the reference) stays.
    pub fn measure_once<'u>(
        &self,
        new: impl Iterator<Item = (&'u str, bool)>,
        left: impl Iterator<Item = &'u str>,
        new_links: usize,
    ) -> PageFacts {
        let new: Vec<(u64, bool)> = new.map(|(url, stood)| (link_key(url), stood)).collect();
        let stayed = new.iter().filter(|&&(_, stood)| stood).map(|&(k, _)| k);
        self.measure(
            stayed.chain(left.map(link_key)),
            new.iter().map(|&(k, _)| k),
            new_links,
        )
    }

    /// Stores a check's facts: a new reference when [`measure`](Self::measure) made one
    /// (the first check, a redesign, a reference of another key scheme). The estimate of
    /// v is a count of links, whatever their keys: it stays.
    pub fn apply(&mut self, facts: PageFacts, now: i64) {
        if facts.probable_loss {
            self.probable_losses += 1;
            self.last_probable_loss = Some(now);
        }
        if let Some(keys) = facts.keys {
            self.reference = keys;
            self.key_scheme = KEY_SCHEME;
            return;
        }
        self.effective = self.effective.max(facts.effective);
    }

    /// v, once any link beyond the reference has been seen.
    pub fn effective_links(&self) -> Option<u32> {
        (self.effective > 0).then_some(self.effective)
    }
}

/// Short keys as base64 of little-endian u16.
/// The bytes of reference keys as stored: each key little-endian, in order.
pub fn pack_keys(keys: &[u16]) -> Vec<u8> {
    keys.iter().flat_map(|k| k.to_le_bytes()).collect()
}

/// Reference keys from [`pack_keys`]'s bytes, as the sorted set a reference is (`None`
/// for an odd length).
pub fn unpack_keys(bytes: &[u8]) -> Option<Vec<u16>> {
    if !bytes.len().is_multiple_of(2) {
        return None;
    }
    let mut v: Vec<u16> = bytes
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    v.sort_unstable();
    v.dedup();
    Some(v)
}

mod keys {
    use base64::engine::general_purpose::STANDARD;
    use base64::Engine;
    use serde::{de::Error, Deserialize, Deserializer, Serializer};

    #[allow(clippy::ptr_arg, reason = "serde's `with` passes &Vec")]
    pub fn serialize<S: Serializer>(v: &Vec<u16>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&STANDARD.encode(super::pack_keys(v)))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u16>, D::Error> {
        let s = String::deserialize(d)?;
        let bytes = STANDARD.decode(s.as_bytes()).map_err(D::Error::custom)?;
        super::unpack_keys(&bytes).ok_or_else(|| D::Error::custom("key array length is odd"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sorted_keys(keys: impl Iterator<Item = u64>) -> Vec<u16> {
        let mut v: Vec<u16> = keys.map(short).collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// The facts as first written, by sorting both pages' keys: what
    /// [`PageStats::measure`] must agree with.
    fn measure_by_sorting(
        p: &PageStats,
        old: &[u64],
        new: &[u64],
        new_links: usize,
    ) -> (u32, bool, bool) {
        let old = sorted_keys(old.iter().copied());
        let keys = sorted_keys(new.iter().copied());
        let in_ref = |k: &u16| p.reference.binary_search(k).is_ok();
        let in_new = |k: &u16| keys.binary_search(k).is_ok();
        let effective = keys.iter().filter(|k| !in_ref(k)).count() as u32;
        let old_items: Vec<u16> = old.iter().copied().filter(|k| !in_ref(k)).collect();
        let shares_nothing = !old.is_empty() && !old.iter().any(in_new);
        let probable_loss = new_links > 0
            && if old_items.is_empty() {
                shares_nothing
            } else {
                !old_items.iter().any(in_new)
            };
        (effective, probable_loss, shares_nothing)
    }

    proptest! {
        /// Keys drawn from a small range so that pages share links, repeat them and meet
        /// the reference; the facts, and the reference after them, are those of sorting.
        #[test]
        fn the_facts_are_those_of_sorting_both_pages(
            reference in proptest::collection::vec(0u64..300, 0..40),
            old in proptest::collection::vec(0u64..300, 0..60),
            new in proptest::collection::vec(0u64..300, 0..60),
            new_links in 0usize..3,
            scheme in 0u8..=KEY_SCHEME,
        ) {
            let key = |i: &u64| link_key(&format!("https://forum.example/t/{i}"));
            let old: Vec<u64> = old.iter().map(key).collect();
            let new: Vec<u64> = new.iter().map(key).collect();
            let mut p = PageStats {
                reference: sorted_keys(reference.iter().map(key)),
                key_scheme: scheme,
                ..PageStats::default()
            };
            let f = p.measure(old.iter().copied(), new.iter().copied(), new_links);
            let (effective, loss, nothing) = measure_by_sorting(&p, &old, &new, new_links);
            prop_assert_eq!(f.effective, effective);
            prop_assert_eq!(f.probable_loss, loss);
            prop_assert_eq!(f.shares_nothing, nothing);
            let replaced = p.reference.is_empty() || nothing || scheme != KEY_SCHEME;
            let before = p.reference.clone();
            p.apply(f, 1);
            let expected = if replaced { sorted_keys(new.iter().copied()) } else { before };
            prop_assert_eq!(p.reference, expected);
        }
    }

    proptest! {
        /// Measured from the new page's URLs, whether each stood on the last page and the
        /// URLs that left, the facts are those of both pages in full.
        #[test]
        fn measured_once_as_in_full(
            reference in proptest::collection::vec(0u64..300, 0..40),
            old in proptest::collection::vec(0u64..300, 0..60),
            new in proptest::collection::vec(0u64..300, 0..60),
            new_links in 0usize..3,
        ) {
            let url = |i: &u64| format!("https://forum.example/t/{i}");
            let old: Vec<String> = old.iter().map(url).collect();
            let new: Vec<String> = new.iter().map(url).collect();
            let p = PageStats {
                reference: sorted_keys(reference.iter().map(|i| link_key(&url(i)))),
                ..PageStats::default()
            };
            let key = |u: &String| link_key(u);
            let full = p.measure(old.iter().map(key), new.iter().map(key), new_links);
            let stood = |u: &String| old.contains(u);
            let left: Vec<&str> = old
                .iter()
                .filter(|u| !new.contains(u))
                .map(String::as_str)
                .collect();
            let once = p.measure_once(
                new.iter().map(|u| (u.as_str(), stood(u))),
                left.iter().copied(),
                new_links,
            );
            prop_assert_eq!(once, full);
        }
    }

    fn keys(r: std::ops::Range<u64>) -> impl Iterator<Item = u64> {
        r.map(|i| link_key(&format!("https://forum.example/t/{i}")))
    }

    fn nav() -> impl Iterator<Item = u64> {
        (0..10).map(|i| link_key(&format!("https://forum.example/nav/{i}")))
    }

    #[test]
    fn effective_count_grows_to_the_list_length() {
        // 10 menu links and a list of the newest 30 threads.
        let mut p = PageStats::default();
        let f = p.measure(std::iter::empty(), nav().chain(keys(0..30)), 0);
        p.apply(f, 0);
        assert_eq!(p.effective_links(), None, "one snapshot tells nothing");
        // 12 new threads: 12 links beyond the reference.
        let f = p.measure(nav().chain(keys(0..30)), nav().chain(keys(12..42)), 12);
        assert_eq!(f.effective, 12);
        assert!(!f.probable_loss);
        p.apply(f, 1);
        // After a full turnover, v is the list length and the menu is noise.
        let f = p.measure(nav().chain(keys(12..42)), nav().chain(keys(40..70)), 28);
        assert_eq!(f.effective, 30);
        assert!(!f.probable_loss, "threads 40 and 41 are still there");
        p.apply(f, 2);
        assert_eq!(p.effective_links(), Some(30));
        // v never shrinks on a quiet check.
        let f = p.measure(nav().chain(keys(40..70)), nav().chain(keys(41..71)), 1);
        p.apply(f, 3);
        assert_eq!(p.effective_links(), Some(30));
        assert_eq!(p.probable_losses, 0);
    }

    #[test]
    fn whole_list_gone_is_a_probable_loss_despite_the_menu() {
        let mut p = PageStats::default();
        p.apply(
            p.measure(std::iter::empty(), nav().chain(keys(0..30)), 0),
            0,
        );
        p.apply(
            p.measure(nav().chain(keys(0..30)), nav().chain(keys(5..35)), 5),
            10,
        );
        // 40 new threads on a page holding 30: threads 30..34 (the old items) are gone.
        let f = p.measure(nav().chain(keys(5..35)), nav().chain(keys(45..75)), 30);
        assert!(f.probable_loss);
        p.apply(f, 20);
        assert_eq!(p.probable_losses, 1);
        assert_eq!(p.last_probable_loss, Some(20));
    }

    #[test]
    fn without_item_history_only_a_page_sharing_nothing_is_a_loss() {
        let p = PageStats::default();
        let f = p.measure(keys(0..30), keys(30..60), 30);
        assert!(f.probable_loss);
        let f = p.measure(keys(0..30), keys(29..59), 29);
        assert!(!f.probable_loss);
        // No new items: not a loss whatever the page did.
        let f = p.measure(keys(0..30), keys(30..60), 0);
        assert!(!f.probable_loss);
    }

    #[test]
    fn serde_round_trip_is_compact() {
        let mut p = PageStats::default();
        p.apply(p.measure(std::iter::empty(), keys(0..100), 0), 0);
        let json = serde_json::to_string(&p).expect("serializes");
        assert!(json.len() < 400, "{} bytes: {json}", json.len());
        let back: PageStats = serde_json::from_str(&json).expect("parses");
        assert_eq!(back, p);
        let old: PageStats = serde_json::from_str("{}").expect("defaults");
        assert_eq!(
            old,
            PageStats {
                key_scheme: 0,
                ..PageStats::default()
            }
        );
    }

    #[test]
    fn a_link_key_is_siphash_1_3_under_the_zero_key() {
        // Stored keys must keep their meaning in every later build. The expected values
        // come from another implementation of the same function: CPython 3.11 hashes bytes
        // with SipHash-1-3, under the key (0, 0) when PYTHONHASHSEED=0
        // (`PYTHONHASHSEED=0 python3 -c "print(hash(b'...') % 2**64)"`).
        assert_eq!(link_key("https://forum.example/t/1"), 0x94d0_eea0_6cdc_63a5);
        assert_eq!(
            link_key("https://news.example/2026/11/27/council-backs-the-river-plan"),
            0x0c58_5a67_29c3_4f9c
        );
    }

    #[test]
    fn a_reference_of_the_first_key_scheme_is_replaced_and_v_kept() {
        let fnv = |url: &str| {
            url.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
            })
        };
        let page = |r: std::ops::Range<u64>| {
            (0..10)
                .map(|i| format!("https://forum.example/nav/{i}"))
                .chain(r.map(|i| format!("https://forum.example/t/{i}")))
                .collect::<Vec<_>>()
        };
        // As the first version stored it: a reference of FNV-1a keys, v learned as 30,
        // and no key scheme.
        let first = PageStats {
            reference: sorted_keys(page(0..30).iter().map(|u| fnv(u))),
            effective: 30,
            ..PageStats::default()
        };
        let mut json = serde_json::to_value(&first).expect("serializes");
        json.as_object_mut().expect("object").remove("key_scheme");
        let mut p: PageStats = serde_json::from_value(json).expect("parses");
        assert_eq!(p.key_scheme, 0);

        // The same page checked again: nothing new on it, and v stays 30.
        let now = |r| page(r).into_iter().map(|u| link_key(&u));
        p.apply(p.measure(now(0..30), now(0..30), 0), 1);
        assert_eq!(p.effective_links(), Some(30));
        assert_eq!(p.key_scheme, KEY_SCHEME);
        assert_eq!(p.reference, sorted_keys(now(0..30)));
        // Five new threads: five links beyond the new reference.
        let f = p.measure(now(0..30), now(5..35), 5);
        assert_eq!(f.effective, 5);
        p.apply(f, 2);
        assert_eq!(p.effective_links(), Some(30));
    }
}
