//! Decoding of HTML character references (`&amp;`, `&#x4e2d;`, `&nbsp`, ...), which the
//! pass leaves in text and attribute values as they stand in the source.
//!
//! The decoding is `htmlize`'s, which follows the WHATWG tokenizer: the longest named
//! reference from the full table (all 2231 names) wins, the legacy names may go without
//! `;` (`&copy 2024`), but in an attribute value a legacy name followed by `=` or an
//! alphanumeric is left alone (`?a=1&copy=2`, `&notit;`). Numeric references: 0,
//! surrogates and values past U+10FFFF become U+FFFD, 0x80..=0x9F map through
//! windows-1252 (`&#150;` is an en dash), as browsers do. An `&` that starts no reference
//! stays as it is.
//!
//! Uses the `htmlize` crate only.

use htmlize::{unescape_in, Context};

fn context(in_attribute: bool) -> Context {
    if in_attribute {
        Context::Attribute
    } else {
        Context::General
    }
}

/// Appends `src` to `dst` with its character references decoded.
pub(crate) fn decode_into(src: &str, dst: &mut String, in_attribute: bool) {
    dst.push_str(&unescape_in(src, context(in_attribute)));
}

/// `s` with its character references decoded (moved through when there are none).
pub(super) fn decode<'a>(s: impl Into<std::borrow::Cow<'a, str>>, in_attribute: bool) -> String {
    unescape_in(s.into(), context(in_attribute)).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> String {
        let mut out = String::new();
        decode_into(s, &mut out, false);
        out
    }

    fn a(s: &str) -> String {
        decode(s.to_owned(), true)
    }

    #[test]
    fn table_is_complete() {
        assert_eq!(htmlize::ENTITIES.len(), 2231);
    }

    #[test]
    fn named() {
        assert_eq!(
            d("a &amp; b &lt;c&gt; &quot;d&quot; &apos;"),
            "a & b <c> \"d\" '"
        );
        assert_eq!(d("x&nbsp;y"), "x\u{a0}y");
        assert_eq!(
            d("&hellip;&mdash;&rarr;&NotNestedGreaterGreater;"),
            "…—→\u{2aa2}\u{338}"
        );
        assert_eq!(d("&copy 2024 &notit; &ampfoo"), "© 2024 ¬it; &foo");
        assert_eq!(d("&bogus; &; & &&amp;"), "&bogus; &; & &&");
        assert_eq!(d("AT&T"), "AT&T");
    }

    #[test]
    fn legacy_names_without_semicolon() {
        // Only the legacy names may drop the `;`, and the longest one wins.
        assert_eq!(d("&copy &AMP &LT &nbspx &not"), "© & < \u{a0}x ¬");
        assert_eq!(d("&notin; &notin &timesb; &timesbx"), "∉ ¬in ⊠ ×bx");
        // Names that are not legacy need their `;`.
        assert_eq!(d("&hellip &rarr &lang"), "&hellip &rarr &lang");
    }

    #[test]
    fn numeric() {
        assert_eq!(d("&#x4e2d;&#25991;&#X41;&#65"), "中文AA");
        assert_eq!(d("&#150;&#128;"), "–€");
        // 0x80..=0x9F are read as windows-1252.
        assert_eq!(d("&#x80;&#x99;&#x9F;"), "€™Ÿ");
        assert_eq!(d("&#0;"), "\u{fffd}");
        assert_eq!(
            d("&#0;&#xD800;&#99999999999;&#x110000;"),
            "\u{fffd}\u{fffd}\u{fffd}\u{fffd}"
        );
        assert_eq!(d("&#;&#x;&#xg"), "&#;&#x;&#xg");
        // The same in attribute values.
        assert_eq!(a("&#x80;&#0;"), "€\u{fffd}");
    }

    #[test]
    fn attributes() {
        assert_eq!(a("/s?a=1&amp;b=2"), "/s?a=1&b=2");
        assert_eq!(a("/s?a=1&copy=2&not"), "/s?a=1&copy=2¬");
        assert_eq!(a("/s?x=1&lang=en"), "/s?x=1&lang=en");
        assert_eq!(a("/s?x=1&copy;"), "/s?x=1©");
        assert_eq!(a("plain"), "plain");
        // A legacy name followed by an alphanumeric stays in an attribute, decodes in text.
        assert_eq!(a("&notit;"), "&notit;");
        assert_eq!(d("&notit;"), "¬it;");
        assert_eq!(a("&notin;"), "∉");
        assert_eq!(a("&copy 2024"), "© 2024");
    }

    #[test]
    fn never_splits_a_char() {
        for s in ["&中", "&#中", "&#x中", "&a中;", "中&"] {
            assert_eq!(d(s), s);
            assert_eq!(a(s), s);
        }
        assert_eq!(d("&amp中"), "&中");
        assert_eq!(a("&amp中"), "&中");
    }
}
