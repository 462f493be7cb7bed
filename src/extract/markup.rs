//! What the collectors of the pass ([`super::page`]) see of a page: start tags
//! ([`Tag`]) and text ([`Text`]), borrowed from the page's text, with the attribute
//! syntax of HTML's tokenizer ([`scan_attrs`]). Both drivers of the pass (the page's own
//! scanner, [`super::scan`], and lol_html when a user's CSS selector needs matching)
//! hand the collectors these, so the collectors are written once.
//!
//! The limits of a pass ([`MAX_PARSER_MEMORY`], [`TIME_BUDGET`]) and the [`Sink`] a
//! driver hands a page's events to are here too.
//!
//! Uses [`super::ExtractError`].

use std::borrow::Cow;
use std::ops::Range;

use super::ExtractError;

/// How long one pass may take before it gives up (checked as it goes). Real pages take
/// milliseconds; only hostile markup (say, a million unclosed elements followed by a
/// million stray end tags, which costs quadratic time) comes near.
pub(crate) const TIME_BUDGET: std::time::Duration = std::time::Duration::from_secs(3);
/// The memory the parser may use for its stack of open elements (and lol_html for a
/// token cut by the end of a slice of its input).
pub(crate) const MAX_PARSER_MEMORY: usize = 8 * 1024 * 1024;

/// The error of a page that needs more than [`MAX_PARSER_MEMORY`] to parse.
pub(super) fn too_complex() -> ExtractError {
    ExtractError::Html(format!(
        "the page is too complex: it needs over {} MiB to parse (too many unclosed \
         elements, or an unclosed tag or comment that long)",
        MAX_PARSER_MEMORY >> 20
    ))
}

/// The error of a page whose pass takes longer than [`TIME_BUDGET`].
pub(super) fn too_slow() -> ExtractError {
    ExtractError::Html(format!(
        "the page is too complex: extraction took over {} s",
        TIME_BUDGET.as_secs()
    ))
}

/// What a driver of the pass hands a page's events to.
pub(super) trait Sink {
    /// What an element's end does, kept until the element closes.
    type End;
    /// A start tag. Returns what its end is to do (only asked of elements with content).
    fn start(&mut self, tag: &Tag<'_>) -> Option<Self::End>;
    /// The end of an element that asked for it.
    fn end(&mut self, end: Self::End);
    /// A piece of text.
    fn text(&mut self, text: &Text<'_>);
}

/// HTML's whitespace in markup (form feed included; a carriage return counts, as the
/// input stream would have made it a line feed).
pub(super) fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\n' | b'\t' | b'\r' | b'\x0C')
}

/// The words of a piece of text as the collectors keep it: the runs between whitespace
/// (by [`char::is_whitespace`]) and NULs, each with whether whitespace follows it (a gap
/// in the kept text) or not (a NUL, which is dropped so the runs on either side join, or
/// the end). A run may be empty (the text starts with a separator, or a NUL stands next
/// to one); ASCII whitespace right after whitespace belongs to the same gap, so no empty
/// run stands between them. Plain ASCII is read eight bytes at a time, other ASCII a byte
/// at a time; other characters are decoded only to ask whether they are whitespace.
pub(super) fn words(s: &str) -> Words<'_> {
    Words {
        rest: s,
        join: false,
    }
}

/// [`words`], except that words apart by one ASCII space come as one piece, the space
/// kept: what a collector that collapses whitespace would make of them anyway, in one
/// copy instead of one per word. Running prose comes in a few pieces.
pub(super) fn spaced_words(s: &str) -> Words<'_> {
    Words {
        rest: s,
        join: true,
    }
}

/// The iterator of [`words`] and [`spaced_words`].
pub(super) struct Words<'a> {
    rest: &'a str,
    /// A space after a word and before an ASCII byte of a word stays inside the piece.
    join: bool,
}

/// The classes of bytes [`Words`] reads: an ASCII byte of a word, the space, the other
/// ASCII whitespace, NUL, and the bytes of characters beyond ASCII.
const WORD: u8 = 0;
const SPACE: u8 = 1;
const WHITE: u8 = 2;
const NUL: u8 = 3;
const WIDE: u8 = 4;

/// The class of each byte (see [`WORD`]).
static CLASS: [u8; 256] = {
    let mut t = [WIDE; 256];
    let mut i = 0;
    while i < 0x80 {
        t[i] = match i as u8 {
            0 => NUL,
            b' ' => SPACE,
            b'\t' | b'\n' | 0x0B | 0x0C | b'\r' => WHITE,
            _ => WORD,
        };
        i += 1;
    }
    t
};

impl<'a> Iterator for Words<'a> {
    type Item = (&'a str, bool);

    fn next(&mut self) -> Option<Self::Item> {
        let s = self.rest;
        if s.is_empty() {
            return None;
        }
        let bytes = s.as_bytes();
        let class = |i: usize| bytes.get(i).map(|&c| CLASS[usize::from(c)]);
        let mut end = 0;
        loop {
            // The run of ASCII word bytes: eight at a time while they are plain, then a
            // byte at a time.
            if class(end) == Some(WORD) {
                end = plain_run(bytes, end, self.join);
            }
            while class(end) == Some(WORD) {
                end += 1;
            }
            let (sep, space) = match class(end) {
                None => break,
                Some(SPACE) if self.join && end > 0 && class(end + 1) == Some(WORD) => {
                    end += 2;
                    continue;
                }
                Some(SPACE | WHITE) => (1, true),
                Some(NUL) => (1, false),
                Some(_) => match s[end..].chars().next() {
                    Some(ch) if ch.is_whitespace() => (ch.len_utf8(), true),
                    Some(ch) => {
                        end += ch.len_utf8();
                        continue;
                    }
                    None => break,
                },
            };
            // A run of whitespace is one separator: the empty runs inside it would
            // change nothing for a collector, and indentation is most of a page's text.
            let mut next = end + sep;
            if space {
                while matches!(class(next), Some(SPACE | WHITE)) {
                    next += 1;
                }
            }
            self.rest = &s[next..];
            return Some((&s[..end], space));
        }
        self.rest = "";
        Some((s, false))
    }
}

/// Eight bytes, each `b`.
const fn lanes(b: u8) -> u64 {
    u64::from_ne_bytes([b; 8])
}

/// Bit 7 of each byte of `x` that is zero, no other bit (exact, no carry between bytes).
fn zero_bytes(x: u64) -> u64 {
    !(((x & lanes(0x7F)) + lanes(0x7F)) | x | lanes(0x7F))
}

/// Where a run of ASCII word bytes that goes on at `b[at]` (a word byte) stops being
/// plain, taken eight bytes at a time: plain are the bytes 0x21 to 0x7F and, with `join`,
/// single spaces between two of them ([`spaced_words`]). It stops before the first eight
/// bytes that hold anything else, or a space that is the last of the eight (what follows
/// it decides); the caller reads on a byte at a time from there.
fn plain_run(b: &[u8], mut at: usize, join: bool) -> usize {
    while let Some(chunk) = b.get(at..at + 8) {
        let mut eight = [0; 8];
        eight.copy_from_slice(chunk);
        let x = u64::from_le_bytes(eight);
        // Beyond ASCII, or below 0x20 (whitespace, NUL, other controls).
        if x & lanes(0x80) != 0 || zero_bytes(x & lanes(0x60)) != 0 {
            break;
        }
        let spaces = zero_bytes(x ^ lanes(b' '));
        // The first byte is the lowest. A space is never first of the first eight (the
        // caller's word byte is there) nor last of the eight before (that stops the
        // run), so it follows a word byte: it is plain unless a space or the unknown
        // byte after the eight follows it.
        if spaces != 0 && (!join || spaces & (spaces >> 8) != 0 || spaces >> 63 != 0) {
            break;
        }
        at += 8;
    }
    at
}

/// Where the element name that starts at `b[from]` ends: at whitespace, `/` or `>`.
pub(super) fn name_end(b: &[u8], from: usize) -> usize {
    b.get(from..)
        .unwrap_or_default()
        .iter()
        .position(|&c| is_space(c) || c == b'/' || c == b'>')
        .map_or(b.len(), |k| from + k)
}

/// `name` in ASCII lower case, borrowed when it is lower case already.
pub(super) fn lower(name: &str) -> Cow<'_, str> {
    if name.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(name.to_ascii_lowercase())
    } else {
        Cow::Borrowed(name)
    }
}

/// Where one attribute's name and value stand in a tag's source (byte offsets into the
/// tag, `<` at 0). A value-less attribute has an empty value range.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct AttrSpan {
    name: (u32, u32),
    value: (u32, u32),
}

/// What [`scan_attrs`] found after a tag's name.
pub(super) struct TagEnd {
    /// The index of the `>` that ends the tag (into the bytes given), `None` when the
    /// text ends inside the tag.
    pub(super) gt: Option<usize>,
    /// The tag ends in `/>`.
    pub(super) self_closing: bool,
}

/// Reads the attributes of a tag from `b[from..]` (just after the tag's name) by the
/// rules of HTML's tokenizer: names run to whitespace, `/`, `>` or `=` (a name may start
/// with `=`); values are double-quoted, single-quoted (both may hold `>`) or unquoted
/// (to whitespace or `>`); a `/` counts as self-closing only right before the `>`.
/// Pushes each attribute to `out` (offsets relative to `base`, the tag's start) and
/// returns where the tag ends.
pub(super) fn scan_attrs(b: &[u8], from: usize, base: usize, out: &mut Vec<AttrSpan>) -> TagEnd {
    // Most tags end right after their name (`<li>`, `</a>`): answered before the loop.
    if b.get(from) == Some(&b'>') {
        return TagEnd {
            gt: Some(from),
            self_closing: false,
        };
    }
    let n = b.len();
    let rel = |i: usize| u32::try_from(i - base).unwrap_or(u32::MAX);
    let mut i = from;
    loop {
        // Before an attribute's name.
        while i < n && is_space(b[i]) {
            i += 1;
        }
        if i >= n {
            return TagEnd {
                gt: None,
                self_closing: false,
            };
        }
        match b[i] {
            b'>' => {
                return TagEnd {
                    gt: Some(i),
                    self_closing: false,
                }
            }
            b'/' => {
                if b.get(i + 1) == Some(&b'>') {
                    return TagEnd {
                        gt: Some(i + 1),
                        self_closing: true,
                    };
                }
                i += 1;
                continue;
            }
            _ => {}
        }
        let name_start = i;
        i += 1;
        while i < n && !is_space(b[i]) && !matches!(b[i], b'/' | b'>' | b'=') {
            i += 1;
        }
        let name = (rel(name_start), rel(i));
        while i < n && is_space(b[i]) {
            i += 1;
        }
        let mut value = (rel(i), rel(i));
        if i < n && b[i] == b'=' {
            i += 1;
            while i < n && is_space(b[i]) {
                i += 1;
            }
            match b.get(i) {
                Some(&q @ (b'"' | b'\'')) => {
                    let start = i + 1;
                    let end = memchr::memchr(q, &b[start..]).map_or(n, |k| start + k);
                    value = (rel(start), rel(end));
                    i = (end + 1).min(n);
                }
                Some(b'>') | None => {}
                Some(_) => {
                    let start = i;
                    while i < n && !is_space(b[i]) && b[i] != b'>' {
                        i += 1;
                    }
                    value = (rel(start), rel(i));
                }
            }
        }
        out.push(AttrSpan { name, value });
    }
}

/// A start tag as the collectors see it.
#[derive(Debug)]
pub(crate) struct Tag<'h> {
    /// The element's name, ASCII lower case.
    pub(crate) name: Cow<'h, str>,
    /// Where the tag stands in the page's text (`<` to `>` inclusive).
    pub(crate) span: Range<usize>,
    /// The element has content and an end tag of its own (it is neither void nor a
    /// self-closing foreign element).
    pub(crate) content: bool,
    /// The element is in HTML's namespace (not inside `<svg>` or `<math>`).
    pub(crate) html_ns: bool,
    /// The tag's source.
    src: &'h str,
    attrs: &'h [AttrSpan],
}

impl<'h> Tag<'h> {
    /// A tag whose source is `src` (standing at `span` in the page) with the attributes
    /// `attrs` found in it.
    pub(super) fn new(
        name: Cow<'h, str>,
        src: &'h str,
        span: Range<usize>,
        attrs: &'h [AttrSpan],
        content: bool,
        html_ns: bool,
    ) -> Self {
        Self {
            name,
            span,
            content,
            html_ns,
            src,
            attrs,
        }
    }

    fn part(&self, (start, end): (u32, u32)) -> &'h str {
        self.src
            .get(start as usize..end as usize)
            .unwrap_or_default()
    }

    /// The attributes in source order: name as written, value as written (character
    /// references not decoded).
    pub(crate) fn attrs(&self) -> impl Iterator<Item = (&'h str, &'h str)> + '_ {
        self.attrs
            .iter()
            .map(|a| (self.part(a.name), self.part(a.value)))
    }

    /// The value of the first attribute named `name` (in any ASCII case), as written.
    pub(crate) fn attr(&self, name: &str) -> Option<&'h str> {
        self.attrs()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v)
    }

    /// Has the tag an attribute named `name` (in any ASCII case)?
    pub(crate) fn has_attr(&self, name: &str) -> bool {
        self.attr(name).is_some()
    }
}

/// How the tokenizer reads a run of text: which elements it stands in decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TextKind {
    /// Ordinary text; character references count.
    Data,
    /// In `<title>` or `<textarea>`: no tags, character references count.
    RcData,
    /// In `<style>`, `<iframe>`, `<xmp>`, `<noembed>`, `<noframes>`, `<noscript>`.
    RawText,
    /// In `<script>`.
    ScriptData,
    /// After `<plaintext>`.
    PlainText,
    /// A `<![CDATA[ ]]>` section in SVG or MathML.
    CData,
}

/// A piece of a text node. A node may come in several pieces, cut anywhere (even in a
/// character reference); `last` marks its end.
#[derive(Debug)]
pub(crate) struct Text<'h> {
    pub(crate) s: &'h str,
    pub(crate) kind: TextKind,
    pub(crate) last: bool,
    /// Where the piece stands in the page's text.
    pub(crate) span: Range<usize>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spaced words are the words, joined by single spaces where one space stood between
    /// two ASCII words.
    fn spaced_are_words(s: &str) -> Result<(), proptest::test_runner::TestCaseError> {
        let mut split = Vec::new();
        for (piece, space) in spaced_words(s) {
            let parts: Vec<&str> = piece.split(' ').collect();
            for (k, p) in parts.iter().enumerate() {
                split.push((*p, if k + 1 < parts.len() { true } else { space }));
            }
        }
        let by_word: Vec<(&str, bool)> = words(s).collect();
        proptest::prop_assert_eq!(split, by_word);
        Ok(())
    }

    /// The runs between whitespace, joined across NULs, are the words of
    /// `split(char::is_whitespace)` with their NULs taken out; the text starts and ends
    /// with a gap exactly when it starts and ends with whitespace (NULs aside).
    fn words_are_split(s: &str) -> Result<(), proptest::test_runner::TestCaseError> {
        let mut got = vec![String::new()];
        for (w, space) in words(s) {
            if let Some(g) = got.last_mut() {
                g.push_str(w);
            }
            if space {
                got.push(String::new());
            }
        }
        let want: Vec<String> = s
            .split(char::is_whitespace)
            .map(|w| w.replace('\0', ""))
            .collect();
        let ends = |v: &[String]| {
            (
                v.first().is_some_and(String::is_empty),
                v.last().is_some_and(String::is_empty),
            )
        };
        proptest::prop_assert_eq!(ends(&got), ends(&want));
        let full = |v: Vec<String>| v.into_iter().filter(|w| !w.is_empty()).collect::<Vec<_>>();
        proptest::prop_assert_eq!(full(got), full(want));
        Ok(())
    }

    proptest::proptest! {
        #[test]
        fn spaced_words_are_words_with_their_single_spaces(
            s in "([a-c\u{e9}\u{3000}\u{a0}\u{0}\t\n ]{0,3}[a-c ]{0,4}){0,6}"
        ) {
            spaced_are_words(&s)?;
        }

        #[test]
        fn words_split_at_whitespace_and_join_across_nuls(
            s in "[a\\x00 \\t\\x0B\\x0C\\r\\n\\u{85}\\u{a0}\\u{3000}\\u{200b}\\u{1c}é中]{0,24}"
        ) {
            words_are_split(&s)?;
        }

        /// Both again over long runs of ASCII words (read eight bytes at a time), broken
        /// by every kind of separator, controls, DEL and wider characters.
        #[test]
        fn long_runs_read_eight_at_a_time_are_the_same_words(
            s in "([!-~]{1,19}( |  |\n|\t|\u{0}|\u{1}|\u{7f}|\u{e9}|\u{3000}| \u{a0}|\u{b}){0,2}){0,12}"
        ) {
            spaced_are_words(&s)?;
            words_are_split(&s)?;
        }
    }

    fn attrs_of(tag: &str) -> (Vec<(String, String)>, Option<usize>, bool) {
        let mut out = Vec::new();
        let name_end = tag
            .bytes()
            .position(|b| is_space(b) || b == b'>' || b == b'/')
            .unwrap_or(tag.len());
        let end = scan_attrs(tag.as_bytes(), name_end, 0, &mut out);
        let t = Tag::new(Cow::Borrowed("x"), tag, 0..tag.len(), &out, true, true);
        let list = t
            .attrs()
            .map(|(n, v)| (n.to_owned(), v.to_owned()))
            .collect();
        (list, end.gt, end.self_closing)
    }

    #[test]
    fn attributes_by_the_tokenizer_rules() {
        let (a, gt, sc) = attrs_of(r#"<a href="/x>y" data-a='1' b=2 c d = "4">"#);
        let pairs: Vec<(&str, &str)> = a.iter().map(|(n, v)| (&**n, &**v)).collect();
        assert_eq!(
            pairs,
            [
                ("href", "/x>y"),
                ("data-a", "1"),
                ("b", "2"),
                ("c", ""),
                ("d", "4")
            ]
        );
        assert_eq!(gt, Some(39));
        assert!(!sc);
        // An unquoted value takes the slash; a slash right before `>` closes.
        let (a, _, sc) = attrs_of("<a href=/x/>");
        assert_eq!(a[0].1, "/x/");
        assert!(!sc);
        let (a, _, sc) = attrs_of("<br class=x />");
        assert_eq!(a[0].1, "x");
        assert!(sc);
        // A name may start with `=`; quotes run to their match or the end.
        let (a, gt, _) = attrs_of("<p =x title=\"open");
        assert_eq!(a[0].0, "=x");
        assert_eq!(a[1].1, "open");
        assert_eq!(gt, None);
    }

    #[test]
    fn the_first_attribute_of_a_name_counts_in_any_case() {
        let mut out = Vec::new();
        let src = "<a HREF=one href=two>";
        scan_attrs(src.as_bytes(), 2, 0, &mut out);
        let t = Tag::new(Cow::Borrowed("a"), src, 0..src.len(), &out, true, true);
        assert_eq!(t.attr("href"), Some("one"));
        assert!(t.has_attr("Href"));
        assert!(!t.has_attr("alt"));
    }
}
