//! URL normalization (`docs/design.md` §7) and the parsing of URLs typed by users.
//!
//! [`normalize`] gives every link one canonical spelling, so that two snapshots of a page
//! that spell the same target differently (`HTTP://Example.com:80/a/./b/%7e?x#top` and
//! `http://example.com/a/b/~?x`) yield equal link arrays. Most of the work is done by the
//! `url` crate's WHATWG parser (lower-case scheme and host, IDNA, default ports dropped,
//! `.`/`..` segments resolved, an empty path becomes `/`); this module adds the rest:
//!
//! * the fragment is dropped;
//! * percent-escapes of unreserved characters (`A-Z a-z 0-9 - . _ ~`) are decoded;
//! * the remaining escapes are written with upper-case hex digits (`%2f` becomes `%2F`);
//! * characters that RFC 3986 does not allow raw in a path or query and that the WHATWG
//!   parser leaves alone (`| [ ] ^ { } \` and the backtick) are percent-encoded, so that
//!   both spellings of them compare equal.
//!
//! Query parameters are kept as they are: neither sorted nor filtered.

use thiserror::Error;
use url::Url;

/// Why a URL typed by a user cannot be watched. The messages are meant for that user.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum UrlError {
    #[error("no URL given")]
    Empty,
    #[error("not a URL: `{input}` ({reason})")]
    NotAUrl { input: String, reason: String },
    #[error("unsupported scheme `{0}`: only http and https pages can be watched")]
    UnsupportedScheme(String),
    #[error("missing host: `{0}` does not name a site")]
    MissingHost(String),
}

/// The canonical form of an http or https URL; `None` for any other scheme.
///
/// Idempotent: `normalize(&normalize(u)?) == normalize(u)`.
pub fn normalize(u: &Url) -> Option<Url> {
    if !is_web(u) {
        return None;
    }
    normalize_owned(u.clone())
}

/// [`normalize`] without the clone, for callers that own the URL.
pub(crate) fn normalize_owned(mut u: Url) -> Option<Url> {
    if !is_web(&u) {
        return None;
    }
    u.host_str().filter(|h| !h.is_empty())?;
    if u.fragment().is_some() {
        u.set_fragment(None);
    }
    if let Some(path) = canonical(u.path(), false) {
        u.set_path(&path);
    }
    if let Some(query) = u.query().and_then(|q| canonical(q, true)) {
        u.set_query(Some(&query));
    }
    Some(u)
}

fn is_web(u: &Url) -> bool {
    matches!(u.scheme(), "http" | "https")
}

/// Schemes that are clearly not a typo for a host name (for a clearer error message).
const OTHER_SCHEMES: &[&str] = &[
    "about",
    "blob",
    "chrome",
    "data",
    "file",
    "ftp",
    "ftps",
    "git",
    "gopher",
    "irc",
    "javascript",
    "magnet",
    "mailto",
    "news",
    "sftp",
    "sms",
    "ssh",
    "tel",
    "ws",
    "wss",
];

/// Parses a URL typed by a user (on the command line, in a form, in an OPML file):
/// trims it, requires an http or https scheme and a host, and returns it normalized.
pub fn parse_user_url(s: &str) -> Result<Url, UrlError> {
    let input = s.trim();
    if input.is_empty() {
        return Err(UrlError::Empty);
    }
    let not_a_url = |reason: String| UrlError::NotAUrl {
        input: input.to_owned(),
        reason,
    };
    let did_you_mean = || format!("it has no scheme; did you mean `https://{input}`?");
    match Url::parse(input) {
        Ok(u) if is_web(&u) => {
            normalize_owned(u).ok_or_else(|| UrlError::MissingHost(input.to_owned()))
        }
        Ok(u) => {
            // `example.com:8080/x` parses with the scheme `example.com`: a missing scheme,
            // not a foreign one.
            let scheme = u.scheme();
            if input.contains("://") || OTHER_SCHEMES.contains(&scheme) {
                Err(UrlError::UnsupportedScheme(scheme.to_owned()))
            } else {
                Err(not_a_url(did_you_mean()))
            }
        }
        Err(url::ParseError::RelativeUrlWithoutBase) => Err(not_a_url(did_you_mean())),
        Err(url::ParseError::EmptyHost) => Err(UrlError::MissingHost(input.to_owned())),
        Err(e) => Err(not_a_url(e.to_string())),
    }
}

const fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

/// Bytes that may stand raw in a path (RFC 3986 `pchar` and `/`, plus `%`, which starts
/// an escape or, when no two hex digits follow, is left as the WHATWG parser leaves it).
/// The query also allows `?`.
const fn is_allowed_raw(b: u8, query: bool) -> bool {
    is_unreserved(b)
        || matches!(
            b,
            b'!' | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b'+'
                | b','
                | b';'
                | b'='
                | b':'
                | b'@'
                | b'/'
                | b'%'
        )
        || (query && b == b'?')
}

fn hex_val(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// The escape at `s[i]` (`%` and two hex digits), if there is one: its byte value.
fn escape_at(s: &[u8], i: usize) -> Option<u8> {
    if s.get(i) != Some(&b'%') {
        return None;
    }
    let hi = hex_val(*s.get(i + 1)?)?;
    let lo = hex_val(*s.get(i + 2)?)?;
    Some(hi << 4 | lo)
}

/// The canonical spelling of a path or query, or `None` when `s` already is canonical
/// (the common case, which then costs one scan and no allocation).
fn canonical(s: &str, query: bool) -> Option<String> {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let b = s.as_bytes();
    let needs_work = (0..b.len()).any(|i| match escape_at(b, i) {
        Some(v) => is_unreserved(v) || b[i + 1..i + 3].iter().any(u8::is_ascii_lowercase),
        None => !is_allowed_raw(b[i], query),
    });
    if !needs_work {
        return None;
    }
    let mut out = String::with_capacity(s.len() + 8);
    let mut i = 0;
    while i < b.len() {
        if let Some(v) = escape_at(b, i) {
            if is_unreserved(v) {
                out.push(char::from(v));
            } else {
                out.push('%');
                out.push(char::from(HEX[usize::from(v >> 4)]));
                out.push(char::from(HEX[usize::from(v & 15)]));
            }
            i += 3;
        } else if is_allowed_raw(b[i], query) {
            out.push(char::from(b[i]));
            i += 1;
        } else {
            // A byte the WHATWG parser left raw (always ASCII here, as it percent-encodes
            // every non-ASCII character, but encode whole UTF-8 sequences to be safe).
            let ch_len = s[i..].chars().next().map_or(1, char::len_utf8);
            for &byte in &b[i..i + ch_len] {
                out.push('%');
                out.push(char::from(HEX[usize::from(byte >> 4)]));
                out.push(char::from(HEX[usize::from(byte & 15)]));
            }
            i += ch_len;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn norm(s: &str) -> Option<String> {
        normalize(&Url::parse(s).ok()?).map(String::from)
    }

    #[test]
    fn normalize_table() {
        let cases: &[(&str, Option<&str>)] = &[
            // lower-case scheme and host
            ("HTTP://Example.COM/Path", Some("http://example.com/Path")),
            ("HtTpS://WWW.EXAMPLE.com", Some("https://www.example.com/")),
            // drop the fragment
            ("http://a.com/x#frag", Some("http://a.com/x")),
            ("http://a.com/x?q=1#", Some("http://a.com/x?q=1")),
            // drop default ports, keep others
            ("http://a.com:80/", Some("http://a.com/")),
            ("https://a.com:443/x", Some("https://a.com/x")),
            ("http://a.com:443/", Some("http://a.com:443/")),
            ("https://a.com:8443/", Some("https://a.com:8443/")),
            // decode unreserved escapes, upper-case the others
            (
                "http://a.com/%7euser/%41%62%2D%2e%5F",
                Some("http://a.com/~user/Ab-._"),
            ),
            ("http://a.com/a%2fb%3a", Some("http://a.com/a%2Fb%3A")),
            (
                "http://a.com/?q=%7e%20%e4%b8%ad",
                Some("http://a.com/?q=~%20%E4%B8%AD"),
            ),
            // a lone % stays
            ("http://a.com/100%", Some("http://a.com/100%")),
            ("http://a.com/%zz", Some("http://a.com/%zz")),
            // resolve ./ and ../
            ("http://a.com/a/./b/../c", Some("http://a.com/a/c")),
            ("http://a.com/../../x", Some("http://a.com/x")),
            ("http://a.com/a/%2e%2E/b", Some("http://a.com/b")),
            // empty path
            ("http://a.com", Some("http://a.com/")),
            ("http://a.com?x", Some("http://a.com/?x")),
            // raw non-ASCII is percent-encoded as UTF-8 (by the url crate)
            ("http://a.com/中文", Some("http://a.com/%E4%B8%AD%E6%96%87")),
            // characters RFC 3986 does not allow raw
            ("http://a.com/a|b[c]^", Some("http://a.com/a%7Cb%5Bc%5D%5E")),
            (
                "http://a.com/?a={b}|`",
                Some("http://a.com/?a=%7Bb%7D%7C%60"),
            ),
            // query kept as is otherwise
            (
                "http://a.com/?b=2&a=1&a=1",
                Some("http://a.com/?b=2&a=1&a=1"),
            ),
            ("http://a.com/?", Some("http://a.com/?")),
            // IDN host
            ("http://bücher.DE/", Some("http://xn--bcher-kva.de/")),
            // only http and https
            ("ftp://a.com/x", None),
            ("mailto:a@b.c", None),
            ("javascript:void(0)", None),
            ("data:text/html,hi", None),
            ("file:///etc/passwd", None),
        ];
        for (input, want) in cases {
            assert_eq!(norm(input).as_deref(), *want, "normalize({input})");
        }
    }

    #[test]
    fn normalize_is_idempotent_on_table() {
        for s in [
            "http://a.com/%7e/%2f/a|b?x=%7b",
            "http://a.com/a b/é?q=é f#x",
            "https://x.org:443/..%2F/%2e/",
        ] {
            let once = normalize(&Url::parse(s).unwrap()).unwrap();
            let twice = normalize(&once).unwrap();
            assert_eq!(once, twice, "{s}");
        }
    }

    #[test]
    fn user_urls() {
        assert_eq!(
            parse_user_url("  https://Example.com/a#x \n")
                .unwrap()
                .as_str(),
            "https://example.com/a"
        );
        assert_eq!(
            parse_user_url("http://example.com").unwrap().as_str(),
            "http://example.com/"
        );
        let err = |s: &str| parse_user_url(s).unwrap_err();
        assert_eq!(err(""), UrlError::Empty);
        assert_eq!(err("   "), UrlError::Empty);
        assert_eq!(
            err("ftp://example.com/file").to_string(),
            "unsupported scheme `ftp`: only http and https pages can be watched"
        );
        assert_eq!(
            err("mailto:me@example.com"),
            UrlError::UnsupportedScheme("mailto".into())
        );
        assert!(
            matches!(err("http://"), UrlError::MissingHost(_)),
            "{:?}",
            err("http://")
        );
        assert!(err("http://").to_string().starts_with("missing host"));
        let e = err("example.com/news");
        assert!(matches!(e, UrlError::NotAUrl { .. }));
        assert!(
            e.to_string().starts_with("not a URL: `example.com/news`"),
            "{e}"
        );
        assert!(e.to_string().contains("https://example.com/news"), "{e}");
        assert!(matches!(
            err("example.com:8080/x"),
            UrlError::NotAUrl { .. }
        ));
        assert!(matches!(
            err("http://exa mple.com/"),
            UrlError::NotAUrl { .. }
        ));
        assert!(matches!(
            err("http://a.com:99999/"),
            UrlError::NotAUrl { .. }
        ));
    }

    proptest! {
        #[test]
        fn normalize_never_panics_and_is_idempotent(path in "\\PC{0,40}", q in "\\PC{0,20}") {
            let s = format!("http://example.com/{path}?{q}");
            if let Ok(u) = Url::parse(&s) {
                if let Some(n) = normalize(&u) {
                    prop_assert_eq!(normalize(&n), Some(n.clone()));
                    prop_assert!(n.fragment().is_none());
                }
            }
        }
    }
}
