//! Template noise, learned per site, after Zhang and Zhou's denoised-hash incremental
//! crawler (`docs/design.md` §9). The paper merges the DOM trees of a site's pages and
//! calls the nodes they share noise; here the same idea is applied to what sitefeed already
//! has of each page, its links and their roles (the structural signature of the elements
//! above a link, [`Context::role`]):
//!
//! - a **template link** is a URL that stands on at least `share` of the sampled pages
//!   (the menu's "Home", the footer's "Contact");
//! - a **template block** is a role that stands on at least `share` of the sampled pages
//!   and whose links there are mostly template links (a menu, a footer, a "latest news"
//!   sidebar repeated on every page). A *new* link in such a block (a menu entry added
//!   this week) is template too, though no page has shown it yet.
//!
//! A list that has the same layout on every section page is not a template block: its
//! links differ from page to page. The sample is the [`SAMPLE_PAGES`] pages of the site
//! fetched most recently (each once); nothing is learned from fewer than [`MIN_PAGES`].

use crate::hash::{HashMap, HashSet};

use crate::entries::Context;
pub use crate::model::crawl::Sample;
use crate::model::crawl::SampledPage;
use crate::model::Link;

/// Pages kept in the sample.
pub(crate) const SAMPLE_PAGES: usize = 16;
/// Pages needed before anything is called template.
pub(crate) const MIN_PAGES: usize = 3;
/// Share of a block's links that must be template links for the block to be one.
const BLOCK_TEMPLATE_SHARE: f64 = 0.6;

/// What is template on a site now.
#[derive(Debug, Clone, Default)]
pub struct Template {
    links: HashSet<u64>,
    roles: HashSet<u64>,
}

/// Stable 64-bit hash of a URL: its key in a watch's seen set
/// ([`crate::store::seen_key`], the first 8 bytes of its MD5) as a little-endian number.
pub(crate) fn url_hash(url: &str) -> u64 {
    u64::from_le_bytes(crate::store::seen_key(url))
}

impl Sample {
    /// Records the links of the page at `page_url` (replacing what the sample had of it),
    /// dropping the oldest page when full. `ctx` is aligned with `links`.
    pub fn observe(&mut self, page_url: &str, links: &[Link], ctx: &[Option<Context>]) {
        let hashes: Vec<u64> = links.iter().map(|l| url_hash(&l.url)).collect();
        self.observe_hashes(page_url, &hashes, ctx);
    }

    /// [`Sample::observe`] with the links' [`url_hash`]es, for a caller that needs them
    /// again ([`Template::is_template_hash`]).
    pub(crate) fn observe_hashes(
        &mut self,
        page_url: &str,
        hashes: &[u64],
        ctx: &[Option<Context>],
    ) {
        let page = url_hash(page_url);
        let mut seen = HashSet::default();
        let mut pairs: Vec<(u64, u64)> = Vec::with_capacity(hashes.len());
        for (i, &h) in hashes.iter().enumerate() {
            if seen.insert(h) {
                let role = ctx.get(i).and_then(Option::as_ref).map_or(0, |c| c.role);
                pairs.push((h, role));
            }
        }
        self.pages.retain(|p| p.page != page);
        self.pages.push_back(SampledPage { page, links: pairs });
        while self.pages.len() > SAMPLE_PAGES {
            self.pages.pop_front();
        }
    }

    /// Pages in the sample.
    pub fn len(&self) -> usize {
        self.pages.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pages.is_empty()
    }

    /// The template the sample shows: links and blocks on at least `share` of its pages.
    pub fn template(&self, share: f64) -> Template {
        let n = self.pages.len();
        if n < MIN_PAGES {
            return Template::default();
        }
        let need = ((share * n as f64).ceil() as usize).max(MIN_PAGES);
        let mut link_pages: HashMap<u64, usize> = HashMap::default();
        let mut role_pages: HashMap<u64, usize> = HashMap::default();
        for p in &self.pages {
            let mut roles = HashSet::default();
            for &(h, r) in &p.links {
                *link_pages.entry(h).or_default() += 1;
                if r != 0 && roles.insert(r) {
                    *role_pages.entry(r).or_default() += 1;
                }
            }
        }
        let links: HashSet<u64> = link_pages
            .into_iter()
            .filter(|&(_, c)| c >= need)
            .map(|(h, _)| h)
            .collect();
        // Blocks: frequent roles whose links are mostly template links.
        let mut role_links: HashMap<u64, (usize, usize)> = HashMap::default();
        for p in &self.pages {
            for &(h, r) in &p.links {
                if role_pages.get(&r).is_some_and(|&c| c >= need) {
                    let e = role_links.entry(r).or_default();
                    e.0 += 1;
                    e.1 += usize::from(links.contains(&h));
                }
            }
        }
        let roles = role_links
            .into_iter()
            .filter(|&(_, (all, tpl))| tpl as f64 >= BLOCK_TEMPLATE_SHARE * all as f64)
            .map(|(r, _)| r)
            .collect();
        Template { links, roles }
    }
}

impl Template {
    /// Whether a link is template: its URL is, or it stands in a template block.
    pub(crate) fn is_template(&self, link: &Link, ctx: Option<&Context>) -> bool {
        self.is_template_hash(url_hash(&link.url), ctx)
    }

    /// [`Template::is_template`] of a link whose URL's [`url_hash`] is `hash`.
    pub(crate) fn is_template_hash(&self, hash: u64, ctx: Option<&Context>) -> bool {
        self.links.contains(&hash) || ctx.is_some_and(|c| self.roles.contains(&c.role))
    }

    /// Nothing learned yet.
    pub fn is_empty(&self) -> bool {
        self.links.is_empty() && self.roles.is_empty()
    }

    /// Template links and blocks known.
    pub fn size(&self) -> (usize, usize) {
        (self.links.len(), self.roles.len())
    }

    /// The links of a page without its template links, with their contexts.
    pub fn strip(
        &self,
        links: Vec<Link>,
        ctx: Vec<Option<Context>>,
    ) -> (Vec<Link>, Vec<Option<Context>>) {
        if self.is_empty() {
            return (links, ctx);
        }
        links
            .into_iter()
            .zip(ctx)
            .filter(|(l, c)| !self.is_template(l, c.as_ref()))
            .unzip()
    }
}

impl crate::analysis::LinkFilter for Template {
    fn is_empty(&self) -> bool {
        Template::is_empty(self)
    }
    fn strip(
        &self,
        links: Vec<Link>,
        ctx: Vec<Option<Context>>,
    ) -> (Vec<Link>, Vec<Option<Context>>) {
        Template::strip(self, links, ctx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fmt::Write;
    use url::Url;

    fn page(url: &str, html: &str) -> (Vec<Link>, Vec<Option<Context>>) {
        let base = Url::parse(url).unwrap();
        let p =
            crate::extract::parse(html, &base, None, crate::extract::Gather::Structure).unwrap();
        (p.page.links, p.structure.ctx)
    }

    const MENU: &str =
        "<div class=menu><a href=/>Home</a><a href=/news/>News</a><a href=/about>About</a></div>";
    const FOOT: &str =
        "<div class=foot><a href=/contact>Contact</a><a href=/privacy>Privacy</a></div>";

    fn section(name: &str, items: &[u32]) -> String {
        let mut list = String::new();
        for i in items {
            let _ = write!(list, "<li><a href=/{name}/{i}>{name} item {i}</a></li>");
        }
        format!("<body>{MENU}<ul class=list>{list}</ul>{FOOT}</body>")
    }

    /// A link's hash, computed once for the template, gives back the URL's key in the
    /// seen set: the crawl asks the seen set with it instead of hashing the URL again.
    #[test]
    fn a_url_hash_gives_back_the_key_of_the_url_in_the_seen_set() {
        for url in [
            "https://a.example/",
            "https://a.example/news/2026/11/29/story-1",
            "",
        ] {
            assert_eq!(
                url_hash(url).to_le_bytes(),
                crate::store::seen_key(url),
                "{url}"
            );
        }
        assert_ne!(
            url_hash("https://a.example/1"),
            url_hash("https://a.example/2")
        );
    }

    fn learned(pages: &[(&str, String)]) -> Sample {
        let mut s = Sample::default();
        for (u, html) in pages {
            let (l, c) = page(u, html);
            s.observe(u, &l, &c);
        }
        s
    }

    #[test]
    fn menu_and_footer_are_template_lists_are_not() {
        let s = learned(&[
            ("https://s.org/a/", section("a", &[1, 2, 3])),
            ("https://s.org/b/", section("b", &[4, 5, 6])),
            ("https://s.org/c/", section("c", &[7, 8, 9])),
        ]);
        let t = s.template(0.7);
        let (links, ctx) = page("https://s.org/d/", &section("d", &[10, 11]));
        let tpl: Vec<bool> = links
            .iter()
            .zip(&ctx)
            .map(|(l, c)| t.is_template(l, c.as_ref()))
            .collect();
        // Home, News, About, then two list items, then Contact, Privacy.
        assert_eq!(tpl, [true, true, true, false, false, true, true]);
        // A menu entry added this week stands in the menu block: template too.
        let html =
            section("d", &[10]).replace("<a href=/about>", "<a href=/jobs>Jobs</a><a href=/about>");
        let (links, ctx) = page("https://s.org/d/", &html);
        let jobs = links.iter().position(|l| l.url.ends_with("/jobs")).unwrap();
        assert!(t.is_template(&links[jobs], ctx[jobs].as_ref()));
        let item = links.iter().position(|l| l.url.ends_with("/d/10")).unwrap();
        assert!(!t.is_template(&links[item], ctx[item].as_ref()));
        let (kept, kctx) = t.strip(links, ctx);
        assert_eq!(kept.len(), 1);
        assert_eq!(kctx.len(), 1);
    }

    #[test]
    fn nothing_is_template_before_three_pages_and_a_page_counts_once() {
        let mut s = learned(&[
            ("https://s.org/a/", section("a", &[1])),
            ("https://s.org/b/", section("b", &[2])),
        ]);
        assert!(s.template(0.7).is_empty());
        // The same page again replaces itself.
        let (l, c) = page("https://s.org/b/", &section("b", &[3]));
        s.observe("https://s.org/b/", &l, &c);
        assert_eq!(s.len(), 2);
        assert!(s.template(0.7).is_empty());
        let (l, c) = page("https://s.org/c/", &section("c", &[4]));
        s.observe("https://s.org/c/", &l, &c);
        assert_eq!(s.template(0.7).size().0, 5);
    }

    #[test]
    fn a_link_on_a_minority_of_pages_is_not_template_and_the_sample_is_bounded() {
        let mut pages: Vec<(String, String)> = (0..SAMPLE_PAGES as u32 + 4)
            .map(|i| {
                (
                    format!("https://s.org/p{i}/"),
                    section(&format!("p{i}"), &[i]),
                )
            })
            .collect();
        // "Special offer" on a third of the pages only.
        for p in pages.iter_mut().step_by(3) {
            p.1 =
                p.1.replace("</ul>", "</ul><p><a href=/offer>Special offer</a></p>");
        }
        let refs: Vec<(&str, String)> =
            pages.iter().map(|(u, h)| (u.as_str(), h.clone())).collect();
        let s = learned(&refs);
        assert_eq!(s.len(), SAMPLE_PAGES);
        let t = s.template(0.7);
        assert!(!t.is_template(&Link::new("Special offer", "https://s.org/offer"), None));
        assert!(t.is_template(&Link::new("Home", "https://s.org/"), None));
    }

    #[test]
    fn sample_round_trips_through_json() {
        let s = learned(&[
            ("https://s.org/a/", section("a", &[1, 2])),
            ("https://s.org/b/", section("b", &[3])),
        ]);
        let json = serde_json::to_string(&s).unwrap();
        let back: Sample = serde_json::from_str(&json).unwrap();
        assert_eq!(back, s);
        assert!(
            serde_json::from_str::<Sample>(r#"{"pages":[{"page":1,"links":"AAAA"}]}"#).is_err()
        );
    }
}
