//! Deep watches (`docs/design.md` §5 and §6): a watch of depth 2 or 3 also watches the
//! pages its page links to, and at depth 3 the pages those link to (stored and diffed,
//! not followed further). New entries on any of them go into the watch's one feed, once.
//!
//! # One deep check
//!
//! 1. The watch's own page is checked as any page (`check::analyse`), with the site's
//!    template links and blocks removed first ([`template`]).
//! 2. Its links that are worth following (same site, not a spider trap, not a calendar
//!    beyond `deep.calendar_pages`, not already known; [`trap`]) join the frontier, with
//!    the pages the watch already knows as lists and the candidates left over from the
//!    last check. A watch that knows `deep.max_pages` pages discovers no more: it only
//!    revisits its lists.
//! 3. Pages are taken from the frontier, up to `deep.max_pages_per_check`, breadth first,
//!    or with keywords best first by OTIE cash handed down in proportion to Shark-Search
//!    potential, tunnelling through irrelevant pages up to a cut-off ([`focus`]). Every
//!    fetch goes through the one polite fetcher; a host that is busy ends the crawl for
//!    this check (the rest waits for the next).
//! 4. A page seen for the first time is classified: a *hub* (more links than
//!    `deep.hub_links`), a *near-duplicate* of a known page (simhash, [`neardup`]), a
//!    *list* (a repeated structure of at least `deep.list_entries` links: re-visited on
//!    every check) or a *leaf* (an item page: stored once). Its links are its baseline:
//!    none is an item.
//! 5. A list page visited again is diffed like the watch's page: new entries whose URL
//!    the watch has never seen on any page become items; with keywords, only those whose
//!    Shark-Search relevance reaches `deep.relevance_threshold`.
//! 6. Everything is committed in the check's one atomic batch: items, every URL observed
//!    (so no URL is ever an item twice, whichever page shows it), the pages' link
//!    arrays and the crawl state ([`crate::model::crawl`], which the store persists).
//!
//! May use: analysis, config, cpu, diff, entries, extract, fetch, hash, model, store.

pub mod focus;
pub mod neardup;
mod page;
pub mod template;
pub mod trap;

use crate::hash::{HashMap, HashSet};

use url::Url;

use crate::analysis::{Analysis, PageInput};
use crate::config::DeepConfig;
use crate::entries::{self, structure::PageText};
use crate::extract::{self, Selector};
use crate::fetch::{FetchOutcome, Fetcher, Page, Validators};
use crate::model::crawl::{CrawlState, Kind, PageState};
use crate::model::{Item, Link, Watch};
use crate::store::{CrawlRecord, Store, StoreError};
use focus::{Candidate, FocusParams, Frontier, LinkCue, Order, Parent, Topic};
use template::Template;

/// Characters of text on each side of a link that make its Shark-Search context.
const CONTEXT_CHARS: usize = 80;
/// Waiting candidates kept between checks.
const FRONTIER_KEPT: usize = 500;
/// Failed fetches in a row after which a known page is given up.
const MAX_FAILURES: u32 = 3;

/// Whether a watch goes the deep way: depth 2 or 3, or keywords to focus on.
pub fn is_deep(watch: &Watch) -> bool {
    watch.depth > 1 || watch.keywords.iter().any(|k| !k.trim().is_empty())
}

/// What a deep check adds to the watch's own check.
#[derive(Debug, Default)]
pub struct DeepOutcome {
    /// Items from the site's pages, in crawl order.
    pub items: Vec<Item>,
    /// URLs observed for the first time: they join the watch's seen set.
    pub seen_urls: Vec<String>,
    pub record: CrawlRecord,
    /// Any page's links changed.
    pub changed: bool,
}

/// One deep check in progress. It owns what it needs (the store handle is shared), so
/// the reading of its pages can move to the CPU pool ([`crate::cpu`]).
pub struct Crawl {
    store: Store,
    cfg: DeepConfig,
    watch: Watch,
    root: Url,
    topic: Option<Topic>,
    params: FocusParams,
    rules: trap::TrapRules,
    state: CrawlState,
    /// What the state was read from, for the commit to write only what changed.
    read: Option<crate::store::CrawlRead>,
    template: Template,
    frontier: Frontier,
    /// The query parameters dropped from the links of its pages.
    tracking: crate::entries::hygiene::Tracking,
    /// URLs emitted as items in this check.
    emitted: HashSet<String>,
    /// URLs observed in this check (to add to the seen set when new), each with its
    /// [`template::url_hash`], which is also its key in the seen set: computed once as
    /// its page is read, for the template's filter and for the seen set's answer.
    observed: HashMap<String, u64>,
    /// The watch's seen set, read at the first question.
    seen: crate::store::SeenCache,
    /// Pages per calendar shape, known or queued: counted at the check's first calendar
    /// URL (most checks meet none, and a site's known pages are many URLs to parse).
    calendars: Option<HashMap<String, usize>>,
    pages_out: Vec<(String, Vec<Link>)>,
    items: Vec<Item>,
    changed: bool,
    fetched: u32,
    /// The template was learned from too few pages when the check began: learn it anew
    /// after each page (only while a watch starts; afterwards it stays as the check
    /// began, so an entry that is new on every page at once is not taken for template).
    bootstrap: bool,
}

impl std::fmt::Debug for Crawl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Crawl")
            .field("watch", &self.watch.id)
            .field("fetched", &self.fetched)
            .finish_non_exhaustive()
    }
}

/// What fetching one candidate left to do.
enum Visited {
    /// Stop crawling for this check (the host has no time now; the candidate waits).
    Stop,
    /// Nothing more for this candidate.
    Done,
    /// The page came: read it.
    Fetched(Box<(Candidate, Option<PageState>, Page)>),
}

/// A fetched page, read: its links without template, contexts, text. (The URLs of all
/// its links, template links too, went into the check's observed set as it was read.)
struct Read {
    title: Option<String>,
    kept: Vec<Link>,
    /// The structure of the kept links (contexts and the page's blocks).
    kept_structure: entries::Structure,
    /// Shark-Search context of each kept link (its text is the link's own); gathered only
    /// for a watch with keywords, the only one that scores links.
    contexts: Vec<String>,
    content: String,
    nofollow: bool,
}

impl Crawl {
    /// Loads the watch's crawl state and learns its site's template; the links of its
    /// pages lose the parameters `tracking` names. Takes its settings by value: a check
    /// moves them here onto the CPU pool.
    pub fn load(
        store: &Store,
        cfg: DeepConfig,
        tracking: crate::entries::hygiene::Tracking,
        watch: Watch,
    ) -> Result<Self, StoreError> {
        let (state, read) = store.crawl_read(&watch.id)?;
        let root = Url::parse(&watch.url).map_err(|e| StoreError::Corrupt {
            key: watch.id.to_string(),
            reason: format!("stored URL does not parse: {e}"),
        })?;
        let topic = Topic::new(&watch.keywords);
        let params = FocusParams {
            threshold: cfg.relevance_threshold,
            tunnel_cutoff: cfg.tunnel_cutoff,
            ..FocusParams::default()
        };
        let rules = trap::TrapRules {
            max_url_len: cfg.max_url_len,
            max_path_segments: cfg.max_path_segments,
            ..trap::TrapRules::default()
        };
        let template = state.sample.template(cfg.template_share);
        let bootstrap = state.sample.len() < template::MIN_PAGES;
        let order = if topic.is_some() {
            Order::Focused
        } else {
            Order::Breadth
        };
        Ok(Self {
            store: store.clone(),
            cfg,
            watch,
            root,
            topic,
            params,
            rules,
            state,
            read,
            template,
            frontier: Frontier::new(order),
            tracking,
            emitted: HashSet::default(),
            observed: HashMap::default(),
            seen: crate::store::SeenCache::for_many(),
            calendars: None,
            pages_out: Vec::new(),
            items: Vec::new(),
            changed: false,
            fetched: 0,
            bootstrap,
        })
    }

    /// The watch knows `deep.max_pages` pages: it discovers no more (the pages it knows
    /// are never forgotten, so none of its links could ever be fetched). It keeps no
    /// candidates either, which spares every later check reading and writing them.
    fn full(&self) -> bool {
        self.state.pages.len() >= self.cfg.max_pages
    }

    /// Takes the seen set as this check's analysis of the watch's own page read it,
    /// instead of reading it again at the crawl's first question.
    pub fn share_seen(&mut self, seen: crate::store::SeenCache) {
        self.seen = seen.into_many();
    }

    /// The site's template as learned before this check (applied to every page of it).
    pub fn template(&self) -> &Template {
        &self.template
    }

    /// After the watch's own page was analysed: learns from it, filters its items by
    /// relevance (with keywords) and seeds the frontier with its links.
    pub fn root(&mut self, page: &Page, analysis: &mut Analysis) -> Result<(), StoreError> {
        let Analysis::Changed(changed) = analysis else {
            return Ok(());
        };
        let selector = self
            .watch
            .select
            .as_deref()
            .and_then(|s| Selector::parse(s).ok());
        self.state.root_url = Some(page.url.to_string());
        // The analysis's own pass, when it kept it: the page is not parsed again.
        let read = match changed.pass.take() {
            Some(parsed) => self.read_parsed(*parsed, page.url.as_str(), true),
            None => match self.read(page, selector.as_ref(), true) {
                Some(read) => read,
                None => return Ok(()),
            },
        };
        if let Some(topic) = &self.topic {
            self.state.root_relevance = focus::page_relevance(
                topic,
                &self.params,
                read.title.as_deref().unwrap_or(""),
                &read.content,
            );
        }
        let parent = Parent {
            relevance: self.state.root_relevance,
            inherited: self.state.root_relevance,
            cash: 1.0,
            tunnel: 0.0,
        };
        let scored = self.score(&read, &parent);
        if self.topic.is_some() {
            let threshold = self.params.threshold;
            changed.new_items.retain(|i| {
                read.kept
                    .iter()
                    .find(|l| l.url == i.link)
                    .is_some_and(|l| self.item_relevance(l) >= threshold)
            });
        }
        for i in &changed.new_items {
            self.emitted.insert(i.link.clone());
        }
        if self.watch.depth > 1 && !read.nofollow && !self.full() {
            for (i, l) in read.kept.iter().enumerate() {
                if self.followable(&l.url) {
                    let s = scored[i];
                    self.push(Candidate {
                        url: l.url.clone(),
                        level: 2,
                        cash: s.cash,
                        potential: s.potential,
                        inherited: s.inherited,
                        tunnel: 0.0,
                    });
                }
            }
        }
        Ok(())
    }

    /// Visits the site's pages for this check: the known lists, the candidates left from
    /// before, and what the watch's page led to, within the page budget.
    ///
    /// Each fetched page is read on the CPU pool; the crawl moves there with it and back.
    pub async fn visit(mut self, fetcher: &Fetcher, now: i64) -> Result<Self, StoreError> {
        if self.watch.depth < 2 {
            return Ok(self);
        }
        // Known lists first (breadth first: by level, the longest unvisited first). Only
        // their fields are read: the pages are found by their heads.
        let depth = self.watch.depth;
        let mut lists: Vec<(&str, &PageState)> = self
            .state
            .pages
            .select(move |h| h.kind == Kind::List && h.level <= depth)
            .collect();
        lists.sort_by_key(|(_, p)| (p.level, p.fetched));
        let revisits: Vec<Candidate> = lists
            .into_iter()
            .map(|(url, p)| Candidate {
                url: url.to_owned(),
                level: p.level,
                cash: p.cash.max(p.relevance),
                potential: p.relevance,
                inherited: p.inherited,
                tunnel: p.tunnel,
            })
            .collect();
        for c in revisits {
            self.frontier.push(c);
        }
        for c in std::mem::take(&mut self.state.frontier) {
            if !self.state.pages.contains_key(&c.url) {
                self.push(c);
            }
        }
        while (self.fetched as usize) < self.cfg.max_pages_per_check {
            let Some(cand) = self.frontier.pop() else {
                break;
            };
            // A watch that knows as many pages as it may discovers no more: what it
            // queued before it was full is dropped.
            if !self.state.pages.contains_key(&cand.url) && self.full() {
                continue;
            }
            match self.visit_one(fetcher, cand, now).await? {
                Visited::Stop => break,
                Visited::Done => {}
                Visited::Fetched(got) => {
                    let (me, read) = crate::cpu::run(move || {
                        let (cand, known, page) = *got;
                        let r = self.page(cand, known.as_ref(), &page, now);
                        (self, r)
                    })
                    .await;
                    self = me;
                    read?;
                }
            }
        }
        // What is left waits for the next check (known lists are queued again anyway),
        // unless the watch is full.
        let left = std::mem::replace(&mut self.frontier, Frontier::new(Order::Breadth));
        if self.full() {
            self.state.frontier.clear();
        } else {
            let pages = &self.state.pages;
            self.state.frontier.extend(
                left.into_waiting()
                    .into_iter()
                    .filter(|c| !pages.contains_key(&c.url)),
            );
            self.state.frontier.truncate(FRONTIER_KEPT);
        }
        self.state.last_fetched = self.fetched;
        Ok(self)
    }

    /// Fetches one page; what is left to do is reading it ([`Visited::Fetched`]).
    async fn visit_one(
        &mut self,
        fetcher: &Fetcher,
        cand: Candidate,
        now: i64,
    ) -> Result<Visited, StoreError> {
        let Ok(url) = Url::parse(&cand.url) else {
            return Ok(Visited::Done);
        };
        let known = self.state.pages.get(&cand.url).cloned();
        let validators = known
            .as_ref()
            .map_or_else(Validators::default, |p| Validators {
                etag: p.etag.clone(),
                last_modified: p.last_modified.clone(),
            });
        self.fetched += 1;
        let page = match fetcher.get(&url, &validators).await {
            Ok(FetchOutcome::Page(page)) => page,
            Ok(FetchOutcome::NotModified) => {
                if let Some(p) = self.state.pages.get_mut(&cand.url) {
                    p.fetched = now;
                    p.failures = 0;
                }
                return Ok(Visited::Done);
            }
            Ok(FetchOutcome::Deferred(_)) => {
                self.fetched -= 1;
                self.state.frontier.push(cand);
                return Ok(Visited::Stop);
            }
            Err(e) => {
                tracing::debug!(url = %cand.url, error = %e, "deep page failed");
                let p = self
                    .state
                    .pages
                    .get_or_insert_with(&cand.url, || page::new_page(&cand, now));
                p.failures += 1;
                p.fetched = now;
                if known.is_none()
                    || p.failures >= MAX_FAILURES
                    || matches!(
                        e,
                        crate::fetch::FetchError::NotHtml(_)
                            | crate::fetch::FetchError::Robots { .. }
                    )
                {
                    p.kind = Kind::Unusable;
                    p.why = Some(e.to_string());
                }
                return Ok(Visited::Done);
            }
        };
        if !trap::same_site(&self.root, &page.url) {
            let p = self
                .state
                .pages
                .get_or_insert_with(&cand.url, || page::new_page(&cand, now));
            p.kind = Kind::Unusable;
            p.why = Some(format!("redirects off the site, to {}", page.url));
            return Ok(Visited::Done);
        }
        Ok(Visited::Fetched(Box::new((cand, known, page))))
    }

    /// Decodes and extracts a page, learns its links into the template sample and strips
    /// the template from them. `None` when nothing can be read.
    fn read(&mut self, page: &Page, selector: Option<&Selector>, is_root: bool) -> Option<Read> {
        let decoded =
            extract::charset::decode_for_url(&page.body, page.content_type.as_deref(), &page.url);
        let parsed =
            extract::parse(&decoded.text, &page.url, selector, extract::Gather::Text).ok()?;
        Some(self.read_parsed(parsed, page.url.as_str(), is_root))
    }

    /// [`Crawl::read`] of a page already parsed (with its text) at `url`. The page's links
    /// move into what is kept (a template link's URL into the observed set alone).
    fn read_parsed(&mut self, parsed: extract::Parsed, url: &str, is_root: bool) -> Read {
        let (mut ex, ctx, blocks, main) = (
            parsed.page,
            parsed.structure.ctx,
            parsed.structure.blocks,
            parsed.structure.main,
        );
        self.tracking.clean_links(&mut ex.links);
        let text = parsed.text.unwrap_or_default();
        let key = if is_root {
            self.watch.url.as_str()
        } else {
            url
        };
        // Each URL hashed once, for the sample and for the template's filter.
        let hashes: Vec<u64> = ex
            .links
            .iter()
            .map(|l| template::url_hash(&l.url))
            .collect();
        self.state.sample.observe_hashes(key, &hashes, &ctx);
        if self.bootstrap {
            self.template = self.state.sample.template(self.cfg.template_share);
        }
        let mut kept = Vec::new();
        let mut kept_ctx = Vec::new();
        let mut contexts = Vec::new();
        let focused = self.topic.is_some();
        for (i, (l, c)) in ex.links.into_iter().zip(ctx).enumerate() {
            if self.template.is_template_hash(hashes[i], c.as_ref()) {
                self.observed.insert(l.url, hashes[i]);
            } else {
                self.observed.insert(l.url.clone(), hashes[i]);
                kept.push(l);
                kept_ctx.push(c);
                if focused {
                    contexts.push(context_of(&text, i));
                }
            }
        }
        Read {
            title: ex.title,
            kept,
            kept_structure: entries::Structure {
                ctx: kept_ctx,
                blocks,
                entry_facts: None,
                main,
            },
            contexts,
            content: text.content,
            nofollow: ex.nofollow,
        }
    }

    /// Shark-Search scores and OTIE cash of a read page's kept links (all zero without
    /// keywords: then the frontier is breadth first and does not look at them).
    fn score(&self, read: &Read, parent: &Parent) -> Vec<focus::Scored> {
        match &self.topic {
            Some(topic) => {
                let cues: Vec<LinkCue<'_>> = read
                    .kept
                    .iter()
                    .zip(&read.contexts)
                    .map(|(l, context)| LinkCue {
                        url: &l.url,
                        anchor: &l.text,
                        context,
                    })
                    .collect();
                focus::score_links(topic, &self.params, parent, &cues)
            }
            None => vec![
                focus::Scored {
                    potential: 0.0,
                    inherited: 0.0,
                    cash: 0.0,
                };
                read.kept.len()
            ],
        }
    }

    /// Ends the check: what to commit.
    pub fn finish(self) -> Result<DeepOutcome, StoreError> {
        let mut seen_urls = Vec::new();
        // An item's link is nearly always one of the observed URLs, asked about below.
        for url in self.emitted {
            if !self.observed.contains_key(&url)
                && !self.seen.contains(&self.store, &self.watch.id, &url)?
            {
                seen_urls.push(url);
            }
        }
        for (url, hash) in self.observed {
            // The template's hash of a URL is its key in the seen set, as a number.
            let key = hash.to_le_bytes();
            if !self
                .seen
                .contains_key(&self.store, &self.watch.id, &url, key)?
            {
                seen_urls.push(url);
            }
        }
        Ok(DeepOutcome {
            items: self.items,
            seen_urls,
            changed: self.changed || !self.pages_out.is_empty(),
            record: CrawlRecord {
                state: self.state,
                pages: self.pages_out,
                read: self.read,
            },
        })
    }
}

/// The Shark-Search context of link `i`: text on both sides of its own.
fn context_of(text: &PageText, i: usize) -> String {
    entries::structure::anchor_context(text, i, CONTEXT_CHARS)
}

/// The page input of a watch's own page: with its crawl (a deep watch), the site's
/// template filters the links and the pass is kept for the crawl to read, with the page's
/// text when the crawl has keywords to score it by; a plain watch's check gathers none
/// of it.
pub fn root_input<'p>(
    page: &'p Page,
    crawl: Option<&'p Crawl>,
    tracking: &'p crate::entries::hygiene::Tracking,
) -> PageInput<'p> {
    PageInput {
        body: &page.body,
        content_type: page.content_type.as_deref(),
        url: &page.url,
        validators: page.validators.clone(),
        template: crawl.map(|c| c.template() as &dyn crate::analysis::LinkFilter),
        force: false,
        tracking,
        keep_pass: match crawl {
            None => crate::analysis::Keep::Nothing,
            Some(c) if c.topic.is_some() => crate::analysis::Keep::PassAndText,
            Some(_) => crate::analysis::Keep::Pass,
        },
    }
}
