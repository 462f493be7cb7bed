//! RSS 2.0, written with the `rss` crate.
//!
//! Channel: `<title>` = the feed title, `<link>` = the watched page, `<description>` =
//! "Links newly added to `<page>`", `<lastBuildDate>` = `updated`, `<generator>`, `<docs>`,
//! `<ttl>` = `ttl_minutes` when known, `<image>` = `icon` when known (with the feed title
//! and the page as its title and link), `<atom:link rel="self" type="application/rss+xml">`
//! = `<base_url>/feed/<id>.xml<key_query>`.
//!
//! Each [`Item`](crate::model::Item) becomes an `<item>`: `title` → `<title>`, `link` →
//! `<link>`, `id` → `<guid isPermaLink="false">`, the stated date else `first_seen` →
//! `<pubDate>` (RFC 822, `+0000`), `summary` → `<description>` (escaped as HTML),
//! `content` → `<content:encoded>` (sanitized HTML), `author` → `<dc:creator>`, `image`
//! → `<media:thumbnail url>`.
//!
//! Escaping: the `rss` crate writes `<title>`, `<link>`, `<guid>` and every channel text as
//! escaped text (quick-xml's `escape`: `& < > " '`) and attributes escaped too; only an
//! item's `<description>` and `<content:encoded>` are written as CDATA (split at `]]>` by
//! quick-xml), and both hold HTML that went through [`super::clean`].

use std::collections::BTreeMap;

use ::rss::extension::dublincore::DublinCoreExtension;
use ::rss::extension::{Extension, ExtensionMap};
use ::rss::{Channel, Guid, Item as RssItem};

use super::{
    content_html, image, into_string, item_title, opt_text, published, sanitize, text_to_html, utc,
    FeedView, GENERATOR, MEDIA_NS,
};

/// Namespace of the `atom:link rel="self"` element.
const ATOM_NS: &str = "http://www.w3.org/2005/Atom";

/// Renders `view` as an RSS 2.0 document (UTF-8, indented by two spaces).
pub fn rss(view: &FeedView) -> String {
    let page = sanitize(&view.watch.url);
    let mut channel = Channel {
        title: view.feed_title(),
        link: page.clone(),
        description: format!("Links newly added to {page}"),
        last_build_date: Some(rfc822(view.updated)),
        generator: Some(GENERATOR.to_owned()),
        docs: Some("https://www.rssboard.org/rss-specification".to_owned()),
        ttl: view.ttl_minutes.map(|m| m.to_string()),
        items: view.items.iter().map(item).collect(),
        image: view.icon.map(|url| ::rss::Image {
            url: sanitize(url),
            title: view.feed_title(),
            link: page.clone(),
            ..::rss::Image::default()
        }),
        ..Channel::default()
    };
    channel
        .namespaces
        .insert("atom".to_owned(), ATOM_NS.to_owned());
    if view.items.iter().any(|i| image(i).is_some()) {
        channel
            .namespaces
            .insert("media".to_owned(), MEDIA_NS.to_owned());
    }
    channel.extensions = self_link(&view.self_url("xml"));
    into_string(channel.pretty_write_to(Vec::new(), b' ', 2))
}

/// One `<item>`.
fn item(item: &crate::model::Item) -> RssItem {
    RssItem {
        title: Some(item_title(item)),
        link: Some(sanitize(&item.link)),
        guid: Some(Guid {
            value: sanitize(&item.id),
            permalink: false,
        }),
        pub_date: Some(rfc822(published(item))),
        description: opt_text(item.summary.as_deref()).map(|s| text_to_html(&s)),
        content: content_html(item),
        dublin_core_ext: opt_text(item.author.as_deref()).map(|a| DublinCoreExtension {
            creators: vec![a],
            ..DublinCoreExtension::default()
        }),
        extensions: image(item).map(|u| thumbnail(&u)).unwrap_or_default(),
        ..RssItem::default()
    }
}

/// `<media:thumbnail url="<url>"/>` as an item extension.
fn thumbnail(url: &str) -> ExtensionMap {
    let t = Extension {
        name: "media:thumbnail".to_owned(),
        value: None,
        attrs: BTreeMap::from([("url".to_owned(), url.to_owned())]),
        children: BTreeMap::new(),
    };
    BTreeMap::from([(
        "media".to_owned(),
        BTreeMap::from([("thumbnail".to_owned(), vec![t])]),
    )])
}

/// `<atom:link href="<url>" rel="self" type="application/rss+xml"/>` as a channel extension.
fn self_link(url: &str) -> ExtensionMap {
    let link = Extension {
        name: "atom:link".to_owned(),
        // Some(""), not None: the writer then keeps the end tag on the same line.
        value: Some(String::new()),
        attrs: BTreeMap::from([
            ("href".to_owned(), url.to_owned()),
            ("rel".to_owned(), "self".to_owned()),
            ("type".to_owned(), "application/rss+xml".to_owned()),
        ]),
        children: BTreeMap::new(),
    };
    BTreeMap::from([(
        "atom".to_owned(),
        BTreeMap::from([("link".to_owned(), vec![link])]),
    )])
}

/// Unix seconds as an RFC 822 date, e.g. `Tue, 14 Nov 2023 22:13:20 +0000`.
fn rfc822(secs: i64) -> String {
    utc(secs).to_rfc2822()
}
