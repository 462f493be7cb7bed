//! The command line (clap) and what each command does: on the store through the
//! service ([`crate::app::App`]), or, when `sitefeed serve` holds the store, through the
//! running server ([`remote`], over the typed client [`crate::remote::Client`]); both
//! print the same ([`print`](mod@print)). The offline commands call [`crate::offline`] and
//! `eval` (the feature of that name).
//!
//! May use: app, config, daemon, dto, error, eval, offline, remote, store.

mod print;
mod remote;

use std::io::Write;
use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::app::{App, NewWatch};
use crate::config::Config;
use crate::dto::{EditBody, ItemJson, NewWatchBody};
use crate::error::Error;

#[derive(Debug, Parser)]
#[command(name = "sitefeed", version, about = "Turn any web page into a feed.")]
pub struct Cli {
    /// Config file (default: config/sitefeed.toml; env SITEFEED_CONFIG).
    #[arg(long, global = true, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Log lines as text or as one JSON object per line (on stderr; RUST_LOG chooses
    /// what is logged, e.g. RUST_LOG=debug or RUST_LOG=sitefeed=debug,info).
    #[arg(long, global = true, value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
    #[command(subcommand)]
    pub command: Command,
}

/// The form of log lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the HTTP server and the scheduler until SIGINT/SIGTERM.
    Serve,
    /// Add a watch; prints its id and feed URL.
    Add(AddArgs),
    /// List watches.
    List,
    /// Remove a watch and its items.
    Remove {
        /// Watch id or URL.
        id: String,
        /// Do not ask for confirmation (needed when stdin is not a terminal).
        #[arg(long, short = 'y')]
        yes: bool,
    },
    /// Change a watch: only the options given change; an empty value clears one. A new
    /// selector or depth re-baselines the watch (nothing already on the page becomes an
    /// item).
    Edit {
        /// Watch id or URL.
        target: String,
        #[command(flatten)]
        args: EditArgs,
    },
    /// Run one check now and print the new items.
    Check {
        /// Watch id or URL.
        target: String,
        /// Do not store anything.
        #[arg(long)]
        dry_run: bool,
    },
    /// Offline: print the links of NEW that are new against OLD, one JSON object per line.
    Diff {
        /// The earlier snapshot (an HTML file).
        old: PathBuf,
        /// The later snapshot (an HTML file).
        new: PathBuf,
        /// URL of the page, to resolve relative links (default http://localhost/).
        #[arg(long)]
        base_url: Option<String>,
        /// Charset of both files, when they do not declare it.
        #[arg(long)]
        charset: Option<String>,
    },
    /// Offline: run snapshots, in order, through the check pipeline; print new items.
    Replay {
        /// Snapshots of one page (HTML files), oldest first.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// URL of the page, to resolve relative links (default http://localhost/).
        #[arg(long)]
        base_url: Option<String>,
        /// CSS selector narrowing the page to a region, as a watch's.
        #[arg(long, value_name = "CSS")]
        select: Option<String>,
        /// Print every link not seen before with the analysis' verdict on it (item,
        /// chrome, secondary, moved...), instead of the items.
        #[arg(long)]
        explain: bool,
    },
    /// Offline: score each detection method on a corpus of snapshot sequences.
    #[cfg(feature = "eval")]
    Eval {
        /// Corpus directory: one folder per site with NNNN.html, meta.json and truth.json.
        dir: PathBuf,
        /// labels.json (default DIR/labels.json when present).
        #[arg(long)]
        labels: Option<PathBuf>,
        /// Only the sites whose name contains this.
        #[arg(long)]
        site: Option<String>,
        /// Only this method (repeatable): product, naive, improved-lcs, first-lcs, myers,
        /// set-diff, first-lcs+url, myers+url, set-diff+url.
        #[arg(long = "method", value_name = "METHOD")]
        methods: Vec<String>,
        /// Print each step's missed entries (-) and false items (+) of this method.
        #[arg(long, value_name = "METHOD")]
        explain: Option<String>,
        /// Leave-one-site-out: score each site with the analysis' parameters chosen on
        /// the other sites, beside the defaults and the naive method.
        #[arg(long)]
        loso: bool,
    },
    /// Offline: write the synthetic evaluation corpus (seeded, reproducible) to DIR.
    #[cfg(feature = "eval")]
    Synth {
        /// Directory to write the corpus into.
        dir: PathBuf,
        /// Seed of the generator (the same seed writes the same corpus).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Versions of each site.
        #[arg(long, default_value_t = 30)]
        versions: usize,
    },
    /// Add a watch for each outline of an OPML file (folders become tags).
    ImportOpml {
        /// The OPML file, e.g. exported from a feed reader.
        file: PathBuf,
    },
    /// Print the OPML of all feeds (tags as folders).
    ExportOpml,
    /// Copy a whole store to another backend (sled directory <-> postgres:// URL):
    /// watches, items, seen sets, schedule state; verifies the counts. Stop the server
    /// first; the target must be empty.
    Migrate {
        /// The store to copy: a sled data directory or a postgres:// URL.
        #[arg(long)]
        from: String,
        /// The empty store to fill: a sled data directory or a postgres:// URL.
        #[arg(long)]
        to: String,
    },
}

/// The arguments of `sitefeed add`.
#[derive(Debug, Clone, clap::Args)]
pub struct AddArgs {
    /// The page to watch (https:// is assumed when the scheme is missing).
    pub url: String,
    /// 1 (the page only, the default) to 3 (the pages it links to, and theirs).
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=3))]
    pub depth: Option<u8>,
    /// Feed title (default: the page's own).
    #[arg(long)]
    pub title: Option<String>,
    /// CSS selector narrowing the page to a region.
    #[arg(long, value_name = "CSS")]
    pub select: Option<String>,
    /// Comma-separated topic keywords.
    #[arg(long)]
    pub keywords: Option<String>,
    /// When to check: adaptive, periodic (daily model) or fixed; default from config.
    #[arg(long, value_parser = ["adaptive", "periodic", "fixed"])]
    pub strategy: Option<String>,
    /// How to read the page: plain (default), browser (render its scripts in
    /// headless Chromium) or auto (the browser only for an empty application shell).
    #[arg(long, value_parser = ["plain", "browser", "auto"])]
    pub render: Option<String>,
    /// What items carry: summary (default: what the list page says of each entry) or
    /// full (the article of each new item's page, fetched once).
    #[arg(long, value_parser = ["summary", "full"])]
    pub content: Option<String>,
    /// After the first check, show the page's first N entries as items (instead of
    /// one "now watched" item) until the first new one.
    #[arg(long, value_name = "N")]
    pub backfill: Option<u32>,
    /// Comma-separated tags: OPML folders and /feed/tag/TAG.xml.
    #[arg(long)]
    pub tags: Option<String>,
}

impl AddArgs {
    /// The body of `POST /api/watches` for these arguments.
    pub fn to_body(self) -> NewWatchBody {
        NewWatchBody {
            url: self.url,
            depth: self.depth,
            title: self.title,
            select: self.select,
            keywords: Some(self.keywords.as_deref().map(split_list).unwrap_or_default()),
            strategy: self.strategy,
            render: self.render,
            backfill: self.backfill,
            tags: self.tags.as_deref().map(split_list),
            content: self.content,
        }
    }
}

/// The options of `sitefeed edit`.
#[derive(Debug, Clone, clap::Args)]
pub struct EditArgs {
    /// Feed title ("" for the page's own).
    #[arg(long)]
    pub title: Option<String>,
    /// CSS selector narrowing the page to a region ("" for the whole page).
    #[arg(long, value_name = "CSS")]
    pub select: Option<String>,
    /// 1 (the page only) to 3 (the pages it links to, and theirs).
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=3))]
    pub depth: Option<u8>,
    /// Comma-separated topic keywords ("" for none).
    #[arg(long)]
    pub keywords: Option<String>,
    /// Comma-separated tags: OPML folders and /feed/tag/TAG.xml ("" for none).
    #[arg(long)]
    pub tags: Option<String>,
    /// When to check: adaptive, periodic or fixed ("" for the config's default).
    #[arg(long, value_parser = ["adaptive", "periodic", "fixed", ""])]
    pub strategy: Option<String>,
    /// Stop checking the watch until --resume.
    #[arg(long, conflicts_with = "resume")]
    pub pause: bool,
    /// Check the watch again (soon, then on its schedule).
    #[arg(long)]
    pub resume: bool,
    /// Check every DURATION (e.g. 30m, 2h): sets both interval bounds.
    #[arg(long, value_name = "DURATION", conflicts_with_all = ["min_interval", "max_interval"])]
    pub interval: Option<String>,
    /// Shortest interval between checks of this watch ("" for the config's).
    #[arg(long, value_name = "DURATION")]
    pub min_interval: Option<String>,
    /// Longest interval between checks of this watch ("" for the config's).
    #[arg(long, value_name = "DURATION")]
    pub max_interval: Option<String>,
    /// Whether the feed carries an item when the watch keeps failing.
    #[arg(long, value_parser = ["on", "off"])]
    pub error_item: Option<String>,
    /// URL to POST each check's new items to, as a JSON Feed ("" for none).
    #[arg(long, value_name = "URL")]
    pub webhook: Option<String>,
    /// Time zone of this watch's times on the web page, e.g. Europe/Berlin ("" for the
    /// server's).
    #[arg(long, value_name = "ZONE")]
    pub timezone: Option<String>,
    /// What new items carry: summary, or full (the article of each item's page).
    #[arg(long, value_parser = ["summary", "full"])]
    pub content: Option<String>,
}

impl EditArgs {
    /// The body of `PATCH /api/watches/<id>` for these options ("" clears a setting).
    pub fn to_body(&self) -> EditBody {
        let text = |v: &Option<String>| {
            v.as_ref()
                .map(|v| (!v.trim().is_empty()).then(|| v.clone()))
        };
        EditBody {
            title: text(&self.title),
            select: text(&self.select),
            depth: self.depth,
            keywords: self.keywords.as_deref().map(split_list),
            strategy: text(&self.strategy),
            tags: self.tags.as_deref().map(split_list),
            paused: (self.pause || self.resume).then_some(self.pause),
            interval: self.interval.clone(),
            min_interval: text(&self.min_interval),
            max_interval: text(&self.max_interval),
            error_item: self.error_item.as_ref().map(|v| v == "on"),
            webhook: text(&self.webhook),
            timezone: text(&self.timezone),
            content: self.content.clone(),
        }
    }
}

/// The items of a comma-separated list, trimmed, without empty ones.
fn split_list(s: &str) -> Vec<String> {
    s.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Asks before a removal unless `yes`; without a terminal to ask on, `--yes` is needed.
pub(crate) fn confirm_removal(url: &str, yes: bool) -> Result<(), Error> {
    use std::io::IsTerminal;
    if yes {
        return Ok(());
    }
    if !std::io::stdin().is_terminal() {
        return Err(Error::Usage(format!(
            "remove {url} and all its items? add --yes to confirm"
        )));
    }
    eprint!("Remove {url} and all its items? [y/N] ");
    let mut answer = String::new();
    std::io::stdin().read_line(&mut answer)?;
    if matches!(answer.trim(), "y" | "Y" | "yes") {
        Ok(())
    } else {
        Err(Error::Usage("not removed".into()))
    }
}

/// Runs a parsed command line.
#[allow(clippy::too_many_lines, reason = "one flat match arm per command")]
pub fn run(cli: Cli) -> Result<(), Error> {
    let out = &mut std::io::stdout().lock();
    match cli.command {
        Command::Diff {
            old,
            new,
            base_url,
            charset,
        } => {
            return crate::offline::diff(&old, &new, base_url.as_deref(), charset.as_deref(), out);
        }
        Command::Replay {
            files,
            base_url,
            select,
            explain,
        } => {
            return crate::offline::replay(
                &files,
                base_url.as_deref(),
                select.as_deref(),
                explain,
                out,
            );
        }
        #[cfg(feature = "eval")]
        Command::Eval {
            dir,
            labels,
            site,
            methods,
            explain,
            loso,
        } => {
            let method = |n: &str| {
                crate::eval::Method::by_name(n)
                    .ok_or_else(|| Error::Usage(format!("unknown method `{n}` (see --help)")))
            };
            let opts = crate::eval::Options {
                labels: labels.as_deref(),
                site: site.as_deref(),
                methods: methods
                    .iter()
                    .map(|m| method(m))
                    .collect::<Result<_, _>>()?,
                explain: explain.as_deref().map(method).transpose()?,
            };
            if loso {
                return crate::eval::loso(&dir, &opts, out);
            }
            return crate::eval::run(&dir, &opts, out);
        }
        #[cfg(feature = "eval")]
        Command::Synth {
            dir,
            seed,
            versions,
        } => return crate::eval::synth::generate(&dir, seed, versions),
        Command::Migrate { from, to } => {
            use crate::store::transfer::TransferError;
            let counts = crate::store::transfer::migrate(&from, &to).map_err(|e| match e {
                TransferError::Missing(_) | TransferError::NotEmpty(_) => {
                    Error::Usage(e.to_string())
                }
                e => Error::Failed(e.to_string()),
            })?;
            writeln!(out, "copied {counts} from {from} to {to}; counts verified")?;
            return Ok(());
        }
        _ => {}
    }
    let config = Config::load(cli.config.as_deref())?;
    if let Command::Serve = cli.command {
        return crate::daemon::serve_blocking(config);
    }
    // Only `add` and `import-opml` create a store; the others say where they looked.
    if !matches!(cli.command, Command::Add(_) | Command::ImportOpml { .. })
        && config.storage.backend == crate::config::Backend::Sled
        && !config.storage.path.exists()
    {
        let path = std::path::absolute(&config.storage.path)
            .unwrap_or_else(|_| config.storage.path.clone());
        let from = config.file.as_ref().map_or_else(
            || "the built-in default; --config or SITEFEED_CONFIG names a config file".to_owned(),
            |f| format!("from {}", f.display()),
        );
        let msg = format!(
            "no store at {} ({from}; storage.path or SITEFEED_DATA names another): nothing is watched there yet; `sitefeed add URL` creates it",
            path.display()
        );
        // A service on this config's address has its own store: ask it.
        let server = crate::remote::Client::new(&config);
        if server.is_ok_and(|s| s.answers().block()) {
            return remote::run(&config, cli.command, out).block();
        }
        if let Command::List = cli.command {
            eprintln!("{msg}");
            return Ok(());
        }
        return Err(Error::Usage(msg));
    }
    let app = match App::open(config.clone()) {
        Ok(app) => app,
        // `serve` holds the store: ask it instead.
        Err(crate::app::AppError::Store(crate::store::StoreError::Locked { .. })) => {
            return remote::run(&config, cli.command, out).block();
        }
        Err(e) => return Err(e.into()),
    };
    match cli.command {
        Command::Add(args) => {
            let (w, added) = app.add_watch(&NewWatch::try_from(args.to_body())?)?;
            let feed = app.feed_url(&w.id, "xml");
            print::added(out, &w.id.to_string(), &feed, added)?;
            paste_hint(app.config(), &feed);
        }
        Command::List => {
            let base = app.base_url();
            let watches: Vec<_> = app
                .watches_with_state(None)?
                .iter()
                .map(|(w, s)| app.watch_json(&base, w, s.as_ref()))
                .collect();
            print::list(out, &watches)?;
        }
        Command::Remove { id, yes } => {
            let w = app.find(&id)?;
            confirm_removal(&w.url, yes)?;
            app.remove(&w.id).block()?;
            writeln!(out, "removed {}", w.id)?;
        }
        Command::Edit { target, args } => {
            let w = app.find(&target)?;
            let edit = crate::app::WatchEdit::try_from(args.to_body())?;
            let edited = app.edit(&w.id, &edit).block()?;
            let s = app.state(&w.id)?;
            let json = app.watch_json(&app.base_url(), &edited.watch, s.as_ref());
            print::edited(out, &json, edited.rebaselined)?;
        }
        Command::Check { target, dry_run } => {
            let w = app.find(&target)?;
            let r = app.check(&w, dry_run).block();
            // On PostgreSQL the check held the watch's host: the nodes get it back now
            // rather than when this process's lease expires.
            if let Err(e) = app.store().release_all() {
                tracing::warn!(error = %e, "cannot release the host lease");
            }
            let r = r?;
            if let Some(e) = &r.error {
                return Err(Error::Failed(format!("check of {} failed: {e}", w.url)));
            }
            // The new items are printed: durable first.
            app.store().settle(r.reading)?;
            let items: Vec<ItemJson> = r.new_items.iter().map(ItemJson::from).collect();
            print::checked(out, &items, r.baseline)?;
        }
        Command::ImportOpml { file } => {
            let text = std::fs::read_to_string(&file)
                .map_err(|e| Error::Usage(format!("cannot read {}: {e}", file.display())))?;
            print::imported(out, &app.import_opml(&text)?)?;
        }
        Command::ExportOpml => {
            let (opml, _) = app.opml_export(&app.base_url(), None)?;
            out.write_all(opml.as_bytes())?;
        }
        Command::Serve
        | Command::Diff { .. }
        | Command::Replay { .. }
        | Command::Migrate { .. } => {}
        #[cfg(feature = "eval")]
        Command::Eval { .. } | Command::Synth { .. } => {}
    }
    Ok(())
}

/// Tells the user (on stderr, so scripts reading stdout are not disturbed) which URL to
/// paste into a feed reader, and when it only works on this machine, what to set.
pub(crate) fn paste_hint(config: &Config, feed: &str) {
    eprintln!("Paste this feed URL into your feed reader: {feed}");
    if config.server.base_url.is_none() {
        eprintln!(
            "(built from {}; a reader on another machine needs this server's public address: \
             set server.base_url or SITEFEED_BASE_URL, e.g. SITEFEED_BASE_URL=https://feeds.example.org; \
             the web page and the API already show each visitor the address they used)",
            config.server.listen
        );
    }
}

/// Runs a future to completion on a small runtime (for one-shot commands).
trait Block: std::future::Future + Sized {
    fn block(self) -> Self::Output {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("invariant: a current-thread runtime can be built")
            .block_on(self)
    }
}
impl<F: std::future::Future> Block for F {}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[test]
    fn every_command_and_flag_has_help_text() {
        let cli = super::Cli::command();
        let mut missing = Vec::new();
        for cmd in std::iter::once(&cli).chain(cli.get_subcommands()) {
            if cmd.get_about().is_none() {
                missing.push(format!("command {}", cmd.get_name()));
            }
            for arg in cmd.get_arguments() {
                let id = arg.get_id().as_str();
                if id == "help" || id == "version" {
                    continue;
                }
                if arg.get_help().is_none() && arg.get_long_help().is_none() {
                    missing.push(format!("{} {id}", cmd.get_name()));
                }
            }
        }
        assert!(missing.is_empty(), "no help text: {missing:?}");
    }
}
