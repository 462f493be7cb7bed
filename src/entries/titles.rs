//! Identity by title (see [`super::decide`]): a new URL whose title is distinctive and
//! stood once on the last page, under a URL now gone, is that entry moved.
//!
//! Uses [`super::urls`] (the shape of a URL) and the model's links.

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

/// Link `i` of `links` is an entry of the last page (`old`) that moved to a new URL:
/// its title is distinctive (at least `min_width` wide), it stands once on each page
/// when compared by its letters and digits only (a renaming that also rewrote "a:b c"
/// as "a_b_c"), and its old URL is gone from the page. `Some(true)` when its URL changed
/// shape (another host, another path pattern: a new permalink scheme), `Some(false)`
/// when only its numbers changed, which is also what the next instance of a recurring
/// entry looks like (a weekly event, a monthly report).
///
/// The key is compared link by link as it is read, without building one per link: most
/// titles differ from it at their first letter, and the question comes only for unseen
/// entries, a few per check.
pub(super) fn moved(old: &[Link], links: &[Link], i: usize, min_width: usize) -> Option<bool> {
    let l = &links[i];
    if !distinctive(&l.text, min_width) {
        return None;
    }
    let key: String = key_chars(&l.text).collect();
    let same = |t: &str| key_chars(t).eq(key.chars());
    if links
        .iter()
        .enumerate()
        .any(|(j, m)| j != i && same(&m.text))
    {
        return None;
    }
    let mut on_old = old.iter().filter(|o| same(&o.text));
    let url = on_old.next()?.url.as_str();
    if on_old.next().is_some() || url == l.url || links.iter().any(|m| m.url == url) {
        return None;
    }
    Some(super::shape(url) != super::shape(&l.url))
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
    fn keys_are_the_lower_case_letters_and_digits() {
        let key = |s: &str| key_chars(s).collect::<String>();
        assert_eq!(key("A:b c_D 12!"), "abcd12");
        assert_eq!(key("Ünïcode Straße 5"), "ünïcodestraße5");
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
        #[test]
        fn keys_are_the_letters_and_digits_lower_cased(s in "[ -~]{0,24}|.{0,12}") {
            proptest::prop_assert_eq!(key_chars(&s).collect::<String>(), key_by_chars(&s));
        }
    }
}
