//! Reading a corpus directory: `<site>/NNNN.html`, `meta.json` (the page URL and the
//! snapshot order), `truth.json` (the new links of each consecutive pair) and the
//! corpus-wide `labels.json` (which new links are not entries). The format is in
//! `docs/design.md` §8.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use regex::Regex;
use serde_json::Value;
use url::Url;

use crate::error::Error;
use crate::extract;

/// One site of a corpus, with its truth per step.
#[derive(Debug)]
pub struct Site {
    pub name: String,
    pub url: Url,
    /// The snapshots in time order.
    pub files: Vec<PathBuf>,
    /// `steps[i]` is the truth of the pair `(files[i], files[i + 1])`.
    pub steps: Vec<Truth>,
    /// Which links are one entry.
    pub key: EntryKey,
}

/// What is new at one step.
#[derive(Debug, Default, Clone)]
pub struct Truth {
    /// The file name of the newer snapshot.
    pub file: String,
    /// Normalized URLs of the new links (the oracle's `new`).
    pub links: HashSet<String>,
    /// The entries: `links` minus the labels' `not_entries` and links off the
    /// `entry_hosts`, empty on a chrome step.
    pub entries: HashSet<String>,
}

/// How the labels tell entries apart: `same_entry` rewrites of a URL to its entry's key
/// (links whose keys are equal are one entry).
#[derive(Debug, Default, Clone)]
pub struct EntryKey {
    rewrites: Vec<(Regex, String)>,
}

impl EntryKey {
    /// The entry key of a URL: the URL after every `same_entry` rewrite, in order.
    pub fn of(&self, url: &str) -> String {
        let mut s = url.to_owned();
        for (r, to) in &self.rewrites {
            s = r.replace_all(&s, to.as_str()).into_owned();
        }
        s
    }
}

/// A person's reading of one site: which new links are not entries.
#[derive(Debug, Default)]
struct Labels {
    not_entries: Vec<Regex>,
    /// Pair indices (into `truth.json` `pairs`) or newer file names of redesign steps.
    chrome_pairs: HashSet<usize>,
    chrome_files: HashSet<String>,
    /// Where present: a new link on another host is not an entry.
    entry_hosts: Option<HashSet<String>>,
    key: EntryKey,
}

fn bad(path: &Path, what: impl std::fmt::Display) -> Error {
    Error::Usage(format!("{}: {what}", path.display()))
}

fn read_json(path: &Path) -> Result<Value, Error> {
    let text = std::fs::read_to_string(path).map_err(|e| bad(path, e))?;
    serde_json::from_str(&text).map_err(|e| bad(path, format!("not valid JSON: {e}")))
}

/// The sites of the corpus at `dir` (every subdirectory with a `meta.json`), sorted by
/// name, with the labels of `labels` (default `dir/labels.json` when it exists).
pub fn load(dir: &Path, labels: Option<&Path>) -> Result<Vec<Site>, Error> {
    let default_labels = dir.join("labels.json");
    let labels_path =
        labels.or_else(|| default_labels.exists().then_some(default_labels.as_path()));
    let labels = match labels_path {
        Some(p) => Some((p, read_json(p)?)),
        None => None,
    };
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| bad(dir, e))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("meta.json").is_file())
        .collect();
    names.sort();
    if names.is_empty() {
        return Err(bad(dir, "no site directories (with a meta.json) found"));
    }
    names
        .iter()
        .map(|p| {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let l = match &labels {
                Some((path, v)) => site_labels(path, v.get(&name))?,
                None => Labels::default(),
            };
            load_site(p, name, l)
        })
        .collect()
}

fn site_labels(path: &Path, v: Option<&Value>) -> Result<Labels, Error> {
    let mut l = Labels::default();
    let Some(v) = v else { return Ok(l) };
    if let Some(list) = v.get("not_entries").and_then(Value::as_array) {
        for r in list {
            let s = r
                .as_str()
                .ok_or_else(|| bad(path, "not_entries must hold strings"))?;
            l.not_entries
                .push(Regex::new(s).map_err(|e| bad(path, format!("bad regex `{s}`: {e}")))?);
        }
    }
    if let Some(list) = v.get("entry_hosts").and_then(Value::as_array) {
        let hosts = list
            .iter()
            .map(|h| {
                h.as_str()
                    .map(str::to_ascii_lowercase)
                    .ok_or_else(|| bad(path, "entry_hosts must hold strings"))
            })
            .collect::<Result<HashSet<String>, Error>>()?;
        l.entry_hosts = Some(hosts);
    }
    if let Some(list) = v.get("same_entry").and_then(Value::as_array) {
        for pair in list {
            let (Some(from), Some(to)) = (
                pair.get(0).and_then(Value::as_str),
                pair.get(1).and_then(Value::as_str),
            ) else {
                return Err(bad(
                    path,
                    "same_entry must hold [pattern, replacement] pairs",
                ));
            };
            let r = Regex::new(from).map_err(|e| bad(path, format!("bad regex `{from}`: {e}")))?;
            l.key.rewrites.push((r, to.to_owned()));
        }
    }
    if let Some(list) = v.get("chrome_steps").and_then(Value::as_array) {
        for s in list {
            if let Some(i) = s.as_u64() {
                l.chrome_pairs.insert(i as usize);
            } else if let Some(f) = s.as_str() {
                l.chrome_files.insert(f.to_owned());
            } else {
                return Err(bad(
                    path,
                    "chrome_steps must hold pair indices or file names",
                ));
            }
        }
    }
    Ok(l)
}

fn load_site(dir: &Path, name: String, labels: Labels) -> Result<Site, Error> {
    let meta_path = dir.join("meta.json");
    let meta = read_json(&meta_path)?;
    let url_str = meta
        .get("url")
        .and_then(Value::as_str)
        .ok_or_else(|| bad(&meta_path, "no `url`"))?;
    let url = normalized(url_str).ok_or_else(|| bad(&meta_path, "`url` is not an http(s) URL"))?;
    let mut files: Vec<PathBuf> = match meta.get("snapshots").and_then(Value::as_array) {
        Some(list) => list
            .iter()
            .filter_map(|s| s.get("file").and_then(Value::as_str))
            .map(|f| dir.join(f))
            .collect(),
        None => Vec::new(),
    };
    if files.is_empty() {
        files = std::fs::read_dir(dir)
            .map_err(|e| bad(dir, e))?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "html"))
            .collect();
        files.sort();
    }
    let truth_path = dir.join("truth.json");
    let truth = read_json(&truth_path)?;
    let pairs = truth
        .get("pairs")
        .and_then(Value::as_array)
        .ok_or_else(|| bad(&truth_path, "no `pairs` array"))?;
    let mut steps = Vec::new();
    for (i, file) in files.iter().enumerate().skip(1) {
        let fname = file_name(file);
        let pair = pairs
            .iter()
            .find(|p| p.get("cur").and_then(Value::as_str) == Some(fname.as_str()))
            .ok_or_else(|| bad(&truth_path, format!("no pair for {fname}")))?;
        let mut t = Truth {
            file: fname.clone(),
            ..Truth::default()
        };
        let chrome = labels.chrome_pairs.contains(&(i - 1)) || labels.chrome_files.contains(&fname);
        for n in pair
            .get("new")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let Some(href) = n.get("href").and_then(Value::as_str) else {
                continue;
            };
            let Some(u) = normalized(href) else { continue };
            let on_host = labels
                .entry_hosts
                .as_ref()
                .is_none_or(|hosts| u.host_str().is_some_and(|h| hosts.contains(h)));
            let u = u.to_string();
            if !chrome && on_host && !labels.not_entries.iter().any(|r| r.is_match(&u)) {
                t.entries.insert(u.clone());
            }
            t.links.insert(u);
        }
        steps.push(t);
    }
    Ok(Site {
        name,
        url,
        files,
        steps,
        key: labels.key,
    })
}

/// `href` parsed and normalized as the extractor does, tracking parameters dropped as
/// the analysis drops them, so that the oracle's URLs and the pipeline's compare equal.
fn normalized(href: &str) -> Option<Url> {
    let clean =
        crate::entries::hygiene::strip_tracking(href, crate::entries::hygiene::TRACKING_PARAMS);
    Url::parse(&clean)
        .ok()
        .and_then(|u| extract::url::normalize(&u))
}

/// The last component of `p`.
pub fn file_name(p: &Path) -> String {
    p.file_name().map_or_else(
        || p.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}
