//! The links of a page, title, robots `nofollow` flag and icon, gathered during the one
//! pass over the page ([`super::page`]), which hands every start tag, end tag and text
//! chunk to a [`LinkState`] (the extraction rules are in [`super`]).
//!
//! How the rules are implemented:
//!
//! * Counters: `hidden` (open elements that hide their content), `aria_hidden`, `svg`
//!   and `selected` (open elements matching the user's selector). Each counted element
//!   undoes its count at its end tag ([`LinkEnd`]). The pass keeps a simple stack of open
//!   elements (push on a start tag, pop up to the matching name on an end tag), and when
//!   an end tag pops several elements at once (`<li><span hidden>x</ul>`), all of them
//!   end, so a missing end tag cannot leave a counter stuck,
//!   except when an element is never closed at all: then it extends to the end of the
//!   document.
//! * The user's selector is matched by lol_html before the pass's handler for every
//!   element, so [`LinkState::on_element`] can tell whether the link itself is selected;
//!   within it, the hiding tests come before the `<a>` handling.
//! * Text counts only inside links and the title. The pass tells the text type: only
//!   ordinary text (and RCDATA, e.g. `<textarea>`, and CDATA in SVG) counts; `<script>`,
//!   `<style>`, `<noscript>` (parsed as raw text, as by a browser with scripting on),
//!   `<iframe>`, `<xmp>`, `<noembed>`, `<noframes>` and `<plaintext>` contents are raw
//!   text and never link text.
//! * Speed: the hiding attributes (`hidden`, `aria-hidden`, `style`) are read only when
//!   a quick scan of the page ([`super::hiding::may_hide`]) finds something that could
//!   hide an element.
//! * Text chunks arrive raw (entities undecoded) and a text node may be split into
//!   several chunks, even inside an entity; a node is decoded as a whole once its last
//!   chunk arrives (chunks without `&` are appended directly). Whitespace is collapsed
//!   once, when the link closes.
//! * Links are recorded in the order of their start tags, with the raw `href`; URLs are
//!   resolved after the pass ([`super::resolve`]), because `<base href>` applies to the
//!   whole document, also to links before it.
//!
//! Here: the state, the text of links and title as chunks arrive, and the whitespace
//! rules; the start and end tags are read in [`tags`]. Uses [`super::entities`],
//! [`super::hiding`] and [`super::markup`]'s words.

use std::ops::Range;

use super::markup::{spaced_words, Text, TextKind};

use super::entities;

mod tags;

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

/// One `<a href>` (or `<area href>`) as found, before URL resolution.
pub(super) struct RawLink {
    /// Where its decoded href stands in [`LinkState::hrefs`].
    pub href: Range<usize>,
    pub text: String,
    /// The structure's anchor for its element, when the pass gathers the structure.
    pub anchor: Option<usize>,
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

/// What the pass has found of the page's links so far.
#[derive(Default)]
pub(super) struct LinkState {
    pub links: Vec<RawLink>,
    /// The decoded hrefs of `links`, one after another: one buffer for the page, not a
    /// string per link.
    pub hrefs: String,
    open: Option<OpenLink>,
    next_id: u32,
    /// Open elements that hide their content.
    hidden: u32,
    /// Open elements with `aria-hidden="true"`: their text is shown on screen, so it is
    /// link text, but second choice (see [`LinkState::close_link`]).
    aria_hidden: u32,
    /// Open `<svg>` elements (whose `<title>` is not the page's).
    svg: u32,
    /// Open elements that match the user's selector; `None` without a selector.
    selected: Option<u32>,
    /// Start offset of a void element (`<area>`) that the user's selector matched, or
    /// that is itself hidden: void elements have no end tag to undo a count with.
    void_selected_at: Option<usize>,
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
    pub title: Option<String>,
    title_open: bool,
    title_text: String,
    pub base: Option<String>,
    pub nofollow: bool,
    /// The first `<link rel="icon">` (or `shortcut icon`) href.
    pub icon: Option<String>,
}

/// What an element's end tag undoes in a [`LinkState`].
#[derive(Clone, Copy, Default)]
pub(super) struct LinkEnd {
    hidden: u8,
    aria: u8,
    svg: u8,
    /// The id of the `<a>` it opened.
    link: Option<u32>,
    title: bool,
}

impl LinkEnd {
    /// Whether the end tag has nothing to undo.
    pub(super) fn is_empty(&self) -> bool {
        self.hidden == 0 && self.aria == 0 && self.svg == 0 && self.link.is_none() && !self.title
    }
}

/// Where the text being read goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sink {
    Nowhere,
    Title,
    Link,
}

impl LinkState {
    /// A state for a pass with the user's selector (`selected`) or without.
    pub(super) fn new(selected: bool) -> Self {
        Self {
            selected: selected.then_some(0),
            ..Self::default()
        }
    }

    /// Room for `n` links (a capacity only: a page may hold fewer or more).
    pub(super) fn reserve(&mut self, n: usize) {
        self.links.reserve(n);
    }

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

    /// A text chunk of the page (`html`, the whole page, for the source between chunks).
    pub(super) fn on_text(&mut self, chunk: &Text<'_>, html: &str) {
        let decode = match chunk.kind {
            TextKind::Data | TextKind::RcData => true,
            TextKind::CData => false,
            _ => return,
        };
        let sink = self.sink();
        let last = chunk.last;
        let s = chunk.s;
        if sink == Sink::Nowhere {
            if last {
                self.node.clear();
            }
            return;
        }
        if sink == Sink::Link && !s.is_empty() {
            let at = chunk.span.clone();
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

    /// Appends the href `raw` (as written in the page) to [`LinkState::hrefs`], its
    /// character references decoded, and returns where it stands there.
    fn push_href(&mut self, raw: &str) -> Range<usize> {
        let start = self.hrefs.len();
        entities::decode_into(raw, &mut self.hrefs, true);
        start..self.hrefs.len()
    }

    fn open_link(
        &mut self,
        href: Option<Range<usize>>,
        label: Option<String>,
        anchor: Option<usize>,
    ) -> u32 {
        self.close_link();
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1);
        let index = href.map(|href| {
            self.links.push(RawLink {
                href,
                text: String::new(),
                anchor,
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
    pub(super) fn close_link(&mut self) {
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

    pub(super) fn close_title(&mut self) {
        if self.title_open {
            self.flush_node(Sink::Title);
            self.title_open = false;
            let mut t = String::new();
            collapse_into(&self.title_text, &mut t);
            self.title = Some(t);
        }
    }
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

/// Appends `src` to `dst` with runs of whitespace collapsed to one space, leading and
/// trailing whitespace dropped, NUL characters removed and the result cut at
/// [`MAX_TEXT_BYTES`]. Whitespace is Unicode's (`char::is_whitespace`): it includes
/// U+00A0 (`&nbsp;`) and U+3000 (the ideographic space), as Python's `str.split()`, which
/// the reference extraction uses, does.
pub(super) fn collapse_into(src: &str, dst: &mut String) {
    let mut pending_space = false;
    // Words apart by one space come in one piece, copied whole when it fits.
    for (piece, space) in spaced_words(src) {
        if !piece.is_empty() {
            if dst.len() + usize::from(pending_space) + piece.len() > MAX_TEXT_BYTES {
                // It does not fit: what fits of it, a character at a time, and no more.
                collapse_chars(piece, dst, pending_space);
                return;
            }
            if pending_space {
                dst.push(' ');
                pending_space = false;
            }
            dst.push_str(piece);
        }
        if space {
            pending_space = !dst.is_empty();
        }
    }
}

/// [`collapse_into`] a character at a time (`pending_space`: a space is due before the
/// next character).
fn collapse_chars(src: &str, dst: &mut String, mut pending_space: bool) {
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

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// A piece of words at a time gives what a character at a time gives, up to the
        /// cap and at it.
        #[test]
        fn collapsing_by_pieces_is_collapsing_by_characters(
            s in "([a-c]{0,9}[ \t\n\u{0}\u{a0}\u{3000}\u{e9}]{0,2}){0,400}",
            filled in 0usize..2100,
        ) {
            let start = "x".repeat(filled.min(MAX_TEXT_BYTES));
            let (mut by_piece, mut by_char) = (start.clone(), start);
            collapse_into(&s, &mut by_piece);
            collapse_chars(&s, &mut by_char, false);
            proptest::prop_assert_eq!(by_piece, by_char);
        }
    }
}
