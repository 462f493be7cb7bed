//! What a page's URLs say about its entries, by their shape alone: the shape entries
//! share, the kind of a URL (host and first segment), the folders above a URL, a URL
//! with its numbers blanked. Pure string work; uses `url` only.

use std::borrow::Cow;

/// A URL with each run of digits replaced by `0`: `?page=2&before=5035` and
/// `?page=2&before=5040` have one shape.
pub(crate) fn shape(url: &str) -> String {
    let mut out = String::with_capacity(url.len());
    let mut in_digits = false;
    for c in url.chars() {
        if c.is_ascii_digit() {
            if !in_digits {
                out.push('0');
            }
            in_digits = true;
        } else {
            out.push(c);
            in_digits = false;
        }
    }
    out
}

/// The kind of a URL: scheme, host and first path segment when more of the path follows
/// (`https://v2ex.com/member` for `https://v2ex.com/member/x`; `https://v2ex.com` for
/// `https://v2ex.com/about`).
pub(crate) fn url_kind(url: &str) -> &str {
    let b = url.as_bytes();
    let after_host = if url.starts_with("https://") {
        8
    } else if url.starts_with("http://") {
        7
    } else {
        b.windows(3).position(|w| w == b"://").map_or(0, |p| p + 3)
    };
    let path = find_byte(b, after_host, b'/').unwrap_or(b.len());
    let query = find_byte(b, path, b'?').unwrap_or(b.len());
    match find_byte(&b[..query], (path + 1).min(query), b'/') {
        Some(p) => &url[..p],
        None => &url[..path],
    }
}

/// Where the first `c` at or after `from` is in `b`. A plain loop: URLs are short, and
/// for them the setup of a vectorised search costs more than it saves.
fn find_byte(b: &[u8], from: usize, c: u8) -> Option<usize> {
    b.get(from..)?
        .iter()
        .position(|&x| x == c)
        .map(|p| from + p)
}

/// What [`url_shape`] gives: host, path depth, class of the last segment.
pub(super) type UrlShape<'a> = (Cow<'a, str>, usize, u8);

/// The shape of a URL that entries share: host, path depth and what names the page: 1 a
/// query with a number (`?id=123`), 2 a number, 3 a slug of several words, 4 a word with
/// digits (`v1.2.3`), 5 a plain word, 0 nothing (a directory).
/// The host is borrowed from `url` when it is written as the parser writes it.
pub(super) fn url_shape(url: &str) -> UrlShape<'_> {
    if let Some((host, depth, last, query)) = serialized_parts(url) {
        return (Cow::Borrowed(host), depth, class_of(last, query));
    }
    let Ok(u) = url::Url::parse(url) else {
        return (Cow::Borrowed(""), 0, 0);
    };
    let segs = u.path_segments().into_iter().flatten();
    let (depth, class) = shape_of(segs, u.query());
    (
        Cow::Owned(u.host_str().unwrap_or("").to_owned()),
        depth,
        class,
    )
}

/// Of a path segment: its words (runs of letters and digits), and the ASCII digits and
/// the characters of its stem (what comes before its first `.`). ASCII, as almost every
/// URL is once serialized, is read a byte at a time.
fn segment_counts(seg: &str) -> (usize, usize, usize) {
    let stem = seg.split('.').next().unwrap_or(seg);
    let digits = stem.bytes().filter(u8::is_ascii_digit).count();
    if seg.is_ascii() {
        let mut tokens = 0;
        let mut in_word = false;
        for b in seg.bytes() {
            let word = b.is_ascii_alphanumeric();
            tokens += usize::from(word && !in_word);
            in_word = word;
        }
        return (tokens, digits, stem.len());
    }
    let tokens = seg
        .split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .count();
    (tokens, digits, stem.chars().count())
}

/// The path depth and the class of the last segment (see [`url_shape`]).
fn shape_of<'a>(segments: impl Iterator<Item = &'a str>, query: Option<&str>) -> (usize, u8) {
    let (mut depth, mut last) = (0, "");
    for seg in segments.filter(|x| !x.is_empty()) {
        depth += 1;
        last = seg;
    }
    (depth, class_of(last, query))
}

/// The class of a URL by its last non-empty path segment and its query (see
/// [`url_shape`]).
fn class_of(last: &str, query: Option<&str>) -> u8 {
    let (tokens, digits, stem_chars) = segment_counts(last);
    let class = if query.is_some_and(|q| q.bytes().any(|b| b.is_ascii_digit())) {
        1
    } else if last.is_empty() {
        0
    } else if digits > 0 && digits == stem_chars {
        2
    } else if tokens >= 3 {
        3
    } else if digits > 0 {
        4
    } else {
        5
    };
    class
}

/// Host, path depth, last non-empty path segment and query of an `http(s)` URL written
/// as the `url` crate serializes it (the form the page's links are stored in), read
/// without parsing it again; `None` for anything that parsing could change, which the
/// caller parses: another scheme, a user, port, upper case or a number as the host's
/// last label, characters the parser escapes or drops, dot segments and backslashes.
fn serialized_parts(url: &str) -> Option<(&str, usize, &str, Option<&str>)> {
    let (rest, default_port) = match url.strip_prefix("https://") {
        Some(rest) => (rest, 443),
        None => (url.strip_prefix("http://")?, 80),
    };
    let b = rest.as_bytes();
    // The host, in one run: lower-case letters, digits, dots and hyphens up to a port, the
    // path, the query, the fragment or the end; `label` is where its last label starts.
    let (mut i, mut label) = (0, 0);
    while let Some(&c) = b.get(i) {
        match c {
            b'a'..=b'z' | b'0'..=b'9' | b'-' => {}
            b'.' => label = i + 1,
            b':' | b'/' | b'?' | b'#' => break,
            _ => return None,
        }
        i += 1;
    }
    let host = &rest[..i];
    let domain = b[label..i].first().is_some_and(u8::is_ascii_lowercase);
    if !(domain || is_ipv4(host.as_bytes())) {
        return None;
    }
    // A port as serialized: digits without a leading zero, never the scheme's default.
    if b.get(i) == Some(&b':') {
        let start = i + 1;
        let mut port = 0u32;
        i = start;
        while let Some(&c) = b.get(i).filter(|c| c.is_ascii_digit()) {
            port = port * 10 + u32::from(c - b'0');
            if port > u32::from(u16::MAX) {
                return None;
            }
            i += 1;
        }
        if i == start || b[start] == b'0' || port == default_port {
            return None;
        }
    }
    // The path: segments up to the query, the fragment or the end, none of them a dot
    // segment, written plainly or escaped.
    let rest = &rest[i..];
    let rb = rest.as_bytes();
    if rb.first() != Some(&b'/') {
        return None;
    }
    let (mut depth, mut last, mut seg, mut j) = (0, 0..0, 1, 1);
    loop {
        match rb.get(j) {
            c @ (Some(b'/' | b'?' | b'#') | None) => {
                if matches!(&rb[seg..j], b"." | b"..") {
                    return None;
                }
                if j > seg {
                    depth += 1;
                    last = seg..j;
                }
                if c != Some(&b'/') {
                    break;
                }
                seg = j + 1;
            }
            Some(b'%') if matches!(rb.get(j + 1..j + 3), Some(b"2e" | b"2E")) => return None,
            Some(&c) if !SERIALIZED[usize::from(c)] => return None,
            Some(_) => {}
        }
        j += 1;
    }
    // The query runs to the fragment; both as plain as the rest.
    if !rb[j..].iter().all(|&c| SERIALIZED[usize::from(c)]) {
        return None;
    }
    let query = (rb.get(j) == Some(&b'?')).then(|| {
        let q = &rest[j + 1..];
        &q[..find_byte(q.as_bytes(), 0, b'#').unwrap_or(q.len())]
    });
    Some((host, depth, &rest[last], query))
}

/// An IPv4 address as serialized: four decimal numbers up to 255, no leading zeros.
fn is_ipv4(host: &[u8]) -> bool {
    let mut labels = 0;
    for l in host.split(|&c| c == b'.') {
        labels += 1;
        if labels > 4 || l.is_empty() || l.len() > 3 || !l.iter().all(u8::is_ascii_digit) {
            return false;
        }
        let value = l.iter().fold(0u32, |n, &d| n * 10 + u32::from(d - b'0'));
        if (l[0] == b'0' && l.len() > 1) || value > 255 {
            return false;
        }
    }
    labels == 4
}

/// The bytes a URL as serialized may hold without the parser changing it: printable
/// ASCII but backslash, quotes, angle brackets, backtick, braces, bar and caret.
static SERIALIZED: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        let c = i as u8;
        t[i] = c.is_ascii_graphic()
            && !matches!(
                c,
                b'\\' | b'"' | b'\'' | b'<' | b'>' | b'`' | b'{' | b'}' | b'|' | b'^'
            );
        i += 1;
    }
    t
};

/// The folders strictly above a URL's path, below the site's root, each with its closing
/// slash (`https://h/a/`, `https://h/a/b/` for `https://h/a/b/c`).
pub(super) fn ancestors(url: &str) -> impl Iterator<Item = &str> + '_ {
    let start = url.find("://").map_or(0, |p| p + 3);
    let end = url.find(['?', '#']).unwrap_or(url.len());
    let path_at = url[start..end].find('/').map_or(end, |p| start + p);
    url[path_at..end]
        .char_indices()
        .filter(move |&(k, c)| c == '/' && k > 0 && path_at + k + 1 < end)
        .map(move |(k, _)| &url[..=path_at + k])
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn owned((host, depth, class): (Cow<'_, str>, usize, u8)) -> (String, usize, u8) {
        (host.into_owned(), depth, class)
    }

    /// What `url_shape` answered when it parsed every URL.
    fn parsed_shape(url: &str) -> (String, usize, u8) {
        let Ok(u) = url::Url::parse(url) else {
            return (String::new(), 0, 0);
        };
        let segs: Vec<&str> = u
            .path_segments()
            .map_or_else(Vec::new, |s| s.filter(|x| !x.is_empty()).collect());
        let (depth, class) = shape_of(segs.into_iter(), u.query());
        (u.host_str().unwrap_or("").to_owned(), depth, class)
    }

    #[test]
    fn shapes_read_without_parsing_agree_with_the_parser() {
        for url in [
            "https://example.org/news/2024/a-long-story-title",
            "https://example.org/news/",
            "https://example.org/",
            "https://example.org",
            "http://example.org/show.asp?id=12",
            "https://example.org/a/b.html?x=y#frag5",
            "https://example.org/v1.2.3",
            "https://Example.ORG/A/1",
            "https://example.org:8080/a/1",
            "http://127.0.0.1:8912/site/1/story-12",
            "http://127.0.0.1:80/a/1",
            "https://example.org:443/a/1",
            "https://example.org:0443/a/1",
            "https://example.org:99999/a/1",
            "https://example.org:/a/1",
            "https://example.org:+8080/a/1",
            "https://example.org:80:90/a/1",
            "https://example.org./a/1",
            "https://example.1/a/1",
            "https://news.0x10/a/1",
            "http://1.2.3.4.5/a/1",
            "http://1.2.3.99999999999/a/1",
            "http://127.000.0.1/a/1",
            "http://1.2.3/a/1",
            "http://256.1.1.1/a/1",
            "http://0.0.0.0/a/1",
            "https://user@example.org/a/1",
            "https://0x7f.1/a/1",
            "https://127.0.0.1/a/1",
            "https://example.org/a/../b/12",
            "https://example.org/a/%2E%2e/12",
            "https://example.org/a b/12",
            "https://example.org/q?it's=1",
            "https://example.org/a\\b/12",
            "https://bücher.example/a/1",
            "https://xn--bcher-kva.example/a/1",
            "mailto:someone@example.org",
            "ftp://example.org/a/1",
            "https://example.org//double//slash/1",
            "https://example.org/?",
            "not a url",
        ] {
            assert_eq!(owned(url_shape(url)), parsed_shape(url), "{url}");
        }
    }

    /// [`url_kind`] as it was written with `str::find`, before it read bytes.
    fn kind_by_find(url: &str) -> &str {
        let after_host = url.find("://").map_or(0, |p| p + 3);
        let path = url[after_host..]
            .find('/')
            .map_or(url.len(), |p| after_host + p);
        let rest = &url[path..];
        let rest = &rest[..rest.find('?').unwrap_or(rest.len())];
        match rest[1.min(rest.len())..].find('/') {
            Some(p) => &url[..path + 1 + p],
            None => &url[..path],
        }
    }

    #[test]
    fn kinds_are_scheme_host_and_first_segment_of_two_or_more() {
        for (url, kind) in [
            ("https://v2ex.com/member/x", "https://v2ex.com/member"),
            ("https://v2ex.com/t/123?p=2", "https://v2ex.com/t"),
            // One segment: the host alone, as for the root.
            ("https://v2ex.com/about", "https://v2ex.com"),
            ("https://v2ex.com/", "https://v2ex.com"),
            ("https://v2ex.com", "https://v2ex.com"),
            ("https://v2ex.com/a?x=/b/c", "https://v2ex.com"),
            ("/relative/path", "/relative"),
        ] {
            assert_eq!(url_kind(url), kind, "{url}");
            assert_eq!(url_kind(url), kind_by_find(url), "{url}");
        }
    }

    proptest! {
        #[test]
        fn kinds_read_by_bytes_agree_with_find(url in "(https?://)?[a-z:/?é.]{0,6}(/[a-z?é]{0,4}){0,3}(\\?[a-z/=é]{0,6})?") {
            prop_assert_eq!(url_kind(&url), kind_by_find(&url));
        }

        /// The byte-at-a-time reading of an ASCII segment counts as the reading by
        /// characters does.
        #[test]
        fn ascii_segments_count_as_characters_do(seg in "[a-zA-Z0-9._~%+-]{0,16}|.{0,8}") {
            let stem = seg.split('.').next().unwrap_or(&seg);
            let by_chars = (
                seg.split(|c: char| !c.is_alphanumeric()).filter(|t| !t.is_empty()).count(),
                stem.chars().filter(char::is_ascii_digit).count(),
                stem.chars().count(),
            );
            prop_assert_eq!(segment_counts(&seg), by_chars);
        }

        #[test]
        fn any_link_gets_the_parser_s_shape(
            url in "(https?://|HTTP://)([a-z0-9.-]{1,12}|[A-Z]{1,3}|[0-9.]{1,9}|[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3})(:\\+?[0-9]{0,5})?(/[a-zA-Z0-9._%~ '-]{0,8}){0,4}(\\?[a-z0-9=&'%]{0,8})?(#[a-z0-9]{0,4})?"
        ) {
            prop_assert_eq!(owned(url_shape(&url)), parsed_shape(&url), "{}", url);
        }
    }
}
