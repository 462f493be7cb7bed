//! Identity by title (see [`super::decide`]): a new URL whose title is distinctive and
//! stood once on the last page, under a URL now gone, is that entry moved.
//!
//! Uses [`super::urls`] (the shape of a URL) and the model's links.

use crate::hash::{HashMap, HashSet};
use crate::model::Link;

use super::width;

/// A title wide enough to name one entry (a date alone, "Read more" or a page number is
/// not; those also stand more than once on a page, which the caller checks).
fn distinctive(s: &str, min_width: usize) -> bool {
    width(s) >= min_width
}

/// A title as identity compares it: its letters and digits, lower case.
fn title_key(s: &str) -> String {
    let mut key = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_ascii() {
            // (`is_alphanumeric` and `to_lowercase` agree with their ASCII forms here.)
            if c.is_ascii_alphanumeric() {
                key.push(c.to_ascii_lowercase());
            }
        } else if c.is_alphanumeric() {
            key.extend(c.to_lowercase());
        }
    }
    key
}

/// Identity by title: distinctive titles that stand once on each page, compared by their
/// letters and digits only (a renaming that also rewrote "a:b c" as "a_b_c").
pub(super) struct Titles<'a> {
    old: HashMap<String, (usize, &'a str)>,
    keys: Vec<String>,
    unique: Vec<bool>,
    urls: HashSet<&'a str>,
    min_width: usize,
}

impl<'a> Titles<'a> {
    pub(super) fn new(old: &'a [Link], links: &'a [Link], min_width: usize) -> Self {
        let mut old_texts: HashMap<String, (usize, &str)> = HashMap::default();
        for l in old {
            let e = old_texts
                .entry(title_key(&l.text))
                .or_insert((0, l.url.as_str()));
            e.0 += 1;
        }
        let keys: Vec<String> = links.iter().map(|l| title_key(&l.text)).collect();
        let mut counts: HashMap<&str, usize> = HashMap::default();
        for k in &keys {
            *counts.entry(k).or_default() += 1;
        }
        let unique = keys.iter().map(|k| counts[k.as_str()] == 1).collect();
        Self {
            old: old_texts,
            keys,
            unique,
            urls: links.iter().map(|l| l.url.as_str()).collect(),
            min_width,
        }
    }

    /// Link `i` is an entry of the last page that moved to a new URL: `Some(true)` when
    /// its URL changed shape (another host, another path pattern: a new permalink
    /// scheme), `Some(false)` when only its numbers changed, which is also what the next
    /// instance of a recurring entry looks like (a weekly event, a monthly report).
    pub(super) fn moved(&self, links: &[Link], i: usize) -> Option<bool> {
        let (l, k) = (&links[i], &self.keys[i]);
        if !self.unique[i] || !distinctive(&l.text, self.min_width) {
            return None;
        }
        let &(count, url) = self.old.get(k)?;
        (count == 1 && url != l.url && !self.urls.contains(url))
            .then(|| super::shape(url) != super::shape(&l.url))
    }
}

#[cfg(test)]
mod tests {
    use super::title_key;

    /// The rule of [`title_key`], a character at a time.
    fn key_by_chars(s: &str) -> String {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    }

    #[test]
    fn keys_are_the_lower_case_letters_and_digits() {
        assert_eq!(title_key("A:b c_D 12!"), "abcd12");
        assert_eq!(title_key("Ünïcode Straße 5"), "ünïcodestraße5");
    }

    proptest::proptest! {
        #[test]
        fn keys_are_the_letters_and_digits_lower_cased(s in "[ -~]{0,24}|.{0,12}") {
            proptest::prop_assert_eq!(title_key(&s), key_by_chars(&s));
        }
    }
}
