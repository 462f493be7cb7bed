//! The one analysis of a page: (the watch's previous state, a page body) → (items, the
//! watch's next page state, an explanation of every link). Live checks, deep crawls,
//! the preview, the backfill and `sitefeed replay` all call [`analyse`], so what the
//! preview marks is what the next check emits.
//!
//! Pure: no network, no clock, no database. What it needs of the watch's past (its last
//! link array, whether a URL was ever seen) comes through the small [`History`] trait,
//! which the store implements and tests fake.
//!
//! The steps (docs/design.md, "One check"): raw fingerprint → extraction → link
//! fingerprint → the improved-LCS diff with selective extraction → the entry decision
//! ([`crate::entries::decide`]).
//!
//! May use: diff, entries, extract, fetch, hash, model.

use crate::hash::HashSet;

use url::Url;

use crate::diff;
use crate::entries::hygiene::Tracking;
use crate::entries::{self, decide, Context};
use crate::extract::{self, fingerprint, Selector};
use crate::fetch::Validators;
use crate::model::{hex, Item, Link, Watch};

pub use decide::{Params, Verdict};

/// What the analysis reads of a watch's past.
pub trait History {
    type Error;
    /// The link array of the last successful check (empty before the first).
    fn links(&self) -> Result<Vec<Link>, Self::Error>;
    /// Whether the watch has ever seen `url` on its page (beyond the last array).
    fn is_seen(&self, url: &str) -> Result<bool, Self::Error>;
}

/// What the analysis needs of the watch's state after its last check.
#[derive(Debug, Clone, Copy, Default)]
pub struct Prev<'a> {
    /// Hex MD5 of the last body.
    pub raw_fingerprint: Option<&'a str>,
    /// Hex MD5 of the last link array (`None`: no baseline yet).
    pub link_fingerprint: Option<&'a str>,
    /// Roles of the entry lists seen before.
    pub entry_roles: &'a [u64],
    /// Entries to emit at the baseline (a backfill asked for).
    pub backfill: u32,
    /// Read the page's links alone first, and the whole page only when they changed: most
    /// of the watch's recent new bodies kept their links
    /// ([`crate::state::WatchState::link_change_share`]).
    /// The result is the same either way; only the cost differs.
    pub links_first: bool,
}

/// Links to leave out of a page before everything else (a deep watch's site template).
pub trait LinkFilter {
    /// Whether it leaves nothing out.
    fn is_empty(&self) -> bool;
    /// The links and contexts it keeps.
    fn strip(
        &self,
        links: Vec<Link>,
        ctx: Vec<Option<Context>>,
    ) -> (Vec<Link>, Vec<Option<Context>>);
}

/// A page body to analyse, from the network or from a file.
pub struct PageInput<'a> {
    pub body: &'a [u8],
    pub content_type: Option<&'a str>,
    /// The page's URL (after redirects), the base for relative links.
    pub url: &'a Url,
    pub validators: Validators,
    /// The site's template (deep watches): links removed before the link fingerprint
    /// and the diff.
    pub template: Option<&'a dyn LinkFilter>,
    /// Analyse even when the fingerprints say nothing changed (the preview: every link
    /// explained).
    pub force: bool,
    /// The query parameters dropped from links before anything compares them.
    pub tracking: &'a Tracking,
    /// What of the pass to keep ([`Changed::pass`]): a deep watch's crawl reads its own
    /// page from it instead of parsing it again.
    pub keep_pass: Keep,
}

/// What a check keeps of the pass over its page for a deep watch's crawl.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Keep {
    /// Nothing: a plain watch's check, a preview, a replay.
    #[default]
    Nothing,
    /// The links as the page wrote them and their structure: a crawl without keywords
    /// reads no more of its own page.
    Pass,
    /// The pass and the page's text, gathered for it: a crawl with keywords scores the
    /// page and its links by their text.
    PassAndText,
}

impl std::fmt::Debug for PageInput<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PageInput")
            .field("bytes", &self.body.len())
            .field("url", &self.url.as_str())
            .field("template", &self.template.is_some())
            .finish_non_exhaustive()
    }
}

/// What the analysis of a page found.
#[derive(Debug)]
pub enum Analysis {
    /// Same body, same links, or 304: nothing to do but reschedule.
    Unchanged {
        raw_fingerprint: Option<String>,
        validators: Option<Validators>,
    },
    /// The links changed (maybe with new items).
    Changed(Box<Changed>),
}

#[derive(Debug)]
pub struct Changed {
    pub raw_fingerprint: String,
    pub link_fingerprint: String,
    pub validators: Validators,
    pub title: Option<String>,
    pub links: Vec<Link>,
    /// What the analysis made of each link (aligned with `links`).
    pub verdicts: Vec<Verdict>,
    /// New items, in page order (top first).
    pub new_items: Vec<Item>,
    /// Items whose stored title changes: same URL, edited title.
    pub retitled: Vec<Item>,
    /// URLs of the previous page that are gone from this one: remembered as seen.
    pub seen_urls: Vec<String>,
    /// The first successful check: it sets the baseline (and emits only a backfill).
    pub baseline: bool,
    /// The page's robots meta tag says `nofollow` (or `none`).
    pub nofollow: bool,
    /// The site icon the page declares, if any.
    pub icon: Option<String>,
    /// The links of the last page (what scheduling compares the page with).
    pub previous: Vec<Link>,
    /// Where each of `links` stood on the last page: its URL's place among that page's
    /// distinct URLs ([`entries::LastPage::slots`]), `None` for a URL new to it.
    pub on_last: Vec<Option<usize>>,
    /// `previous` is the array exactly as [`History::links`] gave it (the link hygiene
    /// changed none of it).
    pub previous_as_read: bool,
    /// The roles of the entry lists to remember.
    pub entry_roles: Vec<u64>,
    /// A remark on the page for the watch's status.
    pub note: Option<String>,
    /// The pass over the page as it came (links before the template and link hygiene,
    /// their structure without entry facts, the text when asked), when
    /// [`PageInput::keep_pass`] asks for it.
    pub pass: Option<Box<extract::Parsed>>,
}

/// Why a page cannot be used by a check: told to the user as the watch's error, counted
/// in the metrics as a `page` failure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unusable {
    #[error("the page is empty")]
    Empty,
    /// The watch's selector does not parse, or the HTML cannot be read.
    #[error(transparent)]
    Extract(#[from] extract::ExtractError),
    #[error("no links found: the CSS selector matches no links on the page")]
    NoLinksSelected,
    #[error("no links found on the page (is it built by JavaScript?)")]
    NoLinks,
}

/// Analyses a page against the watch's previous state. An inner `Err` says why the page
/// cannot be used; the outer one is an error of the history.
#[allow(
    clippy::too_many_lines,
    reason = "the steps of one check in order, each a few lines"
)]
pub fn analyse<H: History>(
    history: &H,
    watch: &Watch,
    prev: &Prev<'_>,
    input: &PageInput<'_>,
    params: &Params,
    now: i64,
) -> Result<Result<Analysis, Unusable>, H::Error> {
    if input.body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Err(Unusable::Empty));
    }
    let raw = hex(&fingerprint::raw(input.body));
    if !input.force && prev.raw_fingerprint == Some(raw.as_str()) {
        return Ok(Ok(Analysis::Unchanged {
            raw_fingerprint: None,
            validators: Some(input.validators.clone()),
        }));
    }
    let selector = match watch.select.as_deref().map(Selector::parse).transpose() {
        Ok(s) => s,
        Err(e) => return Ok(Err(e.into())),
    };
    let decoded = extract::charset::decode_for_url(input.body, input.content_type, input.url);
    // The links' fingerprint when they were read alone first and changed: the whole
    // pass's links are the same, so it is not computed again.
    let known_fp = match links_alone(watch, prev, input, &decoded.text, selector.as_ref(), &raw) {
        FirstReading::Ended(ended) => return Ok(ended),
        FirstReading::Changed(fp) => Some(fp),
        FirstReading::NotRead => None,
    };
    // The one pass over the page: links, their contexts, the page's blocks and what
    // its entries say (summary, date, picture).
    let gather = if input.keep_pass == Keep::PassAndText {
        extract::Gather::ContentAndText
    } else {
        extract::Gather::Content
    };
    let parsed = extract::parse(&decoded.text, input.url, selector.as_ref(), gather);
    let (mut page, mut structure, text) = match parsed {
        Ok(p) => (p.page, p.structure, p.text),
        Err(e) => return Ok(Err(e.into())),
    };
    if page.links.is_empty() {
        return Ok(Err(no_links(watch)));
    }
    // The crawl of a deep watch reads the page as it came (it learns the template from
    // it): a copy of the pass without what entry facts are read from, which only the
    // analysis reads.
    let pass = (input.keep_pass != Keep::Nothing).then(|| {
        let entry_facts = structure.entry_facts.take();
        let copy = Box::new(extract::Parsed {
            page: page.clone(),
            structure: structure.clone(),
            text,
        });
        structure.entry_facts = entry_facts;
        copy
    });
    // Deep watches: the site's template links and blocks are noise, removed before the
    // denoised fingerprint and the diff.
    if let Some(t) = input.template.filter(|t| !t.is_empty()) {
        let (links, ctx) = t.strip(
            std::mem::take(&mut page.links),
            std::mem::take(&mut structure.ctx),
        );
        page.links = links;
        structure.ctx = ctx;
    }
    // Link hygiene: tracking parameters leave the links before anything compares them.
    input.tracking.clean_links(&mut page.links);
    let link_fp = known_fp.unwrap_or_else(|| hex(&fingerprint::links(&page.links)));
    if !input.force && prev.link_fingerprint == Some(link_fp.as_str()) {
        return Ok(Ok(Analysis::Unchanged {
            raw_fingerprint: Some(raw),
            validators: Some(input.validators.clone()),
        }));
    }

    let baseline = prev.link_fingerprint.is_none();
    let (old, previous_as_read) = if baseline {
        (Vec::new(), false)
    } else {
        let mut old = history.links()?;
        // (links stored before hygiene compare as they are now)
        let cleaned = input.tracking.clean_links(&mut old);
        (old, !cleaned)
    };
    // The last page's links by URL, read once for every question below.
    let last = entries::LastPage::new(&old);
    // Where each link of the new page stood on it, asked once for the differ, the entry
    // decision and the URLs that left.
    let on_last = last.slots(&page.links);
    // Selective extraction: a URL this watch saw before is never new again. The URLs
    // ever seen are those on the last page plus those that left a page before: a link
    // whose URL stood on the last page is seen whatever its text, so the URL alone
    // answers the differ's "stood there" for it, and the history is asked of the rest.
    let failed = std::cell::RefCell::new(None);
    // The differ (the improved LCS) says which links are inserted; the entry decision
    // says which of those are entries. A link the differ calls moved (its key stood on
    // the old page) is seen.
    let inserted: HashSet<usize> =
        if baseline {
            HashSet::default()
        } else {
            diff::new_links_where(&page.links, &|j, _| on_last[j].is_some(), &|l: &Link| {
                match history.is_seen(&l.url) {
                    Ok(s) => s,
                    Err(e) => {
                        failed.borrow_mut().get_or_insert(e);
                        true
                    }
                }
            })
            .into_iter()
            .collect()
        };
    if let Some(e) = failed.into_inner() {
        return Err(e);
    }
    let prior = decide::Prior {
        last: Some(&last),
        on_last: Some(&on_last),
        entry_roles: prev.entry_roles,
    };
    let links = &page.links;
    // Any place of an inserted URL makes it unseen for the decision.
    let inserted: HashSet<&str> = inserted.iter().map(|&i| links[i].url.as_str()).collect();
    let mut not_inserted = |url: &str| -> Result<bool, H::Error> { Ok(!inserted.contains(url)) };
    let decision = decide::decide(
        &prior,
        links,
        &structure,
        baseline,
        params,
        &mut not_inserted,
    )?;
    let tz = watch
        .options
        .timezone
        .as_deref()
        .and_then(|z| z.parse::<chrono_tz::Tz>().ok())
        .unwrap_or(chrono_tz::Tz::UTC);
    let item_at = |i: usize| {
        let mut item = item_for(&links[i], now);
        let entry = entries::content::EntryRef {
            main: i,
            block: decision.block_of.get(i).copied().flatten(),
            links,
            ctx: &structure.ctx,
            page: input.url,
        };
        // What the pass noted of the entry's element (its facts are read from its markup
        // here when the pass did not gather them for the whole page).
        let facts =
            entries::content::element(&entry).and_then(|id| structure.facts_for(&decoded.text, id));
        if let Some(facts) = facts {
            let c = entries::content::content(&facts, &entry, now, tz);
            item.summary = c.summary;
            item.published = c.published;
            item.image = c.image;
            item.author = c.author;
        }
        item
    };
    let mut new_items: Vec<Item> = decision.items.iter().map(|&i| item_at(i)).collect();
    if baseline && prev.backfill > 0 {
        let mut once = HashSet::default();
        new_items = decision
            .entries
            .iter()
            .filter(|&&i| links[i].url != watch.url && once.insert(links[i].url.as_str()))
            .take(prev.backfill as usize)
            .map(|&i| item_at(i))
            .collect();
    }
    let retitled = decision
        .retitled
        .iter()
        .map(|&i| item_for(&links[i], now))
        .collect();
    // URLs that leave the page join the seen set.
    let seen_urls: Vec<String> = last.left(&on_last).into_iter().map(str::to_owned).collect();
    // (it borrows `old`, which the result takes)
    drop(last);
    Ok(Ok(Analysis::Changed(Box::new(Changed {
        raw_fingerprint: raw,
        link_fingerprint: link_fp,
        validators: input.validators.clone(),
        title: page.title,
        verdicts: decision.verdicts,
        new_items,
        retitled,
        seen_urls,
        baseline,
        nofollow: page.nofollow,
        icon: page.icon,
        entry_roles: decision.entry_roles,
        note: None,
        links: page.links,
        previous: old,
        on_last,
        previous_as_read,
        pass,
    }))))
}

/// The cheaper first reading of a page whose links are expected to hold
/// ([`Prev::links_first`]): its links alone (without their structure or what the entries
/// say), cleaned as the whole pass's are, against the last array's fingerprint. It ends
/// the analysis when the links held, or the page is unusable (what the whole pass would
/// find too: the same links, and the same limits on a lighter reading). Not for a
/// preview, a deep watch's page (its crawl reads the whole pass; its template changes
/// the fingerprint) or the first check. With a selector, lol_html reads the links as it
/// does for the whole pass ([`extract::parse_links_as_whole`]).
fn links_alone(
    watch: &Watch,
    prev: &Prev<'_>,
    input: &PageInput<'_>,
    html: &str,
    selector: Option<&Selector>,
    raw: &str,
) -> FirstReading {
    let plain = !input.force
        && input.keep_pass == Keep::Nothing
        && input.template.is_none_or(LinkFilter::is_empty);
    let Some(last) = prev.link_fingerprint.filter(|_| prev.links_first && plain) else {
        return FirstReading::NotRead;
    };
    let mut page = match extract::parse_links_as_whole(html, input.url, selector) {
        Ok(p) => p,
        Err(e) => return FirstReading::Ended(Err(e.into())),
    };
    if page.links.is_empty() {
        return FirstReading::Ended(Err(no_links(watch)));
    }
    input.tracking.clean_links(&mut page.links);
    let fp = hex(&fingerprint::links(&page.links));
    if fp != last {
        return FirstReading::Changed(fp);
    }
    FirstReading::Ended(Ok(Analysis::Unchanged {
        raw_fingerprint: Some(raw.to_owned()),
        validators: Some(input.validators.clone()),
    }))
}

/// What the first reading of a page's links ([`links_alone`]) came to.
enum FirstReading {
    /// Not taken: read the whole page.
    NotRead,
    /// The analysis ends: the links held, or the page cannot be used.
    Ended(Result<Analysis, Unusable>),
    /// The links changed (their fingerprint): read the whole page.
    Changed(String),
}

fn no_links(watch: &Watch) -> Unusable {
    if watch.select.is_some() {
        Unusable::NoLinksSelected
    } else {
        Unusable::NoLinks
    }
}

/// The feed item for a new link; a link without text is titled by its URL.
pub fn item_for(l: &Link, now: i64) -> Item {
    let title = if l.text.is_empty() {
        l.url.clone()
    } else {
        l.text.clone()
    };
    Item {
        id: Item::id_for(&l.url),
        title,
        link: l.url.clone(),
        first_seen: now,
        ..Item::default()
    }
}

#[cfg(test)]
#[path = "analysis_tests.rs"]
mod tests;
