//! OPML 2.0 (<http://opml.org/spec2.opml>): the list of all feeds out, a list of pages in.
//!
//! Export writes one `<outline type="rss">` per watch: `text` and `title` = its display
//! title, `xmlUrl` = its RSS feed (`<base_url>/feed/<id>.xml<key_query>`), `htmlUrl` = the
//! watched page, `category` = its tags (`/news,/uni`); a tagged watch stands in a folder
//! (an outline without URLs) named by its first tag, as readers file feeds. Import reads
//! every `<outline>` inside `<body>`, at any depth, and takes its `htmlUrl`, else its
//! `xmlUrl`; outlines with neither (folders, separators) are not pages, but their names
//! become the tags of the pages inside them, with those of `category`.
//! A watch that does not read its page plainly carries `render="browser"` (or `"auto"`),
//! read back on import; one whose items carry the full article, `content="full"`.

use std::fmt::Write as _;

use quick_xml::escape::escape;
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

use super::{feed_url, non_blank_or, sanitize};
use crate::model::Watch;

/// One page found in an OPML document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpmlEntry {
    /// The outline's `htmlUrl`, else its `xmlUrl`, trimmed; never empty. Not checked to be
    /// a valid URL: the caller normalizes it and rejects what is not.
    pub url: String,
    /// The outline's `title`, else its `text`, trimmed; `None` when both are missing or blank.
    pub title: Option<String>,
    /// The names of the folders it stands in, outermost first, then its `category`
    /// entries (the last segment of each), as written.
    pub tags: Vec<String>,
    /// The outline's `render` (plain, browser, auto), trimmed; not checked here.
    pub render: Option<String>,
    /// The outline's `content` (summary, full), trimmed; not checked here.
    pub content: Option<String>,
}

/// Why an OPML document was rejected. Each message says what is wrong and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OpmlError {
    #[error("not an OPML file: it is empty or has no root element; expected an OPML 2.0 document starting with <opml>")]
    NoRoot,
    #[error("not an OPML file: it is not XML (text outside any element at line {line}, column {column}); expected an OPML 2.0 document starting with <opml>")]
    NotXml { line: usize, column: usize },
    #[error("not an OPML file: the root element is <{found}>, expected <opml>")]
    NotOpml { found: String },
    #[error("malformed OPML: not well-formed XML at line {line}, column {column}: {message}")]
    Xml {
        line: usize,
        column: usize,
        message: String,
    },
    #[error("malformed OPML: the file ends before <{open}> is closed (line {line}, column {column}); is it truncated?")]
    Truncated {
        open: String,
        line: usize,
        column: usize,
    },
    #[error("malformed OPML: <opml> has no <body>; the feeds of an OPML file are the <outline> elements inside <body>")]
    NoBody,
}

/// Renders all watches as an OPML 2.0 document, one outline per watch, in the order given.
/// Each pair is a watch and its display title (blank → the watched URL).
pub fn opml_export(watches: &[(Watch, String)], base_url: &str, key_query: &str) -> String {
    let mut out = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <opml version=\"2.0\">\n  \
           <head>\n    \
             <title>sitefeed</title>\n    \
             <docs>http://opml.org/spec2.opml</docs>\n  \
           </head>\n  \
           <body>\n",
    );
    // Untagged watches first, then one folder per first tag, in tag order.
    let mut order: Vec<&(Watch, String)> = watches.iter().collect();
    order.sort_by(|a, b| a.0.options.tags.first().cmp(&b.0.options.tags.first()));
    let mut folder: Option<&str> = None;
    for (watch, title) in order {
        let first = watch.options.tags.first().map(String::as_str);
        if first != folder {
            if folder.is_some() {
                out.push_str("    </outline>\n");
            }
            if let Some(f) = first {
                let f = attr(&sanitize(f));
                let _ = writeln!(out, "    <outline text=\"{f}\" title=\"{f}\">");
            }
            folder = first;
        }
        let indent = if folder.is_some() { "      " } else { "    " };
        let title = attr(&non_blank_or(title, &watch.url));
        let xml_url = attr(&feed_url(base_url, &watch.id, "xml", key_query));
        let html_url = attr(&sanitize(&watch.url));
        let category = if watch.options.tags.is_empty() {
            String::new()
        } else {
            let c: Vec<String> = watch.options.tags.iter().map(|t| format!("/{t}")).collect();
            format!(" category=\"{}\"", attr(&sanitize(&c.join(","))))
        };
        let render = if watch.render.is_plain() {
            String::new()
        } else {
            format!(" render=\"{}\"", watch.render.as_str())
        };
        let content = if watch.options.content.is_summary() {
            String::new()
        } else {
            format!(" content=\"{}\"", watch.options.content.as_str())
        };
        // Writing into a String cannot fail.
        let _ = writeln!(
            out,
            "{indent}<outline type=\"rss\" text=\"{title}\" title=\"{title}\" xmlUrl=\"{xml_url}\" htmlUrl=\"{html_url}\"{category}{render}{content}/>"
        );
    }
    if folder.is_some() {
        out.push_str("    </outline>\n");
    }
    out.push_str("  </body>\n</opml>\n");
    out
}

/// `s` (already sanitized) escaped for a double-quoted attribute value. Tab, line feed and
/// carriage return are written as character references so that attribute-value
/// normalization does not turn them into spaces.
fn attr(s: &str) -> String {
    escape(s)
        .replace('\t', "&#9;")
        .replace('\n', "&#10;")
        .replace('\r', "&#13;")
}

/// Reads the pages listed in an OPML document: every `<outline>` inside `<body>`, nested
/// ones included, in document order, with its `htmlUrl` or else its `xmlUrl` (attribute
/// names matched case-insensitively). Outlines with neither are skipped. Duplicates are
/// kept. A document that is not well-formed XML, not OPML, has no `<body>` or is truncated
/// yields an error and no entries.
pub fn opml_parse(text: &str) -> Result<Vec<OpmlEntry>, OpmlError> {
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let mut reader = Reader::from_str(text);
    let at = |offset: u64| position(text, offset);
    let xml_error = |offset: u64, message: String| {
        let (line, column) = at(offset);
        OpmlError::Xml {
            line,
            column,
            message,
        }
    };

    let mut open: Vec<String> = Vec::new();
    // Per open element: the folder name it gives the outlines inside it.
    let mut folders: Vec<Option<String>> = Vec::new();
    let mut seen_root = false;
    let mut seen_body = false;
    let mut entries = Vec::new();
    loop {
        let start = reader.buffer_position();
        let event = reader
            .read_event()
            .map_err(|e| xml_error(reader.error_position(), e.to_string()))?;
        match event {
            Event::Start(ref e) | Event::Empty(ref e) => {
                let name = String::from_utf8_lossy(e.local_name().as_ref()).into_owned();
                if open.is_empty() {
                    if seen_root {
                        return Err(xml_error(
                            start,
                            format!("a second root element <{name}> after </opml>"),
                        ));
                    }
                    if name != "opml" {
                        return Err(OpmlError::NotOpml { found: name });
                    }
                    seen_root = true;
                }
                let in_body = open.len() >= 2 && open[1] == "body";
                if open.len() == 1 && name == "body" {
                    seen_body = true;
                }
                let (outline, label) = read_attrs(e).map_err(|m| xml_error(start, m))?;
                let is_outline = in_body && name == "outline";
                let mut folder = None;
                if is_outline {
                    match outline {
                        Some(mut o) => {
                            let mut tags: Vec<String> = folders.iter().flatten().cloned().collect();
                            tags.append(&mut o.tags);
                            o.tags = tags;
                            entries.push(o);
                        }
                        None => folder = label,
                    }
                }
                if matches!(event, Event::Start(_)) {
                    open.push(name);
                    folders.push(folder);
                }
            }
            Event::End(_) => {
                open.pop();
                folders.pop();
            }
            Event::Text(ref t) => {
                let content = t.unescape().map_err(|e| xml_error(start, e.to_string()))?;
                if open.is_empty() {
                    if let Some(skip) = content.find(|c: char| !c.is_whitespace()) {
                        let (line, column) = at(start + skip as u64);
                        return Err(OpmlError::NotXml { line, column });
                    }
                }
            }
            Event::CData(_) if open.is_empty() => {
                let (line, column) = at(start);
                return Err(OpmlError::NotXml { line, column });
            }
            Event::Eof => break,
            Event::CData(_)
            | Event::Comment(_)
            | Event::Decl(_)
            | Event::PI(_)
            | Event::DocType(_) => {}
        }
    }
    if let Some(open) = open.pop() {
        let (line, column) = at(text.len() as u64);
        return Err(OpmlError::Truncated { open, line, column });
    }
    if !seen_root {
        return Err(OpmlError::NoRoot);
    }
    if !seen_body {
        return Err(OpmlError::NoBody);
    }
    Ok(entries)
}

/// Checks every attribute of `element` and, when it names a page (`htmlUrl` or `xmlUrl`),
/// returns it as an entry; also its label (`title`, else `text`), the name of a folder.
/// The error is a message for [`OpmlError::Xml`].
fn read_attrs(element: &BytesStart) -> Result<(Option<OpmlEntry>, Option<String>), String> {
    let (mut html_url, mut xml_url, mut title, mut text, mut category, mut render) =
        (None, None, None, None, None, None);
    let mut content = None;
    for attribute in element.attributes() {
        let attribute = attribute.map_err(|e| e.to_string())?;
        let value = attribute.unescape_value().map_err(|e| e.to_string())?;
        let key = attribute.key.local_name();
        let slot = match key.as_ref().to_ascii_lowercase().as_slice() {
            b"htmlurl" => &mut html_url,
            b"xmlurl" => &mut xml_url,
            b"title" => &mut title,
            b"text" => &mut text,
            b"category" => &mut category,
            b"render" => &mut render,
            b"content" => &mut content,
            _ => continue,
        };
        let value = value.trim();
        if !value.is_empty() && slot.is_none() {
            *slot = Some(value.to_owned());
        }
    }
    let label = title.or(text);
    let tags: Vec<String> = category
        .as_deref()
        .unwrap_or("")
        .split(',')
        .filter_map(|c| c.trim().trim_matches('/').rsplit('/').next())
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(str::to_owned)
        .collect();
    Ok((
        html_url.or(xml_url).map(|url| OpmlEntry {
            url,
            title: label.clone(),
            tags,
            render,
            content,
        }),
        label,
    ))
}

/// 1-based line and column (in characters) of byte `offset` in `text`.
fn position(text: &str, offset: u64) -> (usize, usize) {
    let mut end = usize::try_from(offset)
        .unwrap_or(usize::MAX)
        .min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let before = &text[..end];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}
