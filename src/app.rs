//! The application: configuration, store, fetcher and clock, and the operations that
//! the CLI and the HTTP API share (add, check, remove). `serve` runs the scheduler and
//! the server under one cancellation token and shuts them down in order.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::check::{self, CheckReport};
use crate::config::{Config, RawWatch};
use crate::extract::{self, Selector};
use crate::fetch::Fetcher;
use crate::metrics::Metrics;
use crate::model::{Watch, WatchId};
use crate::schedule::clock::{Clock, SystemClock};
use crate::schedule::Adaptive;
use crate::store::{Store, StoreError, WatchState};

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
    #[error("{0}")]
    Internal(String),
}

/// A watch as requested by a user (CLI, API, config, OPML).
#[derive(Debug, Clone, Default)]
pub struct NewWatch {
    pub url: String,
    pub depth: Option<u8>,
    pub title: Option<String>,
    pub select: Option<String>,
    pub keywords: Vec<String>,
    /// Scheduling strategy; `None`: the config's default.
    pub strategy: Option<crate::config::Strategy>,
    /// How the page is read; `None`: plain.
    pub render: Option<crate::model::Render>,
    /// Show up to this many of the page's current entries as items after the first check
    /// (instead of one "now watched" item). At most [`MAX_BACKFILL`].
    pub backfill: Option<u32>,
}

/// Largest backfill a user may ask for.
pub const MAX_BACKFILL: u32 = 100;

impl From<RawWatch> for NewWatch {
    fn from(w: RawWatch) -> Self {
        Self {
            url: w.url,
            depth: w.depth,
            title: w.title,
            select: w.select,
            keywords: w.keywords.unwrap_or_default(),
            strategy: w
                .strategy
                .as_deref()
                .and_then(crate::config::Strategy::parse),
            render: w.render.as_deref().and_then(crate::model::Render::parse),
            backfill: None,
        }
    }
}

/// Keywords a watch may have, and the longest keyword.
const MAX_KEYWORDS: usize = 20;
const MAX_KEYWORD_CHARS: usize = 100;

/// Trimmed, non-empty, distinct keywords; an error names the one that is wrong.
fn validate_keywords(raw: &[String]) -> Result<Vec<String>, AppError> {
    let mut out: Vec<String> = Vec::new();
    // "a, b" given as one keyword (a form field) is two.
    for k in raw.iter().flat_map(|k| k.split(',')) {
        let k = k.trim();
        if k.is_empty() || out.iter().any(|o| o.to_lowercase() == k.to_lowercase()) {
            continue;
        }
        if k.chars().count() > MAX_KEYWORD_CHARS || k.chars().any(char::is_control) {
            return Err(AppError::BadInput(format!(
                "keyword `{}` is not a short line of text (at most {MAX_KEYWORD_CHARS} characters)",
                k.chars().take(40).collect::<String>()
            )));
        }
        out.push(k.to_owned());
    }
    if out.len() > MAX_KEYWORDS {
        return Err(AppError::BadInput(format!(
            "{} keywords is more than {MAX_KEYWORDS}; keep the few that name the topic",
            out.len()
        )));
    }
    Ok(out)
}

/// Longest user title kept.
const MAX_TITLE_CHARS: usize = 300;

#[derive(Debug)]
pub struct App {
    pub config: Config,
    pub store: Store,
    pub fetcher: Fetcher,
    pub clock: Arc<dyn Clock>,
    pub metrics: Metrics,
    /// Wakes the scheduler when a watch is added or rescheduled.
    pub wake: tokio::sync::Notify,
    locks: Mutex<HashMap<WatchId, Arc<tokio::sync::Mutex<()>>>>,
}

impl App {
    /// Opens the store named by the config, with the system clock.
    pub fn open(config: Config) -> Result<Self, AppError> {
        let store = Store::open(&config.storage.path, config.storage.cache_bytes)?;
        Self::new(config, store, Arc::new(SystemClock))
    }

    pub fn new(config: Config, store: Store, clock: Arc<dyn Clock>) -> Result<Self, AppError> {
        let fetcher = Fetcher::new(&config.fetch)
            .map_err(|e| AppError::Internal(e.to_string()))?
            .with_browser(&config.browser);
        Ok(Self {
            config,
            store,
            fetcher,
            clock,
            metrics: Metrics::default(),
            wake: tokio::sync::Notify::new(),
            locks: Mutex::new(HashMap::new()),
        })
    }

    /// Validates a requested watch into a [`Watch`] (not stored).
    pub fn validate(&self, req: &NewWatch) -> Result<Watch, AppError> {
        let url = extract::url::parse_user_url(&req.url)
            .map_err(|e| AppError::BadInput(e.to_string()))?;
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
        let title = req
            .title
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(|t| {
                t.chars()
                    .filter(|c| !c.is_control())
                    .take(MAX_TITLE_CHARS)
                    .collect()
            });
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
        let added = self.store.insert_watch(&watch, &state)?;
        if !added {
            let existing = self
                .store
                .watch(&watch.id)?
                .ok_or_else(|| AppError::Internal("watch vanished while adding".into()))?;
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

    /// Runs one check of `watch` now (one at a time per watch).
    pub async fn check(&self, watch: &Watch, dry_run: bool) -> Result<CheckReport, AppError> {
        let lock = self.lock_for(&watch.id);
        let _guard = lock.lock().await;
        // The watch may have been removed while we waited.
        if self.store.watch(&watch.id)?.is_none() {
            return Err(AppError::NotFound(watch.id.to_string()));
        }
        let started = std::time::Instant::now();
        let report = check::run(
            &self.store,
            &self.fetcher,
            &self.config.schedule,
            &self.config.deep,
            watch,
            self.clock.now(),
            dry_run,
        )
        .await?;
        self.metrics.record_check(&report, started.elapsed());
        Ok(report)
    }

    /// Removes a watch and its items.
    pub async fn remove(&self, id: &WatchId) -> Result<bool, AppError> {
        let lock = self.lock_for(id);
        let _guard = lock.lock().await;
        let removed = self.store.remove_watch(id)?;
        if let Ok(mut locks) = self.locks.lock() {
            locks.remove(id);
        }
        Ok(removed)
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

    /// URL of a watch's feed in `ext` format, with `?key=` when feeds need a token.
    pub fn feed_url(&self, id: &WatchId, ext: &str) -> String {
        format!(
            "{}/feed/{id}.{ext}{}",
            self.config.server.base_url,
            self.key_query()
        )
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

/// `sitefeed serve`: adds the configured watches, then runs the scheduler and the HTTP
/// server until SIGINT or SIGTERM, and shuts down in order: stop intake, let the
/// server finish its requests, give running checks a grace period.
pub fn serve_blocking(config: Config) -> Result<(), crate::error::Error> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| crate::error::Error::Failed(format!("cannot start the runtime: {e}")))?;
    rt.block_on(async move {
        let listen = config.server.listen;
        let app = Arc::new(App::open(config)?);
        app.add_configured_watches()?;
        let listener = tokio::net::TcpListener::bind(listen).await.map_err(|e| {
            crate::error::Error::Failed(format!("cannot listen on {listen}: {e} (set server.listen or SITEFEED_LISTEN)"))
        })?;
        let cancel = tokio_util::sync::CancellationToken::new();
        let local = listener.local_addr()?;
        tracing::info!(address = %local, base_url = %app.config.server.base_url, "sitefeed serving");
        let runner = crate::schedule::runner::Runner::new(app.clone());
        let sched = tokio::spawn(runner.run(cancel.clone(), std::time::Duration::from_secs(10)));
        let server = tokio::spawn(crate::server::serve(app.clone(), listener, cancel.clone()));
        shutdown_signal().await;
        tracing::info!("shutting down");
        cancel.cancel();
        if let Ok(Err(e)) = server.await {
            tracing::error!(error = %e, "server error");
        }
        let _ = sched.await;
        if let Some(b) = app.fetcher.browser() {
            b.shutdown().await;
        }
        app.store.flush()?;
        Ok(())
    })
}

async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = term => {}
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
            AppError::Internal(m) => Self::Failed(m),
        }
    }
}
