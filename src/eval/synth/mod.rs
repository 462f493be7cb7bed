//! The synthetic evolution generator (`docs/design.md` §8): seeded, reproducible list pages
//! that evolve over many versions with known truth, written in the corpus format that
//! [`super::run`] reads (`<site>/NNNN.html`, `meta.json`, `truth.json`, and a `labels.json`
//! for the whole corpus).
//!
//! Six sites, each a different kind of list page, together covering the hard cases of list
//! pages: insertions at the top and in the middle, removals from the bottom, threads bumped
//! to the top by a reply, small title edits, repeated texts ("Read more", "More", dates)
//! with different hrefs, navigation and footer links that never change, counters and
//! clocks, pagination links that shift, pages in GBK and Shift_JIS, 50 to 5,000 links, and
//! one redesign, and one half-loaded page.
//!
//! | site | page | links | charset |
//! |---|---|---|---|
//! | `forum-gbk` | topic rows: title, avatar, author, node, last replier, reply count; node directory; hot topics | ~450 | GBK |
//! | `news` | articles: heading, "Read more" (same href), "N comments" (own href); pagination | ~170 | UTF-8 |
//! | `shop` | offer cards with generic texts: "Details >" and "Order now >" | ~70 | UTF-8 |
//! | `board-sjis` | dated notices; version 15 is cut at 40% of its bytes | ~60 | Shift_JIS |
//! | `biglist` | 2,500 headlines each with a "More" link of its own | ~5,000 | UTF-8 |
//! | `redesign` | a blog index whose layout and URLs change at version 10 | ~40 | UTF-8 |
//!
//! The truth of a step is computed exactly as the real corpus's reference script does (the
//! links of the newer page whose URL no earlier version had, with text), from the link
//! lists the generator wrote, and `labels.json` marks the secondary links (authors,
//! nodes, comments, order buttons, "More", pagination) and the redesign step.
//!
//! Files: `page` (the seeded generator, words, the page builder), `sites` (the six sites
//! above), `kinds` (more kinds of change), `series` (entries that repeat their shape or
//! title: a calendar, a blog's archive months, a download page, a notice table); this
//! file writes the corpus. May use
//! [`crate::error`] only: the generator knows nothing of the pipeline it tests.

use std::collections::HashSet;
use std::path::Path;

use serde_json::json;

mod kinds;
mod page;
mod series;
mod sites;

use crate::error::Error;
use page::{Rng, Version};
use sites::{biglist, board, forum, news, redesign, shop, REDESIGN_AT};

// ---------------------------------------------------------------------------------------

/// The sites: name, page URL, charset, generator.
type Generator = fn(&mut Rng, usize) -> Vec<Version>;
const SITES: &[(&str, &str, &str, Generator)] = &[
    ("forum-gbk", "https://forum.example/", "gbk", forum),
    ("news", "https://news.example/", "utf-8", news),
    ("shop", "https://shop.example/", "utf-8", shop),
    ("board-sjis", "https://board.example/", "shift_jis", board),
    ("biglist", "https://big.example/", "utf-8", biglist),
    ("redesign", "https://blog.example/", "utf-8", redesign),
    (
        "turnover",
        "https://paper.example/economy/",
        "utf-8",
        kinds::turnover,
    ),
    ("ticker", "https://school.example/", "utf-8", kinds::ticker),
    (
        "stats-office",
        "https://stats.example/",
        "utf-8",
        kinds::stats_office,
    ),
    (
        "theme-upgrade",
        "https://notes.example/",
        "utf-8",
        kinds::theme_upgrade,
    ),
    (
        "releases",
        "https://tool.example/releases/",
        "utf-8",
        kinds::releases,
    ),
    (
        "calendar",
        "https://town.example/events/",
        "utf-8",
        series::calendar,
    ),
    (
        "blog-archive",
        "https://notes.example/",
        "utf-8",
        series::blog_archive,
    ),
    (
        "downloads",
        "https://tool.example/download/",
        "utf-8",
        series::downloads,
    ),
    (
        "notices-table",
        "https://gov.example/notice/list.asp",
        "utf-8",
        series::notices_table,
    ),
];

fn io(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Failed(format!("cannot write {}: {e}", path.display()))
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    std::fs::write(path, bytes).map_err(|e| io(path, e))
}

/// Writes the synthetic corpus under `dir` (created if needed): `versions` versions of
/// each site, from `seed`. The same seed always writes the same bytes.
pub fn generate(dir: &Path, seed: u64, versions: usize) -> Result<(), Error> {
    if versions < 2 {
        return Err(Error::Usage("--versions must be at least 2".into()));
    }
    std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    for (k, &(name, url, charset, gen)) in SITES.iter().enumerate() {
        let mut rng = Rng::new(seed.wrapping_mul(1_000_003).wrapping_add(k as u64));
        let site_dir = dir.join(name);
        std::fs::create_dir_all(&site_dir).map_err(|e| io(&site_dir, e))?;
        let encoding = encoding_rs::Encoding::for_label(charset.as_bytes())
            .expect("invariant: the built-in charsets are known");
        let base = url::Url::parse(url).expect("invariant: the built-in URLs parse");
        let abs = |path: &str| base.join(path).map(String::from).unwrap_or_default();
        let mut known_urls: HashSet<String> = HashSet::new();
        let mut pairs = Vec::new();
        let mut snapshots = Vec::new();
        let mut prev = String::new();
        for (v, version) in gen(&mut rng, versions).into_iter().enumerate() {
            let file = format!("{v:04}.html");
            let (bytes, _, _) = encoding.encode(&version.html);
            write(&site_dir.join(&file), &bytes)?;
            snapshots.push(json!({"file": file}));
            let links: Vec<(String, String)> = version
                .links
                .iter()
                .map(|(p, t)| (abs(p), t.clone()))
                .collect();
            if v > 0 {
                let mut reported = HashSet::new();
                let new: Vec<_> = links
                    .iter()
                    .filter(|(h, t)| {
                        !known_urls.contains(h) && !t.is_empty() && reported.insert(h.clone())
                    })
                    .map(|(h, t)| json!({"href": h, "text": t}))
                    .collect();
                pairs.push(json!({"prev": prev, "cur": file, "new": new}));
            }
            known_urls.extend(links.into_iter().map(|(h, _)| h));
            prev = file;
        }
        let meta = json!({"slug": name, "url": url, "declared_charset": charset,
                          "capture_method": "sitefeed synthetic generator", "seed": seed,
                          "snapshots": snapshots});
        let truth = json!({"method": "make_truth.py's definition, from the generated link lists",
                           "pairs": pairs});
        write(&site_dir.join("meta.json"), meta.to_string().as_bytes())?;
        write(&site_dir.join("truth.json"), truth.to_string().as_bytes())?;
    }
    let mut labels = json!({
        "_doc": "Secondary links of the synthetic sites and the redesign step (see src/eval/synth/).",
        "forum-gbk": {"not_entries": ["/member/", "/go/"]},
        "news": {"not_entries": ["/comments$", "[?&]page="]},
        "shop": {"not_entries": ["/order\\?"]},
        "board-sjis": {"not_entries": []},
        "biglist": {"not_entries": ["/full$"]},
        "redesign": {"not_entries": [], "chrome_steps": [REDESIGN_AT - 1]},
    });
    for more in [kinds::labels(), series::labels()] {
        if let (Some(all), serde_json::Value::Object(more)) = (labels.as_object_mut(), more) {
            all.extend(more);
        }
    }
    write(&dir.join("labels.json"), labels.to_string().as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_writes_the_same_corpus() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        generate(a.path(), 7, 3).unwrap();
        generate(b.path(), 7, 3).unwrap();
        for site in ["forum-gbk", "news", "biglist"] {
            for f in ["0000.html", "0002.html", "truth.json"] {
                let x = std::fs::read(a.path().join(site).join(f)).unwrap();
                let y = std::fs::read(b.path().join(site).join(f)).unwrap();
                assert_eq!(x, y, "{site}/{f}");
            }
        }
        // the GBK page is GBK
        let gbk = std::fs::read(a.path().join("forum-gbk/0000.html")).unwrap();
        assert!(std::str::from_utf8(&gbk).is_err());
    }
}
