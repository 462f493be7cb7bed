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
//!
//! May use: analysis, diff, entries, error, extract, model, offline.

// Run as a test that prints its table (`cargo test --lib eval::content -- --nocapture`).
#[cfg(test)]
mod content;
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
use corpus::{file_name, EntryKey, Site, Truth};

/// The methods compared, in table order.
pub(crate) const METHODS: &[Method] = &[
    Method::Product,
    Method::Naive,
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
    /// Every link with text whose URL the site never showed before.
    Naive,
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
            Self::Naive => "naive",
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

    /// Counts on entries, where links with one entry key are one entry: the first
    /// emitted link of an entry is a true positive, every further one a false positive.
    fn of_entries(emitted: &HashSet<String>, truth: &HashSet<String>, key: &EntryKey) -> Self {
        let truth: HashSet<String> = truth.iter().map(|u| key.of(u)).collect();
        let mut hit: HashSet<String> = HashSet::new();
        let mut fp = 0;
        for u in emitted {
            let k = key.of(u);
            if truth.contains(&k) && hit.insert(k) {
                continue;
            }
            fp += 1;
        }
        Self {
            tp: hit.len(),
            fp,
            fn_: truth.len() - hit.len(),
        }
    }

    /// Precision; 1 when nothing was emitted.
    pub(crate) fn precision(self) -> f64 {
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
        .filter(|s| opts.site.is_none_or(|f| s.name.contains(f)))
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
        return product(site, &crate::analysis::Params::default());
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

/// What the product emits on each step of a site with the analysis' `params`.
fn product(
    site: &Site,
    params: &crate::analysis::Params,
) -> Result<(HashMap<String, Emitted>, Duration), Error> {
    let mut out: HashMap<String, Emitted> = HashMap::new();
    let started = Instant::now();
    let steps = crate::offline::replay_steps(&site.files, &site.url, None, params)?;
    let time = started.elapsed();
    for step in steps {
        out.entry(step.file)
            .or_default()
            .extend(step.report.new_items.into_iter().map(|i| (i.link, i.title)));
    }
    Ok((out, time))
}

/// The analysis' parameters tried by [`loso`]: each tunable part at a few values
/// around its default.
fn grid() -> Vec<crate::analysis::Params> {
    let mut out = Vec::new();
    for block_text in [2, 4, 8] {
        for rich_share in [0.3, 0.5, 0.7] {
            for bare_title_width in [14, 20, 28] {
                for distinct_title_width in [4, 8, 16] {
                    out.push(crate::analysis::Params {
                        block_text,
                        rich_share,
                        bare_title_width,
                        distinct_title_width,
                    });
                }
            }
        }
    }
    out
}

/// `sitefeed eval --loso DIR`: leave-one-site-out. For every site, the analysis'
/// parameters are chosen from a small grid by the micro F1 on entries of all *other* sites,
/// and the site is scored with them; beside it, the site's score with the defaults (no
/// choice made on any site) and the naive method. Prints one Markdown table.
pub fn loso(dir: &Path, opts: &Options<'_>, out: &mut dyn Write) -> Result<(), Error> {
    let sites: Vec<Site> = corpus::load(dir, opts.labels)?
        .into_iter()
        .filter(|s| opts.site.is_none_or(|f| s.name.contains(f)))
        .collect();
    let grid = grid();
    let defaults = crate::analysis::Params::default();
    // counts[g][s]: entry counts of grid point g on site s.
    let mut counts: Vec<Vec<Counts>> = vec![Vec::with_capacity(sites.len()); grid.len()];
    let mut naive = Vec::with_capacity(sites.len());
    let mut default_counts = Vec::with_capacity(sites.len());
    for site in &sites {
        for (g, p) in grid.iter().enumerate() {
            let (emitted, time) = product(site, p)?;
            counts[g].push(score(site, &emitted, time).entry);
        }
        let (emitted, time) = product(site, &defaults)?;
        default_counts.push(score(site, &emitted, time).entry);
        let arrays = site_links(site)?;
        let (emitted, time) = run_method(Method::Naive, site, &arrays)?;
        naive.push(score(site, &emitted, time).entry);
    }
    let mut table = String::from(
        "| site | defaults P | R | F1 | leave-one-out P | R | F1 | naive P | R | F1 | chosen without the site |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n",
    );
    let (mut all_default, mut all_loso, mut all_naive) =
        (Counts::default(), Counts::default(), Counts::default());
    let pct = |x: f64| format!("{:.1}", 100.0 * x);
    for (s, site) in sites.iter().enumerate() {
        let best = (0..grid.len())
            .max_by(|&a, &b| {
                let f = |g: usize| {
                    let mut c = Counts::default();
                    for (t, x) in counts[g].iter().enumerate() {
                        if t != s {
                            c.add(*x);
                        }
                    }
                    c.f1()
                };
                f(a).total_cmp(&f(b)).then(b.cmp(&a))
            })
            .unwrap_or(0);
        let l = counts[best][s];
        let (d, n) = (default_counts[s], naive[s]);
        all_default.add(d);
        all_loso.add(l);
        all_naive.add(n);
        let p = &grid[best];
        let _ = writeln!(
            table,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | text {}, share {}, width {}, title {} |",
            site.name,
            pct(d.precision()),
            pct(d.recall()),
            pct(d.f1()),
            pct(l.precision()),
            pct(l.recall()),
            pct(l.f1()),
            pct(n.precision()),
            pct(n.recall()),
            pct(n.f1()),
            p.block_text,
            p.rich_share,
            p.bare_title_width,
            p.distinct_title_width,
        );
    }
    let _ = writeln!(
        table,
        "| **all** | {} | {} | {} | {} | {} | {} | {} | {} | {} | |",
        pct(all_default.precision()),
        pct(all_default.recall()),
        pct(all_default.f1()),
        pct(all_loso.precision()),
        pct(all_loso.recall()),
        pct(all_loso.f1()),
        pct(all_naive.precision()),
        pct(all_naive.recall()),
        pct(all_naive.f1()),
    );
    out.write_all(table.as_bytes())?;
    Ok(())
}

/// The indices of `new` that a differ-only method emits.
fn diff_with(m: Method, old: &[Link], new: &[Link], seen: &HashSet<&str>) -> Vec<usize> {
    if m == Method::Naive {
        let mut once = HashSet::new();
        return (0..new.len())
            .filter(|&j| {
                !new[j].text.is_empty()
                    && !seen.contains(new[j].url.as_str())
                    && once.insert(new[j].url.as_str())
            })
            .collect();
    }
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
        s.entry
            .add(Counts::of_entries(&urls, &t.entries, &site.key));
        s.link.add(Counts::of(&urls, &t.links));
    }
    s
}

fn step_urls(emitted: &HashMap<String, Emitted>, t: &Truth) -> HashSet<String> {
    emitted
        .get(&t.file)
        .into_iter()
        .flatten()
        .map(|(u, _)| untracked(u))
        .collect()
}

/// `u` as the truth holds it: without tracking parameters (the analysis drops them; the
/// other methods keep them), so that every method is scored on the same URLs.
fn untracked(u: &str) -> String {
    use crate::entries::hygiene::{strip_tracking, TRACKING_PARAMS};
    strip_tracking(u, TRACKING_PARAMS).into_owned()
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
            let u = &untracked(u);
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
