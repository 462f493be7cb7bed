//! Sanitizing the HTML we serve, with `ammonia`: only a list of harmless elements and
//! attributes is kept; `script`, `style` and their contents go; no event handlers, no
//! inline styles; URLs other than `http`, `https` and `mailto` (`javascript:`, `data:`)
//! are dropped; relative URLs are made absolute against the page they came from.
//!
//! Also the plain-text-to-HTML step of a summary ([`text_to_html`]), so that every HTML
//! field of a feed comes out of this module. Uses `ammonia` and `url` only.

use std::collections::HashSet;
use std::sync::LazyLock;

use ammonia::{Builder, UrlRelative};
use url::Url;

/// The sanitizer for fragments of `base` (its relative URLs resolved against `base`).
fn builder(base: Option<Url>) -> Builder<'static> {
    static SCHEMES: LazyLock<HashSet<&'static str>> =
        LazyLock::new(|| HashSet::from(["http", "https", "mailto"]));
    let mut b = Builder::default();
    b.url_schemes(SCHEMES.clone())
        .link_rel(Some("noopener noreferrer nofollow"))
        .strip_comments(true);
    b.url_relative(match base {
        Some(u) => UrlRelative::RewriteWithBase(u),
        None => UrlRelative::Deny,
    });
    b
}

/// `html` sanitized, relative URLs resolved against `base` (dropped when there is no
/// usable base).
pub fn clean_html(html: &str, base: &str) -> String {
    let base = Url::parse(base)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https"));
    builder(base).clean(html).to_string()
}

/// Plain text as HTML: `& < > " '` escaped, nothing else.
pub fn text_to_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_handlers_and_bad_urls_go_relative_urls_become_absolute() {
        let dirty = r#"<p onclick="steal()">Hello <b>world</b><script>alert(1)</script>
            <a href="javascript:alert(2)">js</a> <a href="/story/1" onmouseover="x()">rel</a>
            <img src="data:image/png;base64,AAAA" onerror="x()"><img src="pic.jpg">
            <style>p{}</style><iframe src="https://evil.example/"></iframe></p>"#;
        let clean = clean_html(dirty, "https://example.org/news/");
        for bad in [
            "script",
            "alert",
            "onclick",
            "onmouseover",
            "onerror",
            "javascript:",
            "data:",
            "iframe",
            "<style",
        ] {
            assert!(!clean.contains(bad), "{bad} left in {clean}");
        }
        assert!(clean.contains("Hello <b>world</b>"), "{clean}");
        assert!(
            clean.contains(r#"href="https://example.org/story/1""#),
            "{clean}"
        );
        assert!(
            clean.contains(r#"src="https://example.org/news/pic.jpg""#),
            "{clean}"
        );
    }

    #[test]
    fn without_a_base_relative_urls_are_dropped() {
        let clean = clean_html(r#"<a href="/x">x</a>"#, "not a url");
        assert!(!clean.contains("href"), "{clean}");
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(
            text_to_html(r#"<b>"a" & 'b'</b>"#),
            "&lt;b&gt;&quot;a&quot; &amp; &#39;b&#39;&lt;/b&gt;"
        );
    }
}
