//! One known page of a deep watch's site ([`PageState`]): what it turned out to be
//! ([`Kind`]), its digests ([`Digest`]) and its near-duplicate signature ([`Signature`]).

use serde::{Deserialize, Serialize};

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
