//! Sets of element names asked about on every start tag, answered by one lookup: a table
//! built at compile time from the lists that define the sets, hashed by a name's length
//! and its first and last bytes, so a tag that is in no list (`span`, `a`) costs one probe
//! instead of a walk through every list.
//!
//! Uses nothing.

/// Slots of a [`NameSets`] table (a power of two; the sets' names fill under a third).
const SLOTS: usize = 256;

/// Names of up to eight sets, each a bit of the byte [`NameSets::get`] answers.
pub(super) struct NameSets {
    names: [&'static str; SLOTS],
    bits: [u8; SLOTS],
}

/// Where the search for `name` starts.
const fn slot(name: &[u8]) -> usize {
    let n = name.len();
    if n == 0 {
        return 0;
    }
    (n * 37 + name[0] as usize * 7 + name[n - 1] as usize * 3) % SLOTS
}

const fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

impl NameSets {
    /// The table of `sets`: each list of names (lower case) with its bit. Fails to compile
    /// when the names do not fit.
    pub(super) const fn new(sets: &[(&[&'static str], u8)]) -> Self {
        let mut t = NameSets {
            names: [""; SLOTS],
            bits: [0; SLOTS],
        };
        let mut s = 0;
        let mut filled = 0;
        while s < sets.len() {
            let (list, bit) = sets[s];
            let mut k = 0;
            while k < list.len() {
                let name = list[k];
                assert!(!name.is_empty(), "an empty name");
                let mut at = slot(name.as_bytes());
                loop {
                    if t.names[at].is_empty() {
                        t.names[at] = name;
                        filled += 1;
                        break;
                    }
                    if same(t.names[at].as_bytes(), name.as_bytes()) {
                        break;
                    }
                    at = (at + 1) % SLOTS;
                }
                t.bits[at] |= bit;
                k += 1;
            }
            s += 1;
        }
        assert!(filled * 3 <= SLOTS, "too many names for the table");
        t
    }

    /// The bits of the sets `name` is in (0 for none).
    pub(super) fn get(&self, name: &str) -> u8 {
        let name = name.as_bytes();
        let mut at = slot(name);
        loop {
            let here = self.names[at];
            if here.is_empty() {
                return 0;
            }
            if here.as_bytes() == name {
                return self.bits[at];
            }
            at = (at + 1) % SLOTS;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &[&str] = &["p", "div", "li", "h1", "h2", "section", "blockquote"];
    const B: &[&str] = &["br", "li", "div", "td", "th", "tr", "figcaption"];
    static SETS: NameSets = NameSets::new(&[(A, 1), (B, 2)]);

    /// Every name answers the sets it is in, as the lists say; a name in none (a prefix,
    /// a longer name, another case, the empty name) answers 0.
    #[test]
    fn answers_what_the_lists_say() {
        let words = [
            "p",
            "div",
            "li",
            "h1",
            "h2",
            "h3",
            "section",
            "blockquote",
            "br",
            "td",
            "th",
            "tr",
            "figcaption",
            "",
            "a",
            "span",
            "d",
            "di",
            "divs",
            "DIV",
            "sectio",
            "lis",
            "figcaptions",
            "x",
            "\u{e9}",
        ];
        for w in words {
            let want = u8::from(A.contains(&w)) | (u8::from(B.contains(&w)) << 1);
            assert_eq!(SETS.get(w), want, "{w:?}");
        }
    }

    /// Names whose search starts in the same slot all stay findable (sixty two-letter
    /// names, several of which start in one slot: "ak" and "dd", say).
    #[test]
    fn colliding_names_stay_apart() {
        const MANY: &[&str] = &[
            "aa", "ab", "ac", "ad", "ae", "af", "ag", "ah", "ai", "aj", "ak", "al", "am", "an",
            "ao", "ap", "aq", "ar", "as", "at", "ba", "bb", "bc", "bd", "be", "bf", "bg", "bh",
            "bi", "bj", "bk", "bl", "bm", "bn", "bo", "bp", "bq", "br", "bs", "bt", "ca", "cb",
            "cc", "cd", "ce", "cf", "cg", "ch", "ci", "cj", "ck", "cl", "cm", "cn", "co", "cp",
            "cq", "cr", "cs", "dd",
        ];
        static T: NameSets = NameSets::new(&[(MANY, 4)]);
        assert_eq!(slot(b"ak"), slot(b"dd"));
        for n in MANY {
            assert_eq!(T.get(n), 4, "{n}");
        }
        for n in ["a", "za", "de", "aaa"] {
            assert_eq!(T.get(n), 0, "{n}");
        }
    }
}
