//! The command line (clap) and what each command does.

use std::io::Write;
use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::app::{App, NewWatch};
use crate::config::Config;
use crate::error::Error;
use crate::server::api::rfc3339;

#[derive(Debug, Parser)]
#[command(name = "sitefeed", version, about = "Turn any web page into a feed.")]
pub struct Cli {
    /// Config file (default: config/sitefeed.toml; env SITEFEED_CONFIG).
    #[arg(long, global = true, value_name = "PATH")]
    pub config: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the HTTP server and the scheduler until SIGINT/SIGTERM.
    Serve,
    /// Add a watch; prints its id and feed URL.
    Add {
        url: String,
        #[arg(long, value_parser = clap::value_parser!(u8).range(1..=3))]
        depth: Option<u8>,
        #[arg(long)]
        title: Option<String>,
        /// CSS selector narrowing the page to a region.
        #[arg(long, value_name = "CSS")]
        select: Option<String>,
        /// Comma-separated topic keywords.
        #[arg(long)]
        keywords: Option<String>,
        /// When to check: adaptive, periodic (daily model) or fixed; default from config.
        #[arg(long, value_parser = ["adaptive", "periodic", "fixed"])]
        strategy: Option<String>,
        /// How to read the page: plain (default), browser (render its scripts in
        /// headless Chromium) or auto (the browser only for an empty application shell).
        #[arg(long, value_parser = ["plain", "browser", "auto"])]
        render: Option<String>,
        /// After the first check, show the page's first N entries as items (instead of
        /// one "now watched" item) until the first new one.
        #[arg(long, value_name = "N")]
        backfill: Option<u32>,
    },
    /// List watches.
    List,
    /// Remove a watch and its items.
    Remove { id: String },
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
        old: PathBuf,
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
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[arg(long)]
        base_url: Option<String>,
        #[arg(long, value_name = "CSS")]
        select: Option<String>,
    },
    /// Offline: score each detection method on a corpus of snapshot sequences (issue 3).
    Eval {
        /// Corpus directory: one folder per site with NNNN.html, meta.json and truth.json.
        dir: PathBuf,
        /// labels.json (default DIR/labels.json when present).
        #[arg(long)]
        labels: Option<PathBuf>,
        /// Only the sites whose name contains this.
        #[arg(long)]
        site: Option<String>,
        /// Only this method (repeatable): product, improved-lcs, first-lcs, myers,
        /// set-diff, first-lcs+url, myers+url, set-diff+url.
        #[arg(long = "method", value_name = "METHOD")]
        methods: Vec<String>,
        /// Print each step's missed entries (-) and false items (+) of this method.
        #[arg(long, value_name = "METHOD")]
        explain: Option<String>,
    },
    /// Offline: write the synthetic evaluation corpus (seeded, reproducible) to DIR.
    Synth {
        dir: PathBuf,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Versions of each site.
        #[arg(long, default_value_t = 30)]
        versions: usize,
    },
    /// Add a watch for each outline of an OPML file.
    ImportOpml { file: PathBuf },
    /// Print the OPML of all feeds.
    ExportOpml,
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
        } => {
            return crate::offline::replay(&files, base_url.as_deref(), select.as_deref(), out);
        }
        Command::Eval {
            dir,
            labels,
            site,
            methods,
            explain,
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
            return crate::eval::run(&dir, &opts, out);
        }
        Command::Synth {
            dir,
            seed,
            versions,
        } => return crate::eval::synth::generate(&dir, seed, versions),
        _ => {}
    }
    let config = Config::load(cli.config.as_deref())?;
    if let Command::Serve = cli.command {
        return crate::app::serve_blocking(config);
    }
    let app = match App::open(config.clone()) {
        Ok(app) => app,
        // `serve` holds the store: ask it instead.
        Err(crate::app::AppError::Store(crate::store::StoreError::Locked { .. })) => {
            return crate::remote::run(&config, cli.command, out).block();
        }
        Err(e) => return Err(e.into()),
    };
    match cli.command {
        Command::Add {
            url,
            depth,
            title,
            select,
            keywords,
            strategy,
            render,
            backfill,
        } => {
            let req = NewWatch {
                strategy: strategy.as_deref().and_then(crate::config::Strategy::parse),
                render: render.as_deref().and_then(crate::model::Render::parse),
                url,
                depth,
                title,
                select,
                keywords: keywords
                    .map(|k| {
                        k.split(',')
                            .map(|s| s.trim().to_owned())
                            .filter(|s| !s.is_empty())
                            .collect()
                    })
                    .unwrap_or_default(),
                backfill,
            };
            let (w, added) = app.add_watch(&req)?;
            writeln!(
                out,
                "{}\t{}\t{}",
                w.id,
                app.feed_url(&w.id, "xml"),
                if added { "added" } else { "exists" }
            )?;
        }
        Command::List => {
            writeln!(out, "ID\tURL\tLAST CHECK\tSTATUS\tITEMS")?;
            for w in app.store.watches()? {
                let s = app.store.state(&w.id)?;
                let status = match &s {
                    Some(s) => match &s.error {
                        Some(e) => format!("error: {e}"),
                        None if s.last_check.is_some() => "ok".into(),
                        None => "new".into(),
                    },
                    None => "new".into(),
                };
                writeln!(
                    out,
                    "{}\t{}\t{}\t{}\t{}",
                    w.id,
                    w.url,
                    s.as_ref()
                        .and_then(|s| s.last_check)
                        .map_or_else(|| "never".into(), rfc3339),
                    status,
                    s.as_ref().map_or(0, |s| s.item_count)
                )?;
            }
        }
        Command::Remove { id } => {
            let w = app.find(&id)?;
            app.remove(&w.id).block()?;
            writeln!(out, "removed {}", w.id)?;
        }
        Command::Check { target, dry_run } => {
            let w = app.find(&target)?;
            let r = app.check(&w, dry_run).block()?;
            if let Some(e) = &r.error {
                return Err(Error::Failed(format!("check of {} failed: {e}", w.url)));
            }
            for i in &r.new_items {
                writeln!(
                    out,
                    "{}",
                    serde_json::json!({"title": i.title, "link": i.link})
                )?;
            }
            if r.baseline {
                eprintln!("first check: baseline set, nothing is new yet");
            }
        }
        Command::ImportOpml { file } => {
            let text = std::fs::read_to_string(&file)
                .map_err(|e| Error::Usage(format!("cannot read {}: {e}", file.display())))?;
            let report = crate::server::api::import(&app, &text)?;
            writeln!(
                out,
                "added {}, existing {}, rejected {}",
                report.added,
                report.existing,
                report.rejected.len()
            )?;
            for r in &report.rejected {
                writeln!(out, "rejected {}: {}", r.url, r.error)?;
            }
        }
        Command::ExportOpml => {
            let mut entries = Vec::new();
            for w in app.store.watches()? {
                let s = app.store.state(&w.id)?;
                let t = app.display_title(&w, s.as_ref());
                entries.push((w, t));
            }
            out.write_all(
                crate::render::opml_export(&entries, &app.config.server.base_url, &app.key_query())
                    .as_bytes(),
            )?;
        }
        Command::Serve
        | Command::Diff { .. }
        | Command::Replay { .. }
        | Command::Eval { .. }
        | Command::Synth { .. } => {}
    }
    Ok(())
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
