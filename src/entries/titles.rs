//! Identity by title (see [`super::decide`]): a new URL whose title is distinctive and
//! stood once on the last page, under a URL now gone, is that entry moved.
//!
//! Uses [`super::urls`] (the shape of a URL), the crate's hash maps and the model's links.

use std::cell::{Cell, OnceCell};
use std::hash::{Hash, Hasher};

use crate::hash::{HashMap, HashSet};
use crate::model::Link;

use super::width;

/// A title wide enough to name one entry (a date alone, "Read more" or a page number is
/// not; those also stand more than once on a page, which the caller checks).
fn distinctive(s: &str, min_width: usize) -> bool {
    width(s) >= min_width
}

/// A title as identity compares it: its letters and digits, lower case.
fn key_chars(s: &str) -> impl Iterator<Item = char> + '_ {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
}

/// The key's characters of an ASCII title, read a byte at a time: the same characters
/// as [`key_chars`] gives, without decoding or case tables.
fn ascii_key(t: &str) -> impl Iterator<Item = u8> + '_ {
    t.bytes()
        .filter(u8::is_ascii_alphanumeric)
        .map(|b| b.to_ascii_lowercase())
}

/// Whether `t`'s key ([`key_chars`]) is `key`. The title is read a byte at a time while
/// it is ASCII, and most stop at their first letter or digit: the key of the ASCII part
/// before a title's first other character is the start of its whole key (an ASCII
/// character is its own key, lower cased), so a difference there is an answer. A title
/// that goes on past that part is compared again by characters.
fn has_key(t: &str, key: &str) -> bool {
    let want = key.as_bytes();
    let mut at = 0;
    for b in t.bytes() {
        if !b.is_ascii() {
            return key_chars(t).eq(key.chars());
        }
        if b.is_ascii_alphanumeric() {
            if want.get(at) != Some(&b.to_ascii_lowercase()) {
                return false;
            }
            at += 1;
        }
    }
    at == want.len()
}

/// A title compared and hashed by its key ([`key_chars`]), without building the key.
#[derive(Clone, Copy)]
struct Key<'a>(&'a str);

impl Hash for Key<'_> {
    fn hash<H: Hasher>(&self, h: &mut H) {
        // The same calls whichever way the characters are read: equal keys of an ASCII
        // title and of another (`A-B` and `A–B`) hash alike.
        if self.0.is_ascii() {
            for b in ascii_key(self.0) {
                h.write_u32(u32::from(b));
            }
        } else {
            for c in key_chars(self.0) {
                h.write_u32(u32::from(c));
            }
        }
    }
}

impl PartialEq for Key<'_> {
    fn eq(&self, other: &Self) -> bool {
        match (self.0.is_ascii(), other.0.is_ascii()) {
            (true, true) => ascii_key(self.0).eq(ascii_key(other.0)),
            _ => key_chars(self.0).eq(key_chars(other.0)),
        }
    }
}

impl Eq for Key<'_> {}

/// How many questions are answered by reading the pages link by link before the index
/// of every title is built: a check meets a few unseen entries, a redesign hundreds.
const READ_THROUGH: usize = 4;

/// Identity by title on one pair of pages: a new URL whose title is distinctive (at least
/// `min_width` wide) and stands once on each page, compared by its letters and digits
/// only (a renaming that also rewrote "a:b c" as "a_b_c"), its old URL gone from the
/// page, is that entry moved.
pub(super) struct Titles<'a> {
    old: &'a [Link],
    links: &'a [Link],
    min_width: usize,
    asked: Cell<usize>,
    index: OnceCell<Index<'a>>,
}

/// Every title of both pages by its key, and the page's URLs.
struct Index<'a> {
    /// Per key: how many links of the new page have it.
    new: HashMap<Key<'a>, usize>,
    /// Per key: how many links of the last page have it, and the first one's URL.
    old: HashMap<Key<'a>, (usize, &'a str)>,
    urls: HashSet<&'a str>,
}

impl<'a> Titles<'a> {
    pub(super) fn new(old: &'a [Link], links: &'a [Link], min_width: usize) -> Self {
        Self {
            old,
            links,
            min_width,
            asked: Cell::new(0),
            index: OnceCell::new(),
        }
    }

    /// Link `i` is an entry of the last page that moved to a new URL: `Some(true)` when
    /// its URL changed shape (another host, another path pattern: a new permalink
    /// scheme), `Some(false)` when only its numbers changed, which is also what the next
    /// instance of a recurring entry looks like (a weekly event, a monthly report).
    ///
    /// The first questions read the pages link by link, comparing each title with this
    /// one as it reads it (most differ at their first letter); from the fifth on, an
    /// index of every title answers, so a page of many unseen entries costs one pass.
    pub(super) fn moved(&self, i: usize) -> Option<bool> {
        let l = &self.links[i];
        if !distinctive(&l.text, self.min_width) {
            return None;
        }
        let key = Key(&l.text);
        let url = if self.asked.get() < READ_THROUGH {
            self.asked.set(self.asked.get() + 1);
            // This title's key built once, each other title's read as it is compared.
            let chars: String = key_chars(&l.text).collect();
            let same = |t: &str| has_key(t, &chars);
            let others = self.links.iter().enumerate();
            if others.filter(|&(j, _)| j != i).any(|(_, m)| same(&m.text)) {
                return None;
            }
            let mut on_old = self.old.iter().filter(|o| same(&o.text));
            let url = on_old.next()?.url.as_str();
            if on_old.next().is_some() || self.links.iter().any(|m| m.url == url) {
                return None;
            }
            url
        } else {
            let index = self.index.get_or_init(|| Index::new(self.old, self.links));
            let &(count, url) = index.old.get(&key)?;
            if index.new.get(&key) != Some(&1) || count != 1 || index.urls.contains(url) {
                return None;
            }
            url
        };
        (url != l.url).then(|| super::shape(url) != super::shape(&l.url))
    }
}

impl<'a> Index<'a> {
    fn new(old: &'a [Link], links: &'a [Link]) -> Self {
        let mut new: HashMap<Key<'a>, usize> = HashMap::default();
        for l in links {
            *new.entry(Key(&l.text)).or_default() += 1;
        }
        let mut on_old: HashMap<Key<'a>, (usize, &'a str)> = HashMap::default();
        for l in old {
            on_old.entry(Key(&l.text)).or_insert((0, l.url.as_str())).0 += 1;
        }
        Self {
            new,
            old: on_old,
            urls: links.iter().map(|l| l.url.as_str()).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(text: &str, url: &str) -> Link {
        Link {
            text: text.into(),
            url: url.into(),
        }
    }

    /// The rule of the keys, a character at a time.
    fn key_by_chars(s: &str) -> String {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    }

    #[test]
    fn titles_have_the_key_of_their_letters_and_digits() {
        let key = |s: &str| key_chars(s).collect::<String>();
        for (a, b) in [
            ("The Budget, 2024!", "the budget 2024"),
            ("Ärger über Öl", "ärger-über-öl"),
            ("Short", "Shorter"),
            ("Shorter", "Short"),
            ("a1", "A-1"),
            ("", "!!"),
        ] {
            assert_eq!(has_key(a, &key(b)), key(a) == key(b), "{a:?} {b:?}");
        }
        assert!(!has_key("Abc", "abcd"));
        assert!(!has_key("Abcd", "abc"));
    }

    /// Equal keys are equal and hash alike, whether their titles are ASCII or not.
    #[test]
    fn equal_keys_hash_alike_whatever_the_script() {
        use std::hash::BuildHasher;
        let hash = |s: &str| foldhash::fast::FixedState::with_seed(7).hash_one(Key(s));
        for (a, b, same) in [
            ("The Budget, 2024!", "the budget – 2024", true),
            ("the budget 2024", "THE BUDGET 2024", true),
            ("Ärger über Öl", "ärger-über-öl", true),
            ("The budget 2024", "The budget 2025", false),
            ("Arger uber Ol", "Ärger über Öl", false),
        ] {
            assert_eq!(Key(a) == Key(b), same, "{a:?} {b:?}");
            assert_eq!(Key(b) == Key(a), same, "{b:?} {a:?}");
            if same {
                assert_eq!(hash(a), hash(b), "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn keys_are_the_lower_case_letters_and_digits() {
        let key = |s: &str| key_chars(s).collect::<String>();
        assert_eq!(key("A:b c_D 12!"), "abcd12");
        assert_eq!(key("Ünïcode Straße 5"), "ünïcodestraße5");
    }

    /// `moved` as asked first (read link by link) and as asked later (by the index).
    fn moved(old: &[Link], links: &[Link], i: usize, min_width: usize) -> Option<bool> {
        let read = Titles::new(old, links, min_width).moved(i);
        let indexed = Titles::new(old, links, min_width);
        indexed.asked.set(READ_THROUGH);
        assert_eq!(read, indexed.moved(i), "read through and indexed disagree");
        read
    }

    #[test]
    fn a_distinctive_title_under_a_new_url_moved() {
        let title = "The council approves the budget for next year";
        let old = [
            link(title, "https://h/2024/05/budget"),
            link("Read more", "https://h/2024/05/budget"),
        ];
        let renamed = [link(
            "the council: approves the budget, for next year!",
            "https://h/p/812",
        )];
        // Another shape of URL: a new permalink scheme.
        assert_eq!(moved(&old, &renamed, 0, 20), Some(true));
        // Only the numbers changed.
        let renumbered = [link(title, "https://h/2024/06/budget")];
        assert_eq!(moved(&old, &renumbered, 0, 20), Some(false));
        // Too narrow to name one entry.
        assert_eq!(moved(&old, &renamed, 0, 200), None);
        // Twice on the new page, or twice on the old one: no identity.
        let twice = [renamed[0].clone(), link(title, "https://h/p/813")];
        assert_eq!(moved(&old, &twice, 0, 20), None);
        let old_twice = [old[0].clone(), link(title, "https://h/2023/01/budget")];
        assert_eq!(moved(&old_twice, &renamed, 0, 20), None);
        // The old URL still on the page: not a move.
        let both = [
            renamed[0].clone(),
            link("Archive", "https://h/2024/05/budget"),
        ];
        assert_eq!(moved(&old, &both, 0, 20), None);
        // Same URL: not a move either; no such title before: none.
        assert_eq!(moved(&old, &old[..1], 0, 20), None);
        let fresh = [link(
            "A story nobody told before, long enough",
            "https://h/p/9",
        )];
        assert_eq!(moved(&old, &fresh, 0, 20), None);
    }

    proptest::proptest! {
        /// Read link by link or by the index, the answer is the same, on pages whose
        /// titles and URLs repeat in every way.
        #[test]
        fn reading_through_and_the_index_agree(
            old in proptest::collection::vec((0usize..7, 0usize..5), 0..8),
            new in proptest::collection::vec((0usize..7, 0usize..5), 1..8),
        ) {
            // The last title is the fourth with a dash that is not ASCII: one key.
            const TEXTS: [&str; 7] = [
                "Alpha beta gamma delta epsilon",
                "alpha-beta: gamma delta epsilon!",
                "Short",
                "Zeta eta theta iota kappa lambda",
                "Ärger über Ölpreise steigt weiter",
                "ärger-über-ölpreise: steigt weiter",
                "Zeta eta theta – iota kappa lambda",
            ];
            const URLS: [&str; 5] = [
                "https://h/2024/05/a", "https://h/2024/06/a", "https://h/p/1", "https://h/p/2",
                "https://g/x",
            ];
            let page = |v: &[(usize, usize)]| -> Vec<Link> {
                v.iter().map(|&(t, u)| link(TEXTS[t], URLS[u])).collect()
            };
            let (old, new) = (page(&old), page(&new));
            for i in 0..new.len() {
                moved(&old, &new, i, 20);
            }
        }

        /// A title has a key when the rule, applied to both, makes them equal; titles
        /// that start alike and part late, or in a character whose lower case is ASCII
        /// (the Kelvin sign's is `k`), included.
        #[test]
        fn a_title_has_the_key_the_rule_gives(
            a in "[aK0 \u{212a}\u{e9}\u{130}-]{0,10}",
            b in "[aK0 \u{212a}\u{e9}\u{130}-]{0,10}|.{0,8}",
        ) {
            let key = key_by_chars(&b);
            proptest::prop_assert_eq!(has_key(&a, &key), key_by_chars(&a) == key);
            proptest::prop_assert!(has_key(&a, &key_by_chars(&a)));
        }

        #[test]
        fn keys_are_the_letters_and_digits_lower_cased(s in "[ -~]{0,24}|.{0,12}") {
            proptest::prop_assert_eq!(key_chars(&s).collect::<String>(), key_by_chars(&s));
        }
    }
}
