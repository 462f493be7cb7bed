//! JSON Feed 1.1 (<https://www.jsonfeed.org/version/1.1/>), written with serde_json.
//!
//! Feed: `version` = `https://jsonfeed.org/version/1.1`, `title` = the feed title,
//! `home_page_url` = the watched page, `feed_url` = `<base_url>/feed/<id>.json<key_query>`,
//! `description`.
//!
//! Each [`Item`] becomes an object of `items`: `id` → `id`, `link` →
//! `url` and `content_text` (the spec requires `content_text` or `content_html`, and the
//! page gives no other content), `title` → `title`, `first_seen` → `date_published`
//! (RFC 3339, UTC, `Z`).
//!
//! Strings go through [`sanitize`] like in the XML formats, so the three formats carry the
//! same text; serde_json escapes what JSON needs.

use chrono::SecondsFormat;
use serde::Serialize;

use super::{item_title, sanitize, utc, FeedView};
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
    content_text: String,
    date_published: String,
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
    JsonItem {
        id: sanitize(&item.id),
        url: link.clone(),
        title: item_title(item),
        content_text: link,
        date_published: utc(item.first_seen).to_rfc3339_opts(SecondsFormat::Secs, true),
    }
}
