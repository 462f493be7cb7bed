//! What hides an element from the page as a reader sees it: the `hidden` attribute, an
//! inline `display:none` or `visibility:hidden`, `aria-hidden="true"`, and the quick scan
//! ([`may_hide`]) that tells a pass whether a page can hide anything by attribute at all.
//! The links ([`super::links`]), the structure's visible text ([`super::structure`]) and
//! the facts of entry content ([`super::facts`]) all hide by these rules.
//!
//! Uses [`super::markup`] and the `memchr` crate (the scan's search).

use super::markup::Tag;

/// The attributes of a start tag that more than one collector of the pass reads, read
/// in one scan of the tag's attributes per element ([`Attrs::read`]), borrowed from the
/// page (as written: character references not decoded); the collectors ask about a
/// dozen names of every element.
#[derive(Debug, Default)]
pub(super) struct Attrs<'h> {
    pub(super) class: Option<&'h str>,
    pub(super) style: Option<&'h str>,
    pub(super) role: Option<&'h str>,
    /// The element hides its content: a `hidden` attribute, an inline `display:none` or
    /// `visibility:hidden` ([`style_hides`]).
    pub(super) hides: bool,
    /// `aria-hidden="true"`.
    pub(super) aria_hidden: bool,
    /// What the facts of entry content read (when `all`): `datetime`, `itemprop`,
    /// `title`, `rel` and `content`.
    pub(super) datetime: Option<&'h str>,
    pub(super) itemprop: Option<&'h str>,
    pub(super) title: Option<&'h str>,
    pub(super) rel: Option<&'h str>,
    pub(super) content: Option<&'h str>,
}

/// The names [`Attrs::read`] keeps, in the order of its slots.
const NAMES: [&str; 10] = [
    "class",
    "style",
    "role",
    "hidden",
    "aria-hidden",
    "datetime",
    "itemprop",
    "title",
    "rel",
    "content",
];

impl<'h> Attrs<'h> {
    /// Reads them from `el`: the two hiding rules only when the page `may_hide` anything
    /// ([`may_hide`], else they are false), `style` when either is asked, the rest only
    /// when `all` (a pass that gathers more than links). The first attribute of a name
    /// counts and names match in any ASCII case.
    pub(super) fn read(el: &Tag<'h>, may_hide: bool, all: bool) -> Self {
        if !(all || may_hide) {
            return Self::default();
        }
        let mut slots: [Option<&'h str>; NAMES.len()] = Default::default();
        for (name, value) in el.attrs() {
            let Some(k) = NAMES.iter().position(|n| n.eq_ignore_ascii_case(name)) else {
                continue;
            };
            let wanted = match k {
                1 => true,
                3 | 4 => may_hide,
                _ => all,
            };
            if wanted && slots[k].is_none() {
                slots[k] = Some(value);
            }
        }
        let [class, style, role, hidden, aria, datetime, itemprop, title, rel, content] = slots;
        let hides = may_hide && (hidden.is_some() || style.is_some_and(style_hides));
        let aria_hidden = aria.is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
        Self {
            class,
            style,
            role,
            hides,
            aria_hidden,
            datetime,
            itemprop,
            title,
            rel,
            content,
        }
    }
}

/// Does this element keep its text from being shown: one whose content is not rendered
/// text, one hidden by the attributes that hide links ([`Attrs::hides`]), or one marked
/// `aria-hidden` ([`Attrs::aria_hidden`])?
pub(super) fn hides_text(attrs: &Attrs, tag: &str) -> bool {
    matches!(
        tag,
        "script" | "style" | "template" | "noscript" | "title" | "desc"
    ) || attrs.hides
        || attrs.aria_hidden
}

/// Does an inline style hide the element? (`display: none`, `visibility:hidden`, with
/// any spacing, case and `!important`.)
pub(super) fn style_hides(style: &str) -> bool {
    let compact: String = style
        .chars()
        .filter(|c| !c.is_ascii_whitespace())
        .map(|c| c.to_ascii_lowercase())
        .collect();
    compact.split(';').any(|decl| {
        let decl = decl.trim_end_matches("!important");
        decl == "display:none" || decl == "visibility:hidden"
    })
}

/// Could an attribute in `html` hide an element or mark it `aria-hidden`? A quick,
/// conservative scan (false positives only cost time): it looks, ignoring ASCII case, for
/// `hidden` standing as a word (the attribute), `aria-hidden`, `visibility` `:` `hidden`
/// and `display` `:` `none`, with any spacing. A style that spells these with character
/// references (`display&#58;none`) is not seen.
pub(super) fn may_hide(html: &str) -> bool {
    let h = html.as_bytes();
    let ws = |b: &u8| b.is_ascii_whitespace();
    let trim_end =
        |s: &'_ [u8]| -> usize { s.len() - s.iter().rev().take_while(|b| ws(b)).count() };
    let ends_with = |s: &[u8], suffix: &[u8]| {
        s.len() >= suffix.len() && s[s.len() - suffix.len()..].eq_ignore_ascii_case(suffix)
    };
    let hidden = |i: usize| {
        let before = &h[..i];
        if ends_with(before, b"aria-") {
            return true;
        }
        let word_before = before
            .last()
            .is_none_or(|&b| b.is_ascii_whitespace() || matches!(b, b'"' | b'\'' | b'/'));
        let word_after = h
            .get(i + 6)
            .is_none_or(|&b| b.is_ascii_whitespace() || matches!(b, b'=' | b'>' | b'/'));
        if word_before && word_after {
            return true;
        }
        let before = &before[..trim_end(before)];
        before.last() == Some(&b':') && {
            let p = &before[..before.len() - 1];
            ends_with(&p[..trim_end(p)], b"visibility")
        }
    };
    let display = |i: usize| {
        let rest = &h[i + 7..];
        let rest = &rest[rest.iter().take_while(|b| ws(b)).count()..];
        rest.first() == Some(&b':') && {
            let v = &rest[1..];
            let v = &v[v.iter().take_while(|b| ws(b)).count()..];
            v.len() >= 4 && v[..4].eq_ignore_ascii_case(b"none")
        }
    };
    any_match(h, hidden, display)
}

/// Is there an occurrence of `hidden` (ignoring ASCII case) at whose start `hidden`
/// holds, or one of `display` at whose start `display` holds? Reads `hay` in slices,
/// each lowered into a buffer on the stack and searched with memchr's vectorized
/// `memmem`; the predicates read `hay` itself, so they may look past the slice.
fn any_match(
    hay: &[u8],
    mut hidden: impl FnMut(usize) -> bool,
    mut display: impl FnMut(usize) -> bool,
) -> bool {
    const SLICE: usize = 4096;
    // Each slice overlaps the next by the longer needle's length less one, so no
    // occurrence is cut in two (one that lies in the overlap is seen twice).
    const OVERLAP: usize = b"display".len() - 1;
    let hidden_at = memchr::memmem::Finder::new(b"hidden");
    let display_at = memchr::memmem::Finder::new(b"display");
    let mut buf = [0u8; SLICE + OVERLAP];
    let mut start = 0;
    while start < hay.len() {
        let stop = (start + SLICE + OVERLAP).min(hay.len());
        let lc = &mut buf[..stop - start];
        lc.copy_from_slice(&hay[start..stop]);
        lc.make_ascii_lowercase();
        let lc = &*lc;
        if hidden_at.find_iter(lc).any(|i| hidden(start + i))
            || display_at.find_iter(lc).any(|i| display(start + i))
        {
            return true;
        }
        start += SLICE;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hiding_prescan_is_conservative() {
        for yes in [
            "<div hidden>",
            "<DIV HIDDEN=''>",
            "<p class=x hidden/>",
            "<p\thidden\n>",
            "<span aria-hidden=true>",
            "<span ARIA-HIDDEN='true'>",
            "<div style='display:none'>",
            "<div style=\"DISPLAY : NONE\">",
            "<div style='visibility:\n hidden'>",
            "<div style=\"color:red;Visibility : Hidden\">",
            "<div hidden",
        ] {
            assert!(may_hide(yes), "{yes}");
        }
        for no in [
            "<div style='overflow:hidden'>",
            "<style>.a{overflow: hidden; display: block}</style>",
            "<div class=hidden-xs>",
            "<p>unhidden</p> <a href=/display>display</a>",
            "",
        ] {
            assert!(!may_hide(no), "{no}");
        }
        // Occurrences on both sides of the scan's slice borders are found.
        for pad in [4090, 4093, 4095, 4096, 4100] {
            let html = format!("{}<div style='display: none'>", "x".repeat(pad));
            assert!(may_hide(&html), "{pad}");
            let html = format!("{}中<div hidden>", "x".repeat(pad));
            assert!(may_hide(&html), "{pad}");
        }
    }

    /// The rules of [`may_hide`] read plainly: the page lowered whole, every occurrence
    /// tried.
    fn may_hide_plainly(html: &str) -> bool {
        let lc = html.to_ascii_lowercase();
        let ws = |c: char| c.is_ascii_whitespace();
        let hidden = lc.match_indices("hidden").any(|(i, _)| {
            let before = &lc[..i];
            let prev = before.as_bytes().last().copied();
            let next = lc.as_bytes().get(i + 6).copied();
            before.ends_with("aria-")
                || (prev.is_none_or(|b| b.is_ascii_whitespace() || b"\"'/".contains(&b))
                    && next.is_none_or(|b| b.is_ascii_whitespace() || b"=>/".contains(&b)))
                || before
                    .trim_end_matches(ws)
                    .strip_suffix(':')
                    .is_some_and(|p| p.trim_end_matches(ws).ends_with("visibility"))
        });
        hidden
            || lc.match_indices("display").any(|(i, _)| {
                lc[i + 7..]
                    .trim_start_matches(ws)
                    .strip_prefix(':')
                    .is_some_and(|v| v.trim_start_matches(ws).starts_with("none"))
            })
    }

    const PIECES: &[&str] = &[
        "hidden",
        "HIDDEN",
        "HiDdEn",
        "aria-",
        "ARIA-",
        "display",
        "DISPLAY",
        "visibility",
        "Visibility",
        "none",
        "NONE",
        "nOnE",
        ":",
        " ",
        "\t",
        "\n",
        "=",
        ">",
        "/",
        "\"",
        "'",
        "<div ",
        "x",
        "中",
        "é",
    ];

    proptest::proptest! {
        /// The scan in slices answers as the plain reading, also where the words stand
        /// across a slice's border (the padding moves them over it).
        #[test]
        fn may_hide_answers_as_the_plain_reading(
            picks in proptest::collection::vec(0..PIECES.len(), 0..24),
            pad in proptest::option::of(4070usize..4100),
        ) {
            let mut html = "y".repeat(pad.unwrap_or(0));
            for k in picks {
                html.push_str(PIECES[k]);
            }
            proptest::prop_assert_eq!(may_hide(&html), may_hide_plainly(&html), "{:?}", html);
        }
    }
}
