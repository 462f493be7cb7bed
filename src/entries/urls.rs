//! What a page's URLs say about its entries, by their shape alone: the shape entries
//! share, the kind of a URL (host and first segment), the folders above a URL, a URL
//! with its numbers blanked. Pure string work; uses `url` only.

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

/// The kind of a URL: scheme, host and first path segment (`https://v2ex.com/member`).
pub(crate) fn url_kind(url: &str) -> &str {
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

/// The shape of a URL that entries share: host, path depth and what names the page: 1 a
/// query with a number (`?id=123`), 2 a number, 3 a slug of several words, 4 a word with
/// digits (`v1.2.3`), 5 a plain word, 0 nothing (a directory).
pub(super) fn url_shape(url: &str) -> (String, usize, u8) {
    let Ok(u) = url::Url::parse(url) else {
        return (String::new(), 0, 0);
    };
    let segs: Vec<&str> = u
        .path_segments()
        .map_or_else(Vec::new, |s| s.filter(|x| !x.is_empty()).collect());
    let last = segs.last().copied().unwrap_or("");
    let stem = last.split('.').next().unwrap_or(last);
    let tokens = last
        .split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .count();
    let digits = stem.chars().filter(char::is_ascii_digit).count();
    let class = if u
        .query()
        .is_some_and(|q| q.bytes().any(|b| b.is_ascii_digit()))
    {
        1
    } else if last.is_empty() {
        0
    } else if digits > 0 && digits == stem.chars().count() {
        2
    } else if tokens >= 3 {
        3
    } else if digits > 0 {
        4
    } else {
        5
    };
    (u.host_str().unwrap_or("").to_owned(), segs.len(), class)
}

/// The folders strictly above a URL's path, below the site's root, each with its closing
/// slash (`https://h/a/`, `https://h/a/b/` for `https://h/a/b/c`).
pub(super) fn ancestors(url: &str) -> impl Iterator<Item = String> + '_ {
    let start = url.find("://").map_or(0, |p| p + 3);
    let end = url.find(['?', '#']).unwrap_or(url.len());
    let path_at = url[start..end].find('/').map_or(end, |p| start + p);
    url[path_at..end]
        .char_indices()
        .filter(move |&(k, c)| c == '/' && k > 0 && path_at + k + 1 < end)
        .map(move |(k, _)| url[..=path_at + k].to_owned())
}
