//! The detection-quality evaluation (`sitefeed eval DIR`, `docs/design.md` §8): runs each
//! method over every snapshot sequence of a corpus and scores what it emits against the
//! corpus truth, on entries (the truth's new links minus the labels' `not_entries`, none on
//! a `chrome_steps` step) and on links (the truth's new links as they are).
//!
//! The product's row is what `sitefeed replay` emits ([`crate::offline::replay_reports`]:
//! the live check pipeline on a temporary store), so the evaluation and the service run
//! one pipeline. The other rows run a differ alone on the same extracted link arrays:
//!
//! | method | key | selective extraction | what it emits |
//! |---|---|---|---|
//! | `product` | the pipeline | yes | one item per new entry ([`crate::check::analyse`]) |
//! | `improved-lcs` | text + URL | yes | [`crate::diff::new_links`]: every new link |
//! | `first-lcs` | text | no | links left unmatched by Nakatsu's first LCS (the paper's baseline) |
//! | `myers` | text | no | links Myers' diff marks inserted |
//! | `set-diff` | text | no | links whose text is not on the old page |
//! | `*+url` | text + URL | yes | the same differ on the product's key, with the seen set |
//!
//! Scores are micro-averaged: true/false positives and negatives are summed over steps
//! (and over sites for the overall rows). Items are de-duplicated by URL within a step.

pub mod corpus;
pub mod synth;

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::diff::{self, baseline, Interner};
use crate::error::Error;
use crate::extract;
use crate::model::Link;
use corpus::{file_name, Site, Truth};

/// The methods compared, in table order.
pub const METHODS: &[Method] = &[
    Method::Product,
    Method::ImprovedLcs,
    Method::FirstLcs { url: false },
    Method::Myers { url: false },
    Method::SetDiff { url: false },
    Method::FirstLcs { url: true },
    Method::Myers { url: true },
    Method::SetDiff { url: true },
];

/// One way of finding the new items of a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// The service's pipeline, through `replay`.
    Product,
    /// [`diff::new_links`] alone: the improved LCS on text + URL with the seen set.
    ImprovedLcs,
    /// The baselines; `url`: on the product's key with the seen set, else on texts alone.
    FirstLcs {
        url: bool,
    },
    Myers {
        url: bool,
    },
    SetDiff {
        url: bool,
    },
}

impl Method {
    /// The name shown in tables and accepted by `--explain`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Product => "product",
            Self::ImprovedLcs => "improved-lcs",
            Self::FirstLcs { url: false } => "first-lcs",
            Self::Myers { url: false } => "myers",
            Self::SetDiff { url: false } => "set-diff",
            Self::FirstLcs { url: true } => "first-lcs+url",
            Self::Myers { url: true } => "myers+url",
            Self::SetDiff { url: true } => "set-diff+url",
        }
    }

    /// The method called `name`.
    pub fn by_name(name: &str) -> Option<Self> {
        METHODS.iter().copied().find(|m| m.name() == name)
    }
}

/// Summed counts of one method on one site (or overall).
#[derive(Debug, Default, Clone, Copy)]
pub struct Score {
    pub entry: Counts,
    pub link: Counts,
    /// Items emitted.
    pub items: usize,
    /// Steps timed, and their total time.
    pub steps: usize,
    pub time: Duration,
}

/// True positives, false positives, false negatives.
#[derive(Debug, Default, Clone, Copy)]
pub struct Counts {
    pub tp: usize,
    pub fp: usize,
    pub fn_: usize,
}

impl Counts {
    fn add(&mut self, o: Self) {
        self.tp += o.tp;
        self.fp += o.fp;
        self.fn_ += o.fn_;
    }

    fn of(emitted: &HashSet<String>, truth: &HashSet<String>) -> Self {
        let tp = emitted.intersection(truth).count();
        Self {
            tp,
            fp: emitted.len() - tp,
            fn_: truth.len() - tp,
        }
    }

    /// Precision; 1 when nothing was emitted.
    pub fn precision(self) -> f64 {
        ratio(self.tp, self.tp + self.fp)
    }

    /// Recall; 1 when nothing was to be found.
    pub fn recall(self) -> f64 {
        ratio(self.tp, self.tp + self.fn_)
    }

    pub fn f1(self) -> f64 {
        let (p, r) = (self.precision(), self.recall());
        if p + r == 0.0 {
            0.0
        } else {
            2.0 * p * r / (p + r)
        }
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        1.0
    } else {
        a as f64 / b as f64
    }
}

impl Score {
    fn add(&mut self, o: &Self) {
        self.entry.add(o.entry);
        self.link.add(o.link);
        self.items += o.items;
        self.steps += o.steps;
        self.time += o.time;
    }
}

/// What one method emitted on one step: URL and title of each item.
type Emitted = Vec<(String, String)>;

/// Options of `sitefeed eval`.
#[derive(Debug, Default)]
pub struct Options<'a> {
    pub labels: Option<&'a Path>,
    /// Only the sites whose name contains this.
    pub site: Option<&'a str>,
    /// Only these methods (all when empty).
    pub methods: Vec<Method>,
    /// Print each step's misses and false alarms of this method.
    pub explain: Option<Method>,
}

/// `sitefeed eval DIR`: prints the table per site and overall, as Markdown.
pub fn run(dir: &Path, opts: &Options<'_>, out: &mut dyn Write) -> Result<(), Error> {
    let sites = corpus::load(dir, opts.labels)?;
    let methods: Vec<Method> = if opts.methods.is_empty() {
        METHODS.to_vec()
    } else {
        opts.methods.clone()
    };
    let mut overall: Vec<Score> = vec![Score::default(); methods.len()];
    let mut table = String::new();
    table.push_str(
        "| site | method | entry P | entry R | entry F1 | link P | link R | link F1 | items | ms/step |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for site in sites
        .iter()
        .filter(|s| opts.site.map_or(true, |f| s.name.contains(f)))
    {
        let arrays = site_links(site)?;
        for (k, &m) in methods.iter().enumerate() {
            let (emitted, time) = run_method(m, site, &arrays)?;
            let score = score(site, &emitted, time);
            if opts.explain == Some(m) {
                explain(site, &emitted, out)?;
            }
            row(&mut table, &site.name, m, &score);
            overall[k].add(&score);
        }
    }
    for (k, &m) in methods.iter().enumerate() {
        row(&mut table, "**all**", m, &overall[k]);
    }
    out.write_all(table.as_bytes())?;
    Ok(())
}

fn row(table: &mut String, site: &str, m: Method, s: &Score) {
    let pct = |x: f64| format!("{:.1}", 100.0 * x);
    let _ = writeln!(
        table,
        "| {site} | {} | {} | {} | {} | {} | {} | {} | {} | {:.2} |",
        m.name(),
        pct(s.entry.precision()),
        pct(s.entry.recall()),
        pct(s.entry.f1()),
        pct(s.link.precision()),
        pct(s.link.recall()),
        pct(s.link.f1()),
        s.items,
        if s.steps == 0 {
            0.0
        } else {
            s.time.as_secs_f64() * 1000.0 / s.steps as f64
        },
    );
}

/// The link arrays of a site's snapshots, extracted as the pipeline does.
fn site_links(site: &Site) -> Result<Vec<Vec<Link>>, Error> {
    site.files
        .iter()
        .map(|f| {
            let body = std::fs::read(f)
                .map_err(|e| Error::Usage(format!("cannot read {}: {e}", f.display())))?;
            let decoded = extract::charset::decode_for_url(&body, None, &site.url);
            Ok(extract::extract(&decoded.text, &site.url, None)
                .map(|p| p.links)
                .unwrap_or_default())
        })
        .collect()
}

/// The items of each step (keyed by the newer file's name) and the time spent diffing.
fn run_method(
    m: Method,
    site: &Site,
    arrays: &[Vec<Link>],
) -> Result<(HashMap<String, Emitted>, Duration), Error> {
    let mut out: HashMap<String, Emitted> = HashMap::new();
    if m == Method::Product {
        let started = Instant::now();
        let reports = crate::offline::replay_reports(&site.files, &site.url, None)?;
        let time = started.elapsed();
        for (file, report) in reports {
            if let Some(note) = &report.note {
                tracing::info!(site = %site.name, file = %file, "{note}");
            }
            out.entry(file)
                .or_default()
                .extend(report.new_items.into_iter().map(|i| (i.link, i.title)));
        }
        return Ok((out, time));
    }
    let mut time = Duration::ZERO;
    let mut seen: HashSet<&str> = HashSet::new();
    for (i, file) in site.files.iter().enumerate() {
        if i > 0 {
            let (old, new) = (&arrays[i - 1], &arrays[i]);
            let started = Instant::now();
            let idx = diff_with(m, old, new, &seen);
            time += started.elapsed();
            out.insert(
                file_name(file),
                idx.into_iter()
                    .map(|j| (new[j].url.clone(), new[j].text.clone()))
                    .collect(),
            );
        }
        seen.extend(arrays[i].iter().map(|l| l.url.as_str()));
    }
    Ok((out, time))
}

/// The indices of `new` that a differ-only method emits.
fn diff_with(m: Method, old: &[Link], new: &[Link], seen: &HashSet<&str>) -> Vec<usize> {
    if m == Method::ImprovedLcs {
        return diff::new_links(old, new, &|l: &Link| seen.contains(l.url.as_str()));
    }
    let url = matches!(
        m,
        Method::FirstLcs { url: true }
            | Method::Myers { url: true }
            | Method::SetDiff { url: true }
    );
    let mut interner = Interner::new();
    let key = |l: &Link| {
        if url {
            diff::link_key(l)
        } else {
            l.text.clone()
        }
    };
    let a: Vec<u32> = old.iter().map(|l| interner.intern(&key(l))).collect();
    let b: Vec<u32> = new.iter().map(|l| interner.intern(&key(l))).collect();
    let idx = match m {
        Method::FirstLcs { .. } => baseline::first_lcs(&a, &b),
        Method::Myers { .. } => baseline::myers(&a, &b),
        _ => baseline::set_difference(&a, &b),
    };
    if url {
        idx.into_iter()
            .filter(|&j| !seen.contains(new[j].url.as_str()))
            .collect()
    } else {
        idx
    }
}

fn score(site: &Site, emitted: &HashMap<String, Emitted>, time: Duration) -> Score {
    let mut s = Score {
        steps: site.steps.len(),
        time,
        ..Score::default()
    };
    for t in &site.steps {
        let urls = step_urls(emitted, t);
        s.items += urls.len();
        s.entry.add(Counts::of(&urls, &t.entries));
        s.link.add(Counts::of(&urls, &t.links));
    }
    s
}

fn step_urls(emitted: &HashMap<String, Emitted>, t: &Truth) -> HashSet<String> {
    emitted
        .get(&t.file)
        .into_iter()
        .flatten()
        .map(|(u, _)| u.clone())
        .collect()
}

/// Prints the entries a method missed (`-`) and the items it emitted that are not entries
/// (`+`), per step.
fn explain(
    site: &Site,
    emitted: &HashMap<String, Emitted>,
    out: &mut dyn Write,
) -> Result<(), Error> {
    for t in &site.steps {
        let urls = step_urls(emitted, t);
        let mut lines = Vec::new();
        for (u, title) in emitted.get(&t.file).into_iter().flatten() {
            if !t.entries.contains(u) {
                let link = if t.links.contains(u) {
                    "link"
                } else {
                    "not new"
                };
                lines.push(format!("  + {u} {title:?} ({link})"));
            }
        }
        let mut missed: Vec<&String> = t.entries.iter().filter(|u| !urls.contains(*u)).collect();
        missed.sort();
        lines.extend(missed.into_iter().map(|u| format!("  - {u}")));
        if !lines.is_empty() {
            writeln!(out, "{} {}:", site.name, t.file)?;
            for l in lines {
                writeln!(out, "{l}")?;
            }
        }
    }
    Ok(())
}
