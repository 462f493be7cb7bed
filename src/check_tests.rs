//! Tests of one check below the service.

use super::*;
use crate::analysis::Analysis;

fn watch(depth: u8) -> Watch {
    Watch {
        depth,
        ..Watch::of_url("https://example.org/news/", 0)
    }
}

/// Only a deep watch's check keeps a copy of the pass (and gathers the page's
/// text) for its crawl; a plain watch's check does neither.
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
    for depth in [1, 2] {
        let w = watch(depth);
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
        assert_eq!(input.keep_pass, depth > 1);
        let analysis = analyse_stored(&store, &w, &state, &input, 0)
            .expect("store")
            .expect("usable page");
        let Analysis::Changed(c) = analysis else {
            panic!("a first look changes");
        };
        assert_eq!(c.pass.is_some(), depth > 1, "depth {depth}");
        assert_eq!(c.pass.is_some_and(|p| p.text.is_some()), depth > 1);
    }
}
