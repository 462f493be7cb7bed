//! Rendering of watches and their items as feeds: RSS 2.0, Atom 1.0, JSON Feed 1.1, and
//! OPML 2.0 lists of feeds (export and import).
//!
//! Every function here is pure: it takes data and returns text. The output is valid XML or
//! JSON whatever the watched page contained: every text taken from a page or a user goes
//! through [`sanitize`] (which drops the characters XML 1.0 forbids) and is then escaped by
//! the writer (`&`, `<`, `>`, `"`, `'` become entity references; nothing is written as
//! CDATA, so a `]]>` in a title is harmless).
//!
//! # How an [`Item`] maps into each format
//!
//! | `Item` field | RSS 2.0 (`<item>`) | Atom 1.0 (`<entry>`) | JSON Feed 1.1 (`items[]`) |
//! |---|---|---|---|
//! | `title` | `<title>` | `<title>` (plain text) | `title` |
//! | `link` | `<link>` | `<link rel="alternate" href>` | `url`, also `content_text` (JSON Feed requires a content) |
//! | `id` | `<guid isPermaLink="false">` | `<id>urn:sitefeed:<watch id>:<item id></id>` | `id` |
//! | `published`, else `first_seen` | `<pubDate>` (RFC 822) | `<published>` (RFC 3339) | `date_published` (RFC 3339) |
//! | `updated`, else `first_seen` | (none) | `<updated>` | `date_modified` (only when edited) |
//! | `summary` (plain text) | `<description>` (as escaped HTML) | `<summary>` (text) | `summary`, and `content_text` when there is no full text |
//! | `content` (HTML) | `<content:encoded>` | `<content type="html">` | `content_html` |
//! | `image` | `<media:thumbnail url>` | `<media:thumbnail url>` | `image` |
//! | `author` | `<dc:creator>` | `<author><name>` | `authors[].name` |
//!
//! Items keep their order (newest first seen first) whatever dates they state. HTML
//! fields come out of [`clean`]: a full text is sanitized again on every render (stored
//! items of any age are safe), a summary is plain text escaped as HTML.
//!
//! A title that is empty after sanitizing (and trimming) is replaced by the item's link, so
//! no reader shows an untitled entry.
//!
//! The feed itself maps [`FeedView`] this way: `title` → channel/feed title; the watched
//! page (`watch.url`) → RSS `<link>`, Atom `rel="alternate"`, JSON `home_page_url`; the
//! feed's own URL (`base_url` + [`feed_path`] + `key_query`) → RSS `<atom:link rel="self">`,
//! Atom `rel="self"`, JSON `feed_url`; `updated` → RSS `<lastBuildDate>`, Atom `<updated>`;
//! `ttl_minutes` → RSS `<ttl>`; `icon` → RSS `<image>`, Atom `<icon>`, JSON `favicon`.
//!
//! May use: model.

mod atom;
mod clean;
mod json_feed;
mod opml;
mod rss;

#[cfg(test)]
mod content_tests;
#[cfg(test)]
mod tests;

use chrono::{DateTime, FixedOffset, Utc};

use crate::model::{Item, Watch, WatchId};

pub use self::atom::atom;
pub use self::clean::{clean_html, text_to_html};
pub use self::json_feed::json_feed;
pub use self::opml::{opml_export, opml_parse, OpmlEntry, OpmlError};
pub use self::rss::rss;

/// Name written as the generator of every feed.
const GENERATOR: &str = "sitefeed";

/// Everything needed to render one watch as a feed, in any format.
#[derive(Debug, Clone, Copy)]
pub struct FeedView<'a> {
    pub watch: &'a Watch,
    /// Feed title: the user's title, else the page's `<title>`, else the URL.
    pub title: &'a str,
    /// Newest first.
    pub items: &'a [Item],
    /// Absolute URL of this server, no trailing slash, e.g. "http://127.0.0.1:8080".
    pub base_url: &'a str,
    /// Query suffix appended to every self/feed URL, e.g. "" or "?key=abc".
    pub key_query: &'a str,
    /// Unix seconds: when the feed content last changed (the newest item's first_seen, or
    /// the watch's creation).
    pub updated: i64,
    /// Minutes for RSS `<ttl>`, from the watch's check interval.
    pub ttl_minutes: Option<u32>,
    /// Absolute URL of the site's icon, when known: RSS `<image>`, Atom `<icon>`, JSON
    /// Feed `favicon`.
    pub icon: Option<&'a str>,
    /// The feed's own path without extension when it is not the watch's
    /// (`/feed/tag/news` for a tag's feed); `None`: [`feed_path`] of the watch.
    pub self_path: Option<&'a str>,
}

impl FeedView<'_> {
    /// Absolute URL of this feed in the format with extension `ext` ("xml", "atom",
    /// "json"), key query included, sanitized.
    fn self_url(&self, ext: &str) -> String {
        match self.self_path {
            Some(p) => sanitize(&format!(
                "{}{p}.{ext}{}",
                self.base_url.trim_end_matches('/'),
                self.key_query
            )),
            None => feed_url(self.base_url, &self.watch.id, ext, self.key_query),
        }
    }

    /// The feed title, sanitized; the watched URL when the title is blank.
    fn feed_title(&self) -> String {
        non_blank_or(self.title, &self.watch.url)
    }
}

/// The path of a watch's feed in one format: `"/feed/<id>.<ext>"`.
pub(crate) fn feed_path(id: &WatchId, ext: &str) -> String {
    format!("/feed/{id}.{ext}")
}

/// Absolute feed URL: `<base_url>/feed/<id>.<ext><key_query>`, sanitized.
fn feed_url(base_url: &str, id: &WatchId, ext: &str, key_query: &str) -> String {
    sanitize(&format!(
        "{}{}{key_query}",
        base_url.trim_end_matches('/'),
        feed_path(id, ext)
    ))
}

/// Strong ETag of a rendered body: `"<hex md5>"`, quotes included.
pub fn etag(bytes: &[u8]) -> String {
    use md5::{Digest, Md5};
    format!("\"{}\"", crate::model::hex(&Md5::digest(bytes)))
}

/// Removes the characters XML 1.0 does not allow: C0 controls other than tab, line feed
/// and carriage return, and the non-characters U+FFFE and U+FFFF (lone surrogates cannot
/// occur in a Rust string); and also DEL and the C1 controls (U+007F–U+009F), which XML
/// 1.0 discourages and readers drop or show as boxes (sfeed strips them). Everything
/// else, including emoji and right-to-left text, is kept as is. Used on every text that
/// goes into a feed.
pub fn sanitize(s: &str) -> String {
    s.chars().filter(|&c| is_xml_char(c)).collect()
}

/// Whether `c` matches the `Char` production of XML 1.0 and is not a DEL or C1 control.
fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{7E}' | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

/// `s` sanitized, or `fallback` sanitized when `s` has nothing visible left.
fn non_blank_or(s: &str, fallback: &str) -> String {
    let clean = sanitize(s);
    if clean.trim().is_empty() {
        sanitize(fallback)
    } else {
        clean
    }
}

/// The title shown for an item: its title, or its link when the title is blank.
fn item_title(item: &Item) -> String {
    non_blank_or(&item.title, &item.link)
}

/// The date an item is published under: the date its entry states, else when a check
/// first saw it.
fn published(item: &Item) -> i64 {
    item.published.unwrap_or(item.first_seen)
}

/// When an item last changed: its edit, else when it was first seen.
fn updated(item: &Item) -> i64 {
    item.updated.unwrap_or(item.first_seen).max(published(item))
}

/// A non-blank optional text, sanitized.
fn opt_text(s: Option<&str>) -> Option<String> {
    s.map(sanitize).filter(|t| !t.trim().is_empty())
}

/// An item's full text as served: sanitized HTML with absolute URLs.
fn content_html(item: &Item) -> Option<String> {
    opt_text(item.content.as_deref())
        .map(|c| clean_html(&c, &item.link))
        .filter(|c| !c.trim().is_empty())
}

/// An item's image as served: an absolute http(s) URL.
fn image(item: &Item) -> Option<String> {
    opt_text(item.image.as_deref())
        .filter(|u| url::Url::parse(u).is_ok_and(|u| matches!(u.scheme(), "http" | "https")))
}

/// Namespace of `media:thumbnail` (Media RSS).
const MEDIA_NS: &str = "http://search.yahoo.com/mrss/";

/// Unix seconds as a UTC date; the epoch when out of chrono's range.
fn utc(secs: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(secs, 0).unwrap_or(DateTime::UNIX_EPOCH)
}

/// Unix seconds as a date with a `+00:00` offset, the type the Atom writer wants.
fn fixed(secs: i64) -> DateTime<FixedOffset> {
    utc(secs).fixed_offset()
}

/// Bytes written by a feed writer into memory, as a `String`.
///
/// The writers only fail on I/O errors, and writing into a `Vec<u8>` never fails; they
/// only write `&str` data, so the bytes are UTF-8. Neither failure can happen, so there is
/// no error to hand to callers.
fn into_string<E: std::fmt::Display>(written: Result<Vec<u8>, E>) -> String {
    match written {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(s) => s,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        },
        Err(e) => unreachable!("writing a feed into memory cannot fail: {e}"),
    }
}
