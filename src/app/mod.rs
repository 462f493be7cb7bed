//! The application: the service the CLI, the HTTP API and the runner share. It owns the
//! configuration, store, fetcher and clock (private: callers use its operations), and
//! offers add, edit, remove, check, preview, OPML import and export, and the reads and
//! JSON views of watches the server and the CLI show. The runner, the server and the CLI
//! call it; it calls none of them ([`crate::daemon`] puts them together).
//!
//! May use: analysis, check, config, cpu, dto, entries, error, extract, fetch, metrics,
//! model, render, schedule, session, state, store.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

mod opml;
mod present;
mod preview;
mod request;
mod webhook;

pub use preview::{Preview, PreviewError, PreviewLink};
#[allow(
    clippy::wildcard_imports,
    reason = "the checks of a request, used by add and edit"
)]
use request::*;
pub use request::{
    parse_content, tag_from_folder, validate_tags, validate_timezone, Edited, NewWatch, WatchEdit,
    MAX_BACKFILL, MAX_URL_BYTES,
};

use crate::check::{self, CheckReport};
use crate::config::Config;
use crate::extract::{self, Selector};
use crate::fetch::Fetcher;
use crate::metrics::Metrics;
use crate::model::{Watch, WatchId};
use crate::schedule::clock::{Clock, SystemClock};
use crate::schedule::Adaptive;
use crate::state::WatchState;
use crate::store::{Store, StoreError};

/// Errors of application operations, split by who must act: the user (bad input, not
/// found) or the operator (store, internal).
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error("{0}")]
    BadInput(String),
    #[error("no watch with id {0}")]
    NotFound(String),
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The HTTP client cannot be built (its TLS setup, the resolver).
    #[error("cannot set up the HTTP client: {0}")]
    Client(#[from] crate::fetch::FetchError),
}

/// The service. Its parts are private: the server, the CLI and the runner call its
/// operations; the accessors below hand out what a caller needs to read.
#[derive(Debug)]
pub struct App {
    config: Config,
    store: Store,
    fetcher: Fetcher,
    clock: Arc<dyn Clock>,
    metrics: Arc<Metrics>,
    /// Wakes the scheduler when a watch is added or rescheduled.
    wake: tokio::sync::Notify,
    /// The web page's server secret, sessions and login throttle.
    security: crate::session::Security,
    /// The tracking parameters links lose (`[items]`), built once.
    tracking: crate::entries::hygiene::Tracking,
    locks: Mutex<HashMap<WatchId, Arc<tokio::sync::Mutex<()>>>>,
}

impl App {
    /// Opens the store named by the config, with the system clock.
    pub fn open(config: Config) -> Result<Self, AppError> {
        let store = Store::from_config(
            &config.storage,
            crate::store::NodeLimits {
                host_delay: config.fetch.per_host_delay,
                max_hosts: config.fetch.global_concurrency,
            },
        )?;
        Self::new(config, store, Arc::new(SystemClock))
    }

    /// The service on `store`, which from now on keeps per watch as many items as a
    /// feed shows (`feed.max_items`).
    pub fn new(config: Config, store: Store, clock: Arc<dyn Clock>) -> Result<Self, AppError> {
        store.set_items_kept(config.feed.max_items);
        let fetcher = Fetcher::new(&config.fetch)?.with_browser(&config.browser);
        // The watch gauges are counted later ([`App::count_watches`]), off the start.
        let metrics = Arc::new(Metrics::default());
        let tracking = crate::entries::hygiene::Tracking::configured(
            config.items.tracking_params.as_deref(),
            &config.items.extra_tracking_params,
        );
        Ok(Self {
            config,
            store,
            fetcher,
            clock,
            metrics,
            wake: tokio::sync::Notify::new(),
            security: crate::session::Security::new(),
            tracking,
            locks: Mutex::new(HashMap::new()),
        })
    }

    /// The configuration the service runs with.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The store, for the runner (the due queue), the daemon (its flush at shutdown) and
    /// tests that set up state; the server and the CLI read through the service.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The fetcher, for the preview and the browser's health.
    pub fn fetcher(&self) -> &Fetcher {
        &self.fetcher
    }

    /// Now, by the service's clock (Unix seconds).
    pub fn now(&self) -> i64 {
        self.clock.now()
    }

    /// The counters `/metrics` shows.
    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    /// Counts the watches for the gauges, once: `serve` calls it after it starts
    /// answering, `/metrics` before its first answer. Reads the store's render index
    /// (blocking).
    pub fn count_watches(&self) -> Result<(), AppError> {
        Ok(self.metrics.count_watches(|| self.store.watch_renders())?)
    }

    /// The web page's sessions, CSRF secret and login throttle.
    pub fn security(&self) -> &crate::session::Security {
        &self.security
    }

    /// Tells the runner that the due queue changed (a watch added, rescheduled, checked).
    pub fn wake_runner(&self) {
        self.wake.notify_one();
    }

    /// Resolves when [`App::wake_runner`] is called (the runner's sleep).
    pub async fn woken(&self) {
        self.wake.notified().await;
    }

    /// Validates a requested watch into a [`Watch`] (not stored).
    pub fn validate(&self, req: &NewWatch) -> Result<Watch, AppError> {
        let len = req.url.trim().len();
        if len > MAX_URL_BYTES {
            return Err(AppError::BadInput(format!(
                "the URL is {len} bytes long, more than the {MAX_URL_BYTES} accepted; \
                 watch a shorter address of the page"
            )));
        }
        let url = extract::url::parse_user_url(&req.url)
            .map_err(|e| AppError::BadInput(e.to_string()))?;
        if !url.username().is_empty() || url.password().is_some() {
            // It would stand in every feed, the OPML and the log.
            return Err(AppError::BadInput(
                "the URL carries a user name or password (`user:pass@`), which would be \
                 shown in its feeds, the OPML and the log; sitefeed watches public pages only"
                    .into(),
            ));
        }
        let url = extract::url::normalize(&url).ok_or_else(|| {
            AppError::BadInput(format!("`{}` is not an http(s) URL", req.url.trim()))
        })?;
        let depth = req.depth.unwrap_or(1);
        if !(1..=3).contains(&depth) {
            return Err(AppError::BadInput(format!(
                "depth {depth} is not 1, 2 or 3"
            )));
        }
        let keywords = validate_keywords(&req.keywords)?;
        let select = match req.select.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(s) => {
                Selector::parse(s).map_err(|e| AppError::BadInput(e.to_string()))?;
                Some(s.to_owned())
            }
        };
        let title = req.title.as_deref().and_then(clean_title);
        let url = url.to_string();
        Ok(Watch {
            id: WatchId::for_url(&url),
            url,
            title,
            depth,
            select,
            keywords,
            created: self.clock.now(),
            strategy: req.strategy,
            render: req.render.unwrap_or_default(),
            options: crate::model::WatchOptions {
                tags: validate_tags(&req.tags)?,
                content: req.content.unwrap_or_default(),
                ..crate::model::WatchOptions::default()
            },
        })
    }

    /// Adds a watch; the same URL again returns the existing watch and `false`.
    pub fn add_watch(&self, req: &NewWatch) -> Result<(Watch, bool), AppError> {
        let watch = self.validate(req)?;
        let backfill = req.backfill.unwrap_or(0);
        if backfill > MAX_BACKFILL {
            return Err(AppError::BadInput(format!(
                "backfill {backfill} is more than {MAX_BACKFILL}; ask for fewer entries"
            )));
        }
        if let Some(existing) = self.store.watch(&watch.id)? {
            return Ok((existing, false));
        }
        let now = self.clock.now();
        let mut state = WatchState::new(now, Adaptive::initial(&self.config.schedule));
        state.backfill = backfill;
        let added = self.metrics.changing_watches(|| {
            let added = self.store.insert_watch(&watch, &state)?;
            if added {
                self.metrics.watch_added(watch.render);
            }
            Ok::<_, StoreError>(added)
        })?;
        if !added {
            let existing = self
                .store
                .watch(&watch.id)?
                // (added by another request, then removed by a third meanwhile)
                .ok_or_else(|| AppError::NotFound(watch.id.to_string()))?;
            return Ok((existing, false));
        }
        self.wake.notify_one();
        Ok((watch, true))
    }

    /// Finds a watch by id, or by URL.
    pub fn find(&self, id_or_url: &str) -> Result<Watch, AppError> {
        if let Some(id) = WatchId::parse(id_or_url) {
            if let Some(w) = self.store.watch(&id)? {
                return Ok(w);
            }
        }
        if let Ok(url) = extract::url::parse_user_url(id_or_url) {
            if let Some(norm) = extract::url::normalize(&url) {
                if let Some(w) = self.store.watch(&WatchId::for_url(norm.as_str()))? {
                    return Ok(w);
                }
            }
        }
        Err(AppError::NotFound(id_or_url.to_owned()))
    }

    /// The tracking parameters that leave the links of pages (`[items]`).
    pub fn tracking(&self) -> &crate::entries::hygiene::Tracking {
        &self.tracking
    }

    /// Runs one check of `watch` now (one at a time per watch).
    pub async fn check(&self, watch: &Watch, dry_run: bool) -> Result<CheckReport, AppError> {
        let lock = self.lock_for(&watch.id);
        let _guard = lock.lock().await;
        // The reads before the fetch, in one go. On PostgreSQL each is a round trip: off
        // the async workers, on the CPU pool. sled's come from its cache (from the disk
        // after a cold start, as the scheduler's do): here, as a hop to the pool cost
        // about 2% more CPU per check and 6% fewer checks a second under load.
        let before = if self.store.is_remote() {
            let (store, id) = (self.store.clone(), watch.id.clone());
            crate::cpu::run(move || store.begin_check(&id, dry_run)).await?
        } else {
            self.store.begin_check(&watch.id, dry_run)?
        };
        // The watch may have been removed while we waited, or edited: the check is of
        // the watch as it is now.
        let Some(crate::store::CheckStart {
            watch: current,
            pause,
            prev,
        }) = before
        else {
            return Err(AppError::NotFound(watch.id.to_string()));
        };
        let watch = &current;
        if let (Some(wait), Ok(url)) = (pause, url::Url::parse(&watch.url)) {
            self.fetcher.pause_host(&url, wait);
        }
        let started = std::time::Instant::now();
        let reading = self.store.reading();
        let sched = self.schedule_for(watch);
        let settings = check::Settings {
            sched: &sched,
            deep: &self.config.deep,
            tracking: &self.tracking,
            full_text: self.config.items.full_text,
        };
        // Boxed: the check's future holds the page's analysis state, and would make
        // every future that awaits a check as large.
        let report = Box::pin(check::run(
            &self.store,
            &self.fetcher,
            &settings,
            watch,
            prev,
            self.clock.now(),
            dry_run,
        ))
        .await;
        let report = match report {
            Ok(r) => CheckReport {
                reading,
                watch: Some(current),
                ..r
            },
            Err(e) => {
                // Not committed: the hand-out of the watch ends (PostgreSQL).
                if !dry_run {
                    self.store.check_ended(&watch.id);
                }
                return Err(e.into());
            }
        };
        self.metrics.record_check(
            report.new_items.len(),
            report.site_pages,
            report.error_kind,
            started.elapsed(),
        );
        Ok(report)
    }

    /// Removes a watch and its items.
    pub async fn remove(&self, id: &WatchId) -> Result<bool, AppError> {
        let lock = self.lock_for(id);
        let _guard = lock.lock().await;
        // The watch's read, the removal's batch and its flush wait for the disk: off the
        // async workers.
        let (store, key, metrics) = (self.store.clone(), id.clone(), self.metrics.clone());
        let removed = crate::cpu::write_on_disk(move || {
            let render = store.watch(&key)?.map(|w| w.render);
            metrics.changing_watches(|| {
                let removed = store.remove_watch(&key)?;
                if let (true, Some(render)) = (removed, render) {
                    metrics.watch_removed(render);
                }
                Ok::<_, StoreError>(removed)
            })
        })
        .await?;
        if let Ok(mut locks) = self.locks.lock() {
            locks.remove(id);
        }
        Ok(removed)
    }

    /// Applies `edit` to the watch `id`. Waits for a running check of it, so the edit
    /// and a check never interleave. A new selector or depth re-baselines the watch
    /// ([`Store::update_watch`]); resuming it or re-baselining it checks it soon.
    pub async fn edit(&self, id: &WatchId, edit: &WatchEdit) -> Result<Edited, AppError> {
        let lock = self.lock_for(id);
        let _guard = lock.lock().await;
        let old = self
            .store
            .watch(id)?
            .ok_or_else(|| AppError::NotFound(id.to_string()))?;
        let mut w = old.clone();
        if let Some(t) = &edit.title {
            w.title = t.as_deref().and_then(clean_title);
        }
        if let Some(sel) = &edit.select {
            w.select = match sel.as_deref().map(str::trim) {
                None | Some("") => None,
                Some(s) => {
                    Selector::parse(s).map_err(|e| AppError::BadInput(e.to_string()))?;
                    Some(s.to_owned())
                }
            };
        }
        if let Some(d) = edit.depth {
            if !(1..=3).contains(&d) {
                return Err(AppError::BadInput(format!("depth {d} is not 1, 2 or 3")));
            }
            w.depth = d;
        }
        if let Some(k) = &edit.keywords {
            w.keywords = validate_keywords(k)?;
        }
        if let Some(s) = edit.strategy {
            w.strategy = s;
        }
        if let Some(t) = &edit.tags {
            w.options.tags = validate_tags(t)?;
        }
        if let Some(p) = edit.paused {
            w.options.paused = p;
        }
        let secs = |d: std::time::Duration| d.as_secs().max(1);
        if let Some(m) = edit.min_interval {
            w.options.min_interval = m.map(secs);
        }
        if let Some(m) = edit.max_interval {
            w.options.max_interval = m.map(secs);
        }
        if let (Some(lo), Some(hi)) = (w.options.min_interval, w.options.max_interval) {
            if lo > hi {
                return Err(AppError::BadInput(format!(
                    "the minimum interval ({lo}s) is longer than the maximum ({hi}s)"
                )));
            }
        }
        if let Some(on) = edit.error_item {
            w.options.no_error_item = !on;
        }
        if let Some(h) = &edit.webhook {
            w.options.webhook = match h.as_deref().map(str::trim) {
                None | Some("") => None,
                Some(u) => Some(validate_webhook(u)?),
            };
        }
        if let Some(t) = &edit.timezone {
            w.options.timezone = match t.as_deref().map(str::trim) {
                None | Some("") => None,
                Some(name) => Some(validate_timezone(name)?),
            };
        }
        if let Some(c) = edit.content {
            w.options.content = c;
        }
        let rebaselined = w.select != old.select || w.depth != old.depth;
        let resumed = old.options.paused && !w.options.paused;
        let now = self.clock.now();
        let note = rebaselined.then(|| {
            "the selector or depth changed: the next check records the page again, and \
             nothing already on it becomes an item"
                .to_owned()
        });
        let due = (rebaselined || resumed).then_some(now);
        // The write and its flush wait for the disk: off the async workers.
        let (store, edited) = (self.store.clone(), w.clone());
        crate::cpu::write_on_disk(move || store.update_watch(&edited, rebaselined, note, due))
            .await?;
        self.wake.notify_one();
        Ok(Edited {
            watch: w,
            rebaselined,
        })
    }

    /// The time zone `watch`'s times are shown in: its own, else `server.timezone`.
    pub fn tz_for(&self, watch: &Watch) -> chrono_tz::Tz {
        watch
            .options
            .timezone
            .as_deref()
            .and_then(|t| t.parse().ok())
            .unwrap_or(self.config.server.timezone)
    }

    /// The schedule settings of `watch`: the config's, within the watch's own interval
    /// bounds when it has them.
    pub(crate) fn schedule_for(&self, watch: &Watch) -> crate::config::ScheduleConfig {
        use std::time::Duration;
        let mut s = self.config.schedule;
        if let Some(lo) = watch.options.min_interval {
            s.min_interval = Duration::from_secs(lo);
            s.max_interval = s.max_interval.max(s.min_interval);
        }
        if let Some(hi) = watch.options.max_interval {
            s.max_interval = Duration::from_secs(hi);
            s.min_interval = s.min_interval.min(s.max_interval);
        }
        s.error_backoff_max = s.error_backoff_max.max(s.min_interval);
        s
    }

    /// Moves the next check of every failing, unpaused watch to within a minute of
    /// `now` (spread over that minute), so a fix made while the service was down (a
    /// config change, the network back) shows without waiting out the backoff. Returns
    /// how many were moved.
    pub fn recheck_failing(&self) -> Result<usize, AppError> {
        let now = self.clock.now();
        let mut moved = 0;
        // The failing index: a start-up reads the failing watches only.
        for id in self.store.failing_watches()? {
            let (Some(w), Some(s)) = (self.store.watch(&id)?, self.store.state(&id)?) else {
                continue;
            };
            if w.options.paused {
                continue;
            }
            if s.status == crate::model::Status::Error && s.next_check > now + 60 {
                let at = now + 5 + i64::try_from(moved % 55).unwrap_or(0);
                self.store.update_watch(&w, false, None, Some(at))?;
                moved += 1;
            }
        }
        if moved > 0 {
            self.wake.notify_one();
        }
        Ok(moved)
    }

    /// Adds the watches declared in the config (idempotent).
    pub fn add_configured_watches(&self) -> Result<usize, AppError> {
        let mut added = 0;
        for w in &self.config.watches {
            let (_, new) = self
                .add_watch(&NewWatch::from(w.clone()))
                .map_err(|e| match e {
                    AppError::BadInput(m) => {
                        AppError::BadInput(format!("[[watch]] {}: {m}", w.url))
                    }
                    other => other,
                })?;
            added += usize::from(new);
        }
        Ok(added)
    }

    /// The feed title of a watch: the user's, else the page's, else its URL.
    pub fn display_title(&self, watch: &Watch, state: Option<&WatchState>) -> String {
        watch
            .title
            .clone()
            .or_else(|| state.and_then(|s| s.page_title.clone()))
            .filter(|t| !t.trim().is_empty())
            .unwrap_or_else(|| watch.url.clone())
    }

    /// The public address of this server as the command line knows it: `base_url`, else
    /// the listen address (the unspecified address as 127.0.0.1). The server answers
    /// with the address each request came to instead (`server::base`).
    pub fn base_url(&self) -> String {
        if let Some(b) = &self.config.server.base_url {
            return b.clone();
        }
        let mut addr = self.config.server.listen;
        if addr.ip().is_unspecified() {
            addr.set_ip(std::net::Ipv4Addr::LOCALHOST.into());
        }
        format!("http://{addr}")
    }

    /// URL of a watch's feed in `ext` format, with `?key=` when feeds need a token, at
    /// [`App::base_url`].
    pub fn feed_url(&self, id: &WatchId, ext: &str) -> String {
        self.feed_url_at(&self.base_url(), id, ext)
    }

    /// URL of a watch's feed in `ext` format at `base` (no trailing slash).
    pub fn feed_url_at(&self, base: &str, id: &WatchId, ext: &str) -> String {
        format!("{base}/feed/{id}.{ext}{}", self.key_query())
    }

    /// `"?key=<feed_token>"`, or `""` when feeds are public.
    pub fn key_query(&self) -> String {
        let t = &self.config.server.feed_token;
        if t.is_empty() {
            String::new()
        } else {
            format!("?key={t}")
        }
    }

    fn lock_for(&self, id: &WatchId) -> Arc<tokio::sync::Mutex<()>> {
        let mut locks = self
            .locks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        locks.entry(id.clone()).or_default().clone()
    }
}

impl From<AppError> for crate::error::Error {
    fn from(e: AppError) -> Self {
        match e {
            AppError::BadInput(m) => Self::Usage(m),
            AppError::NotFound(id) => Self::Usage(format!(
                "no watch with id or URL `{id}`; `sitefeed list` shows them"
            )),
            AppError::Store(e) => Self::Failed(e.to_string()),
            AppError::Client(e) => Self::Failed(e.to_string()),
        }
    }
}
