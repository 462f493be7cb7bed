//! Spider traps (section 3.4.6 of the textbook chapter *Automatic Collection of Web
//! Information*, `docs/design.md` §9) and what counts as the same site.
//!
//! A trap is a part of a site that makes up pages without end: relative links that pile
//! up path segments (`/a/b/a/b/a/b/`), session ids and sort orders that grow the URL, and
//! calendars whose "next month" link never stops. [`check`] rejects the URLs that show it
//! statically; [`calendar_shape`] groups the pages of one calendar so that the crawl
//! driver can cap how many of them it fetches.

use std::fmt;

use url::{Host, Url};

/// The static limits of [`check`].
#[derive(Debug, Clone)]
pub struct TrapRules {
    /// Longest URL, in bytes (default 256).
    pub max_url_len: usize,
    /// Most path segments (default 10).
    pub max_path_segments: usize,
    /// How often one segment may occur in a path (default 2).
    pub max_segment_repeats: usize,
}

impl Default for TrapRules {
    fn default() -> Self {
        Self {
            max_url_len: 256,
            max_path_segments: 10,
            max_segment_repeats: 2,
        }
    }
}

/// Why a URL looks like a spider trap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trap {
    /// The URL has this many bytes, over the limit.
    TooLong(usize),
    /// The path has this many segments, over the limit.
    TooDeep(usize),
    /// This segment, or run of segments (`a/b`), repeats in the path.
    RepeatedSegments(String),
}

impl fmt::Display for Trap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Trap::TooLong(n) => write!(f, "the URL is too long ({n} characters)"),
            Trap::TooDeep(n) => write!(f, "the path is too deep ({n} segments)"),
            Trap::RepeatedSegments(s) => write!(f, "the path repeats \"{s}\""),
        }
    }
}

/// The non-empty segments of a URL's path.
fn segments(url: &Url) -> Vec<&str> {
    url.path_segments()
        .map(|s| s.filter(|s| !s.is_empty()).collect())
        .unwrap_or_default()
}

/// Static checks of one URL: its length, its path depth, and repeated segments (one
/// segment more than `max_segment_repeats` times, or a run of two or more segments
/// followed directly by itself, as in `/a/b/a/b/` or `/x/y/z/x/y/z/`).
pub fn check(url: &Url, rules: &TrapRules) -> Result<(), Trap> {
    let len = url.as_str().len();
    if len > rules.max_url_len {
        return Err(Trap::TooLong(len));
    }
    let segs = segments(url);
    if segs.len() > rules.max_path_segments {
        return Err(Trap::TooDeep(segs.len()));
    }
    for (i, s) in segs.iter().enumerate() {
        // Count each segment once, at its first occurrence.
        if segs[..i].contains(s) {
            continue;
        }
        if segs[i..].iter().filter(|t| *t == s).count() > rules.max_segment_repeats {
            return Err(Trap::RepeatedSegments((*s).to_owned()));
        }
    }
    for run in 2..=segs.len() / 2 {
        for i in 0..=segs.len() - 2 * run {
            if segs[i..i + run] == segs[i + run..i + 2 * run] {
                return Err(Trap::RepeatedSegments(segs[i..i + run].join("/")));
            }
        }
    }
    Ok(())
}

/// Query parameter names that hold a calendar position, in any part of a name
/// (`startDate`, `tribe-bar-date`, `event_month`).
const DATE_NAMES: &[&str] = &[
    "year", "month", "day", "date", "week", "cal", "calendar", "ym", "ymd", "time", "from", "to",
    "start", "end",
];

/// The parts of a parameter name, lowercase: split at non-alphanumerics and at
/// lowercase-to-uppercase steps (`startDate` → `start`, `date`).
fn name_parts(name: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_ascii_alphanumeric() {
            if !cur.is_empty() {
                parts.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && prev_lower && !cur.is_empty() {
            parts.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        cur.push(c.to_ascii_lowercase());
    }
    if !cur.is_empty() {
        parts.push(cur);
    }
    parts
}

/// Parses a decimal number of 1 to `max_len` ASCII digits.
fn num(s: &str, max_len: usize) -> Option<u32> {
    if s.is_empty() || s.len() > max_len || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

fn is_year(s: &str) -> bool {
    s.len() == 4 && num(s, 4).is_some_and(|y| (1900..=2199).contains(&y))
}

fn is_month(s: &str) -> bool {
    num(s, 2).is_some_and(|m| (1..=12).contains(&m))
}

fn is_day(s: &str) -> bool {
    num(s, 2).is_some_and(|d| (1..=31).contains(&d))
}

/// A date written with separators: `2031-07`, `2031-07-01`, `2031/7/1`, `2031.07.01`
/// (a dot only in a full date),
/// optionally followed by a time (`2031-07-01T10:00`, `2031-07-01 10:00`).
fn is_delimited_date(v: &str) -> bool {
    let date = v.split(['T', ' ']).next().unwrap_or(v);
    let Some(sep) = date.chars().find(|c| matches!(c, '-' | '/' | '.')) else {
        return false;
    };
    let parts: Vec<&str> = date.split(sep).collect();
    match parts.as_slice() {
        // `2024.1` is more often a version than a month
        [y, m] => sep != '.' && is_year(y) && is_month(m),
        [y, m, d] => is_year(y) && is_month(m) && is_day(d),
        _ => false,
    }
}

/// A date written as digits only: `203107` (year and month) or `20310701`.
fn is_compact_date(v: &str) -> bool {
    if !v.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    match v.len() {
        6 => is_year(&v[..4]) && is_month(&v[4..]),
        8 => is_year(&v[..4]) && is_month(&v[4..6]) && is_day(&v[6..]),
        _ => false,
    }
}

/// Does a query parameter place the page in a calendar? A date with separators in any
/// parameter; a compact date, year, month, day or week only in a parameter named for it
/// (`id=20240701` is as likely an id as a date, and `start=20` is a page offset).
fn is_calendar_param(name: &str, value: &str) -> bool {
    let value = value.trim();
    if is_delimited_date(value) {
        return true;
    }
    let parts = name_parts(name);
    let named = |n: &str| parts.iter().any(|p| p == n);
    if !DATE_NAMES.iter().any(|n| named(n)) {
        return false;
    }
    is_compact_date(value)
        || (named("year") && is_year(value))
        || ((named("month") || named("ym")) && is_month(value))
        || (named("day") && is_day(value))
        || (named("week") && num(value, 2).is_some_and(|w| (1..=53).contains(&w)))
}

/// Is the path a date archive: does it end in a year followed by a month (and a day), as
/// `/2031/07/`, `/events/2031/7/1`, `/2031/0701/`, or in one delimited date segment, as
/// `/archive/2031-07`? A trailing `index.*` file does not count. A date followed by
/// anything else (`/2024/05/my-post`) is a dated post, not a calendar page.
fn is_calendar_path(segs: &[&str]) -> bool {
    let segs = match segs.split_last() {
        Some((last, rest)) if last.starts_with("index.") => rest,
        _ => segs,
    };
    let n = segs.len();
    let at = |i: usize| segs[n - i];
    if n >= 1 && is_delimited_date(at(1)) {
        return true;
    }
    // year / month / day
    if n >= 3 && is_year(at(3)) && is_month(at(2)) && is_day(at(1)) {
        return true;
    }
    // year / month, or year / MMDD
    n >= 2
        && is_year(at(2))
        && (is_month(at(1)) || (at(1).len() == 4 && is_month(&at(1)[..2]) && is_day(&at(1)[2..])))
}

/// The calendar shape of a URL, if it looks like a page of an endless calendar or date
/// archive: a query parameter that holds a date (see `is_calendar_param`), or a path
/// that ends in a year and a month (and a day). The shape is the URL (scheme, host, port,
/// path and query; no fragment) with every run of digits in its path and query replaced
/// by `0`, so that the pages of one calendar share it. `None` for ordinary URLs
/// (`/item/123`, `/news?id=456`, `/2024/my-post-title`, `/2024/05/my-post`).
pub(crate) fn calendar_shape(url: &Url) -> Option<String> {
    let by_query = url.query_pairs().any(|(k, v)| is_calendar_param(&k, &v));
    if !by_query && !is_calendar_path(&segments(url)) {
        return None;
    }
    let mut shape = url[..url::Position::BeforePath].to_owned();
    shape.push_str(&crate::entries::shape(url.path()));
    if let Some(q) = url.query() {
        shape.push('?');
        shape.push_str(&crate::entries::shape(q));
    }
    Some(shape)
}

/// The registrable domain of a host (eTLD+1 by the Public Suffix List), lowercase and
/// without a trailing dot; `None` for IP literals, single labels and public suffixes.
fn registrable(url: &Url) -> Option<&str> {
    match url.host()? {
        Host::Domain(d) => psl::domain_str(d.trim_end_matches('.')),
        Host::Ipv4(_) | Host::Ipv6(_) => None,
    }
}

/// Whether two URLs are on the same site: equal registrable domains (eTLD+1 by the
/// Public Suffix List, private section included): `www.univ.edu.cn` and
/// `jwc.univ.edu.cn` are one site, `a.github.io` and `b.github.io` are not. Hosts with no
/// registrable domain (IP literals, single labels such as `localhost`, public suffixes)
/// are the same site only when equal. Scheme and port are ignored.
pub(crate) fn same_site(a: &Url, b: &Url) -> bool {
    match (registrable(a), registrable(b)) {
        (Some(x), Some(y)) => x.eq_ignore_ascii_case(y),
        _ => match (a.host_str(), b.host_str()) {
            (Some(x), Some(y)) => x
                .trim_end_matches('.')
                .eq_ignore_ascii_case(y.trim_end_matches('.')),
            _ => false,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    fn trap(s: &str) -> Result<(), Trap> {
        check(&u(s), &TrapRules::default())
    }

    #[test]
    fn ordinary_urls_pass() {
        for s in [
            "https://example.com/",
            "https://example.com/a/b/c/",
            "https://example.com/news/2024/05/03/title.html",
            "https://example.com/en/docs/en/intro",
            "https://example.com/1/1/",
            "https://example.com/page/1/page/2",
            "https://example.com/a/b/c/a/b/d",
            "https://example.com/list?page=3&sort=new",
            "https://example.com/1/2/3/4/5/6/7/8/9/10",
        ] {
            assert_eq!(trap(s), Ok(()), "{s}");
        }
    }

    #[test]
    fn traps_are_caught() {
        assert_eq!(
            trap("https://example.com/a/b/a/b/"),
            Err(Trap::RepeatedSegments("a/b".into()))
        );
        assert_eq!(
            trap("https://example.com/news/x/y/z/x/y/z/"),
            Err(Trap::RepeatedSegments("x/y/z".into()))
        );
        assert_eq!(
            trap("https://example.com/img/a/img/b/img/c"),
            Err(Trap::RepeatedSegments("img".into()))
        );
        assert_eq!(
            trap("https://example.com/1/2/3/4/5/6/7/8/9/10/11"),
            Err(Trap::TooDeep(11))
        );
        let long = format!("https://example.com/search?q={}", "x".repeat(300));
        assert_eq!(trap(&long), Err(Trap::TooLong(long.len())));
        // the limits are the rules'
        let strict = TrapRules {
            max_segment_repeats: 1,
            ..TrapRules::default()
        };
        assert!(check(&u("https://example.com/en/docs/en/"), &strict).is_err());
        assert_eq!(
            Trap::RepeatedSegments("a/b".into()).to_string(),
            "the path repeats \"a/b\""
        );
        assert_eq!(
            Trap::TooLong(300).to_string(),
            "the URL is too long (300 characters)"
        );
    }

    #[test]
    fn calendars_have_a_shape() {
        let cases = [
            (
                "https://example.com/events?month=7&year=2031",
                "https://example.com/events?month=0&year=0",
            ),
            (
                "https://example.com/cal.php?date=2031-07-01",
                "https://example.com/cal.php?date=0-0-0",
            ),
            (
                "https://example.com/calendar/?ym=203107",
                "https://example.com/calendar/?ym=0",
            ),
            (
                "https://example.com/events/?tribe-bar-date=2031-07",
                "https://example.com/events/?tribe-bar-date=0-0",
            ),
            (
                "https://example.com/e?startDate=20310701&view=month",
                "https://example.com/e?startDate=0&view=month",
            ),
            (
                "https://example.com/schedule?from=2031-07-01T00:00&to=2031-07-08",
                "https://example.com/schedule?from=0-0-0T0:0&to=0-0-0",
            ),
            (
                "https://example.com/archive?d=2031-07",
                "https://example.com/archive?d=0-0",
            ),
            ("https://example.com/2031/07/", "https://example.com/0/0/"),
            (
                "https://example.com/events/2031/7/1",
                "https://example.com/events/0/0/0",
            ),
            (
                "https://example.com/news/2031/0701/",
                "https://example.com/news/0/0/",
            ),
            (
                "https://example.com/archive/2031-07/index.html",
                "https://example.com/archive/0-0/index.html",
            ),
            (
                "http://example.com:8080/day/2031-07-01#top",
                "http://example.com:8080/day/0-0-0",
            ),
        ];
        for (url, shape) in cases {
            assert_eq!(calendar_shape(&u(url)).as_deref(), Some(shape), "{url}");
        }
        // next month has the same shape
        assert_eq!(
            calendar_shape(&u("https://example.com/events?month=8&year=2031")),
            calendar_shape(&u("https://example.com/events?month=12&year=2032")),
        );
    }

    #[test]
    fn ordinary_urls_have_no_calendar_shape() {
        for s in [
            "https://example.com/",
            "https://example.com/item/123",
            "https://example.com/news?id=456",
            "https://example.com/news?id=20240701",
            "https://example.com/list?start=20",
            "https://example.com/list?from=40&to=60",
            "https://example.com/2024/my-post-title",
            "https://example.com/2024/05/my-post-title/",
            "https://example.com/2024/05/03/my-post-title",
            "https://example.com/archive/2024",
            "https://example.com/item/2024",
            "https://example.com/products/1999/13/",
            "https://example.com/v/2024/99",
            "https://example.com/search?q=calendar",
            "https://example.com/cal?year=24",
            "https://example.com/watch?time=abc",
            "https://example.com/download?version=2024.1",
        ] {
            assert_eq!(calendar_shape(&u(s)), None, "{s}");
        }
    }

    #[test]
    fn parameter_names_split() {
        assert_eq!(name_parts("startDate"), ["start", "date"]);
        assert_eq!(name_parts("tribe-bar-date"), ["tribe", "bar", "date"]);
        assert_eq!(name_parts("YM"), ["ym"]);
        assert_eq!(name_parts("event_month"), ["event", "month"]);
    }

    #[test]
    fn same_site_by_registrable_domain() {
        let same = [
            ("https://www.univ.edu.cn/", "http://jwc.univ.edu.cn/news"),
            ("https://example.com/", "https://www.example.com:8443/x"),
            ("https://a.b.example.co.uk/", "https://example.co.uk/"),
            ("https://EXAMPLE.com./", "https://example.com/"),
            ("http://127.0.0.1:8080/", "https://127.0.0.1/"),
            ("http://localhost:3000/", "http://localhost/"),
            ("http://[::1]/", "http://[::1]:81/"),
        ];
        for (a, b) in same {
            assert!(same_site(&u(a), &u(b)), "{a} {b}");
            assert!(same_site(&u(b), &u(a)), "{b} {a}");
        }
        let other = [
            ("https://a.github.io/", "https://b.github.io/"),
            ("https://univ.edu.cn/", "https://other.edu.cn/"),
            ("https://example.com/", "https://example.org/"),
            ("https://example.co.uk/", "https://other.co.uk/"),
            ("http://127.0.0.1/", "http://127.0.0.2/"),
            ("http://localhost/", "http://intranet/"),
            ("https://github.io/", "https://a.github.io/"),
        ];
        for (a, b) in other {
            assert!(!same_site(&u(a), &u(b)), "{a} {b}");
            assert!(!same_site(&u(b), &u(a)), "{b} {a}");
        }
    }
}
