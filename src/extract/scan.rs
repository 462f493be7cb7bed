//! The page's own scanner: one run over the decoded text that hands start tags, end tags
//! and text to a [`Sink`], by the tokenizer rules of HTML and the same reading of the
//! tree that lol_html makes (the pass used lol_html alone before, and still does when a
//! user's CSS selector must be matched; the corpus test compares the two drivers):
//!
//! * Text inside `<title>` and `<textarea>` is RCDATA, inside `<script>` script data
//!   (with its `<!--` escapes), inside `<style>`, `<iframe>`, `<xmp>`, `<noembed>`,
//!   `<noframes>` and `<noscript>` raw text, and all after `<plaintext>` plain text: each
//!   runs to its own end tag. That holds in HTML's namespace only; `<svg>` and `<math>`
//!   open foreign content (where `<![CDATA[` sections count), which a tag such as `<div>`
//!   or `<p>`, or an integration point (`<foreignObject>`, `<mi>`), leaves.
//! * Elements are kept on a stack of open elements: every element of HTML's namespace
//!   but the void ones (`<br>`, `<img>`, ...), and every foreign one not written `/>`.
//!   An end tag closes the nearest open element of its name and every element opened
//!   after it, innermost first; an end tag that matches no open element does nothing.
//!   Elements still open at the end of the page are not closed (the collectors finish
//!   what is open).
//! * A text node ends at any tag, comment or doctype; it comes in one piece here.
//!
//! A page with more than [`MAX_OPEN`] elements open at once, or whose scan takes longer
//! than [`TIME_BUDGET`], is refused with [`ExtractError::Html`].
//!
//! Uses [`super::markup`], memchr.

use std::borrow::Cow;
use std::time::Instant;

use super::markup::{
    is_space, lower, name_end, scan_attrs, too_complex, too_slow, AttrSpan, Sink, Tag, Text,
    TextKind, MAX_PARSER_MEMORY, TIME_BUDGET,
};
use super::ExtractError;

/// The most elements open at once: a stack entry stands for about 128 bytes of the
/// parser state that [`MAX_PARSER_MEMORY`] bounds (about 65,000 elements).
pub(super) const MAX_OPEN: usize = MAX_PARSER_MEMORY / 128;

/// Between two looks at the clock, at most this much work (bytes read plus stack
/// entries compared).
const WORK_BETWEEN_CLOCK_READS: usize = 64 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ns {
    Html,
    Svg,
    MathMl,
}

/// The namespaces the tags stand in, as a tree builder would have them, and what the
/// tokenizer reads after a tag.
struct Namespaces {
    stack: Vec<Ns>,
}

/// The void elements of HTML: no content, no end tag.
fn is_void(name: &str) -> bool {
    matches!(
        name,
        "area"
            | "base"
            | "basefont"
            | "bgsound"
            | "br"
            | "col"
            | "embed"
            | "hr"
            | "img"
            | "input"
            | "keygen"
            | "link"
            | "meta"
            | "param"
            | "source"
            | "track"
            | "wbr"
    )
}

/// Start tags that end foreign content (SVG or MathML).
const LEAVE_FOREIGN: [&str; 44] = [
    "b",
    "big",
    "blockquote",
    "body",
    "br",
    "center",
    "code",
    "dd",
    "div",
    "dl",
    "dt",
    "em",
    "embed",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "head",
    "hr",
    "i",
    "img",
    "li",
    "listing",
    "menu",
    "meta",
    "nobr",
    "ol",
    "p",
    "pre",
    "ruby",
    "s",
    "small",
    "span",
    "strong",
    "strike",
    "sub",
    "sup",
    "table",
    "tt",
    "u",
    "ul",
    "var",
];

fn svg_integration(name: &str) -> bool {
    matches!(name, "desc" | "title" | "foreignobject")
}

fn math_integration(name: &str) -> bool {
    matches!(name, "mi" | "mo" | "mn" | "ms" | "mtext")
}

impl Namespaces {
    fn current(&self) -> Ns {
        self.stack.last().copied().unwrap_or(Ns::Html)
    }

    fn enter(&mut self, ns: Ns) {
        self.stack.push(ns);
    }

    fn leave(&mut self) {
        if self.stack.len() > 1 {
            self.stack.pop();
        }
    }

    /// A start tag: updates the namespace and returns how the text after it reads.
    fn start(&mut self, tag: &Tag<'_>, self_closing: bool) -> TextKind {
        let name = &*tag.name;
        let cur = self.current();
        if name == "svg" {
            self.enter(Ns::Svg);
        } else if name == "math" {
            self.enter(Ns::MathMl);
        } else if cur != Ns::Html {
            if LEAVE_FOREIGN.contains(&name) {
                self.leave();
            } else if (cur == Ns::Svg && svg_integration(name))
                || (cur == Ns::MathMl && math_integration(name))
            {
                if !self_closing {
                    self.enter(Ns::Html);
                }
            } else if name == "font" {
                if tag.attrs().any(|(n, _)| {
                    ["color", "size", "face"]
                        .iter()
                        .any(|a| a.eq_ignore_ascii_case(n))
                }) {
                    self.leave();
                }
            } else if cur == Ns::MathMl && name == "annotation-xml" && !self_closing {
                let html = tag.attrs().any(|(n, v)| {
                    n.eq_ignore_ascii_case("encoding")
                        && (v.eq_ignore_ascii_case("text/html")
                            || v.eq_ignore_ascii_case("application/xhtml+xml"))
                });
                if html {
                    self.enter(Ns::Html);
                }
            }
        } else {
            return match name {
                "textarea" | "title" => TextKind::RcData,
                "plaintext" => TextKind::PlainText,
                "script" => TextKind::ScriptData,
                "style" | "iframe" | "xmp" | "noembed" | "noframes" | "noscript" => {
                    TextKind::RawText
                }
                _ => TextKind::Data,
            };
        }
        TextKind::Data
    }

    /// An end tag: updates the namespace.
    fn end(&mut self, name: &str) {
        let cur = self.current();
        if cur == Ns::Html {
            let n = self.stack.len();
            if n >= 2 {
                let prev = self.stack[n - 2];
                if (prev == Ns::MathMl && (math_integration(name) || name == "annotation-xml"))
                    || (prev == Ns::Svg && svg_integration(name))
                {
                    self.leave();
                }
            }
        } else if (cur == Ns::Svg && name == "svg")
            || (cur == Ns::MathMl && name == "math")
            || matches!(name, "p" | "br")
        {
            self.leave();
        }
    }
}

/// An open element: its name (lower case) and what its end does.
struct Open<'h, E> {
    name: Cow<'h, str>,
    end: Option<E>,
}

/// Does `b[at..]` start with `</name` followed by whitespace, `/` or `>` (any case)?
fn is_end_tag_of(b: &[u8], at: usize, name: &str) -> bool {
    let n = name.len();
    b.get(at..at + 2) == Some(b"</")
        && b.get(at + 2..at + 2 + n)
            .is_some_and(|s| s.eq_ignore_ascii_case(name.as_bytes()))
        && b.get(at + 2 + n)
            .is_some_and(|&c| is_space(c) || c == b'/' || c == b'>')
}

/// Does `b[at..]` start with `<script` followed by whitespace, `/` or `>` (any case)?
fn is_script_start(b: &[u8], at: usize) -> bool {
    b.get(at + 1..at + 7)
        .is_some_and(|s| s.eq_ignore_ascii_case(b"script"))
        && b.get(at + 7)
            .is_some_and(|&c| is_space(c) || c == b'/' || c == b'>')
}

/// Where the text of a raw-text, RCDATA or script element that starts at `from` ends:
/// at the `</name` of its end tag, or at the end of the page.
fn raw_text_end(b: &[u8], from: usize, name: &str, script: bool) -> usize {
    #[derive(PartialEq)]
    enum Escape {
        None,
        Escaped,
        Double,
    }
    let mut esc = Escape::None;
    let mut i = from;
    while let Some(k) = memchr::memchr2(b'<', b'-', &b[i..]) {
        let at = i + k;
        i = at + 1;
        if b[at] == b'-' {
            if script && esc != Escape::None && b.get(at..at + 3) == Some(b"-->") {
                esc = Escape::None;
            }
            continue;
        }
        match esc {
            Escape::None | Escape::Escaped if is_end_tag_of(b, at, name) => return at,
            Escape::None if script && b.get(at..at + 4) == Some(b"<!--") => {
                esc = Escape::Escaped;
                // The dashes of `<!--` may end it again: `<!-->`.
                i = at + 2;
            }
            Escape::Escaped if is_script_start(b, at) => esc = Escape::Double,
            Escape::Double if is_end_tag_of(b, at, "script") => esc = Escape::Escaped,
            _ => {}
        }
    }
    b.len()
}

/// Where a comment whose text starts at `from` (after `<!--`) ends: after its `-->` (or
/// `--!>`, or the `>` of `<!-->` and `<!--->`), or at the end of the page.
fn comment_end(b: &[u8], from: usize) -> usize {
    if b.get(from) == Some(&b'>') {
        return from + 1;
    }
    if b.get(from..from + 2) == Some(b"->") {
        return from + 2;
    }
    let mut i = from;
    while let Some(k) = memchr::memchr(b'>', &b[i..]) {
        let gt = i + k;
        let before = &b[from..gt];
        if before.ends_with(b"--") || before.ends_with(b"--!") {
            return gt + 1;
        }
        i = gt + 1;
    }
    b.len()
}

/// After the `>` at or after `from`, or the end of the page.
fn after_gt(b: &[u8], from: usize) -> usize {
    memchr::memchr(b'>', &b[from.min(b.len())..]).map_or(b.len(), |k| from + k + 1)
}

struct Scanner<'h, 's, S: Sink> {
    html: &'h str,
    sink: &'s mut S,
    open: Vec<Open<'h, S::End>>,
    ns: Namespaces,
    attrs: Vec<AttrSpan>,
    /// Where the text not yet handed on starts.
    text_from: usize,
    /// The name of the element whose raw text (or RCDATA, or script) is being read.
    raw_of: Cow<'h, str>,
    started: Instant,
    work: usize,
}

impl<'h, S: Sink> Scanner<'h, '_, S> {
    fn bytes(&self) -> &'h [u8] {
        self.html.as_bytes()
    }

    /// Hands on the text from `text_from` to `to` (if any) as a node of kind `kind`
    /// that ends there when `last`.
    fn text(&mut self, to: usize, kind: TextKind, last: bool) {
        if to > self.text_from {
            if let Some(s) = self.html.get(self.text_from..to) {
                self.sink.text(&Text {
                    s,
                    kind,
                    last,
                    span: self.text_from..to,
                });
            }
        }
        self.text_from = to;
    }

    fn charge(&mut self, work: usize) -> Result<(), ExtractError> {
        self.work += work;
        if self.work >= WORK_BETWEEN_CLOCK_READS {
            self.work = 0;
            if self.started.elapsed() > TIME_BUDGET {
                return Err(too_slow());
            }
        }
        Ok(())
    }

    /// A start tag at `at` (`<` then a letter). Returns where the page goes on and how
    /// the text after the tag reads, or `None` when the page ends inside the tag.
    fn start_tag(&mut self, at: usize) -> Result<Option<(usize, TextKind)>, ExtractError> {
        let b = self.bytes();
        let ne = name_end(b, at + 1);
        self.attrs.clear();
        let end = scan_attrs(b, ne, at, &mut self.attrs);
        let Some(gt) = end.gt else { return Ok(None) };
        self.text(at, TextKind::Data, true);
        let name = lower(self.html.get(at + 1..ne).unwrap_or_default());
        let src = self.html.get(at..=gt).unwrap_or_default();
        // Its namespace and whether it has content follow from the tag itself.
        let mut tag = Tag::new(name.clone(), src, at..gt + 1, &self.attrs, false, false);
        let kind = self.ns.start(&tag, end.self_closing);
        tag.html_ns = self.ns.current() == Ns::Html;
        tag.content = if tag.html_ns {
            !is_void(&tag.name)
        } else {
            !end.self_closing
        };
        if kind != TextKind::Data {
            self.raw_of = name.clone();
        }
        let on_end = self.sink.start(&tag);
        if tag.content {
            if self.open.len() >= MAX_OPEN {
                return Err(too_complex());
            }
            self.open.push(Open { name, end: on_end });
        }
        self.text_from = gt + 1;
        Ok(Some((gt + 1, kind)))
    }

    /// An end tag at `at` (`</` then a letter). Returns where the page goes on, or `None`
    /// when the page ends inside the tag.
    fn end_tag(&mut self, at: usize) -> Result<Option<usize>, ExtractError> {
        let b = self.bytes();
        let ne = name_end(b, at + 2);
        self.attrs.clear();
        let Some(gt) = scan_attrs(b, ne, at, &mut self.attrs).gt else {
            return Ok(None);
        };
        let name = lower(self.html.get(at + 2..ne).unwrap_or_default());
        self.ns.end(&name);
        if let Some(i) = self.open.iter().rposition(|o| o.name == name) {
            self.charge(self.open.len() - i)?;
            for o in self.open.drain(i..).rev() {
                if let Some(e) = o.end {
                    self.sink.end(e);
                }
            }
        } else {
            self.charge(self.open.len())?;
        }
        self.text_from = gt + 1;
        Ok(Some(gt + 1))
    }

    /// What follows a `<` at `at` in ordinary text: a tag, a comment, a doctype, a CDATA
    /// section or just text. Returns where the page goes on and how the text after reads,
    /// or `None` when the page ends there.
    fn markup(&mut self, at: usize) -> Result<Option<(usize, TextKind)>, ExtractError> {
        let bytes = self.bytes();
        let end = bytes.len();
        let data = TextKind::Data;
        let skip_to = |this: &mut Self, next: usize| {
            this.text_from = next;
            Some((next, data))
        };
        Ok(match bytes.get(at + 1).copied() {
            Some(c) if c.is_ascii_alphabetic() => {
                let Some((next, kind)) = self.start_tag(at)? else {
                    self.text(at, data, true);
                    return Ok(None);
                };
                Some((next, kind))
            }
            Some(b'/') => match bytes.get(at + 2) {
                Some(c) if c.is_ascii_alphabetic() => {
                    self.text(at, data, true);
                    self.end_tag(at)?.map(|next| (next, data))
                }
                // `</>` is no tag, but ends the text node as lol_html has it.
                Some(b'>') => {
                    self.text(at, data, true);
                    skip_to(self, at + 3)
                }
                None => Some((end, data)),
                Some(_) => {
                    self.text(at, data, true);
                    skip_to(self, after_gt(bytes, at + 2))
                }
            },
            Some(b'!') => {
                self.text(at, data, true);
                if bytes.get(at..at + 4) == Some(b"<!--") {
                    skip_to(self, comment_end(bytes, at + 4))
                } else if self.ns.current() != Ns::Html
                    && bytes.get(at..at + 9) == Some(b"<![CDATA[")
                {
                    let start = at + 9;
                    let close =
                        memchr::memmem::find(&bytes[start..], b"]]>").map_or(end, |k| start + k);
                    self.text_from = start;
                    self.text(close, TextKind::CData, true);
                    skip_to(self, (close + 3).min(end))
                } else {
                    skip_to(self, after_gt(bytes, at + 2))
                }
            }
            Some(b'?') => {
                self.text(at, data, true);
                skip_to(self, after_gt(bytes, at + 2))
            }
            _ => Some((at + 1, data)),
        })
    }

    fn run(&mut self) -> Result<(), ExtractError> {
        let bytes = self.bytes();
        let end = bytes.len();
        let mut at = 0;
        let mut kind = TextKind::Data;
        while at < end {
            let from = at;
            match kind {
                TextKind::PlainText => {
                    self.text(end, kind, true);
                    return Ok(());
                }
                TextKind::RcData | TextKind::RawText | TextKind::ScriptData => {
                    let script = kind == TextKind::ScriptData;
                    let close = raw_text_end(bytes, at, &self.raw_of, script);
                    self.text(close, kind, true);
                    kind = TextKind::Data;
                    at = close;
                    if close < end {
                        match self.end_tag(close)? {
                            Some(next) => at = next,
                            None => return Ok(()),
                        }
                    }
                }
                TextKind::Data | TextKind::CData => {
                    let Some(k) = memchr::memchr(b'<', &bytes[at..]) else {
                        break;
                    };
                    match self.markup(at + k)? {
                        Some((next, next_kind)) => (at, kind) = (next, next_kind),
                        None => return Ok(()),
                    }
                }
            }
            self.charge(at.saturating_sub(from))?;
        }
        self.text(end, TextKind::Data, true);
        Ok(())
    }
}

/// Scans `html`, handing its tags and text to `sink` (see the [module
/// documentation](self)).
pub(super) fn scan<S: Sink>(html: &str, sink: &mut S) -> Result<(), ExtractError> {
    Scanner {
        html,
        sink,
        open: Vec::new(),
        ns: Namespaces {
            stack: vec![Ns::Html],
        },
        attrs: Vec::new(),
        text_from: 0,
        raw_of: Cow::Borrowed(""),
        started: Instant::now(),
        work: 0,
    }
    .run()
}
