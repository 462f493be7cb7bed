//! The one pass over a page: a single run over the decoded HTML that yields the page's
//! links, title, robots `nofollow` flag and icon ([`super::links`]) and, when asked, the
//! structure around the links and the page's visible text ([`super::structure`]). Links
//! and their contexts come from the same start tags, so each link knows its element:
//! nothing is paired up after the pass.
//!
//! # Where per-element facts are collected
//!
//! [`Pass`] holds one collector per kind of fact: `links` ([`LinkState`]) and `tree`
//! ([`Tree`], present when the structure is asked for). A driver hands every start tag
//! ([`Tag`]) to [`Sink::start`], every end of an element that asked for it to
//! [`Sink::end`], and every piece of text ([`Text`]) to [`Sink::text`]; each hands the
//! event to every collector in turn. A new kind of fact (say, what an entry holds
//! besides its links) is a new field of [`Pass`] with the same three hooks, called from
//! those three methods, and finished into [`Parsed`] in [`finish`]. The tree's element
//! ids ([`super::structure::Context::path`]) name the elements for such facts; the
//! element of a link is the last id of its path.
//!
//! Facts that only some elements need can be read later from those elements' markup:
//! a check's pass notes where each element's markup stands, and the facts of entry
//! content are read for its new entries only, by the same scanner and collectors run
//! over an entry's block alone ([`Structure::facts_for`]).
//!
//! The drivers: the page's own scanner ([`super::scan`]), and lol_html when a user's
//! selector must be matched ([`super::lol`]). Rules of both that every collector relies
//! on:
//! * An element's end also comes when an end tag of an ancestor closes it (innermost
//!   first); an element never closed ends with the document (collectors finish what is
//!   open).
//! * Text may come in pieces cut anywhere (even inside a character reference);
//!   [`Text::last`] marks the end of a text node.
//!
//! Limits: a page that needs over [`super::markup::MAX_PARSER_MEMORY`] of parser state or
//! more than [`super::markup::TIME_BUDGET`] is refused with [`ExtractError::Html`].
//!
//! Uses [`super::scan`], [`super::lol`], [`super::markup`], [`super::links`],
//! [`super::structure`], [`super::hiding`], [`super::resolve`].

use std::borrow::Cow;
use std::ops::Range;

use url::Url;

use super::facts::Facts;
use super::hiding::{may_hide, Attrs};
use super::links::{LinkEnd, LinkState, RawLink};
use super::lol::Selecting;
use super::markup::{Sink, Tag, Text};
use super::structure::{EntryFacts, PageText, Structure, Tree};
use super::{resolve, ExtractError, ExtractedPage, Selector};

/// What a pass gathers besides the links, title and flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gather {
    /// Nothing more ([`super::extract`]).
    Links,
    /// The contexts of the links and what the page's elements hold ([`Structure`]).
    Structure,
    /// The structure and the facts entry content is read from ([`super::facts`]).
    Content,
    /// The structure and the page's visible text ([`PageText`]): deep watches.
    Text,
    /// Both: a deep watch's own page, analysed and read by its crawl from one pass.
    ContentAndText,
}

/// What one pass found on a page.
#[derive(Debug, Clone, Default)]
pub struct Parsed {
    /// The links (in page order), title, nofollow flag and icon.
    pub page: ExtractedPage,
    /// Aligned with `page.links` (empty with [`Gather::Links`]).
    pub structure: Structure,
    /// With [`Gather::Text`] and [`Gather::ContentAndText`] only.
    pub text: Option<PageText>,
}

/// The collectors of one pass (see the [module documentation](self)).
#[derive(Default)]
pub(super) struct Pass<'h> {
    links: LinkState,
    tree: Option<Tree>,
    /// The page may hide elements by attribute ([`may_hide`]).
    hiding: bool,
    /// The text the pass runs over.
    html: &'h str,
}

/// How many elements and links a page may hold, from one quick count over its text:
/// every element starts with a `<` and most end with another (a fifth of them or so are
/// void, without an end tag: `<img>`, `<br>`, `<meta>`); a page seldom holds more links
/// than one per four (`<li><a>...</a></li>`). The vectors a pass fills per element and
/// per link are sized from it once instead of doubling a dozen times (each doubling a
/// copy of everything gathered so far). Capacities only, and bounded: a page may hold
/// more (its vectors then grow), and a page of nothing but `<` reserves no more than a
/// few MB.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Sizes {
    elements: usize,
    anchors: usize,
}

/// The most elements and links [`Sizes`] reserves room for.
const MAX_ELEMENTS: usize = 1 << 15;
const MAX_ANCHORS: usize = 1 << 14;

impl Sizes {
    fn of(html: &str) -> Self {
        let opens = memchr::memchr_iter(b'<', html.as_bytes()).count();
        Sizes {
            elements: (opens / 8 * 5 + 16).min(MAX_ELEMENTS),
            anchors: (opens / 4 + 1).min(MAX_ANCHORS),
        }
    }
}

/// What an element's end tag does to the collectors.
#[derive(Clone, Copy)]
pub(super) struct End {
    links: LinkEnd,
    /// The element's id in the tree and whether its end separates words.
    tree: Option<(u32, bool)>,
}

impl<'h> Pass<'h> {
    pub(super) fn new(html: &'h str, select: bool, gather: Gather) -> Self {
        let sizes = Sizes::of(html);
        let mut links = LinkState::new(select);
        links.reserve(sizes.anchors);
        Pass {
            links,
            tree: match gather {
                Gather::Links => None,
                // The page's own scanner notes where elements stand, and an entry's facts
                // are read from its element when asked for ([`facts_of`]); lol_html's
                // reading of a page may differ from it, so with a selector they are
                // gathered as the pass goes.
                Gather::Content | Gather::ContentAndText if !select => {
                    Some(Tree::with_places(gather == Gather::ContentAndText))
                }
                _ => Some(Tree::new(
                    matches!(gather, Gather::Text | Gather::ContentAndText),
                    matches!(gather, Gather::Content | Gather::ContentAndText),
                )),
            }
            .map(|mut t| {
                t.reserve(sizes.elements, sizes.anchors);
                t
            }),
            hiding: may_hide(html),
            html,
        }
    }
}

impl Sink for Pass<'_> {
    type End = End;

    fn start(&mut self, el: &Tag<'_>) -> Option<End> {
        let tag = &*el.name;
        let attrs = Attrs::read(el, self.hiding, self.tree.is_some());
        let (tree, anchor) = match &mut self.tree {
            Some(t) => {
                let opened = t.on_element(el, tag, &attrs);
                (opened.end, opened.anchor)
            }
            None => (None, None),
        };
        let links = self
            .links
            .on_element(el, tag, self.hiding.then_some(&attrs), anchor);
        (tree.is_some() || !links.is_empty()).then_some(End { links, tree })
    }

    fn end(&mut self, end: End) {
        self.links.on_end(end.links);
        if let (Some((id, breaks)), Some(t)) = (end.tree, &mut self.tree) {
            t.on_end(id, breaks);
        }
    }

    fn text(&mut self, chunk: &Text<'_>) {
        self.links.on_text(chunk, self.html);
        if let Some(t) = &mut self.tree {
            t.on_chunk(chunk);
        }
    }
}

impl Selecting for Pass<'_> {
    fn selected(&mut self, el: &Tag<'_>) -> bool {
        self.links.on_selected(el)
    }

    fn selected_end(&mut self) {
        self.links.on_selected_end();
    }
}

/// Runs the one pass over `html` (decoded text), resolving links against `page_url` (or
/// the page's `<base href>`); with `select`, only the links inside the region it matches
/// count (the structure and text are the whole page's). See [`super::extract`] for the
/// rules. The page's own scanner ([`super::scan`]) reads the page; a selector is matched
/// by lol_html ([`super::lol`]), which then drives the same collectors.
pub fn parse(
    html: &str,
    page_url: &Url,
    select: Option<&Selector>,
    gather: Gather,
) -> Result<Parsed, ExtractError> {
    read(html, page_url, select, gather, gather == Gather::Links)
}

/// The links, title and flags of `html` exactly as [`parse`] finds them when it gathers
/// more than links. With a selector, lol_html reads the page with its full lexer here, as
/// it does for the structure: for links alone [`parse`] lets it skip ahead with a lighter
/// one, which in rare foreign-content markup reads the tags otherwise (and finds other
/// links). For a check that reads a page's links before the rest of it and compares them
/// with the whole pass's.
pub fn parse_links_as_whole(
    html: &str,
    page_url: &Url,
    select: Option<&Selector>,
) -> Result<ExtractedPage, ExtractError> {
    read(html, page_url, select, Gather::Links, false).map(|p| p.page)
}

/// [`parse`]; `light`: with a selector, lol_html may skip the text outside links.
fn read(
    html: &str,
    page_url: &Url,
    select: Option<&Selector>,
    gather: Gather,
    light: bool,
) -> Result<Parsed, ExtractError> {
    let mut pass = Pass::new(html, select.is_some(), gather);
    match select {
        Some(sel) => pass = super::lol::run(pass, html, Some(sel), light)?,
        None => super::scan::scan(html, &mut pass)?,
    }
    Ok(finish(pass, page_url))
}

impl Structure {
    /// The facts of entry content for the element `id` and what it holds: the whole
    /// page's when the pass gathered them, else read from the element's markup in `html`
    /// (the text the pass read). `None` when the pass gathered neither.
    pub fn facts_for(&self, html: &str, id: u32) -> Option<Cow<'_, Facts>> {
        match self.entry_facts.as_ref()? {
            EntryFacts::Gathered(f) => Some(Cow::Borrowed(f)),
            EntryFacts::Places(p) => {
                let (range, hidden) = p.of(id)?;
                Some(Cow::Owned(facts_of(html, range, id, hidden)))
            }
        }
    }
}

/// The facts of entry content of the element whose markup is `html[range]` (id `id` in
/// the page; `hidden` when an element around it hides its text), as the whole pass
/// would have gathered them for it and what it holds: the same scanner and collectors
/// run over its markup alone. Its ids are the page's (the elements of the markup are
/// the element and its descendants, in order); its text lacks only the space that may
/// separate it from the text before it, which [`Facts::text_of`] leaves out anyway.
fn facts_of(html: &str, range: Range<usize>, id: u32, hidden: bool) -> Facts {
    let Some(markup) = html.get(range) else {
        return Facts::default();
    };
    let mut pass = Pass {
        links: LinkState::new(false),
        tree: Some(Tree::for_element(id, hidden)),
        hiding: may_hide(markup),
        html: markup,
    };
    if super::scan::scan(markup, &mut pass).is_err() {
        return Facts::default();
    }
    pass.tree.and_then(Tree::into_facts).unwrap_or_default()
}

/// [`parse`] with [`Gather::Content`], but gathering the facts of entry content for the
/// whole page as the pass goes, as a pass with a selector does: what the facts of one
/// element read alone are compared with.
#[cfg(test)]
pub(crate) fn parse_gathering_facts(html: &str, page_url: &Url) -> Result<Parsed, ExtractError> {
    let mut pass = Pass::new(html, false, Gather::Links);
    pass.tree = Some(Tree::new(false, true));
    super::scan::scan(html, &mut pass)?;
    Ok(finish(pass, page_url))
}

/// What the collectors of a finished pass found.
pub(super) fn finish(pass: Pass<'_>, page_url: &Url) -> Parsed {
    let Pass {
        links: mut s, tree, ..
    } = pass;
    s.close_link();
    s.close_title();
    let (links, of_link): (Vec<_>, Vec<_>) = resolve::resolve(
        std::mem::take(&mut s.links),
        &s.hrefs,
        s.base.as_deref(),
        page_url,
    )
    .into_iter()
    .unzip();
    let icon = s.icon.take().and_then(|href| {
        let raw = vec![RawLink {
            href: 0..href.len(),
            text: String::new(),
            anchor: None,
        }];
        resolve::resolve(raw, &href, s.base.as_deref(), page_url)
            .pop()
            .map(|(l, _)| l.url)
    });
    let (structure, text) = match tree {
        Some(t) => t.finish(&of_link),
        None => (Structure::default(), None),
    };
    Parsed {
        page: ExtractedPage {
            title: s.title.filter(|t| !t.is_empty()),
            links,
            nofollow: s.nofollow,
            icon,
        },
        structure,
        text,
    }
}

#[cfg(test)]
mod sizes_tests {
    use std::fmt::Write as _;

    use super::{Sizes, MAX_ANCHORS, MAX_ELEMENTS};

    /// A list page of `n` entries (a link, a date and a picture each): 9 elements
    /// around them and 4 per entry.
    fn list_page(n: usize) -> String {
        let mut html = String::from(
            "<!DOCTYPE html><html><head><meta charset=utf-8><title>News</title></head>\
             <body><nav><a href=/>Home</a></nav><ul>",
        );
        for i in 0..n {
            let day = i % 28 + 1;
            let _ = write!(
                html,
                "<li><a href=/n/{i}>Entry {i}</a> <time>2026-11-{day:02}</time><img src=/p/{i}.jpg></li>"
            );
        }
        html.push_str("</ul></body></html>");
        html
    }

    #[test]
    fn a_list_page_fits_in_the_sizes_counted_before_its_pass() {
        for n in [0, 1, 7, 100, 1000] {
            let s = Sizes::of(&list_page(n));
            assert!(
                s.elements >= 9 + 4 * n,
                "{n} entries: room for {} elements",
                s.elements
            );
            assert!(s.anchors > n, "{n} entries: room for {} links", s.anchors);
        }
    }

    #[test]
    fn a_page_of_nothing_but_markup_reserves_a_bounded_room() {
        let s = Sizes::of(&"<".repeat(10 << 20));
        assert_eq!((s.elements, s.anchors), (MAX_ELEMENTS, MAX_ANCHORS));
        assert_eq!(
            Sizes::of(""),
            Sizes {
                elements: 16,
                anchors: 1
            }
        );
    }
}
