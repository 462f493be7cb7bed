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
    pub(super) text: Vec<u32>,
    pub(super) media: Vec<u32>,
    /// One past the last descendant id of each element.
    end: Vec<u32>,
}

impl Blocks {
    pub(super) fn open(&mut self, id: u32) {
        let i = id as usize;
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
        if let Some(e) = self.end.get_mut(id as usize) {
            *e = next;
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
        let i = id as usize;
        let Some(&end) = self.end.get(i) else {
            return (0, 0);
        };
        let end = (end as usize).clamp(i + 1, self.text.len().saturating_sub(1));
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
