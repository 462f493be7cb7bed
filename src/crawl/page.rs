//! One page of a deep watch's site, read: what it is ([`Kind`]), whether it is a
//! near-duplicate of another, and, for a known list, which of its new entries are items;
//! and which of its links join the frontier.

use crate::hash::{HashMap, HashSet};

use url::Url;

use super::focus::{Candidate, Parent};
use super::{focus, neardup, trap, Crawl, Read};
use crate::diff;
use crate::entries::{self, Context};
use crate::extract::fingerprint;
use crate::fetch::Page;
use crate::model::crawl::{Digest, Kind, PageState};
use crate::model::Link;
use crate::store::StoreError;

impl Crawl {
    /// Reads a fetched page of the site: classifies it, diffs it if it is a known list,
    /// follows its links if the depth allows.
    pub(super) fn page(
        &mut self,
        cand: Candidate,
        known: Option<&PageState>,
        page: &Page,
        now: i64,
    ) -> Result<(), StoreError> {
        let raw = Digest(fingerprint::raw(&page.body));
        let mut st = known.cloned().unwrap_or_else(|| new_page(&cand, now));
        st.fetched = now;
        st.failures = 0;
        st.etag.clone_from(&page.validators.etag);
        st.last_modified.clone_from(&page.validators.last_modified);
        if st.raw_fingerprint == Some(raw) {
            self.state.pages.insert(cand.url, st);
            return Ok(());
        }
        st.raw_fingerprint = Some(raw);
        let Some(read) = self.read(page, None, false) else {
            st.kind = Kind::Unusable;
            st.why = Some("no readable links".into());
            self.state.pages.insert(cand.url, st);
            return Ok(());
        };
        let link_fp = Digest(fingerprint::links(&read.kept));
        let same_links = st.link_fingerprint == Some(link_fp);
        st.link_fingerprint = Some(link_fp);
        st.links = read.kept.len() as u32;
        st.nofollow = read.nofollow;
        if read.title.is_some() {
            st.title.clone_from(&read.title);
        }
        // Relevance and tunnelling (the focused crawl, `docs/design.md` §6).
        if let Some(topic) = &self.topic {
            st.relevance = focus::page_relevance(
                topic,
                &self.params,
                read.title.as_deref().unwrap_or(""),
                &read.content,
            );
            st.tunnel = focus::tunnel(&self.params, cand.tunnel, st.relevance);
        }
        st.inherited = cand.inherited;
        st.cash = cand.cash;
        self.classify(&cand.url, known.is_none(), &read, &mut st)?;
        let parent = Parent {
            relevance: st.relevance,
            inherited: st.inherited,
            cash: st.cash,
            tunnel: st.tunnel,
        };
        let scored = self.score(&read, &parent);
        // A known list that changed: its new entries are items.
        if known.is_some() && st.kind == Kind::List && !same_links {
            self.changed = true;
            self.emit(&cand.url, &read, &mut st, now)?;
        }
        if known.is_none() || !same_links {
            self.pages_out.push((cand.url.clone(), read.kept.clone()));
        }
        // Follow, if the depth, robots and the topic allow.
        let follow = cand.level < self.watch.depth
            && matches!(st.kind, Kind::List | Kind::Leaf)
            && !st.nofollow
            && (self.topic.is_none() || focus::may_follow(&self.params, st.tunnel));
        let level = cand.level;
        let tunnel = st.tunnel;
        self.state.pages.insert(cand.url, st);
        if follow && !self.full() {
            for (i, l) in read.kept.iter().enumerate() {
                if self.followable(&l.url) {
                    let s = scored[i];
                    self.push(Candidate {
                        url: l.url.clone(),
                        level: level + 1,
                        cash: s.cash,
                        potential: s.potential,
                        inherited: s.inherited,
                        tunnel,
                    });
                }
            }
        }
        Ok(())
    }

    /// What a page is: on its first visit a hub, a near-duplicate, a list or a leaf; a
    /// list visited again may turn out a hub, or a leaf once the template is known.
    fn classify(
        &self,
        url: &str,
        first: bool,
        read: &Read,
        st: &mut PageState,
    ) -> Result<(), StoreError> {
        let signature = neardup::signature(&read.content);
        // A calendar page is never a list: its "entries" are months.
        let list = is_list(&read.kept, &read.kept_structure.ctx, self.cfg.list_entries)
            && Url::parse(url)
                .ok()
                .as_ref()
                .and_then(trap::calendar_shape)
                .is_none();
        if first {
            st.kind = if read.kept.len() > self.cfg.hub_links {
                Kind::Hub
            } else if let Some(of) = self.duplicate_of(url, &signature, &read.kept)? {
                st.why = Some(format!("a near-duplicate of {of}"));
                Kind::Duplicate
            } else if list {
                Kind::List
            } else {
                Kind::Leaf
            };
        } else if st.kind == Kind::List && read.kept.len() > self.cfg.hub_links {
            st.kind = Kind::Hub;
        } else if st.kind == Kind::List && !list {
            // Classified before the template was known (its menu looked like a list).
            st.kind = Kind::Leaf;
        }
        st.signature = Some(signature);
        Ok(())
    }

    /// The new entries of a known list page since its last visit become items: new by
    /// the differ, never seen by the watch on any page, relevant enough (keywords), not
    /// calendar navigation; each once per check.
    fn emit(
        &mut self,
        url: &str,
        read: &Read,
        st: &mut PageState,
        now: i64,
    ) -> Result<(), StoreError> {
        let old = self.store.page_links(&self.watch.id, url)?;
        let last = entries::LastPage::new(&old);
        let on_last = last.slots(&read.kept);
        let err = std::cell::RefCell::new(None);
        // A URL that stood on the last page is seen whatever its text (the URL alone
        // answers the differ's "stood there").
        let stood = |j: usize, _: &Link| on_last[j].is_some();
        let new_idx = diff::new_links_where(&read.kept, &stood, &|l: &Link| {
            self.emitted.contains(&l.url)
                || match self.seen.contains(&self.store, &self.watch.id, &l.url) {
                    Ok(s) => s,
                    Err(e) => {
                        err.borrow_mut().get_or_insert(e);
                        true
                    }
                }
        });
        if let Some(e) = err.into_inner() {
            return Err(e);
        }
        // The one entry decision, on what the differ inserted.
        let inserted: HashSet<&str> = new_idx.iter().map(|&i| read.kept[i].url.as_str()).collect();
        let prior = entries::decide::Prior {
            last: Some(&last),
            on_last: Some(&on_last),
            entry_roles: &[],
        };
        let decision = entries::decide::decide(
            &prior,
            &read.kept,
            &read.kept_structure,
            false,
            &entries::decide::Params::default(),
            &mut |u: &str| Ok::<bool, StoreError>(!inserted.contains(u)),
        )?;
        for i in decision.items {
            let l = &read.kept[i];
            if self.topic.is_some() && self.item_relevance(l) < self.params.threshold {
                continue;
            }
            if Url::parse(&l.url)
                .ok()
                .as_ref()
                .and_then(trap::calendar_shape)
                .is_some()
            {
                continue;
            }
            if self.emitted.insert(l.url.clone()) {
                self.items.push(crate::analysis::item_for(l, now));
                st.items += 1;
            }
        }
        Ok(())
    }

    /// The relevance of a new entry to the topic: of its own text (its title), or of
    /// its page when the crawl has read it. Not its Shark-Search potential, which lends
    /// an off-topic entry the relevance of its neighbours in a list: that is right for
    /// choosing what to fetch, wrong for choosing what to show.
    pub(super) fn item_relevance(&self, link: &Link) -> f64 {
        let Some(topic) = &self.topic else { return 1.0 };
        let own = topic.sim(&link.text);
        let page = self.state.pages.get(&link.url).map_or(0.0, |p| p.relevance);
        own.max(page)
    }

    /// A known page, other than `url`, of which this one is a near-duplicate: its text is
    /// near and the texts of its links (template aside) are mostly the same (a mirror, a
    /// print view; two lists of one layout differ in their entries' texts).
    fn duplicate_of(
        &self,
        url: &str,
        sig: &neardup::Signature,
        links: &[Link],
    ) -> Result<Option<String>, StoreError> {
        let texts = |ls: &[Link]| -> HashSet<String> {
            ls.iter()
                .filter(|l| !self.template.is_template(l, None))
                .map(|l| l.text.clone())
                .collect()
        };
        let mine = texts(links);
        // The pages' heads hold their signatures: no page is decoded for this.
        for p in self.state.pages.heads() {
            let u = p.url;
            if u == url
                || p.kind == Kind::Duplicate
                || !p.signature.is_some_and(|s| neardup::near(&s, sig))
            {
                continue;
            }
            let theirs = match self.pages_out.iter().find(|(pu, _)| pu == u) {
                Some((_, ls)) => texts(ls),
                None => texts(&self.store.page_links(&self.watch.id, u)?),
            };
            let union = mine.union(&theirs).count();
            let common = mine.intersection(&theirs).count();
            if union == 0 || common * 5 >= union * 4 {
                return Ok(Some(u.to_owned()));
            }
        }
        Ok(None)
    }
}

/// A page met for the first time.
pub(super) fn new_page(cand: &Candidate, now: i64) -> PageState {
    PageState {
        inherited: cand.inherited,
        cash: cand.cash,
        tunnel: cand.tunnel,
        found: now,
        fetched: now,
        ..PageState::new(cand.level, Kind::Leaf)
    }
}

/// A list page: one repeated structure (a role) holds at least `min` distinct URLs with
/// text of their own.
fn is_list(links: &[Link], ctx: &[Option<Context>], min: usize) -> bool {
    let mut per_role: HashMap<u64, HashSet<&str>> = HashMap::default();
    for (l, c) in links.iter().zip(ctx) {
        if let Some(c) = c.as_ref().filter(|c| c.has_text && !c.chrome) {
            per_role.entry(c.role).or_default().insert(l.url.as_str());
        }
    }
    per_role.values().any(|urls| urls.len() >= min)
}

/// Which links join the frontier.
impl Crawl {
    /// Whether a link is worth a visit: same site, not the watch's page, not known, not
    /// a trap, and not one calendar page too many.
    pub(super) fn followable(&mut self, url: &str) -> bool {
        if url == self.watch.url
            || self.state.root_url.as_deref() == Some(url)
            || self.state.pages.contains_key(url)
            || self.frontier.is_done(url)
        {
            return false;
        }
        let Ok(u) = Url::parse(url) else { return false };
        if !trap::same_site(&self.root, &u) || trap::check(&u, &self.rules).is_err() {
            return false;
        }
        match trap::calendar_shape(&u) {
            Some(shape) => {
                self.calendars().get(&shape).copied().unwrap_or(0) < self.cfg.calendar_pages
            }
            None => true,
        }
    }

    /// Pages per calendar shape: the known pages' (those fetched so far by this check
    /// included) and the candidates queued since.
    fn calendars(&mut self) -> &mut HashMap<String, usize> {
        let pages = &self.state.pages;
        self.calendars.get_or_insert_with(|| {
            let mut counts = HashMap::default();
            for url in pages.heads().map(|h| h.url) {
                if let Some(shape) = Url::parse(url).ok().as_ref().and_then(trap::calendar_shape) {
                    *counts.entry(shape).or_default() += 1;
                }
            }
            counts
        })
    }

    /// Queues a candidate, counting calendar pages.
    pub(super) fn push(&mut self, c: Candidate) {
        if self.full() {
            return;
        }
        if let Some(shape) = Url::parse(&c.url)
            .ok()
            .as_ref()
            .and_then(trap::calendar_shape)
        {
            let limit = self.cfg.calendar_pages;
            let n = self.calendars().entry(shape).or_default();
            if *n >= limit {
                return;
            }
            *n += 1;
        }
        self.frontier.push(c);
    }
}
