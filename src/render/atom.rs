//! Atom 1.0 (RFC 4287), written with the `atom_syndication` crate.
//!
//! Feed: `<title>` = the feed title, `<id>` = `urn:sitefeed:<watch id>`, `<updated>` =
//! `updated` (RFC 3339), `<author>` = the feed title with the watched page as `<uri>`,
//! `<generator>`, `<link rel="self" type="application/atom+xml">` =
//! `<base_url>/feed/<id>.atom<key_query>`, `<link rel="alternate" type="text/html">` = the
//! watched page.
//!
//! Each [`Item`] becomes an `<entry>`: `title` → `<title>` (type text),
//! `link` → `<link rel="alternate">`, `id` → `<id>urn:sitefeed:<watch id>:<item id></id>`
//! (unique per feed, stable across renders), `first_seen` → `<published>` and `<updated>`.
//!
//! Escaping: `atom_syndication` writes text constructs of type text or html with quick-xml's
//! `escape` (`& < > " '`), attributes escaped too, and never uses CDATA. Only type xhtml is
//! written verbatim, and it is not used here.

use atom_syndication::{Entry, Feed, Generator, Link, Person, Text, WriteConfig};

use super::{fixed, into_string, item_title, sanitize, FeedView, GENERATOR};
use crate::model::Item;

/// Renders `view` as an Atom 1.0 document (UTF-8, indented by two spaces).
pub fn atom(view: &FeedView) -> String {
    let page = sanitize(&view.watch.url);
    let watch_id = sanitize(view.watch.id.as_str());
    let title = view.feed_title();
    let feed = Feed {
        title: Text::plain(title.clone()),
        id: format!("urn:sitefeed:{watch_id}"),
        updated: fixed(view.updated),
        authors: vec![Person {
            name: title,
            uri: Some(page.clone()),
            ..Person::default()
        }],
        generator: Some(Generator {
            value: GENERATOR.to_owned(),
            ..Generator::default()
        }),
        links: vec![
            link(view.self_url("atom"), "self", "application/atom+xml"),
            link(page, "alternate", "text/html"),
        ],
        entries: view.items.iter().map(|i| entry(i, &watch_id)).collect(),
        icon: view.icon.map(sanitize),
        ..Feed::default()
    };
    let config = WriteConfig {
        write_document_declaration: true,
        indent_size: Some(2),
    };
    into_string(feed.write_with_config(Vec::new(), config))
}

/// One `<entry>`.
fn entry(item: &Item, watch_id: &str) -> Entry {
    let seen = fixed(item.first_seen);
    Entry {
        title: Text::plain(item_title(item)),
        id: format!("urn:sitefeed:{watch_id}:{}", sanitize(&item.id)),
        updated: seen,
        published: Some(seen),
        links: vec![Link {
            href: sanitize(&item.link),
            rel: "alternate".to_owned(),
            ..Link::default()
        }],
        ..Entry::default()
    }
}

/// A `<link>` with a relation and a media type.
fn link(href: String, rel: &str, mime_type: &str) -> Link {
    Link {
        href,
        rel: rel.to_owned(),
        mime_type: Some(mime_type.to_owned()),
        ..Link::default()
    }
}
