//! What the elements of a page hold besides links ([`Blocks`]), counted during the pass
//! by the structure's tree.

/// What the elements of a page hold besides links: for each element (by instance id),
/// the letters and digits of visible text outside any link, and the pictures and dates
/// (`img`, `picture`, `svg`, `video`, `time`) in it and below it. An entry block with a
/// date, a summary or a picture beside its title is content; a block holding nothing but
/// its link (a menu item, a tag, a page number) is navigation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Blocks {
    /// Own text characters of element `id` (not of its children) until [`Blocks::finish`];
    /// then prefix sums over ids.
    text: Vec<u32>,
    media: Vec<u32>,
    /// One past the last descendant id of each element.
    end: Vec<u32>,
    /// The first element id held: 0 for a whole page, the element's own when one
    /// element's markup is read alone (the vectors hold its elements only).
    first: u32,
}

impl Blocks {
    /// Blocks whose first element has id `first`.
    pub(super) fn starting_at(first: u32) -> Self {
        Self {
            first,
            ..Self::default()
        }
    }

    /// Room for `n` elements.
    pub(super) fn reserve(&mut self, n: usize) {
        self.text.reserve(n);
        self.media.reserve(n);
        self.end.reserve(n);
    }

    /// Where element `id` is held in the vectors.
    fn index(&self, id: u32) -> Option<usize> {
        id.checked_sub(self.first).map(|i| i as usize)
    }

    pub(super) fn open(&mut self, id: u32) {
        let Some(i) = self.index(id) else {
            return;
        };
        // (ids count up from 0 in a page's pass: almost always the next one)
        if i == self.end.len() {
            self.text.push(0);
            self.media.push(0);
            self.end.push(id + 1);
            return;
        }
        if self.end.len() < i {
            self.text.resize(i + 1, 0);
            self.media.resize(i + 1, 0);
            self.end.resize(i + 1, 0);
        }
        self.end[i] = id + 1;
    }

    pub(super) fn close(&mut self, id: u32, next: u32) {
        if let Some(e) = self.index(id).and_then(|i| self.end.get_mut(i)) {
            *e = next;
        }
    }

    /// Letters and digits of visible text of element `id`'s own.
    pub(super) fn add_text(&mut self, id: u32, n: u32) {
        if let Some(t) = self.index(id).and_then(|i| self.text.get_mut(i)) {
            *t = t.saturating_add(n);
        }
    }

    /// A picture or a date in element `id`.
    pub(super) fn add_media(&mut self, id: u32) {
        if let Some(m) = self.index(id).and_then(|i| self.media.get_mut(i)) {
            *m += 1;
        }
    }

    /// Turns the per-element counts into prefix sums (`text[i]` = sum over ids `< i`).
    pub(super) fn finish(&mut self, open: &[u32], next: u32) {
        for &id in open {
            self.close(id, next);
        }
        for v in [&mut self.text, &mut self.media] {
            let mut acc = 0u32;
            let mut out = Vec::with_capacity(v.len() + 1);
            out.push(0);
            for x in v.iter() {
                acc = acc.saturating_add(*x);
                out.push(acc);
            }
            *v = out;
        }
    }

    /// Letters and digits of text outside links, and pictures and dates, in the element
    /// `id` and its descendants.
    pub fn content(&self, id: u32) -> (u32, u32) {
        let Some((i, &end)) = self.index(id).and_then(|i| Some((i, self.end.get(i)?))) else {
            return (0, 0);
        };
        let end = (end.saturating_sub(self.first) as usize)
            .clamp(i + 1, self.text.len().saturating_sub(1));
        let sum = |v: &Vec<u32>| v.get(end).zip(v.get(i)).map_or(0, |(b, a)| b - a);
        (sum(&self.text), sum(&self.media))
    }
}

/// The letters and digits of `s` (by [`char::is_alphanumeric`]): counted byte by byte
/// in runs of 32 ASCII bytes (most text of most pages, and a loop the compiler
/// vectorizes), by characters from the first run that holds another byte on.
pub(super) fn alphanumerics(s: &str) -> u32 {
    const RUN: usize = 32;
    let bytes = s.as_bytes();
    let mut n = 0usize;
    let mut at = 0;
    while at < bytes.len() {
        let run = &bytes[at..bytes.len().min(at + RUN)];
        if !run.is_ascii() {
            // `at` follows ASCII bytes only: a character starts there.
            n += s.get(at..).map_or(0, |rest| {
                rest.chars().filter(|c| c.is_alphanumeric()).count()
            });
            break;
        }
        // At most 32 per run: a byte counter the compiler keeps in vector lanes.
        let k: u8 = run.iter().map(|&b| u8::from(ascii_alphanumeric(b))).sum();
        n += usize::from(k);
        at += RUN;
    }
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// [`u8::is_ascii_alphanumeric`] as two range checks without branches.
fn ascii_alphanumeric(b: u8) -> bool {
    ((b | 0x20).wrapping_sub(b'a') < 26) | (b.wrapping_sub(b'0') < 10)
}

#[cfg(test)]
mod tests {
    use super::alphanumerics;

    proptest::proptest! {
        /// Counted by bytes or by characters, the letters and digits are Unicode's: over
        /// every ASCII byte, and with other characters after runs of ASCII of any length.
        #[test]
        fn alphanumerics_are_unicodes(
            ascii in "[\\x00-\\x7f]{0,100}",
            s in "[a-zA-Z0-9 .,_\\-\\t\u{e9}\u{4e2d}\u{661}\u{a0}\u{1F600}]{0,40}",
        ) {
            let count = |t: &str| t.chars().filter(|c| c.is_alphanumeric()).count();
            proptest::prop_assert_eq!(alphanumerics(&s) as usize, count(&s));
            proptest::prop_assert_eq!(alphanumerics(&ascii) as usize, count(&ascii));
            let mixed = format!("{ascii}{s}{ascii}");
            proptest::prop_assert_eq!(alphanumerics(&mixed) as usize, count(&mixed));
        }
    }

    /// A tree that reads one element's markup alone (an entry's block far down a long
    /// page) holds that element's ids only, and counts what they hold by their ids:
    /// reading every entry of a page stays linear.
    #[test]
    fn a_tree_for_one_element_holds_its_own_elements_only() {
        use crate::extract::hiding::Attrs;
        use crate::extract::markup::Tag;
        let src = "<li><b>Notice</b> of the board</li>";
        let mut tree = super::super::Tree::for_element(5000, false);
        for (name, span) in [("li", 0..4), ("b", 4..7)] {
            let tag = Tag::new(name.into(), &src[span.clone()], span, &[], true, true);
            tree.on_element(&tag, name, &Attrs::default());
        }
        let blocks = &mut tree.blocks;
        assert_eq!(blocks.end.len(), 2, "li and b, not 5,002 slots");
        blocks.add_text(5001, 6);
        blocks.add_text(5000, 10);
        blocks.add_media(5001);
        blocks.finish(&[5000, 5001], 5002);
        assert_eq!(blocks.content(5000), (16, 1));
        assert_eq!(blocks.content(5001), (6, 1));
        assert_eq!(blocks.content(4999), (0, 0), "an id before the element");
    }

    /// A letter beyond ASCII after a long run of ASCII counts (a run of 32 bytes that
    /// holds its first byte, or a later one).
    #[test]
    fn a_letter_after_ascii_runs_counts() {
        for pre in [0, 1, 31, 32, 33, 63, 64, 70] {
            let s = format!("{}\u{e9}t\u{e9} 1", "a".repeat(pre));
            assert_eq!(alphanumerics(&s) as usize, pre + 4, "{pre}");
        }
    }
}
