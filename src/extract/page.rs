//! The one pass over a page: a single lol_html run over the decoded HTML that yields the
//! page's links, title, robots `nofollow` flag and icon ([`super::links`]) and, when
//! asked, the structure around the links and the page's visible text
//! ([`super::structure`]). Links and their contexts come from the same start tags, so
//! each link knows its element: nothing is paired up after the pass.
//!
//! # Where per-element facts are collected
//!
//! [`Pass`] holds one collector per kind of fact: `links` ([`LinkState`]) and `tree`
//! ([`Tree`], present when the structure is asked for). The pass hands every start tag to
//! [`Pass::on_element`], every end tag of an element that asked for it to
//! [`Pass::on_end`], and every text chunk to [`Pass::on_text`]; each hands the event to
//! every collector in turn. A new kind of fact (say, what an entry holds besides its
//! links) is a new field of [`Pass`] with the same three hooks, called from those three
//! methods, and finished into [`Parsed`] in [`parse`]. The tree's element ids
//! ([`super::structure::Context::path`]) name the elements for such facts; the element of
//! a link is the last id of its path.
//!
//! Rules of the lol_html run that every collector relies on:
//! * Handlers of one element run in the order they are registered: the user's selector
//!   (when there is one), then [`Pass::on_element`].
//! * An element's end-tag handlers also run when an end tag of an ancestor closes it;
//!   an element never closed ends with the document (collectors finish what is open).
//! * Text chunks may split a text node anywhere (even inside a character reference);
//!   `last_in_text_node` marks its end.
//!
//! Limits: a page that needs over [`MAX_PARSER_MEMORY`] of parser state or more than
//! [`TIME_BUDGET`] is refused with [`ExtractError::Html`].
//!
//! Uses lol_html, [`super::links`], [`super::structure`], [`super::hiding`],
//! [`super::resolve`].

use std::borrow::Cow;
use std::cell::RefCell;
use std::rc::Rc;

use lol_html::html_content::{Element, TextChunk};
use lol_html::{
    DocumentContentHandlers, ElementContentHandlers, HandlerResult, HtmlRewriter, Settings,
};
use url::Url;

use super::hiding::{may_hide, Attrs};
use super::links::{LinkEnd, LinkState, RawLink};
use super::structure::{PageText, Structure, Tree};
use super::{resolve, ExtractError, ExtractedPage, Selector};

/// How long one pass may take before it gives up (checked between slices of the input).
/// Real pages take milliseconds; only hostile markup (say, a million unclosed elements
/// followed by a million stray end tags, which costs lol_html quadratic time) comes near.
pub(crate) const TIME_BUDGET: std::time::Duration = std::time::Duration::from_secs(3);
/// The input is handed to lol_html in slices of this size, between which the time
/// budget is checked.
const SLICE_BYTES: usize = 16 * 1024;
/// The memory lol_html may use for its stack of open elements and for a token cut by
/// the end of a slice.
pub(crate) const MAX_PARSER_MEMORY: usize = 8 * 1024 * 1024;

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
struct Pass {
    links: LinkState,
    tree: Option<Tree>,
    /// The page may hide elements by attribute ([`may_hide`]).
    hiding: bool,
}

/// What an element's end tag does to the collectors.
#[derive(Clone, Copy)]
struct End {
    links: LinkEnd,
    /// The element's id in the tree and whether its end separates words.
    tree: Option<(u32, bool)>,
}

impl Pass {
    /// A start tag (`tag`: its name, lower case). Returns what its end tag is to do, if
    /// anything.
    fn on_element(&mut self, el: &Element<'_, '_>, tag: &str, html: &str) -> Option<End> {
        let attrs = Attrs::read(el, html, self.hiding, self.tree.is_some());
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

    fn on_end(&mut self, end: End) {
        self.links.on_end(end.links);
        if let (Some((id, breaks)), Some(t)) = (end.tree, &mut self.tree) {
            t.on_end(id, breaks);
        }
    }

    fn on_text(&mut self, chunk: &TextChunk<'_>, html: &str) {
        self.links.on_text(chunk, html);
        if let Some(t) = &mut self.tree {
            t.on_chunk(chunk);
        }
    }
}

type Shared = Rc<RefCell<Pass>>;

/// The handler of every start tag.
#[allow(clippy::unnecessary_wraps)] // the signature of an element handler
fn on_element(st: &Shared, el: &mut Element<'_, '_>, html: &str) -> HandlerResult {
    let tag = tag_name(el, html);
    let end = st.borrow_mut().on_element(el, &tag, html);
    if let (Some(end), Some(handlers)) = (end, el.end_tag_handlers()) {
        let st = Rc::clone(st);
        handlers.push(Box::new(move |_| {
            st.borrow_mut().on_end(end);
            Ok(())
        }));
    }
    Ok(())
}

/// The element's name in lower case, as `Element::tag_name` gives it, borrowed from the
/// start tag in `html` (the text the pass runs over) when it is written in lower case
/// already, which spares an allocation per element.
fn tag_name<'h>(el: &Element<'_, '_>, html: &'h str) -> Cow<'h, str> {
    let source = html
        .get(el.source_location().bytes())
        .and_then(|t| t.strip_prefix('<'))
        .map(|t| {
            let end = t
                .find(|c: char| c.is_ascii_whitespace() || c == '/' || c == '>')
                .unwrap_or(t.len());
            &t[..end]
        });
    match source {
        Some(name) if !name.is_empty() && !name.bytes().any(|b| b.is_ascii_uppercase()) => {
            Cow::Borrowed(name)
        }
        _ => Cow::Owned(el.tag_name()),
    }
}

/// The handler of the elements the user's selector matches.
fn on_selected(st: &Shared, el: &mut Element<'_, '_>) -> HandlerResult {
    if st.borrow_mut().links.on_selected(el) {
        let st = Rc::clone(st);
        el.on_end_tag(Box::new(move |_| {
            st.borrow_mut().links.on_selected_end();
            Ok(())
        }))?;
    }
    Ok(())
}

/// Runs the one pass over `html` (decoded text), resolving links against `page_url` (or
/// the page's `<base href>`); with `select`, only the links inside the region it matches
/// count (the structure and text are the whole page's). See [`super::extract`] for the
/// rules.
pub fn parse(
    html: &str,
    page_url: &Url,
    select: Option<&Selector>,
    gather: Gather,
) -> Result<Parsed, ExtractError> {
    let state: Shared = Rc::new(RefCell::new(Pass {
        links: LinkState::new(select.is_some()),
        tree: (gather != Gather::Links).then(|| {
            Tree::new(
                matches!(gather, Gather::Text | Gather::ContentAndText),
                matches!(gather, Gather::Content | Gather::ContentAndText),
            )
        }),
        hiding: may_hide(html),
    }));
    let fixed = fixed();
    // Order matters: handlers of one element run in this order, so the links see
    // whether the selector matched the `<a>` itself.
    let mut handlers: Vec<(Cow<'_, lol_html::Selector>, ElementContentHandlers<'_>)> =
        Vec::with_capacity(3);
    if let Some(sel) = select {
        let st = Rc::clone(&state);
        handlers.push((
            Cow::Borrowed(&sel.parsed),
            ElementContentHandlers::default()
                .element(move |el: &mut Element<'_, '_>| on_selected(&st, el)),
        ));
    }
    let st = Rc::clone(&state);
    handlers.push((
        Cow::Borrowed(&fixed.any),
        ElementContentHandlers::default()
            .element(move |el: &mut Element<'_, '_>| on_element(&st, el, html)),
    ));
    let mut document = Vec::new();
    let st = Rc::clone(&state);
    let on_text = move |chunk: &mut TextChunk<'_>| {
        st.borrow_mut().on_text(chunk, html);
        Ok(())
    };
    if gather == Gather::Links {
        // Text matters only inside links and the title: capturing only there spares
        // lol_html the work of producing every text chunk of the page.
        handlers.push((
            Cow::Borrowed(&fixed.text),
            ElementContentHandlers::default().text(on_text),
        ));
    } else {
        // The structure counts the text outside links too.
        document.push(DocumentContentHandlers::default().text(on_text));
    }

    let settings = Settings {
        element_content_handlers: handlers,
        document_content_handlers: document,
        // Never bail out on markup that a full tree builder would treat differently.
        strict: false,
        memory_settings: lol_html::MemorySettings {
            max_allowed_memory_usage: MAX_PARSER_MEMORY,
            ..lol_html::MemorySettings::default()
        },
        ..Settings::new()
    };
    let mut rewriter = HtmlRewriter::new(settings, |_: &[u8]| {});
    let started = std::time::Instant::now();
    for slice in html.as_bytes().chunks(SLICE_BYTES) {
        rewriter.write(slice).map_err(|e| parse_error(&e))?;
        if started.elapsed() > TIME_BUDGET {
            return Err(ExtractError::Html(format!(
                "the page is too complex: extraction took over {} s",
                TIME_BUDGET.as_secs()
            )));
        }
    }
    rewriter.end().map_err(|e| parse_error(&e))?;

    let Pass {
        links: mut s, tree, ..
    } = std::mem::take(&mut *state.borrow_mut());
    s.close_link();
    s.close_title();
    let (links, of_link): (Vec<_>, Vec<_>) =
        resolve::resolve(std::mem::take(&mut s.links), s.base.as_deref(), page_url)
            .into_iter()
            .unzip();
    let icon = s.icon.take().and_then(|href| {
        let raw = vec![RawLink {
            href,
            text: String::new(),
            anchor: None,
        }];
        resolve::resolve(raw, s.base.as_deref(), page_url)
            .pop()
            .map(|(l, _)| l.url)
    });
    let (structure, text) = match tree {
        Some(t) => t.finish(&of_link),
        None => (Structure::default(), None),
    };
    Ok(Parsed {
        page: ExtractedPage {
            title: s.title.filter(|t| !t.is_empty()),
            links,
            nofollow: s.nofollow,
            icon,
        },
        structure,
        text,
    })
}

fn parse_error(e: &lol_html::errors::RewritingError) -> ExtractError {
    match e {
        lol_html::errors::RewritingError::MemoryLimitExceeded(_) => ExtractError::Html(format!(
            "the page is too complex: it needs over {} MiB to parse (too many unclosed \
             elements, or an unclosed tag or comment that long)",
            MAX_PARSER_MEMORY >> 20
        )),
        e => ExtractError::Html(e.to_string()),
    }
}

/// The fixed selectors, parsed once per process.
struct Fixed {
    any: lol_html::Selector,
    text: lol_html::Selector,
}

fn fixed() -> &'static Fixed {
    static FIXED: std::sync::OnceLock<Fixed> = std::sync::OnceLock::new();
    FIXED.get_or_init(|| {
        let p = |s: &str| {
            s.parse::<lol_html::Selector>()
                .expect("built-in selector parses")
        };
        Fixed {
            any: p("*"),
            text: p("a, title"),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one-scan reads give what lol_html's own accessors give, on markup in any case,
    /// with repeated names, references and odd spacing, fed in slices that cut tags.
    #[test]
    fn one_scan_reads_agree_with_the_accessors() {
        let html = "<!doctype html><HTML><Body CLASS='Page Main' class=second>\
            <DIV Hidden STYLE=\"DISPLAY: none\" role=main ARIA-HIDDEN=' TRUE '>x</DIV>\
            <time\tdatetime=\"2024-05-01\" title='10 May'>t</time>\
            <span itemprop=datePublished content=\"2024-06-01&amp;x\">s</span>\
            <a REL=author href=/a title=\"&quot;q&quot;\" data-x>a</a>\
            <svg><rect/></svg><p/><IMG SRC=/i.png><br>\
            <aside aria-hidden=false hidden=''>z</aside></Body></HTML>";
        let mut seen = 0;
        for slice in [1, 7, 64, html.len()] {
            let mut rewriter = HtmlRewriter::new(
                Settings {
                    element_content_handlers: vec![lol_html::element!("*", |el| {
                        let a = Attrs::read(el, html, true, true);
                        let get = |n: &str| el.get_attribute(n);
                        assert_eq!(tag_name(el, html), el.tag_name());
                        assert_eq!(a.class, get("class"), "{}", el.tag_name());
                        assert_eq!(a.style, get("style"));
                        assert_eq!(a.role, get("role"));
                        assert_eq!(a.datetime, get("datetime"));
                        assert_eq!(a.itemprop, get("itemprop"));
                        assert_eq!(a.title, get("title"));
                        assert_eq!(a.rel, get("rel"));
                        assert_eq!(a.content, get("content"));
                        let aria = get("aria-hidden")
                            .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
                        assert_eq!(a.aria_hidden, aria);
                        let hides = el.has_attribute("hidden")
                            || get("style").is_some_and(|s| super::super::hiding::style_hides(&s));
                        assert_eq!(a.hides, hides);
                        seen += 1;
                        Ok(())
                    })],
                    ..Settings::new()
                },
                |_: &[u8]| {},
            );
            for part in html.as_bytes().chunks(slice) {
                rewriter.write(part).expect("the markup parses");
            }
            rewriter.end().expect("the markup ends");
        }
        // Every element was checked in every slicing (12 elements).
        assert_eq!(seen, 4 * 12);
        // Without `all`, only the hiding rules and the style are read.
        let mut rewriter = HtmlRewriter::new(
            Settings {
                element_content_handlers: vec![lol_html::element!("div", |el| {
                    let a = Attrs::read(el, html, true, false);
                    assert!(a.hides && a.aria_hidden && a.style.is_some());
                    assert_eq!((a.class, a.role), (None, None));
                    Ok(())
                })],
                ..Settings::new()
            },
            |_: &[u8]| {},
        );
        rewriter.write(html.as_bytes()).expect("parses");
        rewriter.end().expect("ends");
    }
}
