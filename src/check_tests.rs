//! Tests of one check below the service.

use super::*;
use crate::analysis::{Analysis, Keep};

fn watch(depth: u8) -> Watch {
    Watch {
        depth,
        ..Watch::of_url("https://example.org/news/", 0)
    }
}

/// The service-wide rules of a check below the service: the defaults.
struct Defaults {
    sched: ScheduleConfig,
    deep: DeepConfig,
    tracking: Tracking,
}

impl Defaults {
    fn new() -> Self {
        Self {
            sched: ScheduleConfig::default(),
            deep: DeepConfig::default(),
            tracking: Tracking::default(),
        }
    }

    fn settings(&self) -> Settings<'_> {
        Settings {
            sched: &self.sched,
            deep: &self.deep,
            tracking: &self.tracking,
            full_text: FullText::default(),
        }
    }
}

/// Only a deep watch's check (deeper than its page, or with keywords) keeps a copy of the
/// pass for its crawl, with the page's text when the crawl has keywords to score it by;
/// a plain watch's check keeps nothing.
#[test]
fn only_a_deep_watch_keeps_the_pass() {
    let store = Store::temporary().expect("store");
    let tracking = Tracking::default();
    let page = crate::fetch::Page {
        url: Url::parse("https://example.org/news/").expect("url"),
        content_type: Some("text/html".into()),
        body: b"<ul><li><a href=/a>First story</a></li><li><a href=/b>Second story</a></li></ul>"
            .to_vec(),
        validators: Validators::default(),
    };
    let state = WatchState::new(0, schedule::Adaptive::initial(&ScheduleConfig::default()));
    for (depth, keywords) in [(1, ""), (2, ""), (2, "story"), (1, "story")] {
        let w = Watch {
            keywords: keywords.split_whitespace().map(String::from).collect(),
            ..watch(depth)
        };
        let crawl = crate::crawl::is_deep(&w)
            .then(|| {
                crate::crawl::Crawl::load(
                    &store,
                    DeepConfig::default(),
                    tracking.clone(),
                    w.clone(),
                )
            })
            .transpose()
            .expect("crawl state");
        let input = crate::crawl::root_input(&page, crawl.as_ref(), &tracking);
        // Keywords alone make a crawl too: it filters the page's items by relevance.
        let keep = match (depth, keywords) {
            (1, "") => Keep::Nothing,
            (_, "") => Keep::Pass,
            _ => Keep::PassAndText,
        };
        assert_eq!(
            input.keep_pass, keep,
            "depth {depth}, keywords {keywords:?}"
        );
        let analysis = analyse_stored(&store, &w, &state, &input, 0)
            .expect("store")
            .expect("usable page");
        let Analysis::Changed(c) = analysis else {
            panic!("a first look changes");
        };
        assert_eq!(c.pass.is_some(), keep != Keep::Nothing, "depth {depth}");
        assert_eq!(
            c.pass.is_some_and(|p| p.text.is_some()),
            keep == Keep::PassAndText,
            "depth {depth}, keywords {keywords:?}"
        );
    }
}

/// New bodies with the same links (a visit counter, a token) turn on reading a page's
/// links first; the same body, a 304 and a failure say nothing either way; new links with
/// most new bodies turn it off again.
#[test]
fn new_bodies_with_the_same_links_turn_on_reading_the_links_first() {
    let defaults = Defaults::new();
    let (sched, tracking, settings) = (&defaults.sched, &defaults.tracking, defaults.settings());
    let w = watch(1);
    let store = Store::temporary().expect("store");
    let page = |links: &str| crate::fetch::Page {
        url: Url::parse("https://example.org/news/").expect("url"),
        content_type: Some("text/html".into()),
        body: format!("<ul>{links}</ul>").into_bytes(),
        validators: Validators::default(),
    };
    let first = page("<li><a href=/a>First story</a></li>");
    let input = crate::crawl::root_input(&first, None, tracking);
    let mut st = WatchState::new(0, schedule::Adaptive::initial(sched));
    let baseline = analyse_stored(&store, &w, &st, &input, 0)
        .expect("store")
        .expect("usable page");
    st = settle(&settings, &w, &st, Ok(baseline), None, None, 1, 0).0;
    assert!(!st.prev().links_first, "a first check reads the whole page");
    let same_links = |raw: Option<&str>| {
        Ok(Analysis::Unchanged {
            raw_fingerprint: raw.map(str::to_owned),
            validators: None,
        })
    };
    let mut first_after = Vec::new();
    for (result, now) in [
        same_links(Some("b1")),
        same_links(None),
        Err(Failure::Page(Unusable::Empty)),
        same_links(Some("b2")),
        same_links(None),
        same_links(Some("b3")),
        same_links(Some("b4")),
    ]
    .into_iter()
    .zip(2..)
    {
        st = settle(&settings, &w, &st, result, None, None, now, 0).0;
        first_after.push(st.prev().links_first);
    }
    assert_eq!(
        first_after,
        [false, false, false, false, false, false, true],
        "from the fourth new body with the same links"
    );
    // New links with every new body: the whole page again within a few.
    let mut urls = String::from("<li><a href=/a>First story</a></li>");
    let mut first_after = Vec::new();
    for k in 0..4 {
        urls.insert_str(0, &format!("<li><a href=/n{k}>Story {k}</a></li>"));
        let next = page(&urls);
        let input = crate::crawl::root_input(&next, None, tracking);
        let changed = analyse_stored(&store, &w, &st, &input, 20 + k)
            .expect("store")
            .expect("usable page");
        assert!(
            matches!(changed, Analysis::Changed(_)),
            "new links are seen"
        );
        st = settle(&settings, &w, &st, Ok(changed), None, None, 20 + k, 0).0;
        first_after.push(st.prev().links_first);
    }
    assert!(!first_after[3], "{first_after:?}");
}

/// The scheduling facts of committed checks: a page that keeps its older entries lost
/// none; one whose whole list of entries since the first check scrolled off at once
/// probably lost some between the two looks.
#[test]
fn a_whole_list_scrolling_off_counts_as_a_probable_loss() {
    let defaults = Defaults::new();
    let (sched, tracking, settings) = (&defaults.sched, &defaults.tracking, defaults.settings());
    let w = watch(1);
    let store = Store::temporary().expect("store");
    let state = WatchState::new(0, schedule::Adaptive::initial(sched));
    assert!(store.insert_watch(&w, &state).expect("insert"));
    let nav = "<nav><a href=/about>About us</a> <a href=/contact>Contact</a></nav>";
    let list = |ids: &[&str]| {
        let mut html = format!("{nav}<main><ul>");
        for id in ids {
            html += "<li><a href=/story/";
            html += id;
            html += ">Council story number ";
            html += id;
            html += "</a></li>";
        }
        html + "</ul></main>"
    };
    let mut losses = Vec::new();
    for (ids, now) in [
        &["a1", "a2", "a3", "a4", "a5"][..],
        &["b1", "b2", "a1", "a2", "a3", "a4", "a5"],
        &["c1", "c2", "c3", "c4", "c5", "c6", "c7"],
    ]
    .into_iter()
    .zip([100, 200, 300])
    {
        let prev = store.state(&w.id).expect("state").expect("stored");
        let page = crate::fetch::Page {
            url: Url::parse("https://example.org/news/").expect("url"),
            content_type: Some("text/html".into()),
            body: list(ids).into_bytes(),
            validators: Validators::default(),
        };
        let input = crate::crawl::root_input(&page, None, tracking);
        let analysis = analyse_stored(&store, &w, &prev, &input, now)
            .expect("store")
            .map_err(Failure::Page);
        apply(&store, &settings, &w, &prev, analysis, now, 0, false, None).expect("commit");
        let after = store.state(&w.id).expect("state").expect("stored");
        losses.push(after.learned.page.probable_losses);
    }
    assert_eq!(losses, [0, 0, 1]);
}

/// [`run`] (committing) with the default deep, tracking and full-text settings: the
/// tests that drive one check below the service.
pub(crate) async fn run_with_defaults(
    store: &Store,
    fetcher: &Fetcher,
    sched: &ScheduleConfig,
    watch: &Watch,
    now: i64,
) -> Result<CheckReport, StoreError> {
    let (deep, tracking) = (DeepConfig::default(), Tracking::default());
    let settings = Settings {
        sched,
        deep: &deep,
        tracking: &tracking,
        full_text: FullText::default(),
    };
    let prev = store
        .state(&watch.id)?
        .ok_or_else(|| StoreError::NoWatch(watch.id.clone()))?;
    run(store, fetcher, &settings, watch, prev, now, false).await
}
