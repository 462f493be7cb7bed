//! Denoising (`docs/design.md` §1 and §7): from a fetched body to the ordered array of the
//! page's links, plus the charset decoding, URL normalization and fingerprints around it.
//!
//! * [`charset::decode`]: body bytes to text (header, BOM, `<meta>`, sniffing).
//! * [`parse`]: the one streaming pass over the text ([`page`]) that yields the title,
//!   the links, the robots `nofollow` flag and the icon, and when asked the structure
//!   around the links and the page's visible text ([`structure`]); [`extract`] is the
//!   pass without the structure.
//! * [`url::normalize`], [`url::parse_user_url`]: canonical URLs.
//! * [`fingerprint::raw`], [`fingerprint::links`]: the two MD5 fingerprints of a check.
//!
//! # The extraction rules
//!
//! * Every `<a href>` and `<area href>` is a link, in document order (of start tags).
//! * Its text is all the text inside it, nested elements included, with character
//!   references decoded and whitespace collapsed to single spaces and trimmed. Whitespace
//!   means Unicode whitespace, so `&nbsp;` and U+3000 collapse too. `<br>` and block
//!   elements (`div`, `p`, `li`, `h1`..`h6`, `td`, ...) inside a link separate words,
//!   as in rendered text (`<a><b>New</b><br>Title</a>` reads "New Title"; inline elements
//!   such as `<span>` do not: `<a><span>fo</span>o</a>` reads "foo"). Texts are cut at
//!   [`links::MAX_TEXT_BYTES`].
//! * Not link text: the contents of `<script>`, `<style>`, `<template>`, `<noscript>`,
//!   `<iframe>`, `<xmp>`, `<noembed>`, `<noframes>`, and of hidden elements: those with a
//!   `hidden` attribute or an inline style with `display:none` or `visibility:hidden`.
//!   A link inside a hidden element (or hidden itself) is skipped entirely; so is a link
//!   inside `<template>`.
//! * `aria-hidden="true"` hides from screen readers, not from the screen, so it does not
//!   hide links, and text inside it is link text of second choice: a link's text is the
//!   first non-empty of (1) its text outside `aria-hidden` elements (which leaves out
//!   icon glyphs such as `<span aria-hidden=true>★</span>`), (2) all its text (Apple's
//!   newsroom marks the whole visible text of its tiles `aria-hidden` and labels the link
//!   with `aria-label`; treating `aria-hidden` as hidden lost every headline there),
//!   (3) the `alt` texts of the images inside it (shop and gallery pages), (4) its
//!   `aria-label`. An `<area>` takes its own `alt`. A link may still end up with the text
//!   ""; it is kept (the differ decides what to do with it).
//! * `<noscript>`: its contents are parsed as raw text, as by a browser with scripting on
//!   (lol_html does so too), so links inside `<noscript>` are not seen at all. They are
//!   mostly tracking pixels and "enable JavaScript" notices; a page that puts its real
//!   list only in `<noscript>` needs a fetcher that renders it differently anyway.
//! * An `<a>` opened while another is open closes the first (HTML5); text after the
//!   inner `</a>` belongs to no link.
//! * The URL is the `href` (character references decoded) resolved against the first
//!   `<base href>` of the document, itself resolved against the page URL (used only when
//!   it is http or https), else against the page URL; then [`url::normalize`]d. Empty,
//!   fragment-only (`#top`) and non-http(s) hrefs (`javascript:`, `mailto:`, `tel:`,
//!   `data:`, ...) are skipped; so are hrefs that do not parse as URLs.
//! * With a `select` selector, only the links inside elements that match it count (or
//!   that match it themselves: `ul.news > li > a`). A comma-separated list matches any of
//!   its parts.
//! * `title`: the text of the first `<title>` outside SVG, whitespace collapsed; `None`
//!   when missing or empty.
//! * `nofollow`: a `<meta name="robots">` whose content has `nofollow` or `none`.
//!
//! Elements that are never closed extend to the end of their parent (or the document):
//! `<div hidden>` without `</div>` hides the rest of its parent. Elements that a browser
//! closes implicitly (`<p hidden>` followed by `<div>`) are, here, closed only by an end
//! tag of theirs or of an ancestor: the pass does not build a tree.
//!
//! Limits: a page that needs over 8 MiB of parser state (about 65,000 elements open at
//! once: unclosed tags pile up) or more than 3 s is refused with
//! [`ExtractError::Html`] ("the page is too complex"), rather than tying up a worker;
//! real pages take milliseconds and a few hundred KiB.
//!
//! # Differences from the corpus reference (`docs/design.md` §8)
//!
//! On all 258 snapshots of the corpus, every (URL, non-empty text) pair the reference
//! finds is found here too; the differences are all deliberate:
//! * word breaks at `<br>` and block elements (the reference concatenates: 798 texts on
//!   scout-or-jp-member differ in whitespace only);
//! * links with no text of their own get their images' `alt` (about 1450 more
//!   (URL, snapshot) pairs with text: the v2ex avatars and the scout logos, which the
//!   reference has with empty text);
//! * links in hidden elements and in `<noscript>` are dropped (the reference keeps them;
//!   none of its new links is affected);
//! * URLs: unreserved escapes are decoded (`%7E` is `~`) and the characters RFC 3986
//!   does not allow raw are encoded, see [`url`]; `'` in a query becomes `%27` (the
//!   WHATWG parser's rule). Compare URLs after [`url::normalize`] on both sides.
//!
//! May use: hash, model.

pub mod charset;
pub(crate) mod entities;
pub mod facts;
pub mod fingerprint;
mod hiding;
pub mod links;
mod lol;
mod markup;
mod names;
pub mod page;
mod resolve;
mod scan;
pub mod structure;
pub mod url;

#[cfg(test)]
pub(crate) mod corpus_tests;
#[cfg(test)]
mod scan_tests;

use ::url::Url;
use thiserror::Error;

use crate::model::Link;

pub use charset::{decode, CharsetSource, Decoded};
pub use page::{parse, parse_links_as_whole, Gather, Parsed};

/// What [`extract`] found on a page.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ExtractedPage {
    /// The first `<title>`, whitespace collapsed.
    pub title: Option<String>,
    /// The links, in page order.
    pub links: Vec<Link>,
    /// The page asks robots not to follow its links (`<meta name=robots content=nofollow>`).
    pub nofollow: bool,
    /// Absolute URL of the site icon the page declares (`<link rel="icon">`), if any.
    pub icon: Option<String>,
}

/// Why extraction failed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ExtractError {
    #[error("invalid CSS selector `{selector}`: {reason}")]
    InvalidSelector { selector: String, reason: String },
    #[error("cannot read the HTML: {0}")]
    Html(String),
}

/// A CSS selector narrowing a page to a region, checked when the user gives it.
#[derive(Debug, Clone)]
pub struct Selector {
    source: String,
    parsed: lol_html::Selector,
}

impl Selector {
    /// Parses and validates a user's CSS selector. The supported syntax is lol_html's:
    /// type, `#id`, `.class`, `*`, attribute selectors (`[a]`, `[a=v]`, `~=`, `^=`, `$=`,
    /// `*=`, `|=`, with `i`/`s`), `:nth-child()`, `:first-child`, `:nth-of-type()`,
    /// `:first-of-type`, `:not()` of those, descendant and child (`>`) combinators, and
    /// comma-separated lists of such selectors.
    pub fn parse(css: &str) -> Result<Self, ExtractError> {
        let source = css.trim();
        let invalid = |reason: String| ExtractError::InvalidSelector {
            selector: source.to_owned(),
            reason,
        };
        if source.is_empty() {
            return Err(invalid("the selector is empty".to_owned()));
        }
        let parsed = source.parse::<lol_html::Selector>().map_err(|e| {
            use lol_html::errors::SelectorError as E;
            let mut reason = e.to_string();
            if let Some(first) = reason.get(..1) {
                reason = first.to_lowercase() + &reason[1..];
            }
            let reason = reason.trim_end_matches('.').to_owned();
            match e {
                E::UnsupportedPseudoClassOrElement
                | E::UnsupportedCombinator(_)
                | E::UnsupportedSyntax => invalid(format!(
                    "{reason} (supported: tag, #id, .class, [attribute] tests, :nth-child, \
                         :first-child, :nth-of-type, :first-of-type, :not, descendant and `>` \
                         combinators, comma lists)"
                )),
                _ => invalid(reason),
            }
        })?;
        Ok(Self {
            source: source.to_owned(),
            parsed,
        })
    }

    /// The selector as given (trimmed).
    pub fn as_str(&self) -> &str {
        &self.source
    }
}

impl std::fmt::Display for Selector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.source)
    }
}

/// Extracts the title, the links and the nofollow flag from `html` (decoded text, see
/// [`charset::decode`]), resolving links against `page_url` (or the page's `<base href>`).
/// The rules are in the [module documentation](self). Never panics; errors only for
/// internal parser failures, which well-formed or not, real pages do not cause.
pub fn extract(
    html: &str,
    page_url: &Url,
    select: Option<&Selector>,
) -> Result<ExtractedPage, ExtractError> {
    page::parse(html, page_url, select, Gather::Links).map(|p| p.page)
}

#[cfg(test)]
mod tests;
