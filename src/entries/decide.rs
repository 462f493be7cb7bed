//! Which links of a page are new entries: the one decision that checks, deep crawls, the
//! preview, the backfill and `replay` all make, by structure alone.
//!
//! Every link gets a [`Verdict`]. A link becomes an item when its URL was never seen by
//! the watch and *some* place where it stands on the page is the main link of an entry
//! in an *entry list* (a notice shown in a ticker, in the main list and in a "latest"
//! sidebar is one item, decided by its place in the list). The parts:
//!
//! - **Entries** ([`super::group`]): links grouped into the blocks of the page's repeated
//!   structures; one main link per block. A further link of a block (author, comments,
//!   category, a tarball in another format) is [`Verdict::Secondary`]: one entry, one
//!   item.
//! - **Entry lists and navigation lists.** A role (the chain of tag and class names above
//!   a link) whose entries repeat is a list. It is an *entry list* when its blocks hold
//!   content besides their link (text outside the link, such as a date or a summary; a
//!   picture; further links) in at least half of its entries, or, for bare lists, when
//!   its titles are long (a heading, not a label) or its URLs name one thing each (a
//!   number, a slug of several words). Otherwise it is *navigation*: menus,
//!   tag clouds, footer link lists, page numbers. A role known as an entry list from
//!   earlier checks stays one, however much the list grows, shrinks or turns over.
//! - **Standing alone.** A main link whose role does not repeat is an entry only when its
//!   role was an entry list before, or when its block holds content and its URL has the
//!   shape of the page's entry URLs (a featured teaser); a lone new link elsewhere (a
//!   badge, a new menu, a template link left unrendered) is chrome.
//! - **Chrome regions** (`nav`, `header`, `footer`, `aside` and their landmark roles;
//!   on a page whose `main` element holds an entry list, every list outside `main`),
//!   image-only main links, facets (kinds of URL that entries use as secondary links:
//!   authors, nodes, tags), folders above the page's entries (an archive month), bare
//!   links whose text has no letters (page numbers) and pager slots that moved are never
//!   items.
//! - **Identity by title.** A new URL whose title is distinctive (unique on both pages,
//!   long enough, not a number or a date) and stood on the previous page under a URL now
//!   gone is the same entry moved (a theme upgrade that changed every permalink), not
//!   a new one; when only the URL's numbers changed, only if the whole step is such moves
//!   (a renumbered site), since that is also how the next instance of a recurring entry
//!   looks.
//!
//! There is no page-wide "layout change" switch: a redesign emits its real new entries
//! and drops its chrome, link by link.

use crate::hash::{HashMap, HashSet};

use serde::Serialize;

use super::titles;
use super::urls::{ancestors, url_shape, UrlShape};
use super::{group, moved_slots, url_kind, width, LastPage, Structure};
use crate::model::Link;

/// What the analysis makes of one link of the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// A new entry: the link becomes an item.
    Item,
    /// The watch has seen this URL before (on the last page or since).
    Seen,
    /// The first check only records the page.
    Baseline,
    /// A further link of an entry whose main link decides (author, comments, tags,
    /// another format of one download).
    Secondary,
    /// In a header, footer, menu or sidebar, a navigation list, or a new structure that
    /// does not repeat.
    Chrome,
    /// A kind of URL the page's entries use as secondary links (a new author, a new
    /// node), or a folder above the page's entries (an archive month, a section).
    Facet,
    /// An entry of the last page under a new URL (its distinctive title stood there).
    Moved,
    /// A pager or "next" slot that points somewhere new.
    Pager,
    /// No text of its own (an icon, a banner).
    NoText,
}

impl Verdict {
    /// Why a link is not an item, in a few words for people.
    pub fn reason(self) -> &'static str {
        match self {
            Self::Item => "new entry",
            Self::Seen => "seen before",
            Self::Baseline => "first check: recorded",
            Self::Secondary => "another link of an entry",
            Self::Chrome => "menu, header, footer or sidebar",
            Self::Facet => "a tag, author, category or archive link",
            Self::Moved => "an entry moved to a new URL",
            Self::Pager => "pagination",
            Self::NoText => "no text of its own",
        }
    }

    /// Which of two places of one URL speaks for it: an item anywhere makes an item.
    fn rank(self) -> u8 {
        match self {
            Self::Item => 9,
            Self::Moved => 8,
            Self::Secondary => 7,
            Self::Facet => 6,
            Self::Pager => 5,
            Self::Chrome => 4,
            Self::NoText => 3,
            Self::Seen => 2,
            Self::Baseline => 1,
        }
    }
}

/// What the analysis knew before this page: the last page's links and the roles that
/// were entry lists.
#[derive(Clone, Copy, Default)]
pub struct Prior<'p, 'a> {
    /// The links of the last page, by URL (`None`, as at the baseline: none).
    pub last: Option<&'p LastPage<'a>>,
    /// Where each link of the page being decided stood on the last page
    /// ([`LastPage::slots`]), when the caller asked already; asked here otherwise.
    pub on_last: Option<&'p [Option<usize>]>,
    /// Roles that were entry lists on earlier pages.
    pub entry_roles: &'a [u64],
}

/// Tunable parts of the decision (the evaluation reports how they were chosen).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    /// Letters and digits outside the link that make a block hold content.
    pub block_text: u32,
    /// Share of a list's blocks that must hold content for an entry list.
    pub rich_share: f64,
    /// Mean title width (CJK characters count two) from which a bare list is an entry list.
    pub bare_title_width: usize,
    /// Width from which a title is distinctive (identity by title).
    pub distinct_title_width: usize,
}

impl Default for Params {
    fn default() -> Self {
        Self {
            block_text: 4,
            rich_share: 0.5,
            bare_title_width: 20,
            distinct_title_width: 8,
        }
    }
}

/// The decision on one page.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Decision {
    /// `verdicts[i]` is the verdict on link `i` (for a URL standing several times, the
    /// one that speaks for it: every place of an item URL says [`Verdict::Item`] only at
    /// the place chosen as the item).
    pub verdicts: Vec<Verdict>,
    /// The links that become items, in page order, one per URL.
    pub items: Vec<usize>,
    /// The roles of this page's entry lists, then the known ones (at most
    /// [`super::MAX_ROLES`]): what the next check knows.
    pub entry_roles: Vec<u64>,
    /// Main links of entries whose URL stood on the last page under another text: the
    /// title was edited.
    pub retitled: Vec<usize>,
    /// The page's entries in order (main link index of each entry of an entry list),
    /// for a backfill.
    pub entries: Vec<usize>,
    /// `block_of[i]`: the element that holds the entry of link `i` (`None` for a link
    /// standing alone): where the entry's summary, date and picture are read.
    pub block_of: Vec<Option<u32>>,
}

/// Per role of main links: how many entries, how many hold content, title widths.
#[derive(Default)]
struct RoleStat {
    entries: usize,
    rich: usize,
    width: usize,
    urls: usize,
    /// Entries whose URL names one thing (a number, a slug of several words).
    specific: usize,
    /// Entries whose URL stood on the last page.
    on_old: usize,
}

/// What the structure says of the page's entries: which roles are entry lists, which
/// entries hold content, the URL shapes of list entries, the facet kinds.
struct Lists<'a> {
    entries: super::Entries,
    roles: HashMap<u64, RoleStat>,
    /// Roles that are entry lists on this page or were before.
    list_roles: HashSet<u64>,
    /// URL shapes of the entries of entry lists outside chrome, with their counts.
    shapes: HashMap<UrlShape<'a>, usize>,
    /// Per kind of URL: (main links, secondary links) in entries of several links.
    kinds: HashMap<&'a str, (usize, usize)>,
    /// The page's `main` element, when an entry list stands in it: then whatever stands
    /// outside (menus, sidebars, footer boxes) is chrome.
    main: Option<u32>,
    /// Per entry: its block holds content besides its link (a date, a summary, a
    /// picture, further links).
    rich: Vec<bool>,
    /// The folders above the main links of the entry lists' entries, without their
    /// final slash (`https://h/2024` and `https://h/2024/05` for
    /// `https://h/2024/05/a-post/`): a link to one of them, with or without the slash,
    /// is an index of entries (an archive month, a section), not an entry.
    folders: HashSet<&'a str>,
}

impl<'a> Lists<'a> {
    /// `last`: the last page's links by URL; `on_last[i]`: where `links[i]` stood there.
    fn new(
        prior: &Prior<'_, '_>,
        last: &LastPage<'_>,
        on_last: &[Option<usize>],
        links: &'a [Link],
        st: &Structure,
        params: &Params,
    ) -> Self {
        let ctx = &st.ctx;
        let entries = group(links, ctx);
        let ne = entries.main.len();
        let mut size = vec![0usize; ne];
        // Whether an entry holds two URLs or more: its first URL, then a flag.
        let mut first_url: Vec<Option<&str>> = vec![None; ne];
        let mut two_urls = vec![false; ne];
        for (i, &e) in entries.entry_of.iter().enumerate() {
            size[e] += 1;
            let url = links[i].url.as_str();
            two_urls[e] |= *first_url[e].get_or_insert(url) != url;
        }
        let mut roles: HashMap<u64, RoleStat> = HashMap::default();
        // (sized once: a role and URL per entry at most)
        let mut role_urls: HashSet<(u64, &str)> = crate::hash::set_with_capacity(ne);
        let mut rich_entry = vec![false; ne];
        let mut entry_shape: Vec<Option<UrlShape<'a>>> = vec![None; ne];
        for (e, &m) in entries.main.iter().enumerate() {
            // Image-only links (banners, icons) neither make nor break a list.
            let Some(c) = ctx[m].as_ref().filter(|c| c.has_text) else {
                continue;
            };
            let (text, media) = entries.container[e].map_or((0, 0), |id| st.blocks.content(id));
            let rich = text >= params.block_text || media > 0 || two_urls[e];
            rich_entry[e] = rich;
            let r = roles.entry(c.role).or_default();
            r.entries += 1;
            r.rich += usize::from(rich);
            r.width += width(&links[m].text);
            let shape = entry_shape[e].insert(url_shape(&links[m].url));
            r.specific += usize::from(matches!(shape.2, 1..=4));
            r.on_old += usize::from(on_last[m].is_some());
            if role_urls.insert((c.role, links[m].url.as_str())) {
                r.urls += 1;
            }
        }
        let known: HashSet<u64> = prior.entry_roles.iter().copied().collect();
        // A bare list that appears whole (a new role, none of its links on the last page,
        // on a page whose entry lists are known) is a box added to the page (a menu, a
        // block of service links), not news; if it is a list of entries, it is known as
        // one from now on and its next entries are items.
        let settled = !last.is_empty() && !known.is_empty();
        let new_box = |role: &u64, r: &RoleStat| {
            settled && !known.contains(role) && r.on_old == 0 && !rich_list(r, params)
        };
        let list_roles: HashSet<u64> = roles
            .iter()
            .filter(|(role, r)| {
                known.contains(role) || (entry_list(r, params) && !new_box(role, r))
            })
            .map(|(&role, _)| role)
            .collect();
        let main = st.main.filter(|&id| {
            entries.main.iter().any(|&m| {
                ctx[m].as_ref().is_some_and(|c| {
                    !c.chrome && list_roles.contains(&c.role) && c.path.contains(&id)
                })
            })
        });
        let outside = |c: &super::Context| main.is_some_and(|id| !c.path.contains(&id));
        let mut shapes: HashMap<UrlShape<'a>, usize> = HashMap::default();
        for (e, &m) in entries.main.iter().enumerate() {
            if let Some(c) = ctx[m].as_ref() {
                if !c.chrome && !outside(c) && list_roles.contains(&c.role) {
                    let shape = entry_shape[e]
                        .take()
                        .unwrap_or_else(|| url_shape(&links[m].url));
                    *shapes.entry(shape).or_default() += 1;
                }
            }
        }
        let mut folders: HashSet<&'a str> = HashSet::default();
        for &m in &entries.main {
            if ctx[m]
                .as_ref()
                .is_some_and(|c| !c.chrome && !outside(c) && list_roles.contains(&c.role))
            {
                folders.extend(folder_keys(&links[m].url));
            }
        }
        let mut kinds: HashMap<&str, (usize, usize)> = HashMap::default();
        for (i, &e) in entries.entry_of.iter().enumerate() {
            let m = entries.main[e];
            if size[e] < 2 || ctx[m].as_ref().is_some_and(|c| c.chrome) {
                continue;
            }
            let k = kinds.entry(url_kind(&links[i].url)).or_default();
            if i == m {
                k.0 += 1;
            } else if links[i].url != links[m].url {
                k.1 += 1;
            }
        }
        Self {
            entries,
            roles,
            list_roles,
            shapes,
            kinds,
            main,
            rich: rich_entry,
            folders,
        }
    }

    /// Whether `url` is a folder above other entries of the page (an index of them).
    fn index(&self, url: &str) -> bool {
        in_folders(&self.folders, url)
    }

    /// Whether the entry of link `i` holds content besides its link.
    fn rich(&self, i: usize) -> bool {
        self.rich[self.entries.entry_of[i]]
    }

    /// A kind of URL that the page's entries use only as secondary links (authors,
    /// nodes, tags beside each topic), never as their main link: a new link of that kind
    /// elsewhere (a new node in a directory) is a facet, not an entry.
    fn facet(&self, url: &str) -> bool {
        self.kinds
            .get(url_kind(url))
            .is_some_and(|&(mains, members)| mains == 0 && members > 0)
    }

    /// What the structure makes of link `i`, seen or not.
    fn structural(&self, links: &[Link], ctx: &[Option<super::Context>], i: usize) -> Verdict {
        let m = self.entries.main[self.entries.entry_of[i]];
        let Some(c) = ctx[m].as_ref() else {
            return Verdict::Chrome;
        };
        if m != i {
            // Another link of the entry, to another URL or to the same one (a picture
            // linking the story beside its title): the main link speaks for the entry.
            return Verdict::Secondary;
        }
        // Outside the page's main content, lists are chrome (footer boxes of service
        // links, "latest" sidebars whose entries the main list shows anyway); a lone
        // teaser there (a breaking-news banner) is still judged as one.
        let outside_list = self.main.is_some_and(|id| !c.path.contains(&id))
            && self.roles.get(&c.role).is_some_and(|r| r.entries >= 2);
        // A lone teaser: a main link that no list holds, whose URL has the shape of the
        // listed entries' URLs (worked out only for such a link).
        let lone_entry = || {
            self.shapes
                .get(&url_shape(&links[m].url))
                .is_some_and(|&k| k >= 2)
        };
        if c.chrome || outside_list {
            Verdict::Chrome
        } else if !c.has_text || links[m].text.is_empty() {
            Verdict::NoText
        } else if !(self.list_roles.contains(&c.role) || lone_entry()) {
            Verdict::Chrome
        } else if self.facet(&links[i].url) || self.index(&links[i].url) {
            Verdict::Facet
        } else {
            Verdict::Item
        }
    }
}

/// The folders above `url` as [`Lists::folders`] keeps them: without their final slash.
fn folder_keys(url: &str) -> impl Iterator<Item = &str> + '_ {
    ancestors(url).map(|a| a.strip_suffix('/').unwrap_or(a))
}

/// Whether `url` names one of `folders` ([`folder_keys`]), with or without its final
/// slash; never with a query (a filtered view is not the folder).
fn in_folders(folders: &HashSet<&str>, url: &str) -> bool {
    !url.contains('?') && folders.contains(url.strip_suffix('/').unwrap_or(url))
}

/// A list role whose blocks hold content, or, bare, whose titles are wide or whose URLs
/// name one thing each (`/notice/1234`, `/releases/v1.2.3`, `/2024/05/a-long-slug`)
/// where a menu's name sections (`/sport/`, `/about`).
fn entry_list(r: &RoleStat, params: &Params) -> bool {
    r.urls >= 2
        && (rich_list(r, params)
            || r.width >= params.bare_title_width * r.entries
            || r.specific * 2 > r.entries)
}

/// A list role whose blocks hold content besides their link.
fn rich_list(r: &RoleStat, params: &Params) -> bool {
    r.rich as f64 >= params.rich_share * r.entries as f64
}

/// Decides every link of a page. `is_seen(url)` says whether the watch saw a URL before
/// (the last page's URLs count as seen whatever it answers). `baseline`: the first check.
pub fn decide<E>(
    prior: &Prior<'_, '_>,
    links: &[Link],
    st: &Structure,
    baseline: bool,
    params: &Params,
    is_seen: &mut dyn FnMut(&str) -> Result<bool, E>,
) -> Result<Decision, E> {
    let ctx = &st.ctx;
    // The texts each URL of the last page stood under (a story's title and its "Read
    // more" share one URL).
    let none = LastPage::new(&[]);
    let last = prior.last.unwrap_or(&none);
    let on_last = match prior.on_last {
        Some(s) if s.len() == links.len() => std::borrow::Cow::Borrowed(s),
        _ => std::borrow::Cow::Owned(last.slots(links)),
    };
    let lists = Lists::new(prior, last, &on_last, links, st, params);
    if tracing::enabled!(tracing::Level::TRACE) {
        for (i, &e) in lists.entries.entry_of.iter().enumerate() {
            let main = &links[lists.entries.main[e]].url;
            tracing::trace!(link = %links[i].url, text = %links[i].text, entry = e, %main, "entry");
        }
    }
    let pager = moved_slots(last.links(), links);
    let titles = titles::Titles::new(last.links(), links, params.distinct_title_width);

    // The verdict of each place, and the entries of entry lists (for a backfill).
    let mut place = vec![Verdict::Seen; links.len()];
    let mut listed = Vec::new();
    let mut seen_cache: HashMap<&str, bool> = HashMap::default();
    // Moves whose URLs kept their shape, for the decision below.
    let mut renumbered = Vec::new();
    for (i, l) in links.iter().enumerate() {
        let mut structural = lists.structural(links, ctx, i);
        // A pager slot is a bare link; an entry whose block holds a date or a summary and
        // whose title recurs under a new URL of the same shape is the next instance of a
        // series (a weekly event, a monthly report), not a pager.
        // A bare link whose text has no letters is a page number ("6", "»"), not a title.
        let letterless = !l.text.chars().any(char::is_alphabetic);
        if structural == Verdict::Item
            && (pager.contains(l.text.as_str()) || letterless)
            && !lists.rich(i)
        {
            structural = Verdict::Pager;
        }
        if structural == Verdict::Item && lists.entries.main[lists.entries.entry_of[i]] == i {
            listed.push(i);
        }
        place[i] = if baseline {
            Verdict::Baseline
        } else if on_last[i].is_some() {
            Verdict::Seen
        } else if let Some(&true) = seen_cache.get(l.url.as_str()) {
            Verdict::Seen
        } else if !seen_cache.contains_key(l.url.as_str()) && {
            let s = is_seen(&l.url)?;
            seen_cache.insert(&l.url, s);
            s
        } {
            Verdict::Seen
        } else if let Some(reshaped) = (structural == Verdict::Item)
            .then(|| titles.moved(i))
            .flatten()
        {
            if !reshaped {
                renumbered.push(i);
            }
            Verdict::Moved
        } else {
            structural
        };
    }
    // A title that comes back under a URL of the same shape with other numbers is a
    // move only when the whole step is such moves (a site that renumbered its entries);
    // beside new entries it is the next instance of a recurring one.
    let fresh = place.iter().filter(|&&v| v == Verdict::Item).count();
    if renumbered.len() < 3 || fresh * 10 > renumbered.len() {
        for i in renumbered {
            place[i] = Verdict::Item;
        }
    }
    let (verdicts, items) = one_per_url(links, place);
    // Title edits: an entry whose URL stood on the last page with another text.
    let retitled = if baseline {
        Vec::new()
    } else {
        listed
            .iter()
            .copied()
            .filter(|&m| {
                last.texts(&links[m].url).is_some_and(|texts| {
                    texts.iter().any(|t| !t.is_empty())
                        && !texts.iter().any(|t| *t == links[m].text)
                })
            })
            .collect()
    };
    let mut entry_roles: Vec<u64> = lists
        .roles
        .iter()
        .filter(|(_, r)| entry_list(r, params))
        .map(|(&role, _)| role)
        .collect();
    entry_roles.sort_unstable();
    let block_of = (0..links.len())
        .map(|i| {
            let e = lists.entries.entry_of.get(i)?;
            lists.entries.container.get(*e).copied().flatten()
        })
        .collect();
    Ok(Decision {
        verdicts,
        items,
        entry_roles: super::remember(prior.entry_roles, &entry_roles),
        retitled,
        entries: listed,
        block_of,
    })
}

/// One verdict per URL, the best of its places; an item at its first item place (its
/// other places are [`Verdict::Secondary`]). Returns the verdicts and the items.
fn one_per_url(links: &[Link], place: Vec<Verdict>) -> (Vec<Verdict>, Vec<usize>) {
    // Each URL's best place, and for each link the URL's number among them (a URL is
    // hashed once).
    let mut number: HashMap<&str, usize> = crate::hash::map_with_capacity(links.len());
    let mut best: Vec<(Verdict, usize)> = Vec::with_capacity(links.len());
    let mut url_of = Vec::with_capacity(links.len());
    for (i, &v) in place.iter().enumerate() {
        let n = *number.entry(links[i].url.as_str()).or_insert_with(|| {
            best.push((v, i));
            best.len() - 1
        });
        url_of.push(n);
        let b = &mut best[n];
        if v.rank() > b.0.rank() {
            *b = (v, i);
        }
    }
    let mut verdicts = place;
    let mut items = Vec::new();
    for (i, &n) in url_of.iter().enumerate() {
        let (v, at) = best[n];
        if v == Verdict::Item {
            if at == i {
                items.push(i);
            } else {
                verdicts[i] = Verdict::Secondary;
            }
        } else if !matches!(verdicts[i], Verdict::Seen | Verdict::Baseline) {
            verdicts[i] = v;
        }
    }
    (verdicts, items)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_is_named_with_or_without_its_final_slash_never_with_a_query() {
        let posts = ["https://h/2024/05/a-post/", "https://h/2024/06/b-post"];
        let folders: HashSet<&str> = posts.iter().flat_map(|u| folder_keys(u)).collect();
        for url in [
            "https://h/2024/",
            "https://h/2024",
            "https://h/2024/05/",
            "https://h/2024/05",
            "https://h/2024/06",
        ] {
            assert!(in_folders(&folders, url), "{url}");
        }
        for url in [
            "https://h/",
            "https://h",
            "https://h/2024/05/a-post/",
            "https://h/2024/06/b-post",
            "https://h/2024/05/?page=2",
            "https://h/2024/05?page=2",
            "https://h/2024/07/",
            "https://h/2024/0",
        ] {
            assert!(!in_folders(&folders, url), "{url}");
        }
    }
}
