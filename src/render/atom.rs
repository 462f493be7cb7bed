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
//! (unique per feed, stable across renders), the stated date else `first_seen` →
//! `<published>`, the edit else `first_seen` → `<updated>`, `summary` → `<summary>`
//! (text), `content` → `<content type="html">` (sanitized), `author` → `<author>`,
//! `image` → `<media:thumbnail url>`.
//!
//! Escaping: `atom_syndication` writes text constructs of type text or html with quick-xml's
//! `escape` (`& < > " '`), attributes escaped too, and never uses CDATA. Only type xhtml is
//! written verbatim, and it is not used here (a full text is type html: escaped).

use std::collections::BTreeMap;

use atom_syndication::extension::{Extension, ExtensionMap};
use atom_syndication::{Content, Entry, Feed, Generator, Link, Person, Text, WriteConfig};

use super::{
    content_html, fixed, image, into_string, item_title, opt_text, published, sanitize, updated,
    FeedView, GENERATOR, MEDIA_NS,
};
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
        namespaces: if view.items.iter().any(|i| image(i).is_some()) {
            BTreeMap::from([("media".to_owned(), MEDIA_NS.to_owned())])
        } else {
            BTreeMap::new()
        },
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
    Entry {
        title: Text::plain(item_title(item)),
        id: format!("urn:sitefeed:{watch_id}:{}", sanitize(&item.id)),
        updated: fixed(updated(item)),
        published: Some(fixed(published(item))),
        links: vec![Link {
            href: sanitize(&item.link),
            rel: "alternate".to_owned(),
            ..Link::default()
        }],
        summary: opt_text(item.summary.as_deref()).map(Text::plain),
        content: content_html(item).map(|html| Content {
            value: Some(html),
            content_type: Some("html".to_owned()),
            ..Content::default()
        }),
        authors: opt_text(item.author.as_deref())
            .map(|name| Person {
                name,
                ..Person::default()
            })
            .into_iter()
            .collect(),
        extensions: image(item).map(|u| thumbnail(&u)).unwrap_or_default(),
        ..Entry::default()
    }
}

/// `<media:thumbnail url="<url>"/>` as an entry extension.
fn thumbnail(url: &str) -> ExtensionMap {
    let t = Extension {
        name: "media:thumbnail".to_owned(),
        value: None,
        // (atom_syndication writes extension attributes verbatim: escaped here)
        attrs: BTreeMap::from([(
            "url".to_owned(),
            quick_xml::escape::escape(url).into_owned(),
        )]),
        children: BTreeMap::new(),
    };
    BTreeMap::from([(
        "media".to_owned(),
        BTreeMap::from([("thumbnail".to_owned(), vec![t])]),
    )])
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
