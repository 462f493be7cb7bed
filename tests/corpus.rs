//! Checks on real page histories from the snapshot corpus (`../shared/corpus` beside the
//! repository, or `$SITEFEED_CORPUS`): missing, the tests print `SKIPPED:` and pass,
//! except in CI (`CI=true`), where they fail.

use std::collections::HashSet;
use std::path::PathBuf;

use url::Url;

fn corpus_dir() -> Option<PathBuf> {
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

/// The Apple newsroom history, watched with `select = "main"`, checked version after
/// version: one entry is one item, once in the whole sequence, titled by its text (not
/// by its URL, which is what an empty hidden link to the same story would give).
#[test]
fn one_entry_is_one_item_titled_by_its_text_on_a_real_history() {
    let Some(dir) = corpus_dir() else { return };
    let site = dir.join("apple-newsroom");
    let files: Vec<PathBuf> = (0..=5).map(|i| site.join(format!("{i:04}.html"))).collect();
    let base = Url::parse("https://www.apple.com/newsroom/").expect("url");
    let steps = sitefeed::offline::replay_steps(
        &files,
        &base,
        Some("main"),
        &sitefeed::analysis::Params::default(),
    )
    .expect("replay");
    let mut ids = HashSet::new();
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
