//! Scoring entry content (summary, date, picture) against a person's labels of the
//! snapshot corpus (`eval/content_labels.json`: per entry, the date it states, its
//! summary's start and its picture). Each labelled page is read as a check reads it
//! (extraction, the structural pass with its facts, the entry decision) and each
//! labelled entry's content compared with the label; dates are resolved against the
//! snapshot's capture time in the site's zone.
//!
//! Uses the extractor, [`crate::entries`] and the corpus' `meta.json`; no network.

use std::collections::BTreeMap;
use std::path::Path;

use chrono_tz::Tz;
use serde::Deserialize;
use url::Url;

use crate::entries::{content, decide};
use crate::error::Error;
use crate::extract;

#[derive(Debug, Deserialize)]
struct Labels {
    sites: BTreeMap<String, SiteLabels>,
}

#[derive(Debug, Deserialize)]
struct SiteLabels {
    timezone: String,
    entries: Vec<Label>,
}

#[derive(Debug, Deserialize)]
struct Label {
    file: String,
    href: String,
    date: Option<String>,
    summary: Option<String>,
    image: Option<String>,
}

/// The figures of one site.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct SiteScore {
    pub site: String,
    pub labelled: usize,
    /// Labelled entries whose link the page reading found.
    pub found: usize,
    /// Entries that state a date, and those given that day.
    pub dated: usize,
    pub date_right: usize,
    /// Entries that state a date given another day.
    pub date_wrong: usize,
    /// Entries that state no date given one anyway.
    pub date_made_up: usize,
    /// Entries with a labelled summary, and those whose summary starts as labelled.
    pub with_summary: usize,
    pub summary_right: usize,
    /// Entries without one given one anyway.
    pub summary_made_up: usize,
    pub with_image: usize,
    pub image_right: usize,
    /// Entries without a picture given one anyway.
    pub image_made_up: usize,
}

fn err(m: impl Into<String>) -> Error {
    Error::Usage(m.into())
}

/// Letters and digits, lower case: how label and output texts are compared.
fn squeeze(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Scheme, host and path: two URLs of one picture differ in their size parameters.
fn picture_key(u: &str) -> Option<String> {
    let u = Url::parse(u).ok()?;
    Some(format!("{}://{}{}", u.scheme(), u.host_str()?, u.path()))
}

/// Scores the labels at `labels` against the corpus in `corpus`.
#[allow(
    clippy::too_many_lines,
    reason = "one reading per labelled page, as a check reads it, then the comparison"
)]
pub fn score(corpus: &Path, labels: &Path) -> Result<Vec<SiteScore>, Error> {
    let text =
        std::fs::read_to_string(labels).map_err(|e| err(format!("{}: {e}", labels.display())))?;
    let labels: Labels = serde_json::from_str(&text).map_err(|e| err(format!("labels: {e}")))?;
    let mut out = Vec::new();
    for (site, sl) in &labels.sites {
        let tz: Tz = sl
            .timezone
            .parse()
            .map_err(|_| err(format!("{site}: unknown time zone {}", sl.timezone)))?;
        let meta: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(corpus.join(site).join("meta.json"))
                .map_err(|e| err(format!("{site}/meta.json: {e}")))?,
        )
        .map_err(|e| err(format!("{site}/meta.json: {e}")))?;
        let page = meta["url"]
            .as_str()
            .and_then(|u| Url::parse(u).ok())
            .ok_or_else(|| err(format!("{site}: no url in meta.json")))?;
        let mut s = SiteScore {
            site: site.clone(),
            ..SiteScore::default()
        };
        let mut by_file: BTreeMap<&str, Vec<&Label>> = BTreeMap::new();
        for l in &sl.entries {
            by_file.entry(l.file.as_str()).or_default().push(l);
        }
        for (file, ls) in by_file {
            let name = file.rsplit('/').next().unwrap_or(file);
            let now = meta["snapshots"]
                .as_array()
                .and_then(|a| a.iter().find(|x| x["file"] == name))
                .and_then(|x| x["commit_date"].as_str())
                .and_then(|d| chrono::DateTime::parse_from_rfc3339(d).ok())
                .map(|d| d.timestamp())
                .ok_or_else(|| err(format!("{file}: no capture date in meta.json")))?;
            let body = std::fs::read(corpus.join(file)).map_err(|e| err(format!("{file}: {e}")))?;
            let decoded = extract::charset::decode_for_url(&body, None, &page);
            let parsed = extract::parse(&decoded.text, &page, None, extract::Gather::Content)
                .map_err(|e| err(format!("{file}: {e}")))?;
            let (links, st) = (parsed.page.links, parsed.structure);
            let d = decide::decide(
                &decide::Prior::default(),
                &links,
                &st,
                true,
                &decide::Params::default(),
                &mut |_: &str| Ok::<bool, std::convert::Infallible>(false),
            )
            .map_err(|e| err(format!("{e}")))?;
            for l in ls {
                s.labelled += 1;
                let href = Url::parse(&l.href)
                    .ok()
                    .and_then(|u| extract::url::normalize(&u))
                    .map_or_else(|| l.href.clone(), String::from);
                let Some(i) = d
                    .entries
                    .iter()
                    .copied()
                    .find(|&i| links[i].url == href)
                    .or_else(|| links.iter().position(|x| x.url == href))
                else {
                    continue;
                };
                s.found += 1;
                let entry = content::EntryRef {
                    main: i,
                    block: d.block_of.get(i).copied().flatten(),
                    links: &links,
                    ctx: &st.ctx,
                    page: &page,
                };
                let facts = content::element(&entry)
                    .and_then(|id| st.facts_for(&decoded.text, id))
                    .unwrap_or_default();
                let c = content::content(&facts, &entry, now, tz);
                if std::env::var_os("SITEFEED_EVAL_TRACE").is_some() {
                    eprintln!(
                        "{file} {href}\n  label: {:?} {:?} {:?}\n  got:   {:?} {:?} {:?}",
                        l.date,
                        l.summary,
                        l.image,
                        c.published.map(crate::model::rfc3339),
                        c.summary,
                        c.image
                    );
                    eprintln!(
                        "  block: {:?}",
                        facts.block_text(
                            entry.block.or_else(|| st.ctx[i]
                                .as_ref()
                                .and_then(|c| c.path.last().copied()))
                        )
                    );
                }
                tally(&mut s, l, &c, tz);
            }
        }
        out.push(s);
    }
    Ok(out)
}

/// Adds one entry's comparison to `s`.
fn tally(s: &mut SiteScore, l: &Label, c: &content::Content, tz: Tz) {
    let day = c.published.and_then(|t| {
        chrono::DateTime::from_timestamp(t, 0)
            .map(|d| d.with_timezone(&tz).format("%Y-%m-%d").to_string())
    });
    match (&l.date, &day) {
        (Some(want), Some(got)) if want == got => {
            s.dated += 1;
            s.date_right += 1;
        }
        (Some(_), Some(_)) => {
            s.dated += 1;
            s.date_wrong += 1;
        }
        (Some(_), None) => s.dated += 1,
        (None, Some(_)) => s.date_made_up += 1,
        (None, None) => {}
    }
    match (&l.summary, &c.summary) {
        (Some(want), Some(got)) => {
            s.with_summary += 1;
            let want: String = squeeze(want).chars().take(30).collect();
            s.summary_right += usize::from(squeeze(got).starts_with(&want));
        }
        (Some(_), None) => s.with_summary += 1,
        (None, Some(_)) => s.summary_made_up += 1,
        (None, None) => {}
    }
    match (&l.image, &c.image) {
        (Some(want), Some(got)) => {
            s.with_image += 1;
            s.image_right += usize::from(picture_key(want) == picture_key(got));
        }
        (Some(_), None) => s.with_image += 1,
        (None, Some(_)) => s.image_made_up += 1,
        (None, None) => {}
    }
}

/// The scores as a markdown table.
pub fn table(scores: &[SiteScore]) -> String {
    use std::fmt::Write;
    let mut t = String::from(
        "| site | labelled | found | date right (stated) | wrong day | made up | summary right | made up | image right | made up |\n|---|---|---|---|---|---|---|---|---|---|\n",
    );
    let mut all = SiteScore {
        site: "all".into(),
        ..SiteScore::default()
    };
    for s in scores {
        for (a, b) in [
            (&mut all.labelled, s.labelled),
            (&mut all.found, s.found),
            (&mut all.dated, s.dated),
            (&mut all.date_right, s.date_right),
            (&mut all.date_wrong, s.date_wrong),
            (&mut all.date_made_up, s.date_made_up),
            (&mut all.with_summary, s.with_summary),
            (&mut all.summary_right, s.summary_right),
            (&mut all.summary_made_up, s.summary_made_up),
            (&mut all.with_image, s.with_image),
            (&mut all.image_right, s.image_right),
            (&mut all.image_made_up, s.image_made_up),
        ] {
            *a += b;
        }
    }
    for s in scores.iter().chain(std::iter::once(&all)) {
        let _ = writeln!(
            t,
            "| {} | {} | {} | {}/{} | {} | {} | {}/{} | {} | {}/{} | {} |",
            s.site,
            s.labelled,
            s.found,
            s.date_right,
            s.dated,
            s.date_wrong,
            s.date_made_up,
            s.summary_right,
            s.with_summary,
            s.summary_made_up,
            s.image_right,
            s.with_image,
            s.image_made_up
        );
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labelled_corpus_entries() {
        let Some(corpus) = crate::extract::corpus_tests::corpus_dir() else {
            return;
        };
        let labels = Path::new(env!("CARGO_MANIFEST_DIR")).join("eval/content_labels.json");
        let scores = score(&corpus, &labels).expect("scores");
        println!("{}", table(&scores));
        let total: usize = scores.iter().map(|s| s.labelled).sum();
        assert!(total >= 150, "{total} labelled entries");
        for s in &scores {
            assert_eq!(
                s.date_made_up, 0,
                "{}: a date where the entry states none",
                s.site
            );
            assert_eq!(s.date_wrong, 0, "{}: a wrong day", s.site);
        }
    }
}
