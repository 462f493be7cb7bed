//! JSON Feed 1.1 (<https://www.jsonfeed.org/version/1.1/>), written with serde_json.
//!
//! Feed: `version` = `https://jsonfeed.org/version/1.1`, `title` = the feed title,
//! `home_page_url` = the watched page, `feed_url` = `<base_url>/feed/<id>.json<key_query>`,
//! `description`.
//!
//! Each [`Item`] becomes an object of `items`: `id` → `id`, `link` → `url`, `title` →
//! `title`, the stated date else `first_seen` → `date_published` (RFC 3339, UTC, `Z`),
//! an edit → `date_modified`, `summary` → `summary`, `content` → `content_html`
//! (sanitized), `image` → `image`, `author` → `authors`. The spec requires
//! `content_text` or `content_html`: without a full text, `content_text` is the summary,
//! else the link. Served as `application/feed+json`.
//!
//! Strings go through [`sanitize`] like in the XML formats, so the three formats carry the
//! same text; serde_json escapes what JSON needs.

use chrono::SecondsFormat;
use serde::Serialize;

use super::{content_html, image, item_title, opt_text, published, sanitize, utc, FeedView};
use crate::model::Item;

const VERSION: &str = "https://jsonfeed.org/version/1.1";

#[derive(Serialize)]
struct JsonFeed {
    version: &'static str,
    title: String,
    home_page_url: String,
    feed_url: String,
    description: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    favicon: Option<String>,
    items: Vec<JsonItem>,
}

#[derive(Serialize)]
struct JsonItem {
    id: String,
    url: String,
    title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    summary: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    content_html: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    content_text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    image: Option<String>,
    date_published: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    date_modified: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    authors: Vec<Author>,
}

#[derive(Serialize)]
struct Author {
    name: String,
}

/// Renders `view` as a JSON Feed 1.1 document (pretty-printed).
pub fn json_feed(view: &FeedView) -> String {
    let page = sanitize(&view.watch.url);
    let feed = JsonFeed {
        version: VERSION,
        title: view.feed_title(),
        description: format!("Links newly added to {page}"),
        home_page_url: page,
        feed_url: view.self_url("json"),
        favicon: view.icon.map(sanitize),
        items: view.items.iter().map(item).collect(),
    };
    match serde_json::to_string_pretty(&feed) {
        Ok(text) => text,
        // Serializing plain strings and vectors into memory cannot fail.
        Err(e) => unreachable!("serializing a JSON feed cannot fail: {e}"),
    }
}

/// One object of `items`.
fn item(item: &Item) -> JsonItem {
    let link = sanitize(&item.link);
    let summary = opt_text(item.summary.as_deref());
    let content_html = content_html(item);
    let date = |t: i64| utc(t).to_rfc3339_opts(SecondsFormat::Secs, true);
    JsonItem {
        id: sanitize(&item.id),
        title: item_title(item),
        content_text: content_html
            .is_none()
            .then(|| summary.clone().unwrap_or_else(|| link.clone())),
        url: link,
        summary,
        content_html,
        image: image(item),
        date_published: date(published(item)),
        date_modified: item.updated.map(date),
        authors: opt_text(item.author.as_deref())
            .map(|name| Author { name })
            .into_iter()
            .collect(),
    }
}
