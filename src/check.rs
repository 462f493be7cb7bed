//! One check of one watch: fetch → the one analysis ([`crate::analysis`]) → settle the
//! watch's next state → commit. [`apply`] is the common end of live checks and
//! `sitefeed replay`, so both run one pipeline.
//!
//! May use: analysis, config, cpu, crawl, entries, fetch, fulltext, model, schedule, state,
//! store.

use std::time::Instant;

use url::Url;

use crate::analysis::Params;
pub use crate::analysis::{analyse, item_for, Analysis, Changed, PageInput, Unusable};
use crate::config::{DeepConfig, FullText, ScheduleConfig};
use crate::crawl::DeepOutcome;
use crate::entries::hygiene::Tracking;
use crate::fetch::{FetchOutcome, Fetcher, Validators};
use crate::model::{Item, Status, Watch};
use crate::schedule::{self, Observation, Outcome};
use crate::state::WatchState;
use crate::store::{CheckRecord, LinksRead, Prepared, ReadLinks, Store, StoreError, WatchHistory};

/// The service-wide rules a check follows, besides the watch's own settings.
#[derive(Debug, Clone, Copy)]
pub struct Settings<'a> {
    /// The schedule's bounds as they apply to this watch.
    pub sched: &'a ScheduleConfig,
    pub deep: &'a DeepConfig,
    /// The query parameters dropped from links.
    pub tracking: &'a Tracking,
    pub full_text: FullText,
}

/// Why a check had nothing to analyse: the fetch failed, or the page cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum Failure {
    #[error(transparent)]
    Fetch(#[from] crate::fetch::FetchError),
    #[error(transparent)]
    Page(#[from] Unusable),
}

impl Failure {
    /// The label of the failure in the metrics.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Fetch(e) => e.kind(),
            Self::Page(_) => "page",
        }
    }
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
    /// Taken before the check began: what serves its report settles it (`Store::settle`).
    pub reading: crate::store::Reading,
    /// The watch as the check read it when it began (set by `App::check`): an edit made
    /// while the check waited to start decides where its items go and under what title.
    pub watch: Option<Watch>,
}

#[allow(
    clippy::too_many_lines,
    reason = "one match over what a check can find, each arm a few lines"
)]
#[allow(
    clippy::too_many_arguments,
    reason = "the parts of one check, passed through"
)]
/// The watch's next state and the record to commit, for an analysis or a failure.
/// `read`: what the analysis read the last link array from
/// ([`WatchHistory::take_read`]), so that the commit writes the new array against it
/// without reading it again.
pub fn settle(
    settings: &Settings<'_>,
    watch: &Watch,
    prev: &WatchState,
    result: Result<Analysis, Failure>,
    deep: Option<DeepOutcome>,
    read: Option<LinksRead>,
    now: i64,
    duration_ms: u64,
) -> (WatchState, CheckRecord, CheckReport) {
    let sched = settings.sched;
    let mut st = prev.clone();
    let elapsed = (now - prev.last_check.unwrap_or(watch.created)) as f64;
    st.last_check = Some(now);
    st.checks += 1;
    st.last_duration_ms = duration_ms;
    let mut record = CheckRecord::default();
    let mut report = CheckReport::default();
    let mut new_links = 0;
    let mut outcome = match result {
        Err(failure) => {
            let msg = failure.to_string();
            st.status = Status::Error;
            st.error = Some(msg.clone());
            st.consecutive_errors += 1;
            report.error = Some(msg);
            report.error_kind = Some(failure.kind());
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
                        // A new body, the same links.
                        st.raw_fingerprint = Some(fp);
                        st.count_new_body(false);
                    }
                    if let Some(v) = validators {
                        st.etag = v.etag;
                        st.last_modified = v.last_modified;
                    }
                    Outcome::Unchanged
                }
                Analysis::Changed(c) => {
                    st.count_new_body(true);
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
                    st.entry_roles = c.entry_roles;
                    st.note.clone_from(&c.note);
                    report.note = c.note;
                    report.changed = true;
                    report.baseline = c.baseline;
                    let updated = !c.new_items.is_empty();
                    if updated {
                        st.last_change = Some(now);
                    }
                    // Scheduling facts: the effective link count and whether the whole
                    // previous list scrolled off.
                    let facts = prev.learned.page.measure_once(
                        c.links
                            .iter()
                            .zip(&c.on_last)
                            .map(|(l, slot)| (l.url.as_str(), slot.is_some())),
                        c.seen_urls.iter().map(String::as_str),
                        c.new_items.len(),
                    );
                    let lost = facts.probable_loss;
                    st.learned.page.apply(facts, now);
                    new_links = c.new_items.len() as u32;
                    st.item_seq += c.new_items.len() as u64;
                    st.item_count += c.new_items.len() as u64;
                    // Stored oldest first: the top of the page gets the highest sequence.
                    record.new_items = c.new_items.iter().rev().cloned().collect();
                    report.new_items = c.new_items;
                    record.links = Some(c.links);
                    // The commit writes the new array against the old one as read.
                    if c.previous_as_read {
                        record.earlier_links = Some(ReadLinks {
                            read,
                            links: c.previous,
                        });
                    }
                    record.retitled = c.retitled;
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
    // A full-text watch's new items wait for their article, committed with them.
    if watch.options.content == crate::model::Content::Full && !report.new_items.is_empty() {
        crate::fulltext::queue(
            &mut st.full_text,
            &report.new_items,
            settings.full_text.queue,
        );
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

/// Fetches and analyses the page of `watch`, whose state is `prev`; commits unless
/// `dry_run`.
pub async fn run(
    store: &Store,
    fetcher: &Fetcher,
    settings: &Settings<'_>,
    watch: &Watch,
    prev: WatchState,
    now: i64,
    dry_run: bool,
) -> Result<CheckReport, StoreError> {
    let started = Instant::now();
    let url = Url::parse(&watch.url).map_err(|e| StoreError::Corrupt {
        key: watch.id.to_string(),
        reason: format!("stored URL does not parse: {e}"),
    })?;
    let validators = Validators {
        etag: prev.etag.clone(),
        last_modified: prev.last_modified.clone(),
    };
    let mut end = End {
        retry_after: None,
        read: None,
        dry_run,
        started,
    };
    let mut crawl = if crate::crawl::is_deep(watch) {
        // A deep watch's crawl state (its site's pages, frontier and template sample) is
        // decoded on the CPU pool: at hundreds of KB it is no work for an async worker.
        let (store, deep, tracking, watch) = (
            store.clone(),
            settings.deep.clone(),
            settings.tracking.clone(),
            watch.clone(),
        );
        Some(
            crate::cpu::run(move || crate::crawl::Crawl::load(&store, deep, tracking, watch))
                .await?,
        )
    } else {
        None
    };
    let own = Own {
        store: store.clone(),
        rules: Rules::of(settings),
        watch: watch.clone(),
        prev: prev.clone(),
    };
    let result = match fetcher.get_as(&url, &validators, watch.into()).await {
        Ok(FetchOutcome::NotModified) => Ok(Analysis::Unchanged {
            raw_fingerprint: None,
            validators: None,
        }),
        Ok(FetchOutcome::Deferred(d)) => {
            // Its commit waits for the disk: off the async workers.
            let (store, watch) = (store.clone(), watch.clone());
            return crate::cpu::wait_on_disk(move || {
                defer(&store, &watch, &prev, &d, now, dry_run)
            })
            .await;
        }
        Ok(FetchOutcome::Page(page)) if crawl.is_none() => {
            // A plain watch: the analysis and the end of the check (its commit
            // gathered) in one go on the CPU pool, off the async workers; the store's
            // committer applies the commit.
            let (state, report, commit) = crate::cpu::run(move || {
                let input = crate::crawl::root_input(&page, None, &own.rules.tracking);
                let history = own.store.history(&own.watch.id);
                let a = analyse_history(&history, &own.watch, &own.prev, &input, now)?;
                end.read = history.take_read();
                own.finish(a.map_err(Failure::Page), None, now, end)
            })
            .await?;
            store.finish_check(commit).await?;
            return Ok(articles(store, fetcher, settings, watch, &state, report, dry_run).await);
        }
        Ok(FetchOutcome::Page(page)) => {
            // The analysis runs on the CPU pool, off the async workers.
            let tracking = settings.tracking.clone();
            let (a, c, r) =
                analyse_on_pool(store, watch, &prev, page, crawl, tracking, now).await?;
            crawl = c;
            end.read = r;
            a.map_err(Failure::Page)
        }
        Err(e) => {
            end.retry_after = e.retry_after();
            Err(Failure::Fetch(e))
        }
    };
    // The site's pages, when the watch's own page could be read.
    let deep = match crawl {
        Some(c) if result.is_ok() => {
            let c = c.visit(fetcher, now).await?;
            Some(crate::cpu::run(move || c.finish()).await?)
        }
        _ => None,
    };
    // The end of the check (its commit gathered) on the CPU pool too.
    let (state, report, commit) =
        crate::cpu::run(move || own.finish(result, deep, now, end)).await?;
    store.finish_check(commit).await?;
    Ok(articles(store, fetcher, settings, watch, &state, report, dry_run).await)
}

/// The service-wide rules of a check, owned: what the check's end takes to the CPU pool.
struct Rules {
    sched: ScheduleConfig,
    deep: DeepConfig,
    tracking: Tracking,
    full_text: FullText,
}

impl Rules {
    fn of(s: &Settings<'_>) -> Self {
        Self {
            sched: *s.sched,
            deep: s.deep.clone(),
            tracking: s.tracking.clone(),
            full_text: s.full_text,
        }
    }

    fn settings(&self) -> Settings<'_> {
        Settings {
            sched: &self.sched,
            deep: &self.deep,
            tracking: &self.tracking,
            full_text: self.full_text,
        }
    }
}

/// What the end of a check needs besides its result.
struct End {
    /// The server or its robots.txt asked for this pause.
    retry_after: Option<std::time::Duration>,
    /// What the analysis read the last link array from.
    read: Option<LinksRead>,
    dry_run: bool,
    started: Instant,
}

/// Owned copies of a check's parts, for its work on the CPU pool.
struct Own {
    store: Store,
    rules: Rules,
    watch: Watch,
    prev: WatchState,
}

impl Own {
    /// The end of a check: settles its result into the watch's next state and gathers
    /// its commit (nothing when `end.dry_run`), for [`Store::finish_check`]. Returns the
    /// state, the report and the commit.
    fn finish(
        &self,
        result: Result<Analysis, Failure>,
        deep: Option<DeepOutcome>,
        now: i64,
        end: End,
    ) -> Result<(WatchState, CheckReport, Prepared), StoreError> {
        let (watch, prev) = (&self.watch, &self.prev);
        let ms = end.started.elapsed().as_millis() as u64;
        let settings = self.rules.settings();
        let (mut state, mut record, mut report) =
            settle(&settings, watch, prev, result, deep, end.read, now, ms);
        // The server (429/503 Retry-After) or its robots.txt asked for a pause: the next
        // check comes no sooner, whatever the schedule says, and on PostgreSQL the host's
        // lease keeps the pause for whichever node holds the host next.
        if let Some(wait) = end.retry_after {
            state.next_check = state.next_check.max(now + secs(wait));
            report.next_check = state.next_check;
            record.host_pause = Some(wait);
        }
        let commit = if end.dry_run {
            Prepared::default()
        } else {
            self.store.prepare_check(&watch.id, prev, &state, &record)?
        };
        Ok((state, report, commit))
    }
}

/// After the commit: the articles of a full-text watch's new items (a crash keeps the
/// queue, committed with the items). A failure to store them is not the check's: its
/// items stand, and the queue is still there for the next check.
async fn articles(
    store: &Store,
    fetcher: &Fetcher,
    settings: &Settings<'_>,
    watch: &Watch,
    state: &WatchState,
    mut report: CheckReport,
    dry_run: bool,
) -> CheckReport {
    let wanted = !dry_run
        && watch.options.content == crate::model::Content::Full
        && state.status != Status::Error;
    if !wanted || state.full_text.is_empty() {
        return report;
    }
    let limits = settings.full_text;
    match crate::fulltext::fill(store, fetcher, &watch.id, &state.full_text, limits).await {
        // What the check reports (and a webhook sends) carries the articles found for
        // its own new items.
        Ok(found) => {
            for item in &mut report.new_items {
                if let Some((_, html)) = found.iter().find(|(id, _)| *id == item.id) {
                    item.content = Some(html.clone());
                }
            }
        }
        Err(e) => tracing::warn!(id = %watch.id, error = %e, "cannot store the full text"),
    }
    report
}

/// [`analyse`] (and a deep watch's reading of its own page) on the CPU pool: the page,
/// the crawl and copies of the rest move there and the crawl comes back.
async fn analyse_on_pool(
    store: &Store,
    watch: &Watch,
    prev: &WatchState,
    page: crate::fetch::Page,
    crawl: Option<crate::crawl::Crawl>,
    tracking: Tracking,
    now: i64,
) -> Result<Analysed, StoreError> {
    let (store, watch, prev) = (store.clone(), watch.clone(), prev.clone());
    crate::cpu::run(move || {
        let mut crawl = crawl;
        let input = crate::crawl::root_input(&page, crawl.as_ref(), &tracking);
        let history = store.history(&watch.id);
        let mut a = analyse_history(&history, &watch, &prev, &input, now)?;
        let read = history.take_read();
        if let Some(c) = crawl.as_mut() {
            c.share_seen(history.into_seen());
            if let Ok(analysis) = a.as_mut() {
                c.root(&page, analysis)?;
            }
        }
        Ok((a, crawl, read))
    })
    .await
}

/// What [`analyse_on_pool`] gives back: the analysis, the crawl, and what the link
/// array was read from.
type Analysed = (
    Result<Analysis, Unusable>,
    Option<crate::crawl::Crawl>,
    Option<LinksRead>,
);

/// The one analysis of a page against what `store` keeps of `watch` (its state `prev`,
/// its last links and seen URLs), with the default parameters: what a check runs, and
/// the preview too, so that it shows exactly what the next check would do.
pub fn analyse_stored(
    store: &Store,
    watch: &Watch,
    prev: &WatchState,
    input: &PageInput<'_>,
    now: i64,
) -> Result<Result<Analysis, Unusable>, StoreError> {
    analyse_history(&store.history(&watch.id), watch, prev, input, now)
}

/// [`analyse_stored`] through a history the caller keeps (to learn what it read).
fn analyse_history(
    history: &WatchHistory<'_>,
    watch: &Watch,
    prev: &WatchState,
    input: &PageInput<'_>,
    now: i64,
) -> Result<Result<Analysis, Unusable>, StoreError> {
    analyse(history, watch, &prev.prev(), input, &Params::default(), now)
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
    d: &crate::fetch::Deferral,
    now: i64,
    dry_run: bool,
) -> Result<CheckReport, StoreError> {
    let wait = secs(d.wait);
    let mut state = prev.clone();
    state.next_check = now + wait;
    if !dry_run {
        store.commit_check(&watch.id, prev, &state, &CheckRecord::default())?;
    }
    Ok(CheckReport {
        error: Some(d.to_string()),
        error_kind: Some("deferred"),
        next_check: state.next_check,
        ..CheckReport::default()
    })
}

/// Settles a check's result into the watch's next state and commits it (unless
/// `dry_run`): the common end of live checks and replays; `read` as for [`settle`].
#[allow(
    clippy::too_many_arguments,
    reason = "the parts of one check, passed through"
)]
pub fn apply(
    store: &Store,
    settings: &Settings<'_>,
    watch: &Watch,
    prev: &WatchState,
    result: Result<Analysis, Failure>,
    now: i64,
    duration_ms: u64,
    dry_run: bool,
    read: Option<LinksRead>,
) -> Result<CheckReport, StoreError> {
    let (state, record, report) =
        settle(settings, watch, prev, result, None, read, now, duration_ms);
    if !dry_run {
        store.commit_check(&watch.id, prev, &state, &record)?;
    }
    Ok(report)
}

#[cfg(test)]
#[path = "check_tests.rs"]
pub(crate) mod tests;
