//! What an entry says besides its title: its summary, the date it states, its picture
//! and its author, read from the entry's own block (the element [`super::group`] found
//! around its main link) with no selectors and no site rules.
//!
//! [`content`] reads one entry from a [`Facts`] (the visible text with the byte range of
//! every element in it, block breaks, and the date, picture and author attributes met):
//! the facts of the entry's element, read from its markup where the one pass over the
//! page ([`crate::extract::parse`] with `Gather::Content`) noted it
//! ([`crate::extract::structure::Structure::facts_for`]), or the whole page's when the
//! pass gathered them as it went.
//!
//! - **summary**: the block's prose blocks without the text of its links (the title,
//!   "Read more", "12 comments", names of tags and authors), except a second link to the
//!   entry's own URL holding a teaser; a card that is one link gives its text but not its
//!   headings (or, without headings, its headline); whitespace collapsed;
//!   kept only when it reads as prose (several words, or a run of CJK), not a line of
//!   metadata; cut at about [`SUMMARY_CHARS`] characters at a word boundary (at any
//!   character in CJK text).
//! - **published** ([`super::date`]): first a machine-readable date of the block (`<time
//!   datetime>`, `itemprop=datePublished`, a `title` attribute holding a timestamp), then
//!   any form in a short element of the block (a date line, "3 hours ago"), then a
//!   calendar date anywhere in the block's text; the first that is [`date::plausible`].
//! - **image**: the block's first `img` that is not an icon, avatar, tracking pixel or
//!   sprite (declared under 64 px, an SVG, a `data:` URL): its `data-src`, else its `src`,
//!   else the widest `srcset` candidate, made absolute.
//! - **author**: the text of an element marked `rel=author`, `itemprop=author` or with
//!   the microformat class `author` / `p-author` / `byline` (a leading "by" dropped).
//!
//! Uses [`super::date`], `url`, and the extractor's entity decoder.

use std::ops::Range;

use chrono_tz::Tz;
use url::Url;

use super::date;
use super::structure::Context;
pub use crate::extract::facts::{Facts, Img};
use crate::model::{Link, SUMMARY_CHARS};

/// What an entry says of itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Content {
    pub summary: Option<String>,
    pub published: Option<i64>,
    pub image: Option<String>,
    pub author: Option<String>,
}

/// Where one entry stands: its main link, the element holding it, and the page.
#[derive(Debug, Clone, Copy)]
pub struct EntryRef<'a> {
    /// Index of the entry's main link.
    pub main: usize,
    /// The element holding the entry (`None`: the link stands alone).
    pub block: Option<u32>,
    pub links: &'a [Link],
    pub ctx: &'a [Option<Context>],
    /// The page's URL (the base of relative image URLs).
    pub page: &'a Url,
}

/// The content of one entry, dates resolved against `now` (Unix seconds, the check) in
/// `tz` (the watch's zone; a date's own offset wins).
pub fn content(facts: &Facts, e: &EntryRef<'_>, now: i64, tz: Tz) -> Content {
    let (Some(own), Some(block)) = (own_element(e), element(e)) else {
        return Content::default();
    };
    let ids = facts.within(block);
    // The elements of the block's links: their text is not the summary.
    let mut link_ids: Vec<(u32, bool)> = Vec::new();
    let main_url = e.links.get(e.main).map_or("", |l| l.url.as_str());
    for (i, c) in e.ctx.iter().enumerate() {
        let Some(id) = c.as_ref().and_then(|c| c.path.last().copied()) else {
            continue;
        };
        if ids.contains(&id) {
            let same = i != e.main && e.links.get(i).is_some_and(|l| l.url == main_url);
            link_ids.push((id, same));
        }
    }
    let title = e.links.get(e.main).map_or("", |l| l.text.as_str());
    Content {
        summary: summary(facts, block, own, &link_ids, title),
        published: published(facts, block, own, now, tz),
        image: image(facts, &ids, e.page),
        author: author(facts, &ids),
    }
}

/// The element of the entry's main link.
fn own_element(e: &EntryRef<'_>) -> Option<u32> {
    e.ctx
        .get(e.main)
        .and_then(Option::as_ref)
        .and_then(|c| c.path.last().copied())
}

/// The element an entry's content is read from: its block, or its main link's own
/// element when the link stands alone (`None` when the structure has no element for it).
pub fn element(e: &EntryRef<'_>) -> Option<u32> {
    e.block.or_else(|| own_element(e))
}

/// See the module doc: the prose blocks of the entry's text, its links' text left out.
/// A main link that holds blocks (a whole card inside one `<a>`) is not left out whole:
/// its headings are, or when it has none its first block of some words (the headline).
fn summary(
    facts: &Facts,
    block: u32,
    own: u32,
    links: &[(u32, bool)],
    title: &str,
) -> Option<String> {
    let span = facts.span_of(block)?;
    let own_span = facts.span_of(own)?;
    let card = facts
        .breaks
        .iter()
        .any(|&b| b > own_span.start && b < own_span.end);
    // The byte ranges of text to leave out, in order.
    let mut cut: Vec<Range<u32>> = links
        .iter()
        .filter(|&&(id, same)| {
            (!card || id != own) && (!same || id == own || !teaser(facts.text_of(id), title))
        })
        .filter_map(|&(id, _)| facts.span_of(id))
        .collect();
    let mut headline = false;
    if card {
        let inside = facts.within(own);
        let heads: Vec<Range<u32>> = facts
            .headings
            .iter()
            .filter(|id| inside.contains(id))
            .filter_map(|&id| facts.span_of(id))
            .collect();
        headline = heads.is_empty();
        cut.extend(heads);
    }
    cut.sort_by_key(|r| r.start);
    // Segments between block boundaries (a paragraph, a date line, a byline).
    let lo = facts.breaks.partition_point(|&b| b <= span.start);
    let hi = facts.breaks.partition_point(|&b| b < span.end);
    let bounds: Vec<u32> = std::iter::once(span.start)
        .chain(facts.breaks.get(lo..hi).unwrap_or(&[]).iter().copied())
        .chain(std::iter::once(span.end))
        .collect();
    let mut kept: Vec<String> = Vec::new();
    for w in bounds.windows(2) {
        let (a, b) = (w[0], w[1]);
        let mut seg = String::new();
        let mut at = a;
        for r in cut.iter().filter(|r| r.end > a && r.start < b) {
            if r.start > at {
                seg.push_str(facts.text.get(at as usize..r.start as usize).unwrap_or(""));
                seg.push(' ');
            }
            at = at.max(r.end);
        }
        if b > at {
            seg.push_str(facts.text.get(at as usize..b as usize).unwrap_or(""));
        }
        let seg = seg
            .split_whitespace()
            .filter(|w| w.chars().any(char::is_alphanumeric))
            .collect::<Vec<_>>()
            .join(" ");
        if headline && a >= own_span.start && b <= own_span.end && headline_like(&seg) {
            // The first block of some words in a card without headings is its headline
            // (a category label before it is one or two words).
            headline = false;
            continue;
        }
        if prose(&seg) && seg != title.trim() {
            kept.push(seg);
        }
    }
    let text = kept.join(" ");
    (!text.is_empty()).then(|| cut_at(&text, SUMMARY_CHARS))
}

/// A second link to the entry's URL holds its teaser: prose that is not the title
/// again (a hidden or aria-hidden copy of the headline is).
fn teaser(text: &str, title: &str) -> bool {
    let key = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    };
    let (t, h) = (key(text), key(title));
    prose(text) && !t.contains(&h) && !h.contains(&t)
}

/// Three words or more (six CJK characters): a headline, not a label.
fn headline_like(s: &str) -> bool {
    let cjk = s.chars().filter(|&c| u32::from(c) >= 0x2E80).count();
    s.split_whitespace().count() >= 3 || cjk >= 6
}

/// Reads as a sentence or more: at least eight words, or twenty CJK characters.
fn prose(s: &str) -> bool {
    let cjk = s.chars().filter(|&c| u32::from(c) >= 0x2E80).count();
    let words = s
        .split_whitespace()
        .filter(|w| w.chars().any(char::is_alphabetic))
        .count();
    words >= 8 || cjk >= 20
}

/// `s` cut to about `max` characters: at the last space before the limit (CJK text,
/// which does not separate words, at a character), with an ellipsis when cut.
pub(crate) fn cut_at(s: &str, max: usize) -> String {
    let Some((end, _)) = s.char_indices().nth(max) else {
        return s.to_owned();
    };
    let head = &s[..end];
    let last = head.chars().last().unwrap_or(' ');
    let cut = if u32::from(last) >= 0x2E80 {
        end
    } else {
        match head.rfind(' ') {
            Some(sp) if sp > end / 2 => sp,
            _ => end,
        }
    };
    let head = s[..cut].trim_end_matches(|c: char| c.is_whitespace() || ",;:-–—".contains(c));
    format!("{head}…")
}

/// Short elements hold date lines; longer ones are prose, where "yesterday" tells of
/// an event.
const SHORT: usize = 48;

/// See the module doc.
fn published(facts: &Facts, block: u32, own: u32, now: i64, tz: Tz) -> Option<i64> {
    let ids = facts.within(block);
    let ok = |t: i64| date::plausible(t, now).then_some(t);
    let machine = facts
        .times
        .iter()
        .filter(|(id, _)| ids.contains(id))
        .find_map(|(_, v)| date::parse_machine(v, tz).and_then(ok));
    if machine.is_some() {
        return machine;
    }
    let own_text = facts.text_of(own);
    let short = ids.clone().find_map(|id| {
        let t = facts.text_of(id);
        if t.is_empty() || t.chars().count() > SHORT || (id == own && own_text.len() > SHORT) {
            return None;
        }
        date::find(t, now, tz).and_then(ok)
    });
    if short.is_some() {
        return short;
    }
    date::find_forms(facts.text_of(block), now, tz, date::Forms::Absolute).and_then(ok)
}

/// Under this many pixels on a side an `img` is an icon, an avatar or a pixel.
const MIN_SIDE: u32 = 64;

/// See the module doc.
fn image(facts: &Facts, ids: &Range<u32>, page: &Url) -> Option<String> {
    facts
        .images
        .iter()
        .filter(|(id, _)| ids.contains(id))
        .find_map(|(_, img)| picture(img, page))
}

/// The URL of an `img`'s picture, unless it is not an entry's picture.
fn picture(img: &Img, page: &Url) -> Option<String> {
    if img.width.is_some_and(|w| w < MIN_SIDE) || img.height.is_some_and(|h| h < MIN_SIDE) {
        return None;
    }
    let widest = img.srcset.as_deref().and_then(|set| {
        set.split(',')
            .filter_map(|c| {
                let mut parts = c.split_whitespace();
                let url = parts.next()?;
                let w = parts
                    .next()
                    .and_then(|d| d.trim_end_matches(['w', 'x']).parse::<f64>().ok())
                    .unwrap_or(1.0);
                Some((url, w))
            })
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(u, _)| u.to_owned())
    });
    let usable = |u: &&String| {
        let l = u.trim().to_ascii_lowercase();
        !l.starts_with("data:") && !l.starts_with("javascript:") && !l.is_empty()
    };
    let raw = img
        .data_src
        .iter()
        .find(usable)
        .or_else(|| img.src.iter().find(usable))
        .or_else(|| widest.iter().find(usable))?;
    let url = page.join(raw.trim()).ok()?;
    if !matches!(url.scheme(), "http" | "https") {
        return None;
    }
    let path = url.path().to_ascii_lowercase();
    let name = path.rsplit('/').next().unwrap_or("");
    let decoration = ["pixel", "spacer", "blank.", "transparent.", "sprite", "1x1"];
    if std::path::Path::new(&path)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("svg"))
        || decoration.iter().any(|d| name.contains(d))
    {
        return None;
    }
    Some(url.to_string())
}

/// See the module doc.
fn author(facts: &Facts, ids: &Range<u32>) -> Option<String> {
    facts
        .authors
        .iter()
        .filter(|(id, _)| ids.contains(id))
        .find_map(|(id, content)| {
            let raw = content.as_deref().unwrap_or_else(|| facts.text_of(*id));
            let name = raw
                .trim()
                .trim_start_matches(|c: char| !c.is_alphanumeric());
            let lower = name.to_lowercase();
            let name = [
                "by ", "von ", "par ", "por ", "di ", "door ", "av ", "przez ",
            ]
            .iter()
            .find(|p| lower.starts_with(*p))
            .map_or(name, |p| name[p.len()..].trim_start());
            let n = name.chars().count();
            (n > 0 && n <= 80 && name.chars().any(char::is_alphabetic)).then(|| name.to_owned())
        })
}

#[cfg(test)]
#[path = "content_tests.rs"]
mod tests;
