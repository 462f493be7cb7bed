//! The structural pass: one lol_html pass that records, for every `<a href>` and
//! `<area href>` in document order, where it stands in the page: the chain of open
//! elements above it (each with a per-document instance id and a signature, tag plus
//! class names), whether it sits in a heading or in a chrome region, and whether it has
//! visible text of its own. [`contexts`] then pairs these records with the links the
//! extractor kept, so the extractor stays the only authority on what a link is.
//!
//! lol_html builds no tree, so the element stack is kept here: every element that can
//! have content is pushed, and its end-tag handler pops the stack down to it (an end tag
//! that closes several elements runs the handlers of all of them). Elements a browser
//! closes implicitly (`<li>` before `<li>`, `<td>` before `<td>`, `<p>` before a block)
//! are popped when the next one opens, so that the items of a list stay siblings.

use std::cell::RefCell;
use std::rc::Rc;

use lol_html::html_content::{Element, TextChunk, TextType};
use lol_html::{element, text, HtmlRewriter, Settings};
use url::Url;

use crate::extract;
use crate::model::Link;

/// Where one link stands in its page.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Context {
    /// Instance ids of the elements from the root down to the link itself (unique within
    /// one page; an element's descendants are contiguous in document order).
    pub path: Vec<u32>,
    /// Hash of the signatures (tag and digit-free class names) of the same chain: links
    /// with equal roles play the same part in repeated page structure.
    pub role: u64,
    /// Inside `nav`, `header`, `footer`, `aside` or an element with a landmark role of
    /// navigation, banner, contentinfo or complementary.
    pub chrome: bool,
    /// Inside (or containing) a heading `h1`..`h6`.
    pub heading: bool,
    /// Has text of its own (not only an image's `alt` or an `aria-label`).
    pub has_text: bool,
}

struct Frame {
    id: u32,
    tag: String,
    sig: u64,
    chrome: bool,
    heading: bool,
}

struct Anchor {
    href: String,
    ctx: Context,
}

#[derive(Default)]
struct State {
    stack: Vec<Frame>,
    next_id: u32,
    anchors: Vec<Anchor>,
    /// Index in `anchors` of the open `<a>`.
    open: Option<(u32, usize)>,
    base: Option<String>,
}

const BLOCKS: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "div",
    "dl",
    "fieldset",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hr",
    "main",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "table",
    "ul",
];

fn fnv(seed: u64, bytes: &[u8]) -> u64 {
    let mut h = seed;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

const FNV_SEED: u64 = 0xcbf2_9ce4_8422_2325;

/// Signature of an element: its tag and its first class name without digits. Only the
/// first: variants (`card card--unavailable`, `item item--hot`) add modifier classes after
/// the base one, and entries of one list must keep one role; names with digits
/// (`post-1234`) are per item.
fn signature(tag: &str, class: Option<&str>) -> u64 {
    let first = class
        .unwrap_or("")
        .split_ascii_whitespace()
        .find(|c| !c.bytes().any(|b| b.is_ascii_digit()));
    let h = fnv(FNV_SEED, tag.as_bytes());
    match first {
        Some(c) => fnv(fnv(h, b"."), c.as_bytes()),
        None => h,
    }
}

impl State {
    /// Pops the stack down to (and including) the element `id`, if it is open.
    fn close(&mut self, id: u32) {
        if let Some(pos) = self.stack.iter().rposition(|f| f.id == id) {
            self.stack.truncate(pos);
        }
        if self.open.is_some_and(|(a, _)| a == id) {
            self.open = None;
        }
    }

    /// Pops an open `tag` (one of `tags`) unless one of `barriers` is open above it: the
    /// implicit end tags of HTML.
    fn close_implicit(&mut self, tags: &[&str], barriers: &[&str]) {
        for i in (0..self.stack.len()).rev() {
            let t = self.stack[i].tag.as_str();
            if tags.contains(&t) {
                let id = self.stack[i].id;
                self.close(id);
                return;
            }
            if barriers.contains(&t) {
                return;
            }
        }
    }

    fn on_element(&mut self, el: &mut Element<'_, '_>) -> Option<u32> {
        let tag = el.tag_name();
        match tag.as_str() {
            "li" => self.close_implicit(&["li"], &["ul", "ol", "menu"]),
            "dt" | "dd" => self.close_implicit(&["dt", "dd"], &["dl"]),
            "tr" => self.close_implicit(&["tr"], &["table", "thead", "tbody", "tfoot"]),
            "td" | "th" => self.close_implicit(&["td", "th"], &["tr", "table"]),
            "option" => self.close_implicit(&["option"], &["select", "datalist"]),
            "a" => self.close_implicit(&["a"], &[]),
            t if BLOCKS.contains(&t) => {
                self.close_implicit(&["p"], &["div", "td", "li", "section", "article"]);
            }
            _ => {}
        }
        let parent = self.stack.last();
        let role = el.get_attribute("role").unwrap_or_default();
        let chrome = parent.is_some_and(|p| p.chrome)
            || matches!(tag.as_str(), "nav" | "header" | "footer" | "aside")
            || matches!(
                role.as_str(),
                "navigation" | "banner" | "contentinfo" | "complementary"
            );
        let heading = parent.is_some_and(|p| p.heading)
            || matches!(tag.as_str(), "h1" | "h2" | "h3" | "h4" | "h5" | "h6");
        if heading {
            // A heading inside a link makes the link a heading link.
            if let Some((_, i)) = self.open {
                self.anchors[i].ctx.heading = true;
            }
        }
        let sig = signature(&tag, el.get_attribute("class").as_deref());
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1);
        let can_close = el.end_tag_handlers().is_some();
        let frame = Frame {
            id,
            tag,
            sig,
            chrome,
            heading,
        };
        if frame.tag == "base" && self.base.is_none() {
            self.base = el.get_attribute("href");
        }
        let is_link = matches!(frame.tag.as_str(), "a" | "area");
        self.stack.push(frame);
        if is_link {
            if let Some(href) = el.get_attribute("href") {
                let path: Vec<u32> = self.stack.iter().map(|f| f.id).collect();
                let role = self
                    .stack
                    .iter()
                    .fold(FNV_SEED, |h, f| fnv(h, &f.sig.to_le_bytes()));
                let ctx = Context {
                    path,
                    role,
                    chrome,
                    heading,
                    has_text: false,
                };
                self.anchors.push(Anchor { href, ctx });
                if can_close && self.stack.last().is_some_and(|f| f.tag == "a") {
                    self.open = Some((id, self.anchors.len() - 1));
                }
            }
        }
        if can_close {
            Some(id)
        } else {
            self.stack.pop();
            None
        }
    }

    fn on_text(&mut self, t: &TextChunk<'_>) {
        if t.text_type() != TextType::Data {
            return;
        }
        if let Some((_, i)) = self.open {
            if !t.as_str().trim().is_empty() {
                self.anchors[i].ctx.has_text = true;
            }
        }
    }
}

/// How far ahead of the last paired anchor [`contexts`] looks for the next link.
const LOOK_AHEAD: usize = 64;

/// Decodes the character references that occur in real hrefs (`&amp;` above all).
fn decode_href(h: &str) -> String {
    if !h.contains('&') {
        return h.to_owned();
    }
    h.replace("&amp;", "&")
        .replace("&#38;", "&")
        .replace("&#x26;", "&")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
}

/// The context of each of `links` (the extractor's links of the same `html`), `None`
/// where a link could not be paired with an element (then it is treated as standing
/// alone). Never fails: a page the pass cannot read gives all `None`.
pub fn contexts(html: &str, page_url: &Url, links: &[Link]) -> Vec<Option<Context>> {
    let state = Rc::new(RefCell::new(State::default()));
    let (s1, s2) = (Rc::clone(&state), Rc::clone(&state));
    let settings = Settings {
        element_content_handlers: vec![
            element!("*", move |el| {
                let id = s1.borrow_mut().on_element(el);
                if let (Some(id), Some(handlers)) = (id, el.end_tag_handlers()) {
                    let s = Rc::clone(&s1);
                    handlers.push(Box::new(move |_end| {
                        s.borrow_mut().close(id);
                        Ok(())
                    }));
                }
                Ok(())
            }),
            text!("a", move |t| {
                s2.borrow_mut().on_text(t);
                Ok(())
            }),
        ],
        strict: false,
        ..Settings::new()
    };
    let mut rewriter = HtmlRewriter::new(settings, |_: &[u8]| {});
    if rewriter
        .write(html.as_bytes())
        .and_then(|()| rewriter.end())
        .is_err()
    {
        return vec![None; links.len()];
    }
    let st = std::mem::take(&mut *state.borrow_mut());
    let base = st
        .base
        .as_deref()
        .and_then(|b| page_url.join(decode_href(b).trim()).ok())
        .filter(|b| matches!(b.scheme(), "http" | "https"));
    let base = base.as_ref().unwrap_or(page_url);
    let resolved: Vec<Option<String>> = st
        .anchors
        .iter()
        .map(|a| {
            let h = decode_href(&a.href);
            let h = h.trim_matches(|c: char| c.is_ascii_whitespace() || c.is_ascii_control());
            base.join(h)
                .ok()
                .and_then(|u| extract::url::normalize(&u))
                .map(String::from)
        })
        .collect();
    // Pair in order: the extractor keeps a subsequence of the anchors (it drops hidden,
    // empty and non-http ones), so a greedy forward match with a look-ahead finds them.
    let mut anchors: Vec<Option<Context>> = st.anchors.into_iter().map(|a| Some(a.ctx)).collect();
    let mut cursor = 0;
    links
        .iter()
        .map(|l| {
            let end = (cursor + LOOK_AHEAD).min(resolved.len());
            let hit = (cursor..end).find(|&q| resolved[q].as_deref() == Some(l.url.as_str()))?;
            cursor = hit + 1;
            anchors[hit].take()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(html: &str) -> (Vec<Link>, Vec<Option<Context>>) {
        let base = Url::parse("https://example.com/").unwrap();
        let links = extract::extract(html, &base, None).unwrap().links;
        let c = contexts(html, &base, &links);
        (links, c)
    }

    #[test]
    fn roles_paths_and_regions() {
        let (links, c) = ctx(
            "<nav><a href=/home>Home</a></nav><ul><li><a href=/1 class=t>One</a><li><a href=/2 class=t>Two</a></ul>\
             <h2><a href=/h>Head</a></h2><a href=/img><img alt=pic></a><a href='/q?a=1&amp;b=2'>q</a>",
        );
        assert_eq!(links.len(), 6);
        let c: Vec<Context> = c.into_iter().map(Option::unwrap).collect();
        assert!(c[0].chrome && !c[1].chrome);
        // the two list items are siblings with the same role
        assert_eq!(c[1].role, c[2].role);
        assert_eq!(c[1].path.len(), c[2].path.len());
        assert_ne!(
            c[1].path[c[1].path.len() - 2],
            c[2].path[c[2].path.len() - 2]
        );
        assert!(c[3].heading && !c[1].heading);
        assert!(!c[4].has_text && c[3].has_text);
        assert!(c[5].has_text);
    }
}
