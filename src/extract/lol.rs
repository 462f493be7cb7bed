//! The pass driven by lol_html: what reads a page when a user's CSS selector must be
//! matched (lol_html's selector engine decides which elements it matches), and the
//! reference the page's own scanner ([`super::scan`]) is compared with. lol_html gives
//! the token boundaries, the namespaces, the element stack and which elements can have
//! content; the attributes are read from each tag's source by [`super::markup`], as the
//! scanner reads them.
//!
//! Rules of the lol_html run the drivers share:
//! * Handlers of one element run in the order they are registered: the user's selector
//!   (when there is one), then the collectors.
//! * An element's end-tag handlers also run when an end tag of an ancestor closes it
//!   (innermost first); an element never closed ends with the document.
//! * Text chunks may split a text node anywhere; `last_in_text_node` marks its end.
//!
//! Uses lol_html, [`super::markup`].

use std::borrow::Cow;
use std::cell::RefCell;
use std::rc::Rc;

use lol_html::html_content::{Element, TextChunk, TextType};
use lol_html::{
    DocumentContentHandlers, ElementContentHandlers, HandlerResult, HtmlRewriter, Settings,
};

use super::markup::{
    lower, name_end, scan_attrs, too_complex, too_slow, AttrSpan, Sink, Tag, Text, TextKind,
    MAX_PARSER_MEMORY, TIME_BUDGET,
};
use super::{ExtractError, Selector};

/// The input is handed to lol_html in slices of this size, between which the time
/// budget is checked.
const SLICE_BYTES: usize = 16 * 1024;

const HTML_NS: &str = "http://www.w3.org/1999/xhtml";

/// What a sink does with the elements a user's selector matches.
pub(super) trait Selecting {
    /// An element the selector matched. Returns whether it counts as open until its end
    /// (then [`Selecting::selected_end`] must run there).
    fn selected(&mut self, tag: &Tag<'_>) -> bool;
    /// The end of an element the selector matched.
    fn selected_end(&mut self);
}

/// The sink and the ends lol_html reported since its last event. lol_html wants an end
/// tag's handler to own what it touches, and the sink may borrow the page: the handlers
/// queue the ends (in the order they run), and the next event (or the end of the run)
/// hands them to the sink first.
struct Driver<S: Sink> {
    sink: S,
    ends: Rc<RefCell<Vec<Ended<S::End>>>>,
}

/// An end lol_html reported.
#[derive(Clone, Copy)]
enum Ended<E> {
    /// Of an element the sink asked about.
    Element(E),
    /// Of an element the user's selector matched.
    Selected,
}

impl<S: Sink + Selecting> Driver<S> {
    /// Hands the queued ends to the sink.
    fn catch_up(&mut self) {
        let ends = std::mem::take(&mut *self.ends.borrow_mut());
        for e in ends {
            match e {
                Ended::Element(end) => self.sink.end(end),
                Ended::Selected => self.sink.selected_end(),
            }
        }
    }
}

type Shared<S> = Rc<RefCell<Driver<S>>>;

/// The start tag `el` as the collectors see it, its attributes read from its source in
/// `html` into `attrs`.
fn tag_of<'h>(el: &Element<'_, '_>, html: &'h str, attrs: &'h mut Vec<AttrSpan>) -> Tag<'h> {
    let span = el.source_location().bytes();
    let src = html.get(span.clone()).unwrap_or_default();
    let b = src.as_bytes();
    let name_end = name_end(b, 1);
    attrs.clear();
    scan_attrs(b, name_end, 0, attrs);
    // The name as lol_html gives it, borrowed from the source when it is lower case.
    let name = match src.get(1..name_end) {
        Some(n) if !n.is_empty() => lower(n),
        _ => Cow::Owned(el.tag_name()),
    };
    Tag::new(
        name,
        src,
        span,
        attrs,
        el.can_have_content(),
        el.namespace_uri() == HTML_NS,
    )
}

fn text_of<'c>(chunk: &'c TextChunk<'_>) -> Text<'c> {
    Text {
        s: chunk.as_str(),
        kind: match chunk.text_type() {
            TextType::RCData => TextKind::RcData,
            TextType::RawText => TextKind::RawText,
            TextType::ScriptData => TextKind::ScriptData,
            TextType::PlainText => TextKind::PlainText,
            TextType::CDataSection => TextKind::CData,
            TextType::Data => TextKind::Data,
        },
        last: chunk.last_in_text_node(),
        span: chunk.source_location().bytes(),
    }
}

/// The handler of every start tag (`selector`: of the elements the user's selector
/// matches, whose handler runs first).
#[allow(clippy::unnecessary_wraps)] // the signature of an element handler
fn on_start<S>(
    st: &Shared<S>,
    el: &mut Element<'_, '_>,
    html: &str,
    selector: bool,
) -> HandlerResult
where
    S: Sink + Selecting,
    S::End: 'static,
{
    let mut attrs = Vec::new();
    let tag = tag_of(el, html, &mut attrs);
    let mut d = st.borrow_mut();
    d.catch_up();
    let end = if selector {
        d.sink.selected(&tag).then_some(Ended::Selected)
    } else {
        d.sink.start(&tag).map(Ended::Element)
    };
    if let (Some(end), Some(handlers)) = (end, el.end_tag_handlers()) {
        let ends = Rc::clone(&d.ends);
        handlers.push(Box::new(move |_| {
            ends.borrow_mut().push(end);
            Ok(())
        }));
    }
    Ok(())
}

/// Runs lol_html over `html`, handing its events to `sink`, and what `select` matches to
/// it as [`Selecting`]. `text_in_links_only`: text is asked for only inside `<a>` and
/// `<title>` (the rest is not handed on). Returns the sink.
pub(super) fn run<S>(
    sink: S,
    html: &str,
    select: Option<&Selector>,
    text_in_links_only: bool,
) -> Result<S, ExtractError>
where
    S: Sink + Selecting + Default,
    S::End: Copy + 'static,
{
    let state: Shared<S> = Rc::new(RefCell::new(Driver {
        sink,
        ends: Rc::default(),
    }));
    let fixed = fixed();
    // Order matters: handlers of one element run in this order, so the links see
    // whether the selector matched the `<a>` itself.
    let mut handlers: Vec<(Cow<'_, lol_html::Selector>, ElementContentHandlers<'_>)> =
        Vec::with_capacity(3);
    if let Some(sel) = select {
        let st = Rc::clone(&state);
        handlers.push((
            Cow::Borrowed(&sel.parsed),
            ElementContentHandlers::default()
                .element(move |el: &mut Element<'_, '_>| on_start(&st, el, html, true)),
        ));
    }
    let st = Rc::clone(&state);
    handlers.push((
        Cow::Borrowed(&fixed.any),
        ElementContentHandlers::default()
            .element(move |el: &mut Element<'_, '_>| on_start(&st, el, html, false)),
    ));
    let mut document = Vec::new();
    let st = Rc::clone(&state);
    let on_text = move |chunk: &mut TextChunk<'_>| {
        let mut d = st.borrow_mut();
        d.catch_up();
        d.sink.text(&text_of(chunk));
        Ok(())
    };
    if text_in_links_only {
        // Text matters only inside links and the title: capturing only there spares
        // lol_html the work of producing every text chunk of the page.
        handlers.push((
            Cow::Borrowed(&fixed.text),
            ElementContentHandlers::default().text(on_text),
        ));
    } else {
        // The structure counts the text outside links too.
        document.push(DocumentContentHandlers::default().text(on_text));
    }

    let settings = Settings {
        element_content_handlers: handlers,
        document_content_handlers: document,
        // Never bail out on markup that a full tree builder would treat differently.
        strict: false,
        memory_settings: lol_html::MemorySettings {
            max_allowed_memory_usage: MAX_PARSER_MEMORY,
            ..lol_html::MemorySettings::default()
        },
        ..Settings::new()
    };
    let mut rewriter = HtmlRewriter::new(settings, |_: &[u8]| {});
    let started = std::time::Instant::now();
    for slice in html.as_bytes().chunks(SLICE_BYTES) {
        rewriter.write(slice).map_err(|e| parse_error(&e))?;
        if started.elapsed() > TIME_BUDGET {
            return Err(too_slow());
        }
    }
    rewriter.end().map_err(|e| parse_error(&e))?;
    let mut d = state.borrow_mut();
    d.catch_up();
    Ok(std::mem::take(&mut d.sink))
}

fn parse_error(e: &lol_html::errors::RewritingError) -> ExtractError {
    match e {
        lol_html::errors::RewritingError::MemoryLimitExceeded(_) => too_complex(),
        e => ExtractError::Html(e.to_string()),
    }
}

/// The fixed selectors, parsed once per process.
struct Fixed {
    any: lol_html::Selector,
    text: lol_html::Selector,
}

fn fixed() -> &'static Fixed {
    static FIXED: std::sync::OnceLock<Fixed> = std::sync::OnceLock::new();
    FIXED.get_or_init(|| {
        let p = |s: &str| {
            s.parse::<lol_html::Selector>()
                .expect("built-in selector parses")
        };
        Fixed {
            any: p("*"),
            text: p("a, title"),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::super::hiding::Attrs;
    use super::*;

    /// The attributes read from a tag's source give what lol_html's own accessors give,
    /// on markup in any case, with repeated names, references and odd spacing, fed in
    /// slices that cut tags.
    #[test]
    fn attributes_read_from_the_source_agree_with_the_accessors() {
        let html = "<!doctype html><HTML><Body CLASS='Page Main' class=second>\
            <DIV Hidden STYLE=\"DISPLAY: none\" role=main ARIA-HIDDEN=' TRUE '>x</DIV>\
            <time\tdatetime=\"2024-05-01\" title='10 May'>t</time>\
            <span itemprop=datePublished content=\"2024-06-01&amp;x\">s</span>\
            <a REL=author href=/a title=\"&quot;q&quot;\" data-x>a</a>\
            <svg><rect/></svg><p/><IMG SRC=/i.png><br>\
            <aside aria-hidden=false hidden=''>z</aside></Body></HTML>";
        let mut seen = 0;
        for slice in [1, 7, 64, html.len()] {
            let mut rewriter = HtmlRewriter::new(
                Settings {
                    element_content_handlers: vec![lol_html::element!("*", |el| {
                        let mut buf = Vec::new();
                        let tag = tag_of(el, html, &mut buf);
                        let a = Attrs::read(&tag, true, true);
                        let get = |n: &str| el.get_attribute(n);
                        assert_eq!(tag.name, el.tag_name());
                        for (n, v) in tag.attrs() {
                            assert_eq!(tag.attr(n).map(str::to_owned), get(n), "{n}={v}");
                        }
                        assert_eq!(tag.attrs().count(), el.attributes().len());
                        assert_eq!(a.class.map(str::to_owned), get("class"));
                        assert_eq!(a.style.map(str::to_owned), get("style"));
                        assert_eq!(a.role.map(str::to_owned), get("role"));
                        assert_eq!(a.datetime.map(str::to_owned), get("datetime"));
                        assert_eq!(a.itemprop.map(str::to_owned), get("itemprop"));
                        assert_eq!(a.title.map(str::to_owned), get("title"));
                        assert_eq!(a.rel.map(str::to_owned), get("rel"));
                        assert_eq!(a.content.map(str::to_owned), get("content"));
                        let aria = get("aria-hidden")
                            .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
                        assert_eq!(a.aria_hidden, aria);
                        let hides = el.has_attribute("hidden")
                            || get("style").is_some_and(|s| super::super::hiding::style_hides(&s));
                        assert_eq!(a.hides, hides);
                        seen += 1;
                        Ok(())
                    })],
                    ..Settings::new()
                },
                |_: &[u8]| {},
            );
            for part in html.as_bytes().chunks(slice) {
                rewriter.write(part).expect("the markup parses");
            }
            rewriter.end().expect("the markup ends");
        }
        // Every element was checked in every slicing (12 elements).
        assert_eq!(seen, 4 * 12);
    }
}
