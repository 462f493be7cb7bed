//! The page's visible text as the pass collects it ([`super::PageText`]): whitespace
//! collapsed, blocks apart, capped at [`MAX_TEXT_BYTES`], with the text outside chrome
//! regions beside it and the range each link's own text takes.
//!
//! Uses [`super`]'s tree, [`crate::extract::markup`]'s text and
//! [`crate::extract::entities`].

use std::ops::Range;

use crate::extract::markup::{words, Text as Piece, TextKind};

use super::{Tree, MAX_TEXT_BYTES};
use crate::extract::entities;

/// One capped text being collected.
#[derive(Default)]
pub(super) struct Buf {
    pub(super) s: String,
    /// A space is due before the next character.
    gap: bool,
    /// It reached [`MAX_TEXT_BYTES`].
    pub(super) full: bool,
}

impl Buf {
    /// Appends `c` after a space when one is due, unless the cap is reached. Returns
    /// where `c` was put.
    fn push(&mut self, c: char) -> Option<usize> {
        if self.full {
            return None;
        }
        let sep = self.gap && !self.s.is_empty();
        if self.s.len() + usize::from(sep) + c.len_utf8() > MAX_TEXT_BYTES {
            self.full = true;
            return None;
        }
        if sep {
            self.s.push(' ');
        }
        self.gap = false;
        let at = self.s.len();
        self.s.push(c);
        Some(at)
    }

    /// Appends the word `w` (no whitespace, no NUL) as [`Buf::push`] would char by char,
    /// in one copy when it fits. Returns where its first character was put, if any was.
    fn push_word(&mut self, w: &str) -> Option<usize> {
        if self.full {
            return None;
        }
        let sep = self.gap && !self.s.is_empty();
        if self.s.len() + usize::from(sep) + w.len() <= MAX_TEXT_BYTES {
            if sep {
                self.s.push(' ');
            }
            self.gap = false;
            let at = self.s.len();
            self.s.push_str(w);
            return Some(at);
        }
        let mut first = None;
        for c in w.chars() {
            let Some(at) = self.push(c) else { break };
            first.get_or_insert(at);
        }
        first
    }
}

/// The text being collected, when it is asked for.
#[derive(Default)]
pub(super) struct Text {
    /// All visible text ([`super::PageText::text`]).
    pub(super) all: Buf,
    /// Visible text outside chrome regions ([`super::PageText::content`]).
    pub(super) content: Buf,
    /// Raw chunks of the current text node when it has character references, which
    /// are decoded once the whole node is read (a chunk may end inside one).
    node: String,
}

impl Text {
    /// A block starts or ends: words on either side are apart.
    pub(super) fn split(&mut self) {
        self.all.gap = true;
        self.content.gap = true;
    }

    /// Appends decoded text, collapsing whitespace; extends `range` (the open link's)
    /// over what lands in `all`. Works a word at a time ([`words`]): NULs are dropped
    /// (they join the characters around them), whitespace separates.
    fn push(&mut self, s: &str, chrome: bool, mut range: Option<&mut Range<usize>>) {
        for (word, space) in words(s) {
            if !word.is_empty() {
                self.push_word(word, chrome, range.as_deref_mut());
            }
            if space {
                self.split();
            }
        }
    }

    /// One word (no whitespace, no NUL) into both texts.
    fn push_word(&mut self, word: &str, chrome: bool, range: Option<&mut Range<usize>>) {
        if let (Some(at), Some(r)) = (self.all.push_word(word), range) {
            if r.start == r.end {
                r.start = at;
            }
            r.end = self.all.s.len();
        }
        if chrome {
            // What is left out still separates the words around it.
            self.content.gap = true;
        } else {
            self.content.push_word(word);
        }
    }
}

impl Tree {
    /// Any text chunk of the document, when the text is collected.
    pub(super) fn on_doc_text(&mut self, chunk: &Piece<'_>) {
        let Some(t) = &mut self.text else {
            return;
        };
        if !matches!(chunk.kind, TextKind::Data | TextKind::RcData)
            || (t.all.full && t.content.full)
        {
            return;
        }
        let top = self.stack.last();
        if top.is_some_and(|f| f.hidden) {
            return;
        }
        let chrome = top.is_some_and(|f| f.chrome);
        let range = match self.open {
            Some((_, i)) => self.anchors[i].range.as_mut(),
            None => None,
        };
        let s = chunk.s;
        if t.node.is_empty() && !s.contains('&') {
            t.push(s, chrome, range);
            return;
        }
        if t.node.len() < 2 * MAX_TEXT_BYTES {
            t.node.push_str(s);
        }
        if chunk.last {
            let mut decoded = String::with_capacity(t.node.len());
            entities::decode_into(&t.node, &mut decoded, false);
            t.node.clear();
            t.push(&decoded, chrome, range);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The rule [`Text::push`] follows, a character at a time (its first form).
    fn push_chars(t: &mut Text, s: &str, chrome: bool, mut range: Option<&mut Range<usize>>) {
        for c in s.chars() {
            if c == '\0' {
                continue;
            }
            if c.is_whitespace() {
                t.split();
                continue;
            }
            if let Some(at) = t.all.push(c) {
                if let Some(r) = range.as_deref_mut() {
                    if r.start == r.end {
                        r.start = at;
                    }
                    r.end = t.all.s.len();
                }
            }
            if chrome {
                t.content.gap = true;
            } else {
                t.content.push(c);
            }
        }
    }

    fn state(t: &Text, r: &Range<usize>) -> (String, String, bool, bool, Range<usize>) {
        (
            t.all.s.clone(),
            t.content.s.clone(),
            t.all.full,
            t.content.full,
            r.clone(),
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        /// The word-wise push gives what the character rule gives, across the cap too.
        #[test]
        fn word_pushes_agree_with_char_pushes(
            near_cap in any::<bool>(),
            parts in proptest::collection::vec(("[a-zé中 \t\n\u{0}\u{3000}]{0,12}", any::<bool>(), any::<bool>()), 1..40),
        ) {
            let (mut a, mut b) = (Text::default(), Text::default());
            let (mut ra, mut rb) = (0..0, 0..0);
            if near_cap {
                let fill = "x".repeat(MAX_TEXT_BYTES - 20);
                a.push(&fill, false, None);
                push_chars(&mut b, &fill, false, None);
            }
            for (s, chrome, in_link) in &parts {
                a.push(s, *chrome, in_link.then_some(&mut ra));
                push_chars(&mut b, s, *chrome, in_link.then_some(&mut rb));
                prop_assert_eq!(state(&a, &ra), state(&b, &rb));
            }
        }
    }
}
