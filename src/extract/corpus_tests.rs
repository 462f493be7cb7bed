//! Extraction against the real page snapshot corpus (`docs/design.md` §8). For a few
//! snapshots of each site, every link that the corpus's reference extraction
//! (`make_truth.py` beside the snapshots) lists as new in `truth.json` must be among the
//! links extracted here, with the same URL (both normalized by [`super::url::normalize`])
//! and the same text.
//!
//! The corpus is not part of the repository. The test reads it from `$SITEFEED_CORPUS`,
//! else from `../shared/corpus` beside the crate; when it is not there the test prints
//! `SKIPPED:` and passes, except in CI (`CI=true`), where it fails.
//!
//! Known, documented differences from the reference, which this test tolerates:
//! * `<br>` and block elements inside a link separate words here (rendered-text
//!   behaviour); the reference concatenates (`ビーバースカウト<br>(小学1年生から)` is
//!   "ビーバースカウト (小学1年生から)" here, "ビーバースカウト(小学1年生から)" there).
//!   Such texts must be equal once all whitespace is removed.
//! * Links inside hidden elements are skipped here; the reference keeps them. Such misses
//!   are counted apart (recognised by extracting again from a copy of the page whose
//!   hiding attributes are renamed) and printed. (None occur in the corpus today.)
//! * The `<title>` and `<desc>` of an inline SVG icon are tooltips, not rendered text:
//!   not link text here, part of it in the reference (`Video IconVideo & Audio` there,
//!   `Video & Audio` here). Such texts must be equal once the page's SVG tooltips are
//!   removed from the reference; they are counted apart.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use url::Url;

use super::{charset, extract, url::normalize};

/// The corpus folder: `$SITEFEED_CORPUS`, else `../shared/corpus` relative to the crate.
/// `None` (after printing `SKIPPED:`) when it is missing; a panic in CI (`CI=true`).
pub(crate) fn corpus_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("SITEFEED_CORPUS").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"),
        PathBuf::from,
    );
    if dir.join("README.md").is_file() {
        return Some(dir);
    }
    let msg = format!(
        "the snapshot corpus is not at {} (set SITEFEED_CORPUS to its folder)",
        dir.display()
    );
    assert!(std::env::var("CI").as_deref() != Ok("true"), "{msg}");
    eprintln!("SKIPPED: {msg}");
    None
}

/// The texts of the `<title>` and `<desc>` elements inside the page's `<svg>` elements.
fn svg_tooltips(html: &str) -> Vec<String> {
    let lower = html.to_ascii_lowercase();
    let mut tips = Vec::new();
    let mut at = 0;
    while let Some(start) = lower[at..].find("<svg").map(|p| at + p) {
        let end = lower[start..]
            .find("</svg")
            .map_or(lower.len(), |p| start + p);
        for tag in ["title", "desc"] {
            let (open, close) = (format!("<{tag}"), format!("</{tag}>"));
            let mut from = start;
            while let Some(o) = lower[from..end].find(&open).map(|p| from + p) {
                let Some(text_start) = lower[o..end].find('>').map(|p| o + p + 1) else {
                    break;
                };
                let Some(c) = lower[text_start..end].find(&close).map(|p| text_start + p) else {
                    break;
                };
                tips.push(squash(&html[text_start..c]));
                from = c;
            }
        }
        at = end.max(start + 4);
    }
    tips.retain(|t| !t.is_empty());
    tips.sort();
    tips.dedup();
    tips
}

#[test]
fn svg_tooltips_are_read_from_svg_only() {
    let html = "<title>Page</title><a href=/v><svg viewBox='0 0 1 1'><TITLE>Video Icon</TITLE>\
                <desc id=d>A play button</desc><path/></svg>Video</a><p><title>x</title>";
    assert_eq!(svg_tooltips(html), ["Aplaybutton", "VideoIcon"]);
    assert!(svg_tooltips("<svg><title>never closed").is_empty());
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn squash(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

#[derive(Default, Debug)]
struct Tally {
    checked: usize,
    exact: usize,
    whitespace_only: usize,
    hidden: usize,
    svg_tooltip: usize,
    text_mismatch: Vec<String>,
    missing: Vec<String>,
}

#[test]
fn corpus_new_links_are_extracted() {
    let Some(dir) = corpus_dir() else {
        return;
    };
    let mut sites: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("meta.json").is_file() && p.join("truth.json").is_file())
        .collect();
    sites.sort();
    assert!(!sites.is_empty(), "no sites in {}", dir.display());

    let mut total = Tally::default();
    for site in &sites {
        let tally = check_site(site);
        total.checked += tally.checked;
        total.exact += tally.exact;
        total.whitespace_only += tally.whitespace_only;
        total.hidden += tally.hidden;
        total.svg_tooltip += tally.svg_tooltip;
        total.text_mismatch.extend(tally.text_mismatch);
        total.missing.extend(tally.missing);
    }
    println!("total: {total:?}");
    assert!(total.checked > 0);
    assert!(
        total.text_mismatch.is_empty() && total.missing.is_empty(),
        "{} text mismatches and {} missing links (see above)",
        total.text_mismatch.len(),
        total.missing.len()
    );
}

/// Checks a few snapshots of one site; prints what it found.
fn check_site(site: &Path) -> Tally {
    let meta = read_json(&site.join("meta.json"));
    let truth = read_json(&site.join("truth.json"));
    let page_url = Url::parse(meta["url"].as_str().unwrap()).unwrap();
    let content_type = meta["declared_charset"]
        .as_str()
        .map(|c| format!("text/html; charset={c}"));
    let pairs: Vec<&Value> = truth["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["new"].as_array().is_some_and(|n| !n.is_empty()))
        .collect();
    // A few snapshots spread over the site's history.
    let n = pairs.len();
    let mut picks: Vec<usize> = [0, n / 3, 2 * n / 3, n.saturating_sub(1)]
        .into_iter()
        .filter(|&i| i < n)
        .collect();
    picks.dedup();
    let mut tally = Tally::default();
    for &i in &picks {
        let pair = pairs[i];
        let file = pair["cur"].as_str().unwrap();
        let body = std::fs::read(site.join(file)).unwrap();
        let decoded = charset::decode(&body, content_type.as_deref());
        let page = extract(&decoded.text, &page_url, None).unwrap();
        let mut by_url: HashMap<&str, Vec<&str>> = HashMap::new();
        for l in &page.links {
            by_url
                .entry(l.url.as_str())
                .or_default()
                .push(l.text.as_str());
        }
        // Links that exist in the page but sit in hidden elements: extract again with
        // hidden-ness neutralized to tell "hidden" misses from real ones.
        let unhidden = decoded
            .text
            .replace(" hidden", " data-was-hidden")
            .replace("aria-hidden", "data-aria")
            .replace("display:none", "display:block")
            .replace("display: none", "display: block");
        let unhidden = extract(&unhidden, &page_url, None).unwrap();
        let tooltips = svg_tooltips(&decoded.text);
        let without_tooltips = |text: &str| {
            tooltips
                .iter()
                .fold(squash(text), |t, tip| t.replacen(tip.as_str(), "", 1))
        };
        for item in pair["new"].as_array().unwrap() {
            let href = item["href"].as_str().unwrap();
            let text = item["text"].as_str().unwrap();
            tally.checked += 1;
            let Some(url) = Url::parse(href).ok().and_then(|u| normalize(&u)) else {
                tally
                    .missing
                    .push(format!("{file}: unparsable href {href}"));
                continue;
            };
            let url = url.as_str();
            match by_url.get(url) {
                Some(texts) if texts.contains(&text) => tally.exact += 1,
                Some(texts) if texts.iter().any(|t| squash(t) == squash(text)) => {
                    tally.whitespace_only += 1;
                }
                Some(texts) if texts.iter().any(|t| squash(t) == without_tooltips(text)) => {
                    tally.svg_tooltip += 1;
                }
                Some(texts) => tally
                    .text_mismatch
                    .push(format!("{file}: {url}: reference {text:?}, here {texts:?}")),
                None if unhidden.links.iter().any(|l| l.url == url) => tally.hidden += 1,
                None => tally.missing.push(format!("{file}: {url} {text:?}")),
            }
        }
    }
    println!(
        "{:<30} snapshots {:?}: {} new links checked, {} exact, {} differ in whitespace only, \
         {} in hidden elements, {} with SVG tooltips, {} other text, {} missing",
        site.file_name().unwrap().to_string_lossy(),
        picks,
        tally.checked,
        tally.exact,
        tally.whitespace_only,
        tally.hidden,
        tally.svg_tooltip,
        tally.text_mismatch.len(),
        tally.missing.len()
    );
    for m in tally.text_mismatch.iter().chain(&tally.missing) {
        println!("    {m}");
    }
    tally
}

/// The Apple newsroom history, watched with `select = "main"`, checked version after
/// version: one entry is one item, once in the whole sequence, titled by its text (not
/// by its URL, which is what an empty hidden link to the same story would give).
#[test]
fn one_entry_is_one_item_titled_by_its_text_on_a_real_history() {
    let Some(dir) = corpus_dir() else { return };
    let site = dir.join("apple-newsroom");
    let files: Vec<PathBuf> = (0..=5).map(|i| site.join(format!("{i:04}.html"))).collect();
    let base = Url::parse("https://www.apple.com/newsroom/").expect("url");
    let steps = crate::offline::replay_steps(
        &files,
        &base,
        Some("main"),
        &crate::analysis::Params::default(),
    )
    .expect("replay");
    let mut ids = std::collections::HashSet::new();
    let mut total = 0;
    for step in &steps {
        assert!(step.report.error.is_none(), "{:?}", step.report.error);
        for item in &step.report.new_items {
            total += 1;
            assert!(
                ids.insert(item.id.clone()),
                "{} ({}) emitted twice",
                item.title,
                item.link
            );
            assert_ne!(item.title, item.link, "an item titled by its URL");
            assert!(!item.title.trim().is_empty());
        }
    }
    // The history does add stories in these versions: the test is not vacuous.
    assert!(total >= 2, "{total} items");
}
