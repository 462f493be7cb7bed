//! What a deep watch keeps of its site between checks, as the store holds it: the pages
//! it knows and what each is ([`CrawlState`], [`Pages`], [`PageState`], [`Kind`]), the
//! frontier still to visit ([`Candidate`]), the near-duplicate signatures of pages
//! ([`Signature`]), the template sample ([`Sample`]), and the counts that status displays
//! show ([`Summary`]).
//!
//! Data only, like the rest of [`crate::model`]: the crawl ([`crate::crawl`]) computes and
//! reads these values, [`crate::store`] persists them (one value under the watch, with
//! each page's link array beside it; of the pages, those noted as changed since the read)
//! and reads the pages back as an index over their bytes, each page decoded when asked
//! for ([`Pages::stored`]).
//! Uses `serde` and `base64` only.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

mod page;
mod pages;
pub use page::{Digest, Kind, PageState, Signature};
pub use pages::{DecodePage, Entry, Head, Pages, StoredPage, Value};

/// A deep watch's crawl state.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CrawlState {
    /// Known pages by URL.
    pub pages: Pages,
    /// Candidates not visited yet, best first.
    pub frontier: Vec<Candidate>,
    /// The template sample of the site.
    pub sample: Sample,
    /// The URL the watch's own page was last served from (after redirects): never
    /// crawled as a page of its own site.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root_url: Option<String>,
    /// Topic relevance of the watch's own page (with keywords).
    #[serde(default)]
    pub root_relevance: f64,
    /// Pages fetched by the last check beyond the watch's own page.
    #[serde(default)]
    pub last_fetched: u32,
}

/// Counts for status displays (kept in the watch's state, so lists need not read the
/// crawl state).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    pub pages: usize,
    pub lists: usize,
    pub leaves: usize,
    pub hubs: usize,
    pub duplicates: usize,
    pub unusable: usize,
    pub waiting: usize,
    pub fetched_last_check: u32,
}

impl CrawlState {
    pub fn summary(&self) -> Summary {
        // One walk over the pages' heads, which every check of a deep watch makes.
        let mut s = Summary {
            pages: self.pages.len(),
            waiting: self.frontier.len(),
            fetched_last_check: self.last_fetched,
            ..Summary::default()
        };
        for head in self.pages.heads() {
            match head.kind {
                Kind::List => s.lists += 1,
                Kind::Leaf => s.leaves += 1,
                Kind::Hub => s.hubs += 1,
                Kind::Duplicate => s.duplicates += 1,
                Kind::Unusable => s.unusable += 1,
            }
        }
        s
    }
}

/// A waiting page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    /// Absolute URL, the frontier's key.
    pub url: String,
    /// Link distance from the watched page (the watched page is level 0).
    pub level: u8,
    /// OTIE cash gathered from the pages that link here.
    pub cash: f64,
    /// Shark-Search potential (the best seen).
    pub potential: f64,
    /// Shark-Search inherited score (the best seen).
    pub inherited: f64,
    /// Tunnel distance of the (closest) parent that linked here: the `d_parent` of
    /// [`crate::crawl::focus::tunnel`] once this page is fetched.
    pub tunnel: f64,
}

/// The links of one sampled page: (URL hash, role) pairs, one per URL.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub(crate) struct SampledPage {
    pub(crate) page: u64,
    #[serde(with = "pairs")]
    pub(crate) links: Vec<(u64, u64)>,
}

/// The recent pages of a site, from which its template is learned.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sample {
    pub(crate) pages: VecDeque<SampledPage>,
}

/// (u64, u64) pairs as one base64 string of little-endian bytes: a sample of 16 pages
/// of 200 links is ~68 KB this way, three times less than as JSON numbers.
mod pairs {
    use base64::Engine as _;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &[(u64, u64)], s: S) -> Result<S::Ok, S::Error> {
        let mut bytes = Vec::with_capacity(v.len() * 16);
        for (a, b) in v {
            bytes.extend_from_slice(&a.to_le_bytes());
            bytes.extend_from_slice(&b.to_le_bytes());
        }
        s.serialize_str(&base64::engine::general_purpose::STANDARD_NO_PAD.encode(bytes))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<(u64, u64)>, D::Error> {
        let s = String::deserialize(d)?;
        let bytes = base64::engine::general_purpose::STANDARD_NO_PAD
            .decode(s.as_bytes())
            .map_err(serde::de::Error::custom)?;
        if bytes.len() % 16 != 0 {
            return Err(serde::de::Error::custom(
                "link pairs are not 16-byte records",
            ));
        }
        Ok(bytes
            .chunks_exact(16)
            .map(|c| {
                let mut a = [0u8; 8];
                let mut b = [0u8; 8];
                a.copy_from_slice(&c[..8]);
                b.copy_from_slice(&c[8..]);
                (u64::from_le_bytes(a), u64::from_le_bytes(b))
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::{Candidate, CrawlState, Digest, Kind, PageState, Pages, Summary};

    fn page(items: u64) -> PageState {
        PageState {
            title: Some("A notice".into()),
            links: 3,
            found: 10,
            fetched: 20,
            items,
            ..PageState::new(2, Kind::Leaf)
        }
    }

    fn noted(p: &Pages) -> Vec<&str> {
        p.noted().collect()
    }

    /// Pages as read are noted as nothing; each page handed out for change or added is
    /// noted once, and a page asked for and not known is not; a page removed is not
    /// noted and not counted. Notes are not part of what the
    /// pages are.
    #[test]
    fn pages_note_what_may_have_changed_since_they_were_read() {
        let mut p: Pages = ["/a", "/b", "/c"]
            .into_iter()
            .map(|u| (u.to_string(), page(0)))
            .collect();
        let same = p.clone();
        assert_eq!(noted(&p), Vec::<&str>::new());
        assert!(p.get_mut("/x").is_none());
        p.get_mut("/b").expect("known").items += 1;
        p.get_mut("/b").expect("known").items += 1;
        assert!(p.insert("/a".into(), page(5)));
        assert_eq!(p.get_or_insert_with("/c", || page(9)).items, 0);
        assert_eq!(p.added(), 0);
        p.get_or_insert_with("/d", || page(1));
        assert!(!p.insert("/e".into(), page(2)));
        assert_eq!(p.added(), 2);
        assert_eq!(noted(&p), ["/a", "/b", "/c", "/d", "/e"]);
        assert_eq!(p.get("/a").map(|x| x.items), Some(5));
        assert_eq!(p.len(), 5);
        assert_ne!(p, same);
        let back: Pages =
            serde_json::from_str(&serde_json::to_string(&p).expect("json")).expect("read");
        assert_eq!(back, p);
        assert_eq!(noted(&back), Vec::<&str>::new());
        assert!(p.remove("/b").is_some());
        assert_eq!(noted(&p), ["/a", "/c", "/d", "/e"]);
        assert_eq!((p.len(), p.added()), (4, 2));
    }

    /// The summary counts each kind of known page apart, and the frontier and the last
    /// check's fetches as they are.
    #[test]
    fn the_summary_counts_each_kind_of_page() {
        let kinds = [
            (Kind::List, 1),
            (Kind::Leaf, 4),
            (Kind::Hub, 2),
            (Kind::Duplicate, 3),
            (Kind::Unusable, 5),
        ];
        let waiting = |url: &str| Candidate {
            url: url.into(),
            level: 2,
            cash: 1.0,
            potential: 0.5,
            inherited: 0.5,
            tunnel: 0.0,
        };
        let mut state = CrawlState {
            last_fetched: 7,
            frontier: vec![waiting("/next/1"), waiting("/next/2")],
            ..CrawlState::default()
        };
        for (kind, n) in kinds {
            for i in 0..n {
                state
                    .pages
                    .insert(format!("/{kind:?}/{i}"), PageState::new(2, kind));
            }
        }
        let summary = state.summary();
        assert_eq!(
            summary,
            Summary {
                pages: 15,
                lists: 1,
                leaves: 4,
                hubs: 2,
                duplicates: 3,
                unusable: 5,
                waiting: 2,
                fetched_last_check: 7,
            }
        );
    }

    /// A digest is its 32 hex digits in JSON and back, as states written before it was
    /// held in bytes read; anything else is refused.
    #[test]
    fn a_digest_is_hex_in_json() {
        let d = Digest(*b"\x00\x01\x7f\x80\xab\xcd\xef\xff0123456\x10");
        let hex = "00017f80abcdefff3031323334353610";
        assert_eq!(d.to_string(), hex);
        assert_eq!(
            serde_json::to_string(&d).expect("json"),
            format!("\"{hex}\"")
        );
        assert_eq!(
            serde_json::from_str::<Digest>(&format!("\"{hex}\"")).ok(),
            Some(d)
        );
        assert_eq!(Digest::from_hex(&hex.to_uppercase()), Some(d));
        for bad in [
            "",
            "0001",
            &hex[1..],
            &format!("{hex}0"),
            &hex.replace('a', "g"),
        ] {
            assert_eq!(Digest::from_hex(bad), None, "{bad:?}");
        }
        let bad = format!("\"{}\"", hex.replace('f', "+"));
        assert!(serde_json::from_str::<Digest>(&bad).is_err());
    }
}
