//! Whether a plain page is an *application shell*: a page whose content a script builds,
//! so that only the browser sees its entries (`render = "auto"`).
//!
//! One streaming pass counts what matters: scripts, a `noscript` notice, the visible
//! text, and the links outside page chrome (`nav`, `header`, `footer`, `aside`) that an
//! entry could be. A page is a shell when it has scripts, no such link, and either a
//! `noscript` notice or next to no visible text (an empty root element).

use std::cell::RefCell;
use std::rc::Rc;

use lol_html::html_content::{Element, TextChunk};
use lol_html::{element, text, HtmlRewriter, Settings};

/// Visible characters under which a page with scripts counts as empty.
pub(crate) const EMPTY_TEXT_CHARS: usize = 200;

/// What one pass over a page counted.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Shape {
    pub scripts: usize,
    pub noscript: bool,
    /// Links outside page chrome, to something other than the page itself.
    pub content_links: usize,
    /// Non-whitespace characters of text outside scripts, styles, templates and
    /// `noscript`.
    pub visible_chars: usize,
}

impl Shape {
    pub(crate) fn is_app_shell(&self) -> bool {
        self.scripts > 0
            && self.content_links == 0
            && (self.noscript || self.visible_chars < EMPTY_TEXT_CHARS)
    }
}

#[derive(Debug, Default)]
struct State {
    shape: Shape,
    chrome: usize,
    hidden_text: usize,
    all_text: usize,
}

/// Counts the shape of `html` (any ASCII-compatible encoding does).
pub fn shape(html: &[u8]) -> Shape {
    let st = Rc::new(RefCell::new(State::default()));
    let (s1, s2, s3, s4, s5) = (st.clone(), st.clone(), st.clone(), st.clone(), st.clone());
    let settings = Settings {
        element_content_handlers: vec![
            element!("script", move |_el| {
                s1.borrow_mut().shape.scripts += 1;
                Ok(())
            }),
            element!("noscript", move |_el| {
                s2.borrow_mut().shape.noscript = true;
                Ok(())
            }),
            element!("nav, header, footer, aside", move |el: &mut Element<
                '_,
                '_,
            >| {
                s3.borrow_mut().chrome += 1;
                let st = s3.clone();
                if el.can_have_content() {
                    el.on_end_tag(Box::new(move |_| {
                        let mut s = st.borrow_mut();
                        s.chrome = s.chrome.saturating_sub(1);
                        Ok(())
                    }))?;
                }
                Ok(())
            }),
            element!("a[href]", move |el| {
                let href = el.get_attribute("href").unwrap_or_default();
                let href = href.trim();
                let own = href.is_empty()
                    || href.starts_with('#')
                    || href.to_ascii_lowercase().starts_with("javascript:");
                let mut s = s4.borrow_mut();
                if !own && s.chrome == 0 {
                    s.shape.content_links += 1;
                }
                Ok(())
            }),
            text!("body", move |t: &mut TextChunk<'_>| {
                let n = t.as_str().chars().filter(|c| !c.is_whitespace()).count();
                s5.borrow_mut().all_text += n;
                Ok(())
            }),
            text!("script, style, template, noscript", {
                let st = st.clone();
                move |t: &mut TextChunk<'_>| {
                    let n = t.as_str().chars().filter(|c| !c.is_whitespace()).count();
                    st.borrow_mut().hidden_text += n;
                    Ok(())
                }
            }),
        ],
        strict: false,
        ..Settings::new()
    };
    let mut rewriter = HtmlRewriter::new(settings, |_: &[u8]| {});
    // A page lol_html cannot read is not called a shell: the plain analysis says why.
    let ok = rewriter.write(html).is_ok() && rewriter.end().is_ok();
    let mut s = std::mem::take(&mut *st.borrow_mut());
    if !ok {
        return Shape::default();
    }
    s.shape.visible_chars = s.all_text.saturating_sub(s.hidden_text);
    s.shape
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_root_with_scripts_is_a_shell() {
        let html = br#"<!doctype html><html><head><title>App</title>
            <script src="/app.js"></script></head>
            <body><header><a href="/">Home</a></header><div id="root"></div></body></html>"#;
        let s = shape(html);
        assert_eq!(s.scripts, 1);
        assert_eq!(s.content_links, 0);
        assert!(s.is_app_shell(), "{s:?}");
    }

    #[test]
    fn a_noscript_notice_with_text_is_a_shell() {
        let long = "Please enable JavaScript to use this site. ".repeat(10);
        let html = format!(
            "<body><noscript>{long}</noscript><div id=app></div><script>boot()</script></body>"
        );
        let s = shape(html.as_bytes());
        assert!(s.noscript);
        assert!(s.visible_chars < EMPTY_TEXT_CHARS, "{s:?}");
        assert!(s.is_app_shell());
    }

    #[test]
    fn pages_with_content_links_or_text_or_no_script_are_not_shells() {
        let with_list =
            br#"<body><script src=a.js></script><ul><li><a href="/n/1">One</a></li></ul></body>"#;
        assert!(!shape(with_list).is_app_shell());
        let static_page = br#"<body><div id="root"></div></body>"#;
        assert!(!shape(static_page).is_app_shell());
        let article = format!(
            "<body><script>x()</script><p>{}</p></body>",
            "A long article without links. ".repeat(20)
        );
        assert!(!shape(article.as_bytes()).is_app_shell());
        // In-page anchors and script links are not entries.
        let anchors = br##"<body><script>x()</script><a href="#top">Top</a><a href="javascript:void(0)">Menu</a><div id=root></div></body>"##;
        assert!(shape(anchors).is_app_shell());
    }
}
