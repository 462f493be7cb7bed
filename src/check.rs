//! One check of one watch: fetch → raw fingerprint → extract → link fingerprint → diff →
//! selective extraction → commit (DESIGN 1). [`analyse`] is the part after the fetch and
//! is shared by live checks and `sitefeed replay`, so both run one pipeline.

use std::time::Instant;

use url::Url;

use crate::config::{DeepConfig, ScheduleConfig};
use crate::crawl::DeepOutcome;
use crate::diff;
use crate::entries;
use crate::extract::{self, fingerprint, Selector};
use crate::fetch::{FetchOutcome, Fetcher, Validators};
use crate::model::{hex, Item, Link, Status, Watch};
use crate::schedule::{self, Observation, Outcome};
use crate::store::{CheckRecord, Store, StoreError, WatchState};

/// A page body to analyse, from the network or from a file.
#[derive(Debug)]
pub struct PageInput<'a> {
    pub body: &'a [u8],
    pub content_type: Option<&'a str>,
    /// The page's URL (after redirects), the base for relative links.
    pub url: &'a Url,
    pub validators: Validators,
    /// The site's template (deep watches, `crawl::template`): links removed before the
    /// link fingerprint and the diff.
    pub template: Option<&'a crate::crawl::template::Template>,
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
    /// New items, in page order (top first).
    pub new_items: Vec<Item>,
    /// URLs of the previous page that are gone from this one: remembered as seen.
    pub seen_urls: Vec<String>,
    /// The first successful check: it sets the baseline and emits nothing.
    pub baseline: bool,
    /// The page's robots meta tag says `nofollow` (or `none`).
    pub nofollow: bool,
    /// The site icon the page declares, if any.
    pub icon: Option<String>,
    /// What scheduling learns from the change: effective links, probable loss.
    pub facts: schedule::page::PageFacts,
    /// The roles of the page's links to remember ([`entries::remember`]).
    pub roles: Vec<u64>,
    /// Why the check emitted nothing though links changed (a layout change), for the
    /// watch's status.
    pub note: Option<String>,
}

/// The result of one check, as reported to users.
#[derive(Debug, Default)]
pub struct CheckReport {
    /// New items, in page order (top first).
    pub new_items: Vec<Item>,
    /// Whether the page's links changed.
    pub changed: bool,
    /// The first successful check only set the baseline.
    pub baseline: bool,
    /// Why the check failed, if it did.
    pub error: Option<String>,
    /// A remark on a successful check (a layout change that re-baselined the watch).
    pub note: Option<String>,
    /// Label of the failure for metrics.
    pub error_kind: Option<&'static str>,
    /// Pages of its site a deep watch fetched beyond its own page.
    pub site_pages: u32,
    pub next_check: i64,
}

/// Analyses a page against the watch's stored state. Reads the store, never writes it.
/// An `Err` is a user-facing reason why the page cannot be used.
#[allow(
    clippy::too_many_lines,
    reason = "the steps of DESIGN 1 in order, each a few lines"
)]
pub fn analyse(
    store: &Store,
    watch: &Watch,
    prev: &WatchState,
    input: &PageInput<'_>,
    now: i64,
) -> Result<Result<Analysis, String>, StoreError> {
    if input.body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Err("the page is empty".into()));
    }
    let raw = hex(&fingerprint::raw(input.body));
    if prev.raw_fingerprint.as_deref() == Some(raw.as_str()) {
        return Ok(Ok(Analysis::Unchanged {
            raw_fingerprint: None,
            validators: Some(input.validators.clone()),
        }));
    }
    let selector = match watch.select.as_deref().map(Selector::parse).transpose() {
        Ok(s) => s,
        Err(e) => return Ok(Err(e.to_string())),
    };
    let decoded = extract::charset::decode_for_url(input.body, input.content_type, input.url);
    let page = match extract::extract(&decoded.text, input.url, selector.as_ref()) {
        Ok(p) => p,
        Err(e) => return Ok(Err(e.to_string())),
    };
    if page.links.is_empty() {
        return Ok(Err(if watch.select.is_some() {
            "no links found: the CSS selector matches no links on the page".into()
        } else {
            "no links found on the page (is it built by JavaScript?)".into()
        }));
    }
    // Deep watches: the site's template links and blocks are noise, removed before the
    // denoised fingerprint and the diff (seed 003).
    let mut page = page;
    let mut early_ctx = None;
    if let Some(t) = input.template.filter(|t| !t.is_empty()) {
        let ctx = entries::contexts(&decoded.text, input.url, &page.links);
        let (links, ctx) = t.strip(std::mem::take(&mut page.links), ctx);
        page.links = links;
        early_ctx = Some(ctx);
    }
    let link_fp = hex(&fingerprint::links(&page.links));
    if prev.link_fingerprint.as_deref() == Some(link_fp.as_str()) {
        return Ok(Ok(Analysis::Unchanged {
            raw_fingerprint: Some(raw),
            validators: Some(input.validators.clone()),
        }));
    }

    let baseline = prev.link_fingerprint.is_none();
    let old = if baseline {
        Vec::new()
    } else {
        store.links(&watch.id)?
    };
    let old_urls: std::collections::HashSet<&str> = old.iter().map(|l| l.url.as_str()).collect();

    // Selective extraction: a URL this watch saw before is never new again. The URLs
    // ever seen are those on the last page plus those that left a page before (the
    // store's seen set), so the set grows with departures, not with page size.
    let seen_err = std::cell::RefCell::new(None);
    let is_seen = |l: &Link| {
        old_urls.contains(l.url.as_str())
            || match store.is_seen(&watch.id, &l.url) {
                Ok(s) => s,
                Err(e) => {
                    seen_err.borrow_mut().get_or_insert(e);
                    true
                }
            }
    };
    let new_idx = if baseline {
        Vec::new()
    } else {
        diff::new_links(&old, &page.links, &is_seen)
    };
    if let Some(e) = seen_err.into_inner() {
        return Err(e);
    }
    // Entries, not links; chrome is not news; a layout change is not news either.
    let ctx = early_ctx.unwrap_or_else(|| entries::contexts(&decoded.text, input.url, &page.links));
    let page_roles = entries::roles(&ctx);
    let mut note = None;
    let item_idx = if baseline || new_idx.is_empty() {
        Vec::new()
    } else if let Some((unknown, total)) = entries::layout_change(&prev.roles, &ctx) {
        note = Some(format!(
            "the page's layout changed ({unknown} of {total} links in new places): \
             re-baselined without new items"
        ));
        Vec::new()
    } else {
        entries::select(&old, &page.links, &ctx, &new_idx)
    };
    let new_items: Vec<Item> = item_idx
        .into_iter()
        .map(|i| item_for(&page.links[i], now))
        .collect();
    // Scheduling facts (DESIGN 3): the effective link count and whether the whole
    // previous list scrolled off.
    let key = |l: &Link| schedule::page::link_key(&l.url);
    let facts = prev.learned.page.measure(
        old.iter().map(key),
        page.links.iter().map(key),
        new_items.len(),
    );
    // URLs that leave the page join the seen set.
    let new_urls: std::collections::HashSet<&str> =
        page.links.iter().map(|l| l.url.as_str()).collect();
    let mut seen_urls: Vec<String> = Vec::new();
    let mut added = std::collections::HashSet::new();
    for l in &old {
        if !new_urls.contains(l.url.as_str()) && added.insert(l.url.as_str()) {
            seen_urls.push(l.url.clone());
        }
    }
    Ok(Ok(Analysis::Changed(Box::new(Changed {
        raw_fingerprint: raw,
        link_fingerprint: link_fp,
        validators: input.validators.clone(),
        title: page.title,
        links: page.links,
        new_items,
        seen_urls,
        baseline,
        nofollow: page.nofollow,
        icon: page.icon,
        facts,
        roles: entries::remember(&prev.roles, &page_roles),
        note,
    }))))
}

/// The feed item for a new link; a link without text is titled by its URL.
pub(crate) fn item_for(l: &Link, now: i64) -> Item {
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
    }
}

/// The watch's next state and the record to commit, for an analysis or a failure.
pub fn settle(
    sched: &ScheduleConfig,
    watch: &Watch,
    prev: &WatchState,
    result: Result<Analysis, (String, &'static str)>,
    deep: Option<DeepOutcome>,
    now: i64,
    duration_ms: u64,
) -> (WatchState, CheckRecord, CheckReport) {
    let mut st = prev.clone();
    let elapsed = (now - prev.last_check.unwrap_or(watch.created)) as f64;
    st.last_check = Some(now);
    st.checks += 1;
    st.last_duration_ms = duration_ms;
    let mut record = CheckRecord::default();
    let mut report = CheckReport::default();
    let mut new_links = 0;
    let mut outcome = match result {
        Err((msg, kind)) => {
            st.status = Status::Error;
            st.error = Some(msg.clone());
            st.consecutive_errors += 1;
            report.error = Some(msg);
            report.error_kind = Some(kind);
            Outcome::Failed {
                consecutive: st.consecutive_errors,
            }
        }
        Ok(analysis) => {
            st.status = Status::Ok;
            st.error = None;
            st.consecutive_errors = 0;
            match analysis {
                Analysis::Unchanged {
                    raw_fingerprint,
                    validators,
                } => {
                    if let Some(fp) = raw_fingerprint {
                        st.raw_fingerprint = Some(fp);
                    }
                    if let Some(v) = validators {
                        st.etag = v.etag;
                        st.last_modified = v.last_modified;
                    }
                    Outcome::Unchanged
                }
                Analysis::Changed(c) => {
                    st.raw_fingerprint = Some(c.raw_fingerprint);
                    st.link_fingerprint = Some(c.link_fingerprint);
                    st.etag = c.validators.etag;
                    st.last_modified = c.validators.last_modified;
                    if c.title.is_some() {
                        st.page_title = c.title;
                    }
                    st.link_count = c.links.len() as u64;
                    st.nofollow = c.nofollow;
                    if c.icon.is_some() {
                        st.icon = c.icon;
                    }
                    st.roles = c.roles;
                    st.note.clone_from(&c.note);
                    report.note = c.note;
                    report.changed = true;
                    report.baseline = c.baseline;
                    let updated = !c.new_items.is_empty();
                    if updated {
                        st.last_change = Some(now);
                    }
                    let lost = c.facts.probable_loss;
                    st.learned.page.apply(c.facts, now);
                    new_links = c.new_items.len() as u32;
                    st.item_seq += c.new_items.len() as u64;
                    st.item_count += c.new_items.len() as u64;
                    // Stored oldest first: the top of the page gets the highest sequence.
                    record.new_items = c.new_items.iter().rev().cloned().collect();
                    report.new_items = c.new_items;
                    record.links = Some(c.links);
                    record.seen_urls = c.seen_urls;
                    match (updated, lost) {
                        (true, true) => Outcome::Lost,
                        (true, false) => Outcome::Updated,
                        (false, _) => Outcome::Unchanged,
                    }
                }
            }
        }
    };
    if let (Some(d), Status::Ok) = (deep, st.status) {
        let n = merge_deep(&mut st, &mut record, &mut report, d, now);
        new_links += n;
        if n > 0 && outcome == Outcome::Unchanged {
            outcome = Outcome::Updated;
        }
    }
    let strategy = watch.strategy.unwrap_or(sched.strategy);
    let obs = Observation { outcome, new_links };
    let secs = schedule::plan(
        sched,
        strategy,
        &mut st.sched,
        &mut st.learned,
        obs,
        now,
        elapsed,
    );
    st.next_check = now + secs.round() as i64;
    report.next_check = st.next_check;
    (st, record, report)
}

/// A deep watch's site pages: their items join the feed after the page's own (the page's
/// top entry keeps the highest sequence), their state joins the batch. Returns the count
/// of their items.
fn merge_deep(
    st: &mut WatchState,
    record: &mut CheckRecord,
    report: &mut CheckReport,
    d: DeepOutcome,
    now: i64,
) -> u32 {
    let n = d.items.len();
    if n > 0 {
        st.last_change = Some(now);
        st.item_seq += n as u64;
        st.item_count += n as u64;
        let mut items: Vec<Item> = d.items.iter().rev().cloned().collect();
        items.append(&mut record.new_items);
        record.new_items = items;
        report.new_items.extend(d.items);
    }
    report.changed |= d.changed;
    report.site_pages = d.record.state.last_fetched;
    record.seen_urls.extend(d.seen_urls);
    st.crawl = Some(d.record.state.summary());
    record.crawl = Some(d.record);
    n as u32
}

/// Fetches and analyses the page of `watch`; commits unless `dry_run`.
pub async fn run(
    store: &Store,
    fetcher: &Fetcher,
    sched: &ScheduleConfig,
    deep_cfg: &DeepConfig,
    watch: &Watch,
    now: i64,
    dry_run: bool,
) -> Result<CheckReport, StoreError> {
    let started = Instant::now();
    let prev = store
        .state(&watch.id)?
        .ok_or_else(|| StoreError::NoWatch(watch.id.clone()))?;
    let url = Url::parse(&watch.url).map_err(|e| StoreError::Corrupt {
        key: watch.id.to_string(),
        reason: format!("stored URL does not parse: {e}"),
    })?;
    let validators = Validators {
        etag: prev.etag.clone(),
        last_modified: prev.last_modified.clone(),
    };
    let mut retry_after = None;
    let mut crawl = if crate::crawl::is_deep(watch) {
        Some(crate::crawl::Crawl::load(store, deep_cfg, watch)?)
    } else {
        None
    };
    let result = match fetcher.get_as(&url, &validators, watch.into()).await {
        Ok(FetchOutcome::NotModified) => Ok(Analysis::Unchanged {
            raw_fingerprint: None,
            validators: None,
        }),
        Ok(FetchOutcome::Page(page)) => {
            let input =
                crate::crawl::root_input(&page, crawl.as_ref().map(crate::crawl::Crawl::template));
            let mut a = analyse(store, watch, &prev, &input, now)?;
            if let (Some(c), Ok(analysis)) = (crawl.as_mut(), a.as_mut()) {
                c.root(&page, analysis)?;
            }
            a.map_err(|m| (m, "page"))
        }
        Err(e) if e.is_deferral() => return defer(store, watch, &prev, &e, now, dry_run),
        Err(e) => {
            retry_after = e.retry_after();
            Err((e.to_string(), e.kind()))
        }
    };
    // The site's pages, when the watch's own page could be read.
    let deep = match crawl {
        Some(mut c) if result.is_ok() => {
            c.visit(fetcher, now).await?;
            Some(c.finish()?)
        }
        _ => None,
    };
    let ms = started.elapsed().as_millis() as u64;
    let (mut state, record, mut report) = settle(sched, watch, &prev, result, deep, now, ms);
    // The server (429/503 Retry-After) or its robots.txt asked for a pause: the next
    // check comes no sooner, whatever the schedule says.
    if let Some(wait) = retry_after {
        state.next_check = state.next_check.max(now + secs(wait));
        report.next_check = state.next_check;
    }
    if !dry_run {
        store.commit_check(&watch.id, &prev, &state, &record)?;
    }
    Ok(report)
}

/// Whole seconds of `d`, at least 1.
fn secs(d: std::time::Duration) -> i64 {
    i64::try_from(d.as_secs()).unwrap_or(i64::MAX / 4).max(1)
}

/// A check the fetcher did not even try (its host is busy or asked for a pause): not a
/// failure of the watch, so its status, error count and schedule state stay as they are;
/// only the next check moves to when the host should have time.
fn defer(
    store: &Store,
    watch: &Watch,
    prev: &WatchState,
    e: &crate::fetch::FetchError,
    now: i64,
    dry_run: bool,
) -> Result<CheckReport, StoreError> {
    let wait = e.retry_after().map_or(1, secs);
    let mut state = prev.clone();
    state.next_check = now + wait;
    if !dry_run {
        store.commit_check(&watch.id, prev, &state, &CheckRecord::default())?;
    }
    Ok(CheckReport {
        error: Some(e.to_string()),
        error_kind: Some(e.kind()),
        next_check: state.next_check,
        ..CheckReport::default()
    })
}

/// Settles a check's result into the watch's next state and commits it (unless
/// `dry_run`): the common end of live checks and replays.
#[allow(
    clippy::too_many_arguments,
    reason = "the parts of one check, passed through"
)]
pub fn apply(
    store: &Store,
    sched: &ScheduleConfig,
    watch: &Watch,
    prev: &WatchState,
    result: Result<Analysis, (String, &'static str)>,
    now: i64,
    duration_ms: u64,
    dry_run: bool,
) -> Result<CheckReport, StoreError> {
    let (state, record, report) = settle(sched, watch, prev, result, None, now, duration_ms);
    if !dry_run {
        store.commit_check(&watch.id, prev, &state, &record)?;
    }
    Ok(report)
}
