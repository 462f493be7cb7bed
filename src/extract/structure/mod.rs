//! The page's structure, gathered during the one pass over a page ([`super::page`]): for
//! every `<a href>` and `<area href>` in document order, where it stands in the page: the
//! chain of open elements above it (each with a per-document instance id and a signature,
//! tag plus class names), whether it sits in a heading or in a chrome region, and whether
//! it has visible text of its own; what the page's elements hold besides links
//! ([`Blocks`]); and, when asked for (deep watches), the page's visible text with where
//! each link's own text lands in it ([`PageText`]).
//!
//! The pass builds no tree, so the element stack is kept here: every element that can
//! have content is pushed, and its end pops the stack down to it (an end tag that closes
//! several elements ends all of them). Elements a browser
//! closes implicitly (`<li>` before `<li>`, `<td>` before `<td>`, `<p>` before a block)
//! are popped when the next one opens, so that the items of a list stay siblings.
//!
//! The text: every text chunk of the document reaches [`Tree::on_doc_text`], which drops
//! text inside hidden elements (as the extractor hides them) and notes where each link's
//! own text lands. Passes that do not ask for text pay nothing for it.
//!
//! The facts of entry content: gathered for the whole page as the pass goes
//! ([`super::facts::Facts`]), or, in a check's pass, only where each element's markup
//! stands ([`super::facts::Places`]), for the facts of an entry's element to be read from
//! its markup when the analysis asks ([`Structure::facts_for`]).
//!
//! Beside this file: what elements hold ([`blocks`]), the visible text ([`text`]) and the
//! roles of links ([`role`]). Uses
//! [`super::markup`]'s tags and text, [`super::links`] (what breaks words),
//! [`super::hiding`] (what hides), [`super::names`] (sets of tag names) and [`super::facts`].

mod blocks;
mod role;
mod text;

use std::ops::Range;

use super::markup::{Tag as StartTag, Text as Piece, TextKind};

use super::facts::{Facts, Places};
use super::hiding::{hides_text, Attrs};
use super::links;
use super::names::NameSets;
use role::{fnv, refine_roles, signature, FNV_SEED};
use text::Text;

use blocks::alphanumerics;
pub use blocks::Blocks;

/// What the facts of entry content are read from ([`Structure::facts_for`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EntryFacts {
    /// The whole page's, gathered as the pass went (a pass with a selector).
    Gathered(Facts),
    /// Where each element's markup stands, to read one element's facts from.
    Places(Places),
}

/// Levels of a link's element path held without an allocation: 96% of the links of a
/// sample of real list pages stand at most 16 elements deep (none deeper than 20).
pub const PATH_INLINE: usize = 16;

/// A link's element path ([`Context::path`]).
pub type ElementPath = smallvec::SmallVec<[u32; PATH_INLINE]>;

/// Where one link stands in its page.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Context {
    /// Instance ids of the elements from the root down to the link itself (unique within
    /// one page; an element's descendants are contiguous in document order). Held inline
    /// up to [`PATH_INLINE`] levels.
    pub path: ElementPath,
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

/// [`PageText::text`] and [`PageText::content`] stop growing at this many bytes.
pub const MAX_TEXT_BYTES: usize = 64 * 1024;

/// The visible text of a page and where each link's own text stands in it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PageText {
    /// Visible text, whitespace collapsed to single spaces, with a space between blocks
    /// (`<li>a</li><li>b</li>` reads "a b"). Left out: the contents of `script`, `style`,
    /// `template`, `noscript`, `title` (and SVG's `desc`), and of elements hidden by a
    /// `hidden` attribute, `aria-hidden="true"` or an inline `display:none` /
    /// `visibility:hidden`. At most [`MAX_TEXT_BYTES`], cut at a char boundary.
    pub text: String,
    /// The same text without what stands in chrome regions ([`Context::chrome`]): what
    /// near-duplicate signatures and topic relevance look at. Also capped.
    pub content: String,
    /// For each of the page's links (aligned with them): the byte range in `text` of that
    /// link's own visible text (empty, at the link's position, for a link without any,
    /// such as an image link); `None` when the link has no element of its own (an
    /// `xlink:href` link) or stands beyond the cap.
    pub anchors: Vec<Option<Range<usize>>>,
}

struct Frame {
    id: u32,
    tag: Tag,
    sig: u64,
    /// The role of a link that is this element: the hash of the signatures of this frame
    /// and every frame below it, kept as the stack grows ([`Tree::rehash_roles`] after a
    /// frame leaves from inside the stack).
    role: u64,
    chrome: bool,
    heading: bool,
    /// Its text is not shown (always false when text is not collected).
    hidden: bool,
}

struct Anchor {
    ctx: Context,
    /// Where its text stands in the collected text (see [`PageText::anchors`]).
    range: Option<Range<usize>>,
}

/// An element's tag name without an allocation: names longer than 15 bytes (custom
/// elements) are cut, which never makes them equal to the short names compared here.
#[derive(Clone, Copy)]
struct Tag {
    len: u8,
    bytes: [u8; 15],
}

impl Tag {
    fn new(name: &str) -> Self {
        let mut bytes = [0; 15];
        let len = name.len().min(bytes.len());
        bytes[..len].copy_from_slice(&name.as_bytes()[..len]);
        Self {
            len: len as u8,
            bytes,
        }
    }

    /// The name's bytes (compared as bytes: a name cut inside a character equals no
    /// tag name compared here).
    fn name(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }
}

/// What [`Tree::on_element`] made of a start tag.
pub(super) struct Opened {
    /// The element's id and whether its end tag separates words, when it has an end tag.
    pub end: Option<(u32, bool)>,
    /// The index of the anchor it opened (an `<a href>` or `<area href>`).
    pub anchor: Option<usize>,
}

/// The structure being gathered during a pass.
#[derive(Default)]
pub(super) struct Tree {
    stack: Vec<Frame>,
    next_id: u32,
    anchors: Vec<Anchor>,
    /// Index in `anchors` of the open `<a>`.
    open: Option<(u32, usize)>,
    /// `Some` when the text is collected.
    text: Option<Text>,
    /// What each element holds besides its links ([`Blocks`]), indexed by element id.
    blocks: Blocks,
    /// `Some` when the facts of entry content are collected.
    facts: Option<Facts>,
    /// `Some` when the places of elements are noted instead, for their facts to be read
    /// when asked for.
    places: Option<Places>,
    /// The id of the page's first `main` element (or `role=main`).
    main: Option<u32>,
}

/// The contexts of a page's links and what its elements hold besides links.
#[derive(Debug, Clone, Default)]
pub struct Structure {
    /// `ctx[i]` is the context of link `i` (`None` for a link the structure has no
    /// element for).
    pub ctx: Vec<Option<Context>>,
    pub blocks: Blocks,
    /// What entry content is read from, with [`super::Gather::Content`]
    /// ([`Structure::facts_for`]).
    pub entry_facts: Option<EntryFacts>,
    /// The page's main content: its first `main` element (or element with the landmark
    /// role `main`), by instance id. Everything outside it (header, menus, sidebars,
    /// footer link boxes) is, by the element's definition, not the page's dominant
    /// content.
    pub main: Option<u32>,
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

/// [`BLOCKS`] and [`links::BREAKING_ELEMENTS`] in one table: a start tag asks both.
static KINDS: NameSets = NameSets::new(&[(BLOCKS, BLOCK), (links::BREAKING_ELEMENTS, BREAKS)]);
/// The bit of [`BLOCKS`] in [`KINDS`].
const BLOCK: u8 = 1;
/// The bit of [`links::BREAKING_ELEMENTS`] in [`KINDS`].
const BREAKS: u8 = 2;

impl Tree {
    /// A tree that collects the page's visible text too when `with_text`, and the
    /// facts of entry content when `with_facts`.
    pub(super) fn new(with_text: bool, with_facts: bool) -> Self {
        Self {
            text: with_text.then(Text::default),
            facts: with_facts.then(Facts::default),
            ..Self::default()
        }
    }

    /// Room for `elements` elements and `anchors` links (capacities only).
    pub(super) fn reserve(&mut self, elements: usize, anchors: usize) {
        self.anchors.reserve(anchors);
        self.blocks.reserve(elements);
        if let Some(p) = &mut self.places {
            p.reserve(elements);
        }
        if let Some(f) = &mut self.facts {
            f.reserve(elements);
        }
    }

    /// A tree that notes where each element stands, for the facts of entry content to
    /// be read from one element's markup later ([`Structure::facts_for`]), and collects
    /// the page's visible text too when `with_text`.
    pub(super) fn with_places(with_text: bool) -> Self {
        Self {
            places: Some(Places::default()),
            ..Self::new(with_text, false)
        }
    }

    /// A tree that gathers the facts of one element's markup, read alone: its elements
    /// get the ids they have in the page from `first` on; `hidden` when an element
    /// around it hides its text.
    pub(super) fn for_element(first: u32, hidden: bool) -> Self {
        Self {
            next_id: first,
            facts: Some(Facts::within_element(first, hidden)),
            blocks: Blocks::starting_at(first),
            ..Self::default()
        }
    }

    /// Ends a pass of [`Tree::for_element`]: the facts it gathered.
    pub(super) fn into_facts(mut self) -> Option<Facts> {
        let open: Vec<u32> = self.stack.iter().map(|f| f.id).collect();
        let mut facts = self.facts.take()?;
        facts.finish(&open, self.next_id);
        Some(facts)
    }

    /// Ends the pass. `of_link[i]` is the anchor of the page's link `i` (what
    /// [`Tree::on_element`] returned for its element): the result's contexts and text
    /// ranges are aligned with the links.
    pub(super) fn finish(mut self, of_link: &[Option<usize>]) -> (Structure, Option<PageText>) {
        let open: Vec<u32> = self.stack.iter().map(|f| f.id).collect();
        self.blocks.finish(&open, self.next_id);
        if let Some(f) = &mut self.facts {
            f.finish(&open, self.next_id);
        }
        if let Some(p) = &mut self.places {
            for &id in &open {
                p.close(id);
            }
        }
        refine_roles(&mut self.anchors);
        let mut anchors: Vec<Option<Anchor>> = self.anchors.into_iter().map(Some).collect();
        let (ctx, ranges): (Vec<_>, Vec<_>) = of_link
            .iter()
            .map(|a| match a.and_then(|i| anchors.get_mut(i)?.take()) {
                Some(a) => (Some(a.ctx), a.range),
                None => (None, None),
            })
            .unzip();
        let text = self.text.map(|t| {
            // An empty range at the very end of a full text stands past the cap.
            let past =
                |r: &Range<usize>| t.all.full && r.start == r.end && r.start >= t.all.s.len();
            let anchors = ranges.into_iter().map(|r| r.filter(|r| !past(r))).collect();
            PageText {
                text: t.all.s,
                content: t.content.s,
                anchors,
            }
        });
        let structure = Structure {
            ctx,
            blocks: self.blocks,
            entry_facts: self
                .facts
                .map(EntryFacts::Gathered)
                .or(self.places.map(EntryFacts::Places)),
            main: self.main,
        };
        (structure, text)
    }

    /// Pops the stack down to (and including) the element `id`, if it is open.
    fn close(&mut self, id: u32) {
        if let Some(pos) = self.stack.iter().rposition(|f| f.id == id) {
            for f in &self.stack[pos..] {
                self.blocks.close(f.id, self.next_id);
                if let Some(facts) = &mut self.facts {
                    facts.close(f.id, self.next_id);
                }
                if let Some(p) = &mut self.places {
                    p.close(f.id);
                }
            }
            self.stack.truncate(pos);
        }
        if self.open.is_some_and(|(a, _)| a == id) {
            self.open = None;
        }
    }

    /// A link opens while another is open: the open one ends there (as in a browser),
    /// and only it leaves the stack: the elements opened inside it (a hidden `div`)
    /// stay open.
    fn close_anchor(&mut self) {
        if let Some(pos) = self.stack.iter().rposition(|f| f.tag.name() == b"a") {
            let id = self.stack[pos].id;
            self.blocks.close(id, self.next_id);
            if let Some(facts) = &mut self.facts {
                facts.close(id, self.next_id);
            }
            if let Some(p) = &mut self.places {
                p.close(id);
            }
            self.stack.remove(pos);
            self.rehash_roles(pos);
            if self.open.is_some_and(|(a, _)| a == id) {
                self.open = None;
            }
        }
    }

    /// The roles of the frames from `from` up, after the frame below them left.
    fn rehash_roles(&mut self, from: usize) {
        let mut h = from
            .checked_sub(1)
            .and_then(|i| self.stack.get(i))
            .map_or(FNV_SEED, |f| f.role);
        for f in self.stack.iter_mut().skip(from) {
            h = fnv(h, &f.sig.to_le_bytes());
            f.role = h;
        }
    }

    /// Pops the innermost open element that `closes` names unless an element that
    /// `stops` names is open above it: the implicit end tags of HTML.
    fn close_implicit(&mut self, closes: impl Fn(&[u8]) -> bool, stops: impl Fn(&[u8]) -> bool) {
        for i in (0..self.stack.len()).rev() {
            let t = self.stack[i].tag.name();
            if closes(t) {
                let id = self.stack[i].id;
                self.close(id);
                return;
            }
            if stops(t) {
                return;
            }
        }
    }

    /// What the start tag `tag` (of the sets `kind`) closes before it opens: the
    /// implicit end tags of HTML, and a link still open.
    fn close_before(&mut self, tag: &str, kind: u8) {
        match tag {
            "li" => self.close_implicit(|t| t == b"li", |t| matches!(t, b"ul" | b"ol" | b"menu")),
            "dt" | "dd" => self.close_implicit(|t| matches!(t, b"dt" | b"dd"), |t| t == b"dl"),
            "tr" => self.close_implicit(
                |t| t == b"tr",
                |t| matches!(t, b"table" | b"thead" | b"tbody" | b"tfoot"),
            ),
            "td" | "th" => self.close_implicit(
                |t| matches!(t, b"td" | b"th"),
                |t| matches!(t, b"tr" | b"table"),
            ),
            "option" => {
                self.close_implicit(|t| t == b"option", |t| matches!(t, b"select" | b"datalist"));
            }
            "a" => self.close_anchor(),
            _ if kind & BLOCK != 0 => self.close_implicit(
                |t| t == b"p",
                |t| matches!(t, b"div" | b"td" | b"li" | b"section" | b"article"),
            ),
            _ => {}
        }
    }

    /// Handles a start tag (`tag`: its name, lower case). Returns the element's id when
    /// it has an end tag (then [`Tree::close`] must run at that end tag), whether that end
    /// tag separates words, and the index of the anchor it opened, if it is a link.
    pub(super) fn on_element(&mut self, el: &StartTag<'_>, tag: &str, attrs: &Attrs) -> Opened {
        let kind = KINDS.get(tag);
        self.close_before(tag, kind);
        let parent = self.stack.last();
        let parent_role = parent.map_or(FNV_SEED, |p| p.role);
        let landmark = attrs.role.is_some_and(|role| {
            matches!(
                role,
                "navigation" | "banner" | "contentinfo" | "complementary"
            )
        });
        let chrome = parent.is_some_and(|p| p.chrome)
            || matches!(tag, "nav" | "header" | "footer" | "aside")
            || landmark;
        let heading = parent.is_some_and(|p| p.heading)
            || matches!(tag, "h1" | "h2" | "h3" | "h4" | "h5" | "h6");
        if heading {
            // A heading inside a link makes the link a heading link.
            if let Some((_, i)) = self.open {
                self.anchors[i].ctx.heading = true;
            }
        }
        let texts = self.text.is_some() || self.facts.is_some();
        let hidden = texts && (parent.is_some_and(|p| p.hidden) || hides_text(attrs, tag));
        let breaks = texts && kind & BREAKS != 0;
        if breaks {
            self.split();
        }
        let sig = signature(tag, attrs.class);
        let role = fnv(parent_role, &sig.to_le_bytes());
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1);
        if self.main.is_none() && (tag == "main" || attrs.role == Some("main")) {
            self.main = Some(id);
        }
        self.blocks.open(id);
        if let Some(f) = &mut self.facts {
            f.open(id, tag, el, attrs);
        }
        if let Some(p) = &mut self.places {
            p.open(id, el, tag, attrs);
            p.seen(el.span.end);
        }
        if matches!(tag, "img" | "picture" | "svg" | "video" | "time") {
            self.blocks.add_media(id);
        }
        let can_close = el.content;
        self.stack.push(Frame {
            id,
            tag: Tag::new(tag),
            sig,
            role,
            chrome,
            heading,
            hidden,
        });
        let mut anchor = None;
        if matches!(tag, "a" | "area") && el.has_attr("href") {
            let path: ElementPath = self.stack.iter().map(|f| f.id).collect();
            let ctx = Context {
                path,
                role,
                chrome,
                heading,
                has_text: false,
            };
            let range = self
                .text
                .as_ref()
                .filter(|t| !t.all.full)
                .map(|t| t.all.s.len()..t.all.s.len());
            self.anchors.push(Anchor { ctx, range });
            anchor = Some(self.anchors.len() - 1);
            if can_close && tag == "a" {
                self.open = Some((id, self.anchors.len() - 1));
            }
        }
        let end = if can_close {
            Some((id, breaks))
        } else {
            self.stack.pop();
            if let Some(p) = &mut self.places {
                p.void(id);
            }
            None
        };
        Opened { end, anchor }
    }

    /// The end tag of element `id` (and of the elements it closes), which separates
    /// words when `breaks`.
    pub(super) fn on_end(&mut self, id: u32, breaks: bool) {
        self.close(id);
        if breaks {
            self.split();
        }
    }

    /// A block starts or ends: words on either side are apart in the collected texts.
    fn split(&mut self) {
        if let Some(t) = &mut self.text {
            t.split();
        }
        if let Some(f) = &mut self.facts {
            f.split();
        }
    }

    /// Any text chunk of the document.
    pub(super) fn on_chunk(&mut self, chunk: &Piece<'_>) {
        self.on_text(chunk);
        self.on_any_text(chunk);
        self.on_doc_text(chunk);
        if let Some(p) = &mut self.places {
            p.seen(chunk.span.end);
        }
        if let Some(f) = &mut self.facts {
            if chunk.kind == TextKind::Data {
                f.chunk(chunk.s, chunk.last);
            }
        }
    }

    fn on_text(&mut self, t: &Piece<'_>) {
        if t.kind != TextKind::Data {
            return;
        }
        if let Some((_, i)) = self.open {
            if !t.s.trim().is_empty() {
                self.anchors[i].ctx.has_text = true;
            }
        }
    }

    /// Any text chunk: letters and digits outside links count for the element they
    /// stand in ([`Blocks`]).
    fn on_any_text(&mut self, chunk: &Piece<'_>) {
        if self.open.is_some() || chunk.kind != TextKind::Data {
            return;
        }
        let Some(top) = self.stack.last() else { return };
        if matches!(
            top.tag.name(),
            b"script" | b"style" | b"template" | b"noscript" | b"title"
        ) {
            return;
        }
        let n = alphanumerics(chunk.s);
        if n > 0 {
            self.blocks.add_text(top.id, n);
        }
    }
}
