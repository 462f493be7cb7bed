//! URL resolution of the hrefs a pass found ([`super::page`]): against the document's
//! `<base href>` (itself resolved against the page URL) or the page URL, then
//! [`super::url::normalize`]d. Uses the `url` crate and [`super::url`].

use url::Url;

use super::links::RawLink;
use crate::model::Link;

/// Resolves the raw hrefs (their text in `hrefs`) against the document's base URL and
/// normalizes them, dropping the ones that are empty, fragment-only or not http(s).
pub(super) fn resolve(
    raw: Vec<RawLink>,
    hrefs: &str,
    base_href: Option<&str>,
    page_url: &Url,
) -> Vec<(Link, Option<usize>)> {
    let base = base_href
        .and_then(|b| page_url.join(b.trim()).ok())
        .filter(|b| matches!(b.scheme(), "http" | "https"));
    let base = base.as_ref().unwrap_or(page_url);
    let origin = &base[..url::Position::BeforePath];
    let options = Url::options().base_url(Some(base));
    let mut out = Vec::with_capacity(raw.len());
    for RawLink { href, text, anchor } in raw {
        let Some(h) = hrefs.get(href) else {
            continue;
        };
        let h = h.trim_matches(|c: char| c.is_ascii_whitespace() || c.is_ascii_control());
        if h.is_empty() || h.starts_with('#') || has_foreign_scheme(h) {
            continue;
        }
        let url = match resolve_simple(origin, h) {
            Some(url) => url,
            None => match options.parse(h).ok().and_then(super::url::normalize_owned) {
                Some(url) => url.into(),
                None => continue,
            },
        };
        out.push((Link { text, url }, anchor));
    }
    out
}

/// The normalized URL of a plain path-absolute href (`/t/123?p=2#reply5`), built without
/// the URL parser: the most common kind of href, and the parser is the larger part of the
/// cost of resolution. `None` for anything the parser would change beyond dropping the
/// fragment (dot segments, escapes, characters it would encode, backslashes, ...).
fn resolve_simple(origin: &str, href: &str) -> Option<String> {
    let b = href.as_bytes();
    if b.first() != Some(&b'/') || matches!(b.get(1), Some(b'/' | b'\\')) {
        return None;
    }
    // One run over the bytes up to the fragment: each must be plain, and no segment of
    // the path (up to the query) may be `.` or `..`.
    let dot_segment = |seg: &[u8]| matches!(seg, b"." | b"..");
    let (mut end, mut seg_start, mut in_query) = (b.len(), 0, false);
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'#' => {
                end = i;
                break;
            }
            b'/' | b'?' if !in_query => {
                if dot_segment(&b[seg_start..i]) {
                    return None;
                }
                seg_start = i + 1;
                in_query = c == b'?';
            }
            _ if PLAIN[usize::from(c)] => {}
            _ => return None,
        }
    }
    if !in_query && dot_segment(&b[seg_start..end]) {
        return None;
    }
    let href = &href[..end];
    let mut url = String::with_capacity(origin.len() + href.len());
    url.push_str(origin);
    url.push_str(href);
    Some(url)
}

/// The bytes a plain href is made of: letters, digits and `-._~!$&()*+,;=:@/?`.
static PLAIN: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        let c = i as u8;
        t[i] = c.is_ascii_alphanumeric();
        i += 1;
    }
    let extra = b"-._~!$&()*+,;=:@/?";
    let mut k = 0;
    while k < extra.len() {
        t[extra[k] as usize] = true;
        k += 1;
    }
    t
};

/// A cheap pre-check that spares parsing `javascript:...`, `mailto:...`, `tel:...`,
/// `data:...` and the like: does `h` start with a scheme other than http(s)?
fn has_foreign_scheme(h: &str) -> bool {
    if !h.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return false;
    }
    let Some(colon) = h.find(':') else {
        return false;
    };
    let scheme = &h[..colon];
    let is_scheme = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'));
    is_scheme && !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn slow(base: &Url, h: &str) -> Option<String> {
        Url::options()
            .base_url(Some(base))
            .parse(h)
            .ok()
            .and_then(super::super::url::normalize_owned)
            .map(String::from)
    }

    #[test]
    fn simple_resolution_examples() {
        let base = Url::parse("https://user@Example.com:8443/a/b?q#f").unwrap();
        let origin = &base[..url::Position::BeforePath];
        for h in [
            "/",
            "/x",
            "/t/123#reply5",
            "/a?b=c&d=e",
            "/a?",
            "/a/?x#",
            "/:@!$&()*+,;=-._~",
        ] {
            assert_eq!(resolve_simple(origin, h), slow(&base, h), "{h}");
        }
        for h in [
            "//host/x", "/./x", "/a/../b", "/a/.", "/%7e", "/a b", "/it's", "/\\x", "x", "/é",
        ] {
            assert_eq!(resolve_simple(origin, h), None, "{h}");
        }
    }

    proptest! {
        #[test]
        fn simple_resolution_agrees_with_the_parser(
            h in "/[a-zA-Z0-9./?#&=%'\\\\ _~:@!$()*+,;-]{0,24}",
            base in prop_oneof![
                Just("https://example.com/dir/page"),
                Just("http://u:p@example.com:8080/"),
                Just("https://xn--bcher-kva.de/a/b/c?x#y"),
            ],
        ) {
            let base = Url::parse(base).unwrap();
            let origin = &base[..url::Position::BeforePath];
            if let Some(fast) = resolve_simple(origin, &h) {
                prop_assert_eq!(Some(fast), slow(&base, &h));
            }
        }
    }
}
