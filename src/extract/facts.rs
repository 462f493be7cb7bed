//! Entry facts, gathered during the one pass over a page ([`super::page`]) when the
//! analysis asks for them: the page's visible text with the byte range of every element
//! in it, the block breaks, and the date, picture and author attributes the pass meets.
//! [`crate::entries::content`] reads one entry's summary, date, picture and author from
//! them; nothing here decides what an entry says.
//!
//! Uses [`super::markup`] (to read attributes as the pass meets them, and its words),
//! [`super::hiding`] (what hides) and [`super::entities`].

use std::ops::Range;

use super::markup::Tag;

use super::hiding::Attrs;

/// What the structural pass collects for entry content.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Facts {
    /// Visible text, whitespace collapsed, a space between blocks.
    pub(crate) text: String,
    /// A space is due before the next character.
    pub(crate) gap: bool,
    /// Raw chunks of the current text node with character references (decoded when the
    /// node ends).
    pub(crate) node: String,
    /// Positions in `text` where a block starts or ends (ascending).
    pub(crate) breaks: Vec<u32>,
    /// Per element id from [`Facts::first`]: the byte range of its text in `text`
    /// ([`Facts::span_of`]).
    span: Vec<Range<u32>>,
    /// Per element id from [`Facts::first`]: one past its last descendant's id.
    sub_end: Vec<u32>,
    /// The first element id held: 0 for a whole page, the element's own for the facts
    /// of one element's markup.
    first: u32,
    /// Machine-readable dates: (element id, attribute value).
    pub(crate) times: Vec<(u32, String)>,
    pub(crate) images: Vec<(u32, Img)>,
    /// Elements that name an author: (element id, a `content` attribute if any).
    pub(crate) authors: Vec<(u32, Option<String>)>,
    /// Headings `h1`..`h6` (ascending ids).
    pub(crate) headings: Vec<u32>,
    /// Open elements whose text is not shown (`hidden`, an inline `display:none`,
    /// `template`, `noscript`): their text is left out. (`aria-hidden` text is shown on
    /// screen, and stays.)
    pub(crate) hiding: Vec<u32>,
}

/// The attributes of an `img` that say where its picture is and how large.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Img {
    pub(crate) src: Option<String>,
    pub(crate) data_src: Option<String>,
    pub(crate) srcset: Option<String>,
    /// Declared width and height (`None` when absent or not a number).
    pub(crate) width: Option<u32>,
    pub(crate) height: Option<u32>,
}

/// [`Facts::text`] stops growing here (a page's visible text is rarely a tenth of it).
const MAX_TEXT: usize = 1 << 20;

impl Facts {
    /// Room for `n` elements.
    pub(super) fn reserve(&mut self, n: usize) {
        self.span.reserve(n);
        self.sub_end.reserve(n);
    }

    /// An element opens with instance id `id` (ids count up in document order).
    pub(super) fn open(&mut self, id: u32, tag: &str, el: &Tag<'_>, attrs: &Attrs) {
        let Some(i) = self.index(id) else {
            return;
        };
        if self.span.len() <= i {
            self.span.resize(i + 1, 0..0);
            self.sub_end.resize(i + 1, 0);
        }
        let at = self.text.len() as u32;
        self.span[i] = at..at;
        self.sub_end[i] = id + 1;
        if hides(el, tag, attrs) {
            self.hiding.push(id);
        }
        let attr = |n: &str| {
            el.attr(n)
                .filter(|v| !v.trim().is_empty())
                .map(str::to_owned)
        };
        if tag == "img" {
            let num = |n: &str| attr(n).and_then(|v| v.trim().trim_end_matches("px").parse().ok());
            self.images.push((
                id,
                Img {
                    src: attr("src"),
                    data_src: attr("data-src")
                        .or_else(|| attr("data-lazy-src"))
                        .or_else(|| attr("data-original")),
                    srcset: attr("srcset").or_else(|| attr("data-srcset")),
                    width: num("width"),
                    height: num("height"),
                },
            ));
        }
        if let Some(url) = attrs
            .style
            .filter(|s| !s.trim().is_empty())
            .and_then(background_image)
        {
            // A picture shown as an inline background (`style="background-image:url(..)"`).
            self.images.push((
                id,
                Img {
                    src: Some(url),
                    ..Img::default()
                },
            ));
        }
        if matches!(tag, "h1" | "h2" | "h3" | "h4" | "h5" | "h6") {
            self.headings.push(id);
        }
        let given = |v: Option<&str>| v.filter(|v| !v.trim().is_empty()).map(str::to_owned);
        let itemprop = attrs.itemprop.unwrap_or_default();
        let has = |list: &str, word: &str| {
            list.split_ascii_whitespace()
                .any(|w| w.eq_ignore_ascii_case(word))
        };
        if let Some(d) = given(attrs.datetime) {
            self.times.push((id, d));
        } else if has(itemprop, "datePublished") {
            if let Some(d) = given(attrs.content) {
                self.times.push((id, d));
            }
        } else if let Some(t) =
            given(attrs.title).filter(|t| t.starts_with(|c: char| c.is_ascii_digit()))
        {
            // A timestamp in a tooltip (`<span title="2024-05-01 10:00">3 hours ago</span>`).
            self.times.push((id, t));
        }
        let class = attrs.class.unwrap_or_default();
        if has(attrs.rel.unwrap_or_default(), "author")
            || has(itemprop, "author")
            || ["author", "p-author", "byline"]
                .iter()
                .any(|w| has(class, w))
        {
            self.authors.push((id, given(attrs.content)));
        }
    }

    /// The element `id` ends; `next` is the id the next element will get.
    pub fn close(&mut self, id: u32, next: u32) {
        // (an element and whatever inside it was left open)
        while self.hiding.last().is_some_and(|&h| h >= id) {
            self.hiding.pop();
        }
        let end = self.text.len() as u32;
        let Some(i) = self.index(id) else {
            return;
        };
        if let Some(s) = self.span.get_mut(i) {
            s.end = end;
        }
        if let Some(e) = self.sub_end.get_mut(i) {
            *e = next;
        }
    }

    /// Elements still open at the end of the page end there.
    pub fn finish(&mut self, open: &[u32], next: u32) {
        for &id in open {
            self.close(id, next);
        }
    }

    /// A block starts or ends: words on either side are apart.
    pub fn split(&mut self) {
        self.gap = true;
        let at = self.text.len() as u32;
        if self.breaks.last() != Some(&at) {
            self.breaks.push(at);
        }
    }

    /// A chunk of a visible text node (`last`: the node ends with it).
    pub fn chunk(&mut self, s: &str, last: bool) {
        if !self.hiding.is_empty() {
            return;
        }
        if self.node.is_empty() && !s.contains('&') {
            self.push(s);
            return;
        }
        if self.node.len() < MAX_TEXT {
            self.node.push_str(s);
        }
        if last {
            let mut decoded = String::with_capacity(self.node.len());
            super::entities::decode_into(&self.node, &mut decoded, false);
            self.node.clear();
            self.push(&decoded);
        }
    }

    /// Appends `s` with whitespace collapsed (NULs dropped), a piece of words at a time
    /// ([`super::markup::spaced_words`]).
    fn push(&mut self, s: &str) {
        for (word, space) in super::markup::spaced_words(s) {
            if !word.is_empty() {
                if self.text.len() + 1 + word.len() + 5 <= MAX_TEXT {
                    if self.gap && !self.text.is_empty() {
                        self.text.push(' ');
                    }
                    self.gap = false;
                    self.text.push_str(word);
                } else if !self.push_chars(word) {
                    // Near the cap, a character at a time: full.
                    return;
                }
            }
            if space {
                self.gap = true;
            }
        }
    }

    /// [`Facts::push`] a character at a time; `false` once the text is full.
    fn push_chars(&mut self, s: &str) -> bool {
        for c in s.chars() {
            if c == '\0' {
                continue;
            }
            if c.is_whitespace() {
                self.gap = true;
                continue;
            }
            if self.text.len() + 5 > MAX_TEXT {
                return false;
            }
            if self.gap && !self.text.is_empty() {
                self.text.push(' ');
            }
            self.gap = false;
            self.text.push(c);
        }
        true
    }

    /// The visible text of element `id` (empty for `None`), for tracing.
    pub fn block_text(&self, id: Option<u32>) -> &str {
        id.map_or("", |id| self.text_of(id))
    }

    /// The visible text of element `id`, without the space that may separate it from the
    /// text before it.
    pub(crate) fn text_of(&self, id: u32) -> &str {
        let t = self
            .span_of(id)
            .and_then(|r| self.text.get(r.start as usize..r.end as usize))
            .unwrap_or("");
        t.strip_prefix(' ').unwrap_or(t)
    }

    /// The byte range of element `id`'s text in [`Facts::text`].
    pub(crate) fn span_of(&self, id: u32) -> Option<Range<u32>> {
        self.span.get(self.index(id)?).cloned()
    }

    /// Where element `id` is held in the per-element vectors.
    fn index(&self, id: u32) -> Option<usize> {
        id.checked_sub(self.first).map(|i| i as usize)
    }

    /// Facts gathered from one element's markup alone, whose first element gets id
    /// `first` (its id in the page): `hidden` when an element around it hides its text.
    pub(super) fn within_element(first: u32, hidden: bool) -> Self {
        Self {
            // An element below every id of the fragment keeps its text out.
            hiding: if hidden {
                vec![first.saturating_sub(1)]
            } else {
                Vec::new()
            },
            first,
            ..Self::default()
        }
    }

    /// Ids of the element `id` and its descendants.
    pub(crate) fn within(&self, id: u32) -> Range<u32> {
        id..self
            .index(id)
            .and_then(|i| self.sub_end.get(i))
            .copied()
            .unwrap_or(id + 1)
            .max(id + 1)
    }
}

/// An element whose text the facts leave out, with everything inside it (an element
/// without content, such as a hidden `img`, has nothing to hide).
fn hides(el: &Tag<'_>, tag: &str, attrs: &Attrs) -> bool {
    el.content && (attrs.hides || matches!(tag, "template" | "noscript" | "title" | "desc"))
}

/// Where each element's markup stands in the page, so that the facts of one entry are
/// read from its element alone ([`super::structure::Structure::facts_for`]) when the
/// analysis asks for them, not gathered for the whole page during the pass: a check needs
/// them only for its new entries.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Places {
    /// Per element id, in the order they open.
    of: Vec<Place>,
    /// Open elements that leave their text out ([`Facts::hiding`]).
    hiding: Vec<u32>,
    /// Where the last start tag or text the pass met ends.
    seen: usize,
}

/// Where one element stands ([`Places`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Place {
    /// The bytes from its start tag to the end of the last start tag or text inside it
    /// (what the pass had read when the element ended).
    markup: Range<usize>,
    /// An element around it leaves its text out of the facts.
    hidden: bool,
}

impl Places {
    /// Room for `n` elements.
    pub(super) fn reserve(&mut self, n: usize) {
        self.of.reserve(n);
    }

    /// An element opens with id `id`.
    pub(super) fn open(&mut self, id: u32, el: &Tag<'_>, tag: &str, attrs: &Attrs) {
        let i = id as usize;
        let place = Place {
            markup: el.span.start..el.span.start,
            hidden: !self.hiding.is_empty(),
        };
        // (ids count up from 0 in a page's pass: almost always the next one)
        if i == self.of.len() {
            self.of.push(place);
        } else {
            if self.of.len() <= i {
                self.of.resize(i + 1, Place::default());
            }
            self.of[i] = place;
        }
        if hides(el, tag, attrs) {
            self.hiding.push(id);
        }
    }

    /// The pass has read the page up to byte `end` (a start tag's or a text's end).
    pub(super) fn seen(&mut self, end: usize) {
        self.seen = self.seen.max(end);
    }

    /// An element without content (`img`, `br`) ends with its start tag.
    pub(super) fn void(&mut self, id: u32) {
        if let Some(p) = self.of.get_mut(id as usize) {
            p.markup.end = self.seen.max(p.markup.start);
        }
    }

    /// The element `id` ends, and whatever inside it was left open.
    pub(super) fn close(&mut self, id: u32) {
        while self.hiding.last().is_some_and(|&h| h >= id) {
            self.hiding.pop();
        }
        self.void(id);
    }

    /// The element `id`: its markup and whether an element around it hides its text.
    pub(crate) fn of(&self, id: u32) -> Option<(Range<usize>, bool)> {
        let p = self.of.get(id as usize)?;
        Some((p.markup.clone(), p.hidden))
    }
}

/// The URL of a `background-image` (or `background`) in an inline style.
fn background_image(style: &str) -> Option<String> {
    let lower = style.to_ascii_lowercase();
    let at = lower.find("background")?;
    let open = at + lower[at..].find("url(")? + 4;
    let close = open + lower[open..].find(')')?;
    let url = style
        .get(open..close)?
        .trim()
        .trim_matches(['"', '\''])
        .trim();
    (!url.is_empty()).then(|| url.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The facts of one element read alone hold its own elements only, however far down
    /// the page it stands, and say what it says.
    #[test]
    fn an_element_read_alone_holds_its_own_elements() {
        use std::fmt::Write;
        let mut items = String::new();
        for k in 0..200 {
            let day = k % 9 + 1;
            let _ = write!(
                items,
                "<li><a href=/n{k}>Notice number {k} of the board</a> <span>2024-05-0{day}</span></li>"
            );
        }
        let html = format!("<ul>{items}</ul>");
        let page = url::Url::parse("https://example.org/").expect("url");
        let parsed = crate::extract::parse(&html, &page, None, crate::extract::Gather::Content)
            .expect("parse");
        let st = parsed.structure;
        let last = st.ctx.last().and_then(Option::as_ref).expect("a link");
        let li = last.path[last.path.len() - 2];
        let f = st.facts_for(&html, li).expect("places");
        assert_eq!(f.span.len(), 3, "li, a, span");
        assert_eq!(f.within(li), li..li + 3);
        assert_eq!(f.text_of(li), "Notice number 199 of the board 2024-05-02");
        assert_eq!(f.text_of(li + 2), "2024-05-02");
    }

    /// A word at a time gives what a character at a time gives: whitespace of any kind
    /// collapsed to one space, NULs dropped, a gap carried over from one piece to the
    /// next, and the text cut at the cap.
    #[test]
    fn pushing_words_is_pushing_characters() {
        let pieces: &[&[&str]] = &[
            &["  Hello,\tworld \n", "again", " and\u{3000}again\u{a0}"],
            &["a\0b \0 c", "\0", " d"],
            &["no-space", "joined", "  "],
            &["\u{4e2d}\u{6587} \u{65b0}\u{95fb}", "\r\n", "x"],
            &["", " ", ""],
        ];
        for list in pieces {
            let (mut by_word, mut by_char) = (Facts::default(), Facts::default());
            for p in *list {
                by_word.push(p);
                by_char.push_chars(p);
            }
            assert_eq!(by_word.text, by_char.text, "{list:?}");
            assert_eq!(by_word.gap, by_char.gap, "{list:?}");
        }
        // Random strings of letters, CJK, NULs and whitespace of every kind.
        let alphabet = [
            'a',
            'Z',
            '1',
            '\0',
            ' ',
            '\t',
            '\n',
            '\r',
            '\x0B',
            '\x0C',
            '\u{a0}',
            '\u{3000}',
            '\u{2028}',
            '\u{4e2d}',
            '\u{e9}',
            '\u{1F600}',
            '.',
            '&',
        ];
        let mut rng = fastrand::Rng::with_seed(3);
        for _ in 0..2000 {
            let (mut by_word, mut by_char) = (Facts::default(), Facts::default());
            for _ in 0..rng.usize(1..4) {
                let p: String = (0..rng.usize(0..12))
                    .map(|_| alphabet[rng.usize(..alphabet.len())])
                    .collect();
                by_word.push(&p);
                by_char.push_chars(&p);
                assert_eq!(by_word.text, by_char.text, "{p:?}");
                assert_eq!(by_word.gap, by_char.gap, "{p:?}");
            }
        }
        // At the cap, both stop at the same character.
        let long = "word ".repeat(MAX_TEXT / 5 + 10);
        let (mut by_word, mut by_char) = (Facts::default(), Facts::default());
        by_word.push(&long);
        by_char.push_chars(&long);
        assert_eq!(by_word.text.len(), by_char.text.len());
        assert!(by_word.text.len() <= MAX_TEXT && by_word.text.len() > MAX_TEXT - 10);
    }
}
