//! A deep watch's known pages ([`Pages`]): read from the store's values as an index (each
//! page's URL, level, kind and signature), a page decoded only when it is asked for;
//! changed only through methods that note each page they hand out for change or add.

use std::cmp::Ordering;
use std::collections::{btree_map, BTreeMap, BTreeSet};
use std::iter::Peekable;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

use super::page::{Kind, PageState, Signature};

/// Reads one page's fields from the bytes the store wrote for them; `None` if they are
/// not such bytes. Given by the store, which owns the format.
pub type DecodePage = fn(&[u8]) -> Option<PageState>;

/// A value as the store read it, shared rather than copied (the store's own handle).
pub type Value = Arc<dyn AsRef<[u8]> + Send + Sync>;

/// One page as stored: the value it is in (its place among those handed to
/// [`Pages::stored`]), where its URL and its fields lie in that value, and the fields
/// that scans of every page read ([`Head`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredPage {
    pub value: usize,
    pub url: Range<usize>,
    pub fields: Range<usize>,
    pub level: u8,
    pub kind: Kind,
    pub signature: Option<Signature>,
}

/// A stored page and, once asked for, its fields decoded.
#[derive(Debug, Clone)]
struct Indexed {
    at: StoredPage,
    page: OnceLock<Box<PageState>>,
}

/// What scans of all the pages read of a page, without decoding it: every check its
/// level and kind (to find the lists, to count kinds), a new page the signatures (to
/// find what it is a near-duplicate of).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Head<'a> {
    pub url: &'a str,
    pub level: u8,
    pub kind: Kind,
    pub signature: Option<Signature>,
}

/// A page as the store writes it: the stored bytes of its fields when it was not changed
/// since the read, the page otherwise.
#[derive(Debug, Clone, Copy)]
pub enum Entry<'a> {
    Stored { url: &'a str, fields: &'a [u8] },
    Page { url: &'a str, page: &'a PageState },
}

/// A deep watch's known pages by URL. A deep check reads all of their URLs, levels and
/// kinds and the fields of a handful (the lists it visits, the pages it fetches), so the
/// pages read from the store stay as its bytes, indexed, each decoded when first asked
/// for; a state written whole copies the bytes of the pages nobody changed.
///
/// Pages change only through [`get_mut`](Self::get_mut), [`insert`](Self::insert) and
/// [`get_or_insert_with`](Self::get_or_insert_with), which note each page, so that a check
/// writes those pages and not the hundreds it left alone. The pages compare, serialize
/// and clone as the map of URLs to pages they stand for; what was noted is for the
/// store's next write of this value.
#[derive(Clone, Default)]
pub struct Pages {
    /// The values the stored pages are in.
    values: Vec<Value>,
    /// The stored pages by URL, each URL once.
    stored: Vec<Indexed>,
    decode: Option<DecodePage>,
    /// Pages read as values (not from stored bytes) and pages changed or added since the
    /// read; a page here stands in place of a stored page of the same URL.
    owned: BTreeMap<String, PageState>,
    /// How many URLs of `owned` are not URLs of stored pages.
    extra: usize,
    /// URLs of the pages added or handed out for change since the pages were read.
    noted: BTreeSet<String>,
    /// Pages added since the pages were read.
    added: usize,
}

impl std::fmt::Debug for Pages {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl PartialEq for Pages {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl serde::Serialize for Pages {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.iter())
    }
}

impl<'de> serde::Deserialize<'de> for Pages {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        BTreeMap::deserialize(d).map(Self::read)
    }
}

/// Pages as read: none noted.
impl FromIterator<(String, PageState)> for Pages {
    fn from_iter<I: IntoIterator<Item = (String, PageState)>>(iter: I) -> Self {
        Self::read(iter.into_iter().collect())
    }
}

impl Pages {
    /// Pages read as values (JSON, PostgreSQL): none noted.
    pub fn read(map: BTreeMap<String, PageState>) -> Self {
        Self {
            extra: map.len(),
            owned: map,
            ..Self::default()
        }
    }

    /// Pages read from the store's bytes, none noted: `pages` in the order they were
    /// written, a later page of a URL standing in place of an earlier one (a delta's
    /// pages after the state's); each in one of `values` (its URL UTF-8, as the store
    /// checked), its fields read by `decode`.
    pub fn stored(values: Vec<Value>, mut pages: Vec<StoredPage>, decode: DecodePage) -> Self {
        let url = |p: &StoredPage| {
            values
                .get(p.value)
                .and_then(|v| (**v).as_ref().get(p.url.clone()))
        };
        // Stable, so that pages of the same URL stay in the order written (a state's
        // pages are written in URL order: the sort finds one run and is done).
        pages.sort_by(|a, b| url(a).cmp(&url(b)));
        let mut stored: Vec<Indexed> = Vec::with_capacity(pages.len());
        for at in pages {
            match stored.last_mut() {
                Some(last) if url(&last.at) == url(&at) => last.at = at,
                _ => stored.push(Indexed {
                    at,
                    page: OnceLock::new(),
                }),
            }
        }
        Self {
            values,
            stored,
            decode: Some(decode),
            ..Self::default()
        }
    }

    pub fn len(&self) -> usize {
        self.stored.len() + self.extra
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn bytes_of(&self, p: &Indexed, range: &Range<usize>) -> &[u8] {
        self.values
            .get(p.at.value)
            .and_then(|v| (**v).as_ref().get(range.clone()))
            .unwrap_or_default()
    }

    fn url_of(&self, p: &Indexed) -> &str {
        std::str::from_utf8(self.bytes_of(p, &p.at.url)).unwrap_or_default()
    }

    /// Where the stored page of `url` is among the stored pages.
    fn position(&self, url: &str) -> Option<usize> {
        self.stored
            .binary_search_by(|p| self.bytes_of(p, &p.at.url).cmp(url.as_bytes()))
            .ok()
    }

    fn find(&self, url: &str) -> Option<&Indexed> {
        self.stored.get(self.position(url)?)
    }

    fn decoded<'a>(&'a self, p: &'a Indexed) -> &'a PageState {
        p.page.get_or_init(|| {
            let page = self
                .decode
                .and_then(|decode| decode(self.bytes_of(p, &p.at.fields)));
            // The store checked every page's bytes as it indexed them, so a page that
            // does not decode is a fault of the store's two readers: the page is known
            // by its head, the rest of its fields as unknown.
            Box::new(page.unwrap_or_else(|| unread(&p.at)))
        })
    }

    pub fn contains_key(&self, url: &str) -> bool {
        self.owned.contains_key(url) || self.find(url).is_some()
    }

    pub fn get(&self, url: &str) -> Option<&PageState> {
        match self.owned.get(url) {
            Some(p) => Some(p),
            None => self.find(url).map(|p| self.decoded(p)),
        }
    }

    /// Each page with its URL, in URL order; decodes every stored page.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &PageState)> {
        self.select(|_| true)
    }

    /// Each page's URL, level, kind and signature, in URL order; decodes nothing.
    pub fn heads(&self) -> impl Iterator<Item = Head<'_>> {
        self.slots().map(|s| s.head())
    }

    /// The pages whose heads `keep` takes, with their URLs, in URL order; decodes those
    /// pages only.
    pub fn select<'a>(
        &'a self,
        keep: impl Fn(&Head<'_>) -> bool + 'a,
    ) -> impl Iterator<Item = (&'a str, &'a PageState)> + 'a {
        self.slots()
            .filter(move |s| keep(&s.head()))
            .map(|s| match s {
                Slot::Stored(url, p) => (url, self.decoded(p)),
                Slot::Owned(url, p) => (url, p),
            })
    }

    /// Each page as the store writes it, in URL order: a page not changed since the read
    /// as its stored bytes.
    pub fn entries(&self) -> impl Iterator<Item = Entry<'_>> {
        self.slots().map(|s| match s {
            Slot::Stored(url, p) => Entry::Stored {
                url,
                fields: self.bytes_of(p, &p.at.fields),
            },
            Slot::Owned(url, page) => Entry::Page { url, page },
        })
    }

    fn slots(&self) -> Slots<'_> {
        Slots {
            pages: self,
            next: 0,
            owned: self.owned.iter().peekable(),
        }
    }

    /// Notes `url`; whether a page of it is known.
    fn note(&mut self, url: &str) -> bool {
        if !self.noted.contains(url) {
            self.noted.insert(url.to_owned());
        }
        self.contains_key(url)
    }

    /// Takes the page at `url` into `owned`, noted; whether it is known.
    fn own(&mut self, url: &str) -> bool {
        if !self.note(url) {
            return false;
        }
        if !self.owned.contains_key(url) {
            if let Some(p) = self.find(url) {
                let page = self.decoded(p).clone();
                self.owned.insert(url.to_owned(), page);
            }
        }
        true
    }

    /// The page at `url`, to change (noted).
    pub fn get_mut(&mut self, url: &str) -> Option<&mut PageState> {
        if !self.contains_key(url) {
            return None;
        }
        self.own(url);
        self.owned.get_mut(url)
    }

    /// Adds or replaces the page at `url` (noted); whether it replaced one.
    pub fn insert(&mut self, url: String, page: PageState) -> bool {
        let known = self.note(&url);
        if !known {
            self.extra += 1;
            self.added += 1;
        }
        self.owned.insert(url, page);
        known
    }

    /// The page at `url`, added by `new` if it is not known; to change (noted).
    pub fn get_or_insert_with(
        &mut self,
        url: &str,
        new: impl FnOnce() -> PageState,
    ) -> &mut PageState {
        if !self.own(url) {
            self.extra += 1;
            self.added += 1;
        }
        self.owned.entry(url.to_owned()).or_insert_with(new)
    }

    /// Removes the page at `url` (the pages are then fewer than those read and those
    /// added: the store writes them whole). The crawl forgets no page; tests remove one
    /// to see that the store does not take such pages for a delta.
    #[cfg(test)]
    pub fn remove(&mut self, url: &str) -> Option<PageState> {
        self.noted.remove(url);
        let stored = self.position(url);
        let owned = self.owned.remove(url);
        if let Some(i) = stored {
            let p = self.stored.remove(i);
            return owned.or_else(|| Some(self.decoded(&p).clone()));
        }
        self.extra -= usize::from(owned.is_some());
        owned
    }

    /// The URLs of the pages added or handed out for change since the pages were read,
    /// in order.
    pub fn noted(&self) -> impl Iterator<Item = &str> {
        self.noted.iter().map(String::as_str)
    }

    /// How many pages were added since the pages were read.
    pub fn added(&self) -> usize {
        self.added
    }
}

/// A stored page whose fields do not decode: its head, the rest unknown.
fn unread(at: &StoredPage) -> PageState {
    PageState {
        signature: at.signature,
        ..PageState::new(at.level, at.kind)
    }
}

/// A page of the merged order: stored (and not owned), or owned.
enum Slot<'a> {
    Stored(&'a str, &'a Indexed),
    Owned(&'a str, &'a PageState),
}

impl<'a> Slot<'a> {
    fn head(&self) -> Head<'a> {
        match *self {
            Slot::Stored(url, p) => Head {
                url,
                level: p.at.level,
                kind: p.at.kind,
                signature: p.at.signature,
            },
            Slot::Owned(url, p) => Head {
                url,
                level: p.level,
                kind: p.kind,
                signature: p.signature,
            },
        }
    }
}

/// The stored pages and the owned ones merged in URL order, an owned page in place of a
/// stored one of the same URL.
struct Slots<'a> {
    pages: &'a Pages,
    next: usize,
    owned: Peekable<btree_map::Iter<'a, String, PageState>>,
}

impl<'a> Iterator for Slots<'a> {
    type Item = Slot<'a>;

    fn next(&mut self) -> Option<Slot<'a>> {
        let stored = self.pages.stored.get(self.next);
        let order = match (stored, self.owned.peek()) {
            (None, None) => return None,
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (Some(s), Some((url, _))) => self.pages.bytes_of(s, &s.at.url).cmp(url.as_bytes()),
        };
        if order != Ordering::Greater {
            self.next += 1;
        }
        if order == Ordering::Less {
            return stored.map(|s| Slot::Stored(self.pages.url_of(s), s));
        }
        self.owned
            .next()
            .map(|(url, page)| Slot::Owned(url.as_str(), page))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(level: u8, kind: Kind, items: u64) -> PageState {
        PageState {
            items,
            ..PageState::new(level, kind)
        }
    }

    /// Pages as stored bytes, in the order given, each page's fields as JSON (the test's
    /// own format), two pages to a value; a field `None` is bytes that do not decode.
    fn stored(pages: &[(&str, Option<PageState>)]) -> Pages {
        let (mut values, mut at) = (Vec::new(), Vec::new());
        for (i, two) in pages.chunks(2).enumerate() {
            let mut bytes = Vec::new();
            for (url, page) in two {
                let start = bytes.len();
                bytes.extend_from_slice(url.as_bytes());
                let url = start..bytes.len();
                match page {
                    Some(p) => bytes.extend(serde_json::to_vec(p).expect("json")),
                    None => bytes.extend_from_slice(b"{no"),
                }
                let (level, kind) = page.as_ref().map_or((3, Kind::Hub), |p| (p.level, p.kind));
                at.push(StoredPage {
                    value: i,
                    fields: url.end..bytes.len(),
                    url,
                    level,
                    kind,
                    signature: page.as_ref().and_then(|p| p.signature),
                });
            }
            values.push(Arc::new(bytes) as Value);
        }
        Pages::stored(values, at, |b| serde_json::from_slice(b).ok())
    }

    fn items(p: &Pages) -> Vec<(&str, u64)> {
        p.iter().map(|(u, p)| (u, p.items)).collect()
    }

    /// Stored pages read as the map they stand for: in URL order whatever order they were
    /// written in, a later page of a URL in place of an earlier one (a delta's), each
    /// found, counted and compared as the same pages read as values are; their heads
    /// without decoding.
    #[test]
    fn stored_pages_read_as_the_map_they_stand_for() {
        let signature = Signature {
            hash: 0xfeed,
            tokens: 40,
        };
        let b = PageState {
            signature: Some(signature),
            ..page(3, Kind::Leaf, 3)
        };
        let p = stored(&[
            ("/c", Some(page(2, Kind::List, 1))),
            ("/a", Some(page(2, Kind::Leaf, 2))),
            ("/b", Some(b.clone())),
            ("/a", Some(page(2, Kind::List, 4))),
        ]);
        assert_eq!(items(&p), [("/a", 4), ("/b", 3), ("/c", 1)]);
        assert_eq!(p.len(), 3);
        assert!(p.contains_key("/b") && !p.contains_key("/d") && !p.contains_key(""));
        assert_eq!(p.get("/a").map(|x| x.kind), Some(Kind::List));
        assert!(p.get("/ab").is_none());
        let heads: Vec<_> = p
            .heads()
            .map(|h| (h.url, h.level, h.kind, h.signature))
            .collect();
        assert_eq!(
            heads,
            [
                ("/a", 2, Kind::List, None),
                ("/b", 3, Kind::Leaf, Some(signature)),
                ("/c", 2, Kind::List, None)
            ]
        );
        let read: Pages = [
            ("/a", page(2, Kind::List, 4)),
            ("/b", b),
            ("/c", page(2, Kind::List, 1)),
        ]
        .into_iter()
        .map(|(u, p)| (u.to_string(), p))
        .collect();
        assert_eq!(p, read);
        assert_eq!(
            serde_json::to_string(&p).expect("json"),
            serde_json::to_string(&read).expect("json")
        );
        assert_eq!(format!("{p:?}"), format!("{read:?}"));
        assert_eq!(noted_of(&p), Vec::<&str>::new());
    }

    /// The pages whose heads are kept come with their fields, in URL order, a changed
    /// page in place of its bytes; the pages left out are not decoded.
    #[test]
    fn selected_pages_are_the_only_ones_decoded() {
        let mut p = stored(&[
            ("/a", Some(page(2, Kind::List, 1))),
            ("/b", Some(page(2, Kind::Leaf, 2))),
            ("/c", Some(page(3, Kind::List, 3))),
            ("/d", Some(page(2, Kind::List, 4))),
        ]);
        p.get_mut("/d").expect("known").items = 40;
        let lists: Vec<(&str, u64)> = p
            .select(|h| h.kind == Kind::List)
            .map(|(u, page)| (u, page.items))
            .collect();
        assert_eq!(lists, [("/a", 1), ("/c", 3), ("/d", 40)]);
        let decoded: Vec<bool> = p.stored.iter().map(|i| i.page.get().is_some()).collect();
        assert_eq!(decoded, [true, false, true, true]);
    }

    fn noted_of(p: &Pages) -> Vec<&str> {
        p.noted().collect()
    }

    /// A stored page changed or replaced stands in place of its stored bytes, and is the
    /// one page written anew; a page added is counted once; the pages not touched are
    /// written as the bytes they were read from.
    #[test]
    fn a_changed_page_stands_in_place_of_its_bytes() {
        let mut p = stored(&[
            ("/a", Some(page(2, Kind::List, 1))),
            ("/b", Some(page(2, Kind::Leaf, 2))),
            ("/c", Some(page(2, Kind::Leaf, 3))),
        ]);
        p.get_mut("/b").expect("known").items = 20;
        assert_eq!(p.get("/c").map(|x| x.items), Some(3));
        assert!(p.insert("/c".into(), page(3, Kind::Hub, 30)));
        assert!(!p.insert("/d".into(), page(2, Kind::Leaf, 40)));
        p.get_or_insert_with("/0", || page(2, Kind::Leaf, 50)).items += 1;
        assert_eq!(
            p.get_or_insert_with("/a", || page(2, Kind::Leaf, 0)).items,
            1
        );
        assert_eq!(
            items(&p),
            [("/0", 51), ("/a", 1), ("/b", 20), ("/c", 30), ("/d", 40)]
        );
        assert_eq!((p.len(), p.added()), (5, 2));
        assert_eq!(noted_of(&p), ["/0", "/a", "/b", "/c", "/d"]);
        let heads: Vec<_> = p.heads().map(|h| (h.url, h.kind)).collect();
        assert_eq!(heads[3], ("/c", Kind::Hub));
    }

    /// What the store writes: a page changed as the page, a page left alone (even when
    /// read) as the bytes it was read from.
    #[test]
    fn a_page_left_alone_is_written_as_its_bytes() {
        let mut p = stored(&[
            ("/a", Some(page(2, Kind::List, 1))),
            ("/b", Some(page(2, Kind::Leaf, 2))),
        ]);
        p.get_mut("/a").expect("known").items = 10;
        assert_eq!(p.get("/b").map(|x| x.items), Some(2));
        let written: Vec<_> = p
            .entries()
            .map(|e| match e {
                Entry::Stored { url, fields } => (url, serde_json::from_slice(fields).ok()),
                Entry::Page { url, .. } => (url, None::<PageState>),
            })
            .collect();
        assert_eq!(
            written,
            [("/a", None), ("/b", Some(page(2, Kind::Leaf, 2)))]
        );
    }

    /// A stored page whose bytes do not decode is still known, by its level and kind,
    /// with its other fields as a new page's; nothing panics.
    #[test]
    fn a_page_that_does_not_decode_keeps_its_head() {
        let p = stored(&[("/a", None), ("/b", Some(page(2, Kind::Leaf, 7)))]);
        assert_eq!(p.get("/a"), Some(&page(3, Kind::Hub, 0)));
        assert_eq!(items(&p), [("/a", 0), ("/b", 7)]);
    }
}
