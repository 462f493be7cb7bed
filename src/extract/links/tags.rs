//! The start and end tags of a page as [`LinkState`] reads them: the counters of hidden,
//! `aria-hidden`, SVG and selected elements, and the elements that carry a link, the
//! title, the `<base href>`, the robots flag or the icon (the rules are in
//! [`crate::extract`]).
//!
//! Uses [`super`] (the state and its text), [`crate::extract::hiding`] and
//! [`crate::extract::entities`].

use crate::extract::markup::Tag;

use super::{collapse_into, LinkEnd, LinkState, RawLink, MAX_RAW_TEXT_BYTES};
use crate::extract::entities;
use crate::extract::hiding::Attrs;

impl LinkState {
    /// An element that the user's selector matched. Returns whether it counts as open
    /// until its end tag (then [`LinkState::on_selected_end`] must run there).
    pub(in crate::extract) fn on_selected(&mut self, el: &Tag<'_>) -> bool {
        if el.content {
            if let Some(n) = &mut self.selected {
                *n += 1;
            }
            true
        } else {
            self.void_selected_at = Some(el.span.start);
            false
        }
    }

    /// The end tag of an element the user's selector matched.
    pub(in crate::extract) fn on_selected_end(&mut self) {
        if let Some(n) = &mut self.selected {
            *n = n.saturating_sub(1);
        }
    }

    /// Any start tag (`tag`: its name, lower case). `hiding`: the element's attributes
    /// when the page may hide elements by attribute ([`crate::extract::hiding::may_hide`]),
    /// `None` when it cannot; `anchor`: the
    /// structure's anchor for the element, when the pass gathers the structure. Returns
    /// what its end tag undoes.
    pub(in crate::extract) fn on_element(
        &mut self,
        el: &Tag<'_>,
        tag: &str,
        hiding: Option<&Attrs>,
        anchor: Option<usize>,
    ) -> LinkEnd {
        let mut end = LinkEnd::default();
        // A void element has no end tag to undo a count with: a hidden `<area>` is
        // skipped right here.
        let mut void_hidden = false;
        if let Some(a) = hiding {
            self.count_open(
                el,
                &mut end,
                &mut void_hidden,
                a.hides,
                a.aria_hidden,
                false,
            );
        }
        match tag {
            // `<template>`, and SVG's `<title>` and `<desc>` (tooltips and descriptions).
            "template" | "title" | "desc" => {
                let hide = tag == "template" || self.svg > 0;
                self.count_open(el, &mut end, &mut void_hidden, hide, false, false);
            }
            "svg" => self.count_open(el, &mut end, &mut void_hidden, false, false, true),
            _ => {}
        }
        match tag {
            "a" => end.link = self.on_anchor(el, anchor),
            "area" => self.on_area(el, void_hidden, anchor),
            "img" => self.on_img(el),
            "base" if self.base.is_none() => {
                self.base = el.attr("href").map(|h| entities::decode(h, true));
            }
            "title" => end.title = self.on_title(el),
            "meta" => self.on_meta(el),
            "link" => self.on_link(el),
            _ => {}
        }
        end
    }

    /// An end tag: undoes what its start tag counted, closes its link or the title.
    pub(in crate::extract) fn on_end(&mut self, end: LinkEnd) {
        self.hidden = self.hidden.saturating_sub(u32::from(end.hidden));
        self.aria_hidden = self.aria_hidden.saturating_sub(u32::from(end.aria));
        self.svg = self.svg.saturating_sub(u32::from(end.svg));
        if let Some(id) = end.link {
            if self.open.as_ref().is_some_and(|o| o.id == id) {
                self.close_link();
            }
        }
        if end.title {
            self.close_title();
        }
    }

    /// Counts an element as open in the counters it belongs to (hidden, `aria-hidden`,
    /// `<svg>`) until its end tag.
    fn count_open(
        &mut self,
        el: &Tag<'_>,
        end: &mut LinkEnd,
        void_hidden: &mut bool,
        hide: bool,
        aria: bool,
        svg: bool,
    ) {
        if el.content {
            self.hidden += u32::from(hide);
            self.aria_hidden += u32::from(aria);
            self.svg += u32::from(svg);
            end.hidden += u8::from(hide);
            end.aria += u8::from(aria);
            end.svg += u8::from(svg);
        } else if hide {
            *void_hidden = true;
        }
    }

    /// `<a>`: closes the open link and opens a new one (that counts if it has an href
    /// and is visible and selected), until its end tag. Returns its id when its end tag
    /// is to close it.
    fn on_anchor(&mut self, el: &Tag<'_>, anchor: Option<usize>) -> Option<u32> {
        let counts = self.hidden == 0 && self.selected != Some(0);
        let href = counts
            .then(|| el.attr("href").or_else(|| el.attr("xlink:href")))
            .flatten()
            .map(|h| self.push_href(h));
        let label = href
            .as_ref()
            .and_then(|_| el.attr("aria-label"))
            .map(|l| entities::decode(l, true));
        let id = self.open_link(href, label, anchor);
        if el.content {
            Some(id)
        } else {
            self.close_link();
            None
        }
    }

    /// `<area href>`: a link of its own, with its `alt` as text.
    fn on_area(&mut self, el: &Tag<'_>, void_hidden: bool, anchor: Option<usize>) {
        let at = el.span.start;
        let hidden = self.hidden > 0 || void_hidden;
        let selected = self.selected != Some(0) || self.void_selected_at == Some(at);
        if hidden || !selected {
            return;
        }
        let Some(href) = el.attr("href") else {
            return;
        };
        let mut text = String::new();
        if let Some(alt) = el.attr("alt") {
            collapse_into(&entities::decode(alt, true), &mut text);
        }
        let href = self.push_href(href);
        self.links.push(RawLink { href, text, anchor });
    }

    /// `<img>` inside a link: keep its `alt` in case the link has no text.
    fn on_img(&mut self, el: &Tag<'_>) {
        if self.in_visible_link() && self.alt.len() < MAX_RAW_TEXT_BYTES {
            if let Some(alt) = el.attr("alt") {
                self.alt.push(' ');
                entities::decode_into(alt, &mut self.alt, true);
            }
        }
    }

    /// `<title>`: the first one outside SVG is the page's title. Returns whether its end
    /// tag closes it.
    fn on_title(&mut self, el: &Tag<'_>) -> bool {
        if self.title.is_some() || self.title_open || self.svg > 0 || !el.html_ns {
            return false;
        }
        let sink = self.sink();
        self.flush_node(sink);
        self.title_open = true;
        el.content
    }

    /// `<link rel="icon" href>`: the first one names the site's icon.
    fn on_link(&mut self, el: &Tag<'_>) {
        let is_icon = el.attr("rel").is_some_and(|r| {
            r.split_ascii_whitespace()
                .any(|t| t.eq_ignore_ascii_case("icon"))
        });
        if is_icon && self.icon.is_none() {
            self.icon = el
                .attr("href")
                .filter(|h| !h.trim().is_empty())
                .map(str::to_owned);
        }
    }

    /// `<meta name=robots content=...>`: `nofollow` or `none` set the nofollow flag.
    fn on_meta(&mut self, el: &Tag<'_>) {
        let is_robots = el
            .attr("name")
            .is_some_and(|n| n.trim().eq_ignore_ascii_case("robots"));
        if is_robots {
            let content = el.attr("content").unwrap_or_default();
            if content
                .split(|c: char| c == ',' || c.is_ascii_whitespace())
                .any(|t| t.eq_ignore_ascii_case("nofollow") || t.eq_ignore_ascii_case("none"))
            {
                self.nofollow = true;
            }
        }
    }
}
