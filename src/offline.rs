//! The offline commands: `diff` (two files, no store) and `replay` (snapshots through
//! the live check pipeline with a temporary store).
//!
//! May use: analysis, check, config, diff, entries, error, extract, fetch, model, schedule,
//! state, store.

use std::io::Write;
use std::path::{Path, PathBuf};

use url::Url;

use crate::analysis::{Params, Verdict};
use crate::check::{self, PageInput};
use crate::config::Config;
use crate::diff;
use crate::error::Error;
use crate::extract::{self, Selector};
use crate::fetch::Validators;
use crate::model::{Link, Watch, WatchId};
use crate::schedule::Adaptive;
use crate::state::WatchState;
use crate::store::Store;

/// Base URL when none is given.
const DEFAULT_BASE: &str = "http://localhost/";

fn base_url(given: Option<&str>) -> Result<Url, Error> {
    let s = given.unwrap_or(DEFAULT_BASE);
    let u =
        extract::url::parse_user_url(s).map_err(|e| Error::Usage(format!("--base-url: {e}")))?;
    extract::url::normalize(&u)
        .ok_or_else(|| Error::Usage(format!("--base-url: `{s}` is not an http(s) URL")))
}

fn read(path: &Path) -> Result<Vec<u8>, Error> {
    std::fs::read(path).map_err(|e| Error::Usage(format!("cannot read {}: {e}", path.display())))
}

fn links_of(path: &Path, base: &Url, charset: Option<&str>) -> Result<Vec<Link>, Error> {
    let body = read(path)?;
    let ct = charset.map(|c| format!("text/html; charset={c}"));
    let decoded = extract::charset::decode_for_url(&body, ct.as_deref(), base);
    let page = extract::extract(&decoded.text, base, None)
        .map_err(|e| Error::Usage(format!("{}: {e}", path.display())))?;
    Ok(page.links)
}

/// `sitefeed diff OLD NEW`: prints each new item as `{"title", "link"}`, one per line.
pub fn diff(
    old: &Path,
    new: &Path,
    base: Option<&str>,
    charset: Option<&str>,
    out: &mut dyn Write,
) -> Result<(), Error> {
    if let Some(c) = charset {
        if encoding_rs::Encoding::for_label(c.as_bytes()).is_none() {
            return Err(Error::Usage(format!("--charset: unknown charset `{c}`")));
        }
    }
    let base = base_url(base)?;
    let old_links = links_of(old, &base, charset)?;
    let new_links = links_of(new, &base, charset)?;
    for i in diff::new_links(&old_links, &new_links, &|_| false) {
        let l = &new_links[i];
        writeln!(
            out,
            "{}",
            serde_json::json!({"title": l.text, "link": l.url})
        )?;
    }
    Ok(())
}

/// `sitefeed replay FILE...`: each file is one check of one watch, in order, through
/// [`check::analyse`] and [`check::apply`] on a temporary store; the first sets the
/// baseline. Prints `{"file", "title", "link"}` per new item.
pub fn replay(
    files: &[PathBuf],
    base: Option<&str>,
    select: Option<&str>,
    explain: bool,
    out: &mut dyn Write,
) -> Result<(), Error> {
    let base = base_url(base)?;
    if let Some(s) = select {
        Selector::parse(s).map_err(|e| Error::Usage(format!("--select: {e}")))?;
    }
    if explain {
        for step in replay_steps(files, &base, select, &Params::default())? {
            for (link, verdict) in step.explained {
                writeln!(
                    out,
                    "{}",
                    serde_json::json!({"file": step.file, "verdict": verdict, "why": verdict.reason(), "title": link.text, "link": link.url})
                )?;
            }
        }
        return Ok(());
    }
    // What it does, on stderr (stdout stays one JSON object per new item).
    eprintln!(
        "replay: {} snapshot(s) of {base}{} in order through the check pipeline, on a temporary store; \
         the first sets the baseline; new items are printed as JSON lines",
        files.len(),
        select.map_or_else(String::new, |s| format!(" (select {s})"))
    );
    for (file, report) in replay_reports(files, &base, select)? {
        let what = match &report.error {
            Some(e) => format!("skipped: {e}"),
            None if report.baseline => "baseline set, nothing new yet".to_owned(),
            None if !report.changed => "unchanged".to_owned(),
            None => format!("{} new item(s)", report.new_items.len()),
        };
        eprintln!("replay: {file}: {what}");
        for item in &report.new_items {
            writeln!(
                out,
                "{}",
                serde_json::json!({"file": file, "title": item.title, "link": item.link})
            )?;
        }
    }
    Ok(())
}

/// The check report of each snapshot, with the snapshot's file name, in order: each file
/// is one check of one watch through [`check::analyse`] and [`check::apply`] on a
/// temporary store (the evaluation scores these).
pub fn replay_reports(
    files: &[PathBuf],
    base: &Url,
    select: Option<&str>,
) -> Result<Vec<(String, check::CheckReport)>, Error> {
    Ok(replay_steps(files, base, select, &Params::default())?
        .into_iter()
        .map(|s| (s.file, s.report))
        .collect())
}

/// One snapshot of a replay: its check report and every link of the page that was not
/// seen before with the analysis' verdict on it.
#[derive(Debug)]
pub struct ReplayStep {
    pub file: String,
    pub report: check::CheckReport,
    pub explained: Vec<(Link, Verdict)>,
}

/// [`replay_reports`] with the analysis' verdicts.
pub fn replay_steps(
    files: &[PathBuf],
    base: &Url,
    select: Option<&str>,
    params: &Params,
) -> Result<Vec<ReplayStep>, Error> {
    let store = Store::temporary()?;
    let config = Config::default();
    let tracking = crate::entries::hygiene::Tracking::configured(
        config.items.tracking_params.as_deref(),
        &config.items.extra_tracking_params,
    );
    let settings = check::Settings {
        sched: &config.schedule,
        deep: &config.deep,
        tracking: &tracking,
        full_text: config.items.full_text,
    };
    // Snapshots are taken an hour apart as far as the schedule is concerned.
    let mut now: i64 = 1_000_000_000;
    let watch = Watch {
        id: WatchId::for_url(base.as_str()),
        url: base.to_string(),
        title: None,
        depth: 1,
        select: select.map(str::to_owned),
        keywords: Vec::new(),
        created: now,
        strategy: None,
        options: crate::model::WatchOptions::default(),
        render: crate::model::Render::Plain,
    };
    store.insert_watch(
        &watch,
        &WatchState::new(now, Adaptive::initial(&config.schedule)),
    )?;
    let mut reports = Vec::new();
    for file in files {
        now += 3600;
        let body = read(file)?;
        let prev = store
            .state(&watch.id)?
            .ok_or_else(|| Error::Failed("replay watch vanished".into()))?;
        let input = PageInput {
            body: &body,
            content_type: None,
            url: base,
            validators: Validators::default(),
            template: None,
            force: false,
            tracking: &tracking,
            keep_pass: crate::analysis::Keep::Nothing,
        };
        let history = store.history(&watch.id);
        let result = check::analyse(&history, &watch, &prev.prev(), &input, params, now)?
            .map_err(check::Failure::Page);
        let explained = match &result {
            Ok(check::Analysis::Changed(c)) => c
                .links
                .iter()
                .zip(&c.verdicts)
                .filter(|(_, v)| !matches!(v, Verdict::Seen | Verdict::Baseline))
                .map(|(l, v)| (l.clone(), *v))
                .collect(),
            _ => Vec::new(),
        };
        let report = check::apply(
            &store,
            &settings,
            &watch,
            &prev,
            result,
            now,
            0,
            false,
            history.take_read(),
        )?;
        let name = file.file_name().map_or_else(
            || file.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        reports.push(ReplayStep {
            file: name,
            report,
            explained,
        });
    }
    Ok(reports)
}
