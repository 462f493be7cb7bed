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

mod pages;
pub use pages::{DecodePage, Entry, Head, Pages, StoredPage, Value};

/// What a page of the site turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A list of entries: re-visited on every check, its new entries are items.
    List,
    /// An item page (an article, a notice): stored once, followed if the depth allows.
    Leaf,
    /// More links than `deep.hub_links`: neither diffed nor followed (`docs/design.md` §5).
    Hub,
    /// A near-duplicate of another page of the site (a mirror, a print view).
    Duplicate,
    /// Not an HTML page, refused by robots.txt, or failing: not visited again.
    Unusable,
}

/// One known page of the site (not the watch's own page).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PageState {
    /// 2 or 3: links away from the watch's page.
    pub level: u8,
    pub kind: Kind,
    /// Why the page is `Duplicate` or `Unusable`, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// MD5 of its body as it came.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_fingerprint: Option<Digest>,
    /// MD5 of its links without template links (the denoised fingerprint).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_fingerprint: Option<Digest>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub etag: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
    /// Near-duplicate signature of its text (chrome aside).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<Signature>,
    /// Links on it (template links aside) at the last fetch.
    pub links: u32,
    /// Topic relevance, inherited score, cash and tunnel distance (with keywords).
    #[serde(default)]
    pub relevance: f64,
    #[serde(default)]
    pub inherited: f64,
    #[serde(default)]
    pub cash: f64,
    #[serde(default)]
    pub tunnel: f64,
    /// Unix seconds of the first and the last fetch.
    pub found: i64,
    pub fetched: i64,
    /// Items this page produced so far.
    #[serde(default)]
    pub items: u64,
    /// Consecutive failed fetches.
    #[serde(default)]
    pub failures: u32,
    /// The page asked robots not to follow its links.
    #[serde(default)]
    pub nofollow: bool,
}

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

impl PageState {
    /// A page of `level` and `kind` and nothing else known of it: no fields, no scores,
    /// no fetch yet.
    pub fn new(level: u8, kind: Kind) -> Self {
        Self {
            level,
            kind,
            why: None,
            title: None,
            raw_fingerprint: None,
            link_fingerprint: None,
            etag: None,
            last_modified: None,
            signature: None,
            links: 0,
            relevance: 0.0,
            inherited: 0.0,
            cash: 0.0,
            tunnel: 0.0,
            found: 0,
            fetched: 0,
            items: 0,
            failures: 0,
            nofollow: false,
        }
    }
}

impl CrawlState {
    pub fn summary(&self) -> Summary {
        let count = |k: Kind| self.pages.heads().filter(|p| p.kind == k).count();
        Summary {
            pages: self.pages.len(),
            lists: count(Kind::List),
            leaves: count(Kind::Leaf),
            hubs: count(Kind::Hub),
            duplicates: count(Kind::Duplicate),
            unusable: count(Kind::Unusable),
            waiting: self.frontier.len(),
            fetched_last_check: self.last_fetched,
        }
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

/// An MD5 digest (of a page's body or of its link array), held as its 16 bytes: a
/// known page keeps two, and a deep check reads every known page's. Written as 32
/// lower-case hex digits in JSON, as before it was held in bytes.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Digest(pub [u8; 16]);

impl Digest {
    /// The digest of 32 hex digits (either case); `None` for anything else.
    pub fn from_hex(s: &str) -> Option<Self> {
        let s = s.as_bytes();
        if s.len() != 32 {
            return None;
        }
        let mut out = [0u8; 16];
        for (o, pair) in out.iter_mut().zip(s.chunks_exact(2)) {
            let digit = |b: u8| char::from(b).to_digit(16);
            *o = u8::try_from(digit(pair[0])? << 4 | digit(pair[1])?).ok()?;
        }
        Some(Self(out))
    }
}

impl std::fmt::Display for Digest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

impl std::fmt::Debug for Digest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Digest({self})")
    }
}

impl Serialize for Digest {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Digest {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Self::from_hex(&s).ok_or_else(|| serde::de::Error::custom("not an MD5 digest in hex"))
    }
}

/// A page's near-duplicate signature: a 64-bit simhash over shingles of its tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Signature {
    /// The simhash (0 for a text without tokens).
    pub hash: u64,
    /// How many tokens the text has (saturating).
    pub tokens: u32,
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
    use super::{Digest, Kind, PageState, Pages};

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
