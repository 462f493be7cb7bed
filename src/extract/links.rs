//! The denoising pass (`docs/design.md` §1, step 3): one streaming lol_html pass over the
//! decoded HTML that collects the ordered array of links, the page title and the robots
//! `nofollow` flag.
//!
//! How the rules are implemented (see [`super`] for the rules themselves):
//!
//! * Element handlers maintain counters: `hidden` (open elements that hide their
//!   content), `aria_hidden`, `svg` and `selected` (open elements matching the user's
//!   selector). Each counted element registers an end-tag handler that undoes its count.
//!   lol_html keeps a simple stack of open elements (push on a start tag, pop up to the
//!   matching name on an end tag), and when an end tag pops several elements at once
//!   (`<li><span hidden>x</ul>`), the end-tag handlers of all of them run, so a missing
//!   end tag cannot leave a counter stuck, except when an element is never closed at
//!   all: then it extends to the end of the document.
//! * Handlers for the same element run in the order they are registered, so the user's
//!   selector and the hidden test are registered before the `<a>` handler, which can then
//!   tell whether the link itself is selected or hidden.
//! * Text is captured only inside `<a>` and `<title>` elements (a text handler on
//!   `a, title`). lol_html tells the text type: only ordinary text (and RCDATA, e.g.
//!   `<textarea>`, and CDATA in SVG) counts; `<script>`, `<style>`, `<noscript>` (parsed
//!   as raw text, as by a browser with scripting on), `<iframe>`, `<xmp>`, `<noembed>`,
//!   `<noframes>` and `<plaintext>` contents are raw text and never link text.
//! * Speed: a selector that tests attributes makes lol_html read the attributes of every
//!   tag it may apply to, and the hidden test (`[hidden], [style*=...]`) applies to all of
//!   them, which costs about a third of the pass. It is registered only when a quick scan
//!   of the page (`may_hide`) finds something that could hide an element. The fixed
//!   selectors otherwise name tags only, and handlers test attributes themselves.
//! * Text chunks arrive raw (entities undecoded) and a text node may be split into
//!   several chunks, even inside an entity; a node is decoded as a whole once its last
//!   chunk arrives (chunks without `&` are appended directly). Whitespace is collapsed
//!   once, when the link closes.
//! * Links are recorded in the order of their start tags, with the raw `href`; URLs are
//!   resolved after the pass, because `<base href>` applies to the whole document, also
//!   to links before it.

use std::borrow::Cow;
use std::cell::RefCell;
use std::rc::Rc;

use lol_html::html_content::{Element, TextChunk, TextType};
use lol_html::{ElementContentHandlers, HandlerResult, HtmlRewriter, Settings};
use url::Url;

use super::entities;
use super::{ExtractError, ExtractedPage, Selector};
use crate::model::Link;

/// Link texts longer than this (in bytes, after whitespace collapsing) are cut, at a char
/// boundary: a link that wraps a whole article is not a title.
pub const MAX_TEXT_BYTES: usize = 2048;
/// Raw text gathered for one link stops growing here (a runaway unclosed `<a>`).
const MAX_RAW_TEXT_BYTES: usize = 64 * 1024;

/// Elements whose start or end separates words in rendered text (`innerText`), so
/// `<a><div>Title</div><div>2024-01-01</div></a>` reads "Title 2024-01-01", not
/// "Title2024-01-01".
pub(crate) const BREAKING_ELEMENTS: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "br",
    "dd",
    "div",
    "dl",
    "dt",
    "figcaption",
    "figure",
    "footer",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hr",
    "li",
    "main",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "table",
    "td",
    "th",
    "tr",
    "ul",
];

/// How long one extraction may take before it gives up (checked between slices of the
/// input). Real pages take milliseconds; only hostile markup (say, a million unclosed
/// elements followed by a million stray end tags, which costs lol_html quadratic time)
/// comes near.
const TIME_BUDGET: std::time::Duration = std::time::Duration::from_secs(3);
/// The input is handed to lol_html in slices of this size, between which the time
/// budget is checked.
const SLICE_BYTES: usize = 16 * 1024;
/// The memory lol_html may use for its stack of open elements and for a token cut by
/// the end of a slice.
const MAX_PARSER_MEMORY: usize = 8 * 1024 * 1024;

const HTML_NS: &str = "http://www.w3.org/1999/xhtml";

/// One `<a href>` (or `<area href>`) as found, before URL resolution.
struct RawLink {
    href: String,
    text: String,
}

/// The `<a>` element currently open (HTML5: at most one; a new one closes it).
struct OpenLink {
    id: u32,
    /// Index into `State::links`; `None` for an `<a>` that does not count (no href,
    /// hidden, outside the selected region): it still closes the previous one, and its
    /// text goes nowhere.
    index: Option<usize>,
    /// Its `aria-label`, the last resort for its text.
    label: Option<String>,
}

#[derive(Default)]
struct State {
    links: Vec<RawLink>,
    open: Option<OpenLink>,
    next_id: u32,
    /// Open elements that hide their content.
    hidden: u32,
    /// Open elements with `aria-hidden="true"`: their text is shown on screen, so it is
    /// link text, but second choice (see [`State::close_link`]).
    aria_hidden: u32,
    /// Open `<svg>` elements (whose `<title>` is not the page's).
    svg: u32,
    /// Open elements that match the user's selector; `None` without a selector.
    selected: Option<u32>,
    /// Start offset of a void element (`<area>`) that the user's selector matched, or
    /// that is itself hidden: void elements have no end tag to undo a count with.
    void_selected_at: Option<usize>,
    void_hidden_at: Option<usize>,
    /// Decoded, not yet collapsed text of the open link: all of it, and the part outside
    /// `aria-hidden` elements; and its images' alt texts.
    text: String,
    text_a11y: String,
    alt: String,
    /// Where the last text of the open link ended in the source, and whether a text
    /// node is being read: markup between two text nodes of a link may break words.
    text_end: Option<usize>,
    in_node: bool,
    /// Raw text of the current text node, when it has to be decoded as a whole.
    node: String,
    title: Option<String>,
    title_open: bool,
    title_text: String,
    base: Option<String>,
    nofollow: bool,
    /// The first `<link rel="icon">` (or `shortcut icon`) href.
    icon: Option<String>,
}

/// Where the text being read goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sink {
    Nowhere,
    Title,
    Link,
}

impl State {
    fn in_visible_link(&self) -> bool {
        self.hidden == 0 && self.open.as_ref().is_some_and(|o| o.index.is_some())
    }

    fn sink(&self) -> Sink {
        if self.title_open {
            Sink::Title
        } else if self.in_visible_link() {
            Sink::Link
        } else {
            Sink::Nowhere
        }
    }

    /// Appends `s` (raw text when `decode`) to the text of `sink`.
    fn append(&mut self, sink: Sink, s: &str, decode: bool) {
        let buf = match sink {
            Sink::Title => &mut self.title_text,
            Sink::Link => &mut self.text,
            Sink::Nowhere => return,
        };
        if buf.len() >= MAX_RAW_TEXT_BYTES {
            return;
        }
        let before = buf.len();
        if decode {
            entities::decode_into(s, buf, false);
        } else {
            buf.push_str(s);
        }
        if sink == Sink::Link && self.aria_hidden == 0 {
            self.text_a11y.push_str(&self.text[before..]);
        }
    }

    fn on_text(&mut self, chunk: &TextChunk<'_>, html: &str) {
        let decode = match chunk.text_type() {
            TextType::Data | TextType::RCData => true,
            TextType::CDataSection => false,
            _ => return,
        };
        let sink = self.sink();
        let last = chunk.last_in_text_node();
        let s = chunk.as_str();
        if sink == Sink::Nowhere {
            if last {
                self.node.clear();
            }
            return;
        }
        if sink == Sink::Link && !s.is_empty() {
            let at = chunk.source_location().bytes();
            if !self.in_node {
                self.in_node = true;
                let gap = self.text_end.and_then(|end| html.get(end..at.start));
                if gap.is_some_and(breaks_words) {
                    self.text.push(' ');
                    self.text_a11y.push(' ');
                }
            }
            self.text_end = Some(at.end);
        }
        if self.node.is_empty() && (!decode || !s.contains('&')) {
            self.append(sink, s, false);
        } else if self.node.len() < MAX_RAW_TEXT_BYTES {
            self.node.push_str(s);
        }
        if last {
            self.in_node = false;
            self.flush_node(sink);
        }
    }

    /// Decodes the buffered text node into `sink`.
    fn flush_node(&mut self, sink: Sink) {
        if self.node.is_empty() {
            return;
        }
        let node = std::mem::take(&mut self.node);
        self.append(sink, &node, true);
        self.node = node;
        self.node.clear();
    }

    fn open_link(&mut self, href: Option<String>, label: Option<String>) -> u32 {
        self.close_link();
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1);
        let index = href.map(|href| {
            self.links.push(RawLink {
                href,
                text: String::new(),
            });
            self.links.len() - 1
        });
        self.open = Some(OpenLink { id, index, label });
        id
    }

    /// Ends the open link. Its text is the first non-empty of: its text outside
    /// `aria-hidden` elements (which often hold icon glyphs); all its text (some sites,
    /// Apple's newsroom among them, mark the whole visible text of a link `aria-hidden`
    /// and give the link an `aria-label` instead); the `alt` texts of its images; its
    /// `aria-label`. Else "".
    fn close_link(&mut self) {
        let Some(open) = self.open.take() else {
            return;
        };
        if let Some(i) = open.index {
            self.flush_node(Sink::Link);
            let mut text = String::with_capacity(self.text_a11y.len().min(MAX_TEXT_BYTES));
            collapse_into(&self.text_a11y, &mut text);
            if text.is_empty() {
                collapse_into(&self.text, &mut text);
            }
            if text.is_empty() {
                collapse_into(&self.alt, &mut text);
            }
            if let (true, Some(label)) = (text.is_empty(), &open.label) {
                collapse_into(label, &mut text);
            }
            self.links[i].text = text;
        }
        self.node.clear();
        self.text.clear();
        self.text_a11y.clear();
        self.alt.clear();
        self.text_end = None;
        self.in_node = false;
    }

    fn close_title(&mut self) {
        if self.title_open {
            self.flush_node(Sink::Title);
            self.title_open = false;
            let mut t = String::new();
            collapse_into(&self.title_text, &mut t);
            self.title = Some(t);
        }
    }
}

/// Does this element hide its content (a `hidden` attribute, an inline `display:none`
/// or `visibility:hidden`)?
fn hides(el: &Element<'_, '_>) -> bool {
    el.has_attribute("hidden") || el.get_attribute("style").is_some_and(|s| style_hides(&s))
}

/// An element that the user's selector matched: count it as open until its end tag.
fn on_selected(st: &Shared, el: &mut Element<'_, '_>) -> HandlerResult {
    if el.can_have_content() {
        if let Some(n) = &mut st.borrow_mut().selected {
            *n += 1;
        }
        let st = Rc::clone(st);
        el.on_end_tag(Box::new(move |_| {
            let mut s = st.borrow_mut();
            if let Some(n) = &mut s.selected {
                *n = n.saturating_sub(1);
            }
            Ok(())
        }))?;
    } else {
        st.borrow_mut().void_selected_at = Some(el.source_location().bytes().start);
    }
    Ok(())
}

/// `<a>`: closes the open link and opens a new one (that counts if it has an href and
/// is visible and selected), until its end tag.
fn on_anchor(st: &Shared, el: &mut Element<'_, '_>) -> HandlerResult {
    let href = el
        .get_attribute("href")
        .or_else(|| el.get_attribute("xlink:href"));
    let mut s = st.borrow_mut();
    let counts = s.hidden == 0 && s.selected != Some(0);
    let href = href.filter(|_| counts).map(|h| entities::decode(h, true));
    let label = href
        .as_ref()
        .and_then(|_| el.get_attribute("aria-label"))
        .map(|l| entities::decode(l, true));
    let id = s.open_link(href, label);
    drop(s);
    if el.can_have_content() {
        let st = Rc::clone(st);
        el.on_end_tag(Box::new(move |_| {
            let mut s = st.borrow_mut();
            if s.open.as_ref().is_some_and(|o| o.id == id) {
                s.close_link();
            }
            Ok(())
        }))?;
    } else {
        st.borrow_mut().close_link();
    }
    Ok(())
}

/// `<area href>`: a link of its own, with its `alt` as text.
#[allow(clippy::unnecessary_wraps)] // the signature of an element handler
fn on_area(st: &Shared, el: &mut Element<'_, '_>) -> HandlerResult {
    let at = el.source_location().bytes().start;
    let mut s = st.borrow_mut();
    let hidden = s.hidden > 0 || s.void_hidden_at == Some(at);
    let selected = s.selected != Some(0) || s.void_selected_at == Some(at);
    if hidden || !selected {
        return Ok(());
    }
    let Some(href) = el.get_attribute("href") else {
        return Ok(());
    };
    let mut text = String::new();
    if let Some(alt) = el.get_attribute("alt") {
        collapse_into(&entities::decode(alt, true), &mut text);
    }
    s.links.push(RawLink {
        href: entities::decode(href, true),
        text,
    });
    Ok(())
}

/// `<img>` inside a link: keep its `alt` in case the link has no text.
#[allow(clippy::unnecessary_wraps)] // the signature of an element handler
fn on_img(st: &Shared, el: &mut Element<'_, '_>) -> HandlerResult {
    let mut s = st.borrow_mut();
    if s.in_visible_link() && s.alt.len() < MAX_RAW_TEXT_BYTES {
        if let Some(alt) = el.get_attribute("alt") {
            s.alt.push(' ');
            entities::decode_into(&alt, &mut s.alt, true);
        }
    }
    Ok(())
}

/// `<base>`: the first one with an `href` sets the base URL.
#[allow(clippy::unnecessary_wraps)] // the signature of an element handler
fn on_base(st: &Shared, el: &mut Element<'_, '_>) -> HandlerResult {
    let mut s = st.borrow_mut();
    if s.base.is_none() {
        s.base = el.get_attribute("href").map(|h| entities::decode(h, true));
    }
    Ok(())
}

/// `<title>`: the first one outside SVG is the page's title.
fn on_title(st: &Shared, el: &mut Element<'_, '_>) -> HandlerResult {
    let mut s = st.borrow_mut();
    if s.title.is_some() || s.title_open || s.svg > 0 || el.namespace_uri() != HTML_NS {
        return Ok(());
    }
    let sink = s.sink();
    s.flush_node(sink);
    s.title_open = true;
    drop(s);
    if el.can_have_content() {
        let st = Rc::clone(st);
        el.on_end_tag(Box::new(move |_| {
            st.borrow_mut().close_title();
            Ok(())
        }))?;
    }
    Ok(())
}

/// `<link rel="icon" href>`: the first one names the site's icon.
#[allow(clippy::unnecessary_wraps)] // the signature of an element handler
fn on_link(st: &Shared, el: &mut Element<'_, '_>) -> HandlerResult {
    let is_icon = el.get_attribute("rel").is_some_and(|r| {
        r.split_ascii_whitespace()
            .any(|t| t.eq_ignore_ascii_case("icon"))
    });
    if is_icon && st.borrow().icon.is_none() {
        st.borrow_mut().icon = el.get_attribute("href").filter(|h| !h.trim().is_empty());
    }
    Ok(())
}

/// `<meta name=robots content=...>`: `nofollow` or `none` set the nofollow flag.
#[allow(clippy::unnecessary_wraps)] // the signature of an element handler
fn on_meta(st: &Shared, el: &mut Element<'_, '_>) -> HandlerResult {
    let is_robots = el
        .get_attribute("name")
        .is_some_and(|n| n.trim().eq_ignore_ascii_case("robots"));
    if is_robots {
        let content = el.get_attribute("content").unwrap_or_default();
        if content
            .split(|c: char| c == ',' || c.is_ascii_whitespace())
            .any(|t| t.eq_ignore_ascii_case("nofollow") || t.eq_ignore_ascii_case("none"))
        {
            st.borrow_mut().nofollow = true;
        }
    }
    Ok(())
}

/// Could an attribute in `html` hide an element or mark it `aria-hidden`? A quick,
/// conservative scan (false positives only cost time): it looks, ignoring ASCII case, for
/// `hidden` standing as a word (the attribute), `aria-hidden`, `visibility` `:` `hidden`
/// and `display` `:` `none`, with any spacing. A style that spells these with character
/// references (`display&#58;none`) is not seen.
fn may_hide(html: &str) -> bool {
    let lc = html.to_ascii_lowercase();
    let ws = |c: char| c.is_ascii_whitespace();
    let hidden = any_match(&lc, "hidden", |i| {
        let before = &lc[..i];
        if before.ends_with("aria-") {
            return true;
        }
        let prev = before.as_bytes().last().copied();
        let next = lc.as_bytes().get(i + 6).copied();
        let word_before = prev.map_or(true, |b| {
            b.is_ascii_whitespace() || matches!(b, b'"' | b'\'' | b'/')
        });
        let word_after = next.map_or(true, |b| {
            b.is_ascii_whitespace() || matches!(b, b'=' | b'>' | b'/')
        });
        if word_before && word_after {
            return true;
        }
        before
            .trim_end_matches(ws)
            .strip_suffix(':')
            .is_some_and(|p| p.trim_end_matches(ws).ends_with("visibility"))
    });
    hidden
        || any_match(&lc, "display", |i| {
            lc[i + 7..]
                .trim_start_matches(ws)
                .strip_prefix(':')
                .is_some_and(|v| v.trim_start_matches(ws).starts_with("none"))
        })
}

/// Does `pred` hold for the start of some occurrence of `needle` in `hay`? Looks at
/// `hay` in slices, first with `str::contains` (vectorized, several times faster than
/// `match_indices` on long texts where the needle is rare).
fn any_match(hay: &str, needle: &str, mut pred: impl FnMut(usize) -> bool) -> bool {
    const SLICE: usize = 4096;
    let mut start = 0;
    while start < hay.len() {
        let mut end = (start + SLICE).min(hay.len());
        while !hay.is_char_boundary(end) {
            end += 1;
        }
        // Overlap by the needle's length, so no occurrence is cut in two.
        let mut stop = (end + needle.len()).min(hay.len());
        while !hay.is_char_boundary(stop) {
            stop += 1;
        }
        let slice = &hay[start..stop];
        if slice.contains(needle) && slice.match_indices(needle).any(|(i, _)| pred(start + i)) {
            return true;
        }
        start = end;
    }
    false
}

/// Counts an element as open in the counters it belongs to (hidden, `aria-hidden`,
/// `<svg>`) until its end tag.
fn count_open(
    el: &mut Element<'_, '_>,
    st: &Shared,
    hide: bool,
    aria: bool,
    svg: bool,
) -> HandlerResult {
    if !(hide || aria || svg) {
        return Ok(());
    }
    if el.can_have_content() {
        let mut s = st.borrow_mut();
        s.hidden += u32::from(hide);
        s.aria_hidden += u32::from(aria);
        s.svg += u32::from(svg);
        drop(s);
        let st = Rc::clone(st);
        el.on_end_tag(Box::new(move |_| {
            let mut s = st.borrow_mut();
            s.hidden = s.hidden.saturating_sub(u32::from(hide));
            s.aria_hidden = s.aria_hidden.saturating_sub(u32::from(aria));
            s.svg = s.svg.saturating_sub(u32::from(svg));
            Ok(())
        }))?;
    } else if hide {
        st.borrow_mut().void_hidden_at = Some(el.source_location().bytes().start);
    }
    Ok(())
}

fn is_aria_hidden(el: &Element<'_, '_>) -> bool {
    el.get_attribute("aria-hidden")
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
}

/// Does this markup between two text nodes of a link separate words: does it hold a
/// start or end tag of a [`BREAKING_ELEMENTS`] element? (Looking at the source between
/// text nodes, rather than handling every `<div>` and `<td>` of the page, keeps the pass
/// fast; a tag name inside a comment there may add a space, which is harmless.)
fn breaks_words(gap: &str) -> bool {
    let b = gap.as_bytes();
    b.iter().enumerate().any(|(i, &c)| {
        if c != b'<' {
            return false;
        }
        let start = i + 1 + usize::from(b.get(i + 1) == Some(&b'/'));
        let len = b[start..]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric())
            .count();
        let name = &b[start..start + len];
        BREAKING_ELEMENTS
            .iter()
            .any(|e| e.as_bytes().eq_ignore_ascii_case(name))
    })
}

/// Does an inline style hide the element? (`display: none`, `visibility:hidden`, with
/// any spacing, case and `!important`.)
pub(crate) fn style_hides(style: &str) -> bool {
    let compact: String = style
        .chars()
        .filter(|c| !c.is_ascii_whitespace())
        .map(|c| c.to_ascii_lowercase())
        .collect();
    compact.split(';').any(|decl| {
        let decl = decl.trim_end_matches("!important");
        decl == "display:none" || decl == "visibility:hidden"
    })
}

/// Appends `src` to `dst` with runs of whitespace collapsed to one space, leading and
/// trailing whitespace dropped, NUL characters removed and the result cut at
/// [`MAX_TEXT_BYTES`]. Whitespace is Unicode's (`char::is_whitespace`): it includes
/// U+00A0 (`&nbsp;`) and U+3000 (the ideographic space), as Python's `str.split()`, which
/// the reference extraction uses, does.
pub(super) fn collapse_into(src: &str, dst: &mut String) {
    let mut pending_space = false;
    for c in src.chars() {
        if c == '\0' {
            continue;
        }
        if c.is_whitespace() {
            pending_space = !dst.is_empty();
            continue;
        }
        if dst.len() + usize::from(pending_space) + c.len_utf8() > MAX_TEXT_BYTES {
            break;
        }
        if pending_space {
            dst.push(' ');
            pending_space = false;
        }
        dst.push(c);
    }
}

type Shared = Rc<RefCell<State>>;
type Handler<'s, 'h> = (Cow<'s, lol_html::Selector>, ElementContentHandlers<'h>);

/// An element handler for `selector` that calls `f` with the shared state.
fn on_element<'s, 'h>(
    selector: &'s lol_html::Selector,
    state: &Shared,
    f: fn(&Shared, &mut Element<'_, '_>) -> HandlerResult,
) -> Handler<'s, 'h> {
    let st = Rc::clone(state);
    (
        Cow::Borrowed(selector),
        ElementContentHandlers::default().element(move |el: &mut Element<'_, '_>| f(&st, el)),
    )
}

/// Runs the pass. See [`super::extract`].
pub(super) fn run(
    html: &str,
    page_url: &Url,
    select: Option<&Selector>,
) -> Result<ExtractedPage, ExtractError> {
    let state: Shared = Rc::new(RefCell::new(State {
        selected: select.map(|_| 0),
        ..State::default()
    }));
    let fixed = Fixed::get();
    // Order matters: handlers of one element run in this order, so the `<a>` handler
    // sees whether the selector matched the `<a>` itself and whether it is hidden.
    let mut handlers: Vec<Handler<'_, '_>> = Vec::with_capacity(12);
    if let Some(sel) = select {
        handlers.push(on_element(&sel.parsed, &state, on_selected));
    }
    // Attribute selectors that apply to every element make lol_html read the attributes
    // of every tag, which costs about a third of the pass: skip them on pages where no
    // attribute could hide anything.
    if may_hide(html) {
        handlers.push(on_element(&fixed.hiding_attr, &state, |st, el| {
            let (hide, aria) = (hides(el), is_aria_hidden(el));
            count_open(el, st, hide, aria, false)
        }));
    }
    handlers.push(on_element(&fixed.hiding_tag, &state, |st, el| {
        // `<template>`, and SVG's `<title>` and `<desc>` (tooltips and descriptions).
        let hide = el.tag_name() == "template" || st.borrow().svg > 0;
        count_open(el, st, hide, false, false)
    }));
    handlers.push(on_element(&fixed.svg, &state, |st, el| {
        count_open(el, st, false, false, true)
    }));
    handlers.push(on_element(&fixed.anchor, &state, on_anchor));
    handlers.push(on_element(&fixed.area, &state, on_area));
    handlers.push(on_element(&fixed.img, &state, on_img));
    handlers.push(on_element(&fixed.base, &state, on_base));
    handlers.push(on_element(&fixed.title, &state, on_title));
    handlers.push(on_element(&fixed.meta, &state, on_meta));
    handlers.push(on_element(&fixed.link, &state, on_link));
    // Text matters only inside links and the title: capturing only there spares lol_html
    // the work of producing every text chunk of the page.
    let st = Rc::clone(&state);
    handlers.push((
        Cow::Borrowed(&fixed.text),
        ElementContentHandlers::default().text(move |chunk: &mut TextChunk<'_>| {
            st.borrow_mut().on_text(chunk, html);
            Ok(())
        }),
    ));

    let settings = Settings {
        element_content_handlers: handlers,
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

    let mut s = std::mem::take(&mut *state.borrow_mut());
    s.close_link();
    s.close_title();
    let links = resolve(std::mem::take(&mut s.links), s.base.as_deref(), page_url);
    let icon = s.icon.take().and_then(|href| {
        let raw = vec![RawLink {
            href,
            text: String::new(),
        }];
        resolve(raw, s.base.as_deref(), page_url)
            .pop()
            .map(|l| l.url)
    });
    Ok(ExtractedPage {
        title: s.title.filter(|t| !t.is_empty()),
        links,
        nofollow: s.nofollow,
        icon,
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

/// The selectors of the fixed handlers, parsed once per process.
struct Fixed {
    hiding_attr: lol_html::Selector,
    hiding_tag: lol_html::Selector,
    svg: lol_html::Selector,
    text: lol_html::Selector,
    anchor: lol_html::Selector,
    area: lol_html::Selector,
    img: lol_html::Selector,
    base: lol_html::Selector,
    title: lol_html::Selector,
    meta: lol_html::Selector,
    link: lol_html::Selector,
}

static FIXED: std::sync::OnceLock<Fixed> = std::sync::OnceLock::new();

impl Fixed {
    fn get() -> &'static Fixed {
        FIXED.get_or_init(Fixed::parse)
    }

    fn parse() -> Self {
        let p = |s: &str| {
            s.parse::<lol_html::Selector>()
                .expect("built-in selector parses")
        };
        Self {
            // `[style]` narrowed to what may hide, so fewer elements reach the handler.
            hiding_attr: p("[hidden], [aria-hidden], [style*='none' i], [style*='hidden' i]"),
            // SVG `<title>` and `<desc>` are tooltips and descriptions, not rendered text.
            // (Only plain tag and attribute selectors: descendant selectors cost time in
            // proportion to the depth of open elements, which sloppy pages make huge.)
            hiding_tag: p("template, title, desc"),
            svg: p("svg"),
            text: p("a, title"),
            anchor: p("a"),
            // Tag names only: a selector that tests attributes makes lol_html read the
            // attributes of every tag it could apply to; the handlers test them instead.
            area: p("area"),
            img: p("img"),
            base: p("base"),
            title: p("title"),
            meta: p("meta"),
            link: p("link"),
        }
    }
}

/// Resolves the raw hrefs against the document's base URL and normalizes them, dropping
/// the ones that are empty, fragment-only or not http(s).
fn resolve(raw: Vec<RawLink>, base_href: Option<&str>, page_url: &Url) -> Vec<Link> {
    let base = base_href
        .and_then(|b| page_url.join(b.trim()).ok())
        .filter(|b| matches!(b.scheme(), "http" | "https"));
    let base = base.as_ref().unwrap_or(page_url);
    let origin = &base[..url::Position::BeforePath];
    let options = Url::options().base_url(Some(base));
    let mut out = Vec::with_capacity(raw.len());
    for RawLink { href, text } in raw {
        let h = href.trim_matches(|c: char| c.is_ascii_whitespace() || c.is_ascii_control());
        if h.is_empty() || h.starts_with('#') || has_foreign_scheme(h) {
            continue;
        }
        let url = match resolve_simple(origin, h) {
            Some(url) => url,
            None => match options.parse(h).ok().and_then(super::url::normalize_owned) {
                Some(url) => url.into(),
                None => continue,
            },
        };
        out.push(Link { text, url });
    }
    out
}

/// The normalized URL of a plain path-absolute href (`/t/123?p=2#reply5`), built without
/// the URL parser: the most common kind of href, and the parser is the larger part of the
/// cost of resolution. `None` for anything the parser would change beyond dropping the
/// fragment (dot segments, escapes, characters it would encode, backslashes, ...).
fn resolve_simple(origin: &str, href: &str) -> Option<String> {
    let b = href.as_bytes();
    if b.first() != Some(&b'/') || matches!(b.get(1), Some(b'/' | b'\\')) {
        return None;
    }
    let href = &href[..href.find('#').unwrap_or(href.len())];
    let plain = href
        .bytes()
        .all(|c| c.is_ascii_alphanumeric() || b"-._~!$&()*+,;=:@/?".contains(&c));
    let path = &href[..href.find('?').unwrap_or(href.len())];
    if !plain || path.split('/').any(|seg| seg == "." || seg == "..") {
        return None;
    }
    let mut url = String::with_capacity(origin.len() + href.len());
    url.push_str(origin);
    url.push_str(href);
    Some(url)
}

/// A cheap pre-check that spares parsing `javascript:...`, `mailto:...`, `tel:...`,
/// `data:...` and the like: does `h` start with a scheme other than http(s)?
fn has_foreign_scheme(h: &str) -> bool {
    let Some(colon) = h.find(':') else {
        return false;
    };
    let scheme = &h[..colon];
    let is_scheme = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'));
    is_scheme && !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn slow(base: &Url, h: &str) -> Option<String> {
        Url::options()
            .base_url(Some(base))
            .parse(h)
            .ok()
            .and_then(super::super::url::normalize_owned)
            .map(String::from)
    }

    #[test]
    fn hiding_prescan_is_conservative() {
        for yes in [
            "<div hidden>",
            "<DIV HIDDEN=''>",
            "<p class=x hidden/>",
            "<p\thidden\n>",
            "<span aria-hidden=true>",
            "<span ARIA-HIDDEN='true'>",
            "<div style='display:none'>",
            "<div style=\"DISPLAY : NONE\">",
            "<div style='visibility:\n hidden'>",
            "<div style=\"color:red;Visibility : Hidden\">",
            "<div hidden",
        ] {
            assert!(may_hide(yes), "{yes}");
        }
        for no in [
            "<div style='overflow:hidden'>",
            "<style>.a{overflow: hidden; display: block}</style>",
            "<div class=hidden-xs>",
            "<p>unhidden</p> <a href=/display>display</a>",
            "",
        ] {
            assert!(!may_hide(no), "{no}");
        }
        // Occurrences on both sides of the scan's slice borders are found.
        for pad in [4090, 4093, 4095, 4096, 4100] {
            let html = format!("{}<div style='display: none'>", "x".repeat(pad));
            assert!(may_hide(&html), "{pad}");
            let html = format!("{}中<div hidden>", "x".repeat(pad));
            assert!(may_hide(&html), "{pad}");
        }
    }

    #[test]
    fn simple_resolution_examples() {
        let base = Url::parse("https://user@Example.com:8443/a/b?q#f").unwrap();
        let origin = &base[..url::Position::BeforePath];
        for h in [
            "/",
            "/x",
            "/t/123#reply5",
            "/a?b=c&d=e",
            "/a?",
            "/a/?x#",
            "/:@!$&()*+,;=-._~",
        ] {
            assert_eq!(resolve_simple(origin, h), slow(&base, h), "{h}");
        }
        for h in [
            "//host/x", "/./x", "/a/../b", "/a/.", "/%7e", "/a b", "/it's", "/\\x", "x", "/é",
        ] {
            assert_eq!(resolve_simple(origin, h), None, "{h}");
        }
    }

    proptest! {
        #[test]
        fn simple_resolution_agrees_with_the_parser(
            h in "/[a-zA-Z0-9./?#&=%'\\\\ _~:@!$()*+,;-]{0,24}",
            base in prop_oneof![
                Just("https://example.com/dir/page"),
                Just("http://u:p@example.com:8080/"),
                Just("https://xn--bcher-kva.de/a/b/c?x#y"),
            ],
        ) {
            let base = Url::parse(base).unwrap();
            let origin = &base[..url::Position::BeforePath];
            if let Some(fast) = resolve_simple(origin, &h) {
                prop_assert_eq!(Some(fast), slow(&base, &h));
            }
        }
    }
}
