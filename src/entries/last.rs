//! The last page's links by URL, read once per check. Each link of the new page is looked
//! up once, for where its URL stood ([`LastPage::slots`]); the differ's caller and the
//! entry decision read whether it stood there from that, the seen set takes the URLs that
//! left ([`LastPage::left`]), and the entry decision asks which texts a URL stood under.
//! One map serves them all, so a check hashes each old URL once and each new one once.

use smallvec::SmallVec;

use crate::hash::HashMap;
use crate::model::Link;

/// A URL of the last page: its place among the page's distinct URLs (in the order they
/// first stand) and the texts it stood under (a story's title and its "Read more").
struct Stood<'a> {
    slot: usize,
    texts: SmallVec<[&'a str; 2]>,
}

/// The links of the last page, by URL.
pub struct LastPage<'a> {
    links: &'a [Link],
    by_url: HashMap<&'a str, Stood<'a>>,
    /// The distinct URLs in the order they first stand on the page.
    order: Vec<&'a str>,
}

impl<'a> LastPage<'a> {
    /// Indexes `links` (empty at the first check).
    pub fn new(links: &'a [Link]) -> Self {
        let mut by_url: HashMap<&'a str, Stood<'a>> = HashMap::default();
        by_url.reserve(links.len());
        let mut order = Vec::new();
        for l in links {
            let url = l.url.as_str();
            let stood = by_url.entry(url).or_insert_with(|| {
                let slot = order.len();
                order.push(url);
                Stood {
                    slot,
                    texts: SmallVec::new(),
                }
            });
            stood.texts.push(l.text.as_str());
        }
        Self {
            links,
            by_url,
            order,
        }
    }

    /// The links as they stood, in page order.
    pub fn links(&self) -> &'a [Link] {
        self.links
    }

    /// Whether the page had no links (the first check).
    pub fn is_empty(&self) -> bool {
        self.links.is_empty()
    }

    /// The texts `url` stood under, in page order (`None`: it did not stand there).
    pub fn texts(&self, url: &str) -> Option<&[&'a str]> {
        self.by_url.get(url).map(|s| s.texts.as_slice())
    }

    /// Where each link of `new` stood: the place of its URL among the page's distinct
    /// URLs, `None` for a URL that did not stand there. A check asks this once of its
    /// new page and answers its other questions of each link (did its URL stand there,
    /// which URLs left) from them, without hashing the URL again.
    pub fn slots(&self, new: &[Link]) -> Vec<Option<usize>> {
        new.iter()
            .map(|l| self.by_url.get(l.url.as_str()).map(|s| s.slot))
            .collect()
    }

    /// The URLs of the page that a new page, given by its [`slots`](Self::slots), does not
    /// hold, each once, in the order they first stood.
    pub fn left(&self, slots: &[Option<usize>]) -> Vec<&'a str> {
        let mut stays = vec![false; self.order.len()];
        for &s in slots.iter().flatten() {
            if let Some(stays) = stays.get_mut(s) {
                *stays = true;
            }
        }
        self.order
            .iter()
            .zip(stays)
            .filter_map(|(&url, stays)| (!stays).then_some(url))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(text: &str, url: &str) -> Link {
        Link::new(text, url)
    }

    #[test]
    fn a_url_keeps_every_text_it_stood_under_and_its_first_place() {
        let old = [
            link("Council backs the river plan", "https://n.test/a"),
            link("Sport", "https://n.test/sport"),
            link("Read more", "https://n.test/a"),
            link("Weather", "https://n.test/w"),
        ];
        let last = LastPage::new(&old);
        assert_eq!(
            last.texts("https://n.test/a"),
            Some(&["Council backs the river plan", "Read more"][..])
        );
        // Where the new page's links stood: a URL's first place among the distinct URLs.
        let new = [
            link("Weather", "https://n.test/w"),
            link("New", "https://n.test/b"),
            link("More", "https://n.test/a"),
        ];
        assert_eq!(last.slots(&new), [Some(2), None, Some(0)]);
        assert_eq!(last.texts("https://n.test/x"), None);
        // Left: the URLs the new page lacks, once each, in the order they first stood.
        let left = |new: &[Link]| last.left(&last.slots(new));
        assert_eq!(
            left(&new[..2]),
            ["https://n.test/a", "https://n.test/sport"]
        );
        assert_eq!(left(&old), Vec::<&str>::new());
        assert_eq!(left(&[]).len(), 3);
        assert!(LastPage::new(&[]).is_empty() && !last.is_empty());
    }
}
