//! Politeness against local sites (127.0.0.1 only): robots.txt, 429/503 with
//! Retry-After, retries, conditional GET, the User-Agent, and per-host spacing seen from
//! the servers' own request logs. Each test checks the outcome and what was stored.

mod common;

use std::time::Duration;

use common::{list, watch, Canned, Site};
use sitefeed::model::Status;
use sitefeed::runner::Runner;
use sitefeed::schedule::clock::Clock;

const PAGE: &[(&str, &str)] = &[("First notice", "/n/1"), ("Second notice", "/n/2")];

#[tokio::test]
async fn robots_disallow_is_obeyed_and_cached() {
    let site = Site::empty().await;
    site.route(
        "/robots.txt",
        vec![Canned::new(
            200,
            "text/plain",
            "User-agent: *\nDisallow: /private\n",
        )],
    );
    site.route("/private/list", vec![Canned::html(list(PAGE))]);
    site.route("/public/list", vec![Canned::html(list(PAGE))]);
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, _) = common::app(dir.path());
    let private = watch(&app, &site.url_of("/private/list"));
    let public = watch(&app, &site.url_of("/public/list"));

    let w = app.store().watch(&private).expect("read").expect("watch");
    let report = app.check(&w, false).await.expect("check");
    let err = report.error.expect("refused by robots.txt");
    assert!(
        err.contains("robots.txt") && err.contains("/private/list"),
        "{err}"
    );
    let st = app
        .store()
        .state(&private)
        .expect("state")
        .expect("present");
    assert_eq!(st.status, Status::Error);
    assert_eq!(st.error.as_deref(), Some(err.as_str()));
    assert!(app.store().links(&private).expect("links").is_empty());
    assert_eq!(
        site.hits("/private/list"),
        0,
        "the page was never requested"
    );

    let w = app.store().watch(&public).expect("read").expect("watch");
    let report = app.check(&w, false).await.expect("check");
    assert!(report.error.is_none(), "{:?}", report.error);
    assert_eq!(app.store().links(&public).expect("links").len(), 2);
    assert_eq!(site.hits("/robots.txt"), 1, "robots.txt is cached per host");
}

#[tokio::test]
async fn robots_allow_for_our_agent_and_user_agent_names_a_contact() {
    let site = Site::empty().await;
    site.route(
        "/robots.txt",
        vec![Canned::new(
            200,
            "text/plain",
            "User-agent: *\nDisallow: /\n\nUser-agent: sitefeed\nAllow: /\n",
        )],
    );
    site.route("/", vec![Canned::html(list(PAGE))]);
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, _) = common::app(dir.path());
    let id = watch(&app, &site.url_of("/"));
    let w = app.store().watch(&id).expect("read").expect("watch");
    let report = app.check(&w, false).await.expect("check");
    assert!(report.error.is_none(), "{:?}", report.error);
    let st = app.store().state(&id).expect("state").expect("present");
    assert_eq!(st.status, Status::Ok);
    assert_eq!(app.store().links(&id).expect("links").len(), 2);
    for hit in site.log() {
        let ua = hit.headers["user-agent"].to_str().expect("ascii");
        assert!(ua.starts_with("sitefeed/") && ua.contains("(+http"), "{ua}");
    }
}

#[tokio::test]
async fn a_429_with_a_long_retry_after_moves_the_next_check_and_holds_the_host() {
    let site = Site::empty().await;
    site.route("/a", vec![Canned::status(429).header("retry-after", "120")]);
    site.route("/b", vec![Canned::html(list(PAGE))]);
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, clock) = common::app(dir.path());
    let a = watch(&app, &site.url_of("/a"));
    let b = watch(&app, &site.url_of("/b"));
    let now = clock.now();

    let w = app.store().watch(&a).expect("read").expect("watch");
    let report = app.check(&w, false).await.expect("check");
    let err = report.error.expect("429");
    assert!(
        err.contains("429") && err.contains("Retry-After: 120s"),
        "{err}"
    );
    let st = app.store().state(&a).expect("state").expect("present");
    assert_eq!(st.status, Status::Error);
    assert!(
        st.next_check >= now + 120,
        "Retry-After honoured by the schedule"
    );
    assert_eq!(
        site.hits("/a"),
        1,
        "a long Retry-After is not waited for by retrying"
    );

    // Another watch on the same host is deferred without a request: not an error.
    let w = app.store().watch(&b).expect("read").expect("watch");
    let report = app.check(&w, false).await.expect("check");
    assert_eq!(report.error_kind, Some("deferred"), "{:?}", report.error);
    let st = app.store().state(&b).expect("state").expect("present");
    assert_eq!(st.status, Status::New, "a deferral is not a failure");
    assert_eq!(st.consecutive_errors, 0);
    assert!(st.next_check >= now + 110, "{}", st.next_check - now);
    assert_eq!(site.hits("/b"), 0);
}

#[tokio::test]
async fn a_short_retry_after_is_waited_for_then_retried() {
    let site = Site::empty().await;
    site.route(
        "/",
        vec![
            Canned::status(429).header("retry-after", "1"),
            Canned::html(list(PAGE)),
        ],
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, _) = common::app(dir.path());
    let id = watch(&app, &site.url_of("/"));
    let w = app.store().watch(&id).expect("read").expect("watch");
    let report = app.check(&w, false).await.expect("check");
    assert!(report.error.is_none(), "{:?}", report.error);
    let hits: Vec<_> = site.log().into_iter().filter(|h| h.path == "/").collect();
    assert_eq!(hits.len(), 2);
    assert!(
        hits[1].start >= hits[0].end + Duration::from_secs(1),
        "waited for Retry-After"
    );
    assert_eq!(app.store().links(&id).expect("links").len(), 2);
}

#[tokio::test]
async fn a_503_then_200_is_retried_within_the_check() {
    let site = Site::empty().await;
    site.route("/", vec![Canned::status(503), Canned::html(list(PAGE))]);
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, _) = common::app(dir.path());
    let id = watch(&app, &site.url_of("/"));
    let w = app.store().watch(&id).expect("read").expect("watch");
    let report = app.check(&w, false).await.expect("check");
    assert!(report.error.is_none(), "{:?}", report.error);
    assert_eq!(site.hits("/"), 2);
    let st = app.store().state(&id).expect("state").expect("present");
    assert_eq!(st.status, Status::Ok);
    assert_eq!(st.consecutive_errors, 0);
    assert_eq!(app.store().links(&id).expect("links").len(), 2);
}

#[tokio::test]
async fn persistent_5xx_fails_after_the_retries_and_backs_off() {
    let site = Site::empty().await;
    site.route("/", vec![Canned::status(500)]);
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, clock) = common::app_with(dir.path(), |c| {
        c.fetch.retries = 2;
    });
    let id = watch(&app, &site.url_of("/"));
    let w = app.store().watch(&id).expect("read").expect("watch");
    let report = app.check(&w, false).await.expect("check");
    let err = report.error.expect("500");
    assert!(err.contains("500 Internal Server Error"), "{err}");
    assert_eq!(site.hits("/"), 3, "one attempt and two retries");
    let st = app.store().state(&id).expect("state").expect("present");
    assert_eq!((st.status, st.consecutive_errors), (Status::Error, 1));
    assert!(st.next_check - clock.now() >= 3600, "the watch backs off");

    // The host is paused now: the next check right away is a deferral, without a
    // request, and the watch keeps its error.
    let report = app.check(&w, false).await.expect("check");
    assert_eq!(report.error_kind, Some("deferred"), "{:?}", report.error);
    assert!(
        report
            .error
            .as_deref()
            .is_some_and(|e| e.contains("paused after 1 failed")),
        "{:?}",
        report.error
    );
    assert_eq!(site.hits("/"), 3);
    let after = app.store().state(&id).expect("state").expect("present");
    assert_eq!(after.error, st.error);
    assert_eq!(after.consecutive_errors, 1);
}

/// One host that never answers, with many due watches, and a small worker pool: the
/// other hosts' watches are all checked while the first request still hangs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hanging_host_does_not_delay_other_hosts() {
    hanging_host(common::Misbehave::Hang, "timed out").await;
}

/// The same when robots.txt hangs too: the checks that wait for it are bounded as well.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_with_a_hanging_robots_txt_does_not_delay_other_hosts() {
    hanging_host(common::Misbehave::HangAll, "robots.txt").await;
}

async fn hanging_host(how: common::Misbehave, error: &str) {
    let (hang, connections, hung_up) = common::raw_server_logged(how).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, clock) = common::app_with(dir.path(), |c| {
        c.fetch.global_concurrency = 4;
        c.fetch.timeout = Duration::from_secs(3);
        c.fetch.retries = 0;
    });
    let bad_ids: Vec<_> = (0..6)
        .map(|p| watch(&app, &format!("http://{hang}/?p={p}")))
        .collect();
    // With 4 workers a host may have one request in flight and one waiting: two
    // watches per good host are never deferred for their own host's queue.
    let mut goods = Vec::new();
    let mut good_ids = Vec::new();
    for _ in 0..3 {
        let good = Site::empty().await;
        for p in 0..2 {
            let path = format!("/?p={p}");
            good.route(&path, vec![Canned::html(list(PAGE))]);
            good_ids.push(watch(&app, &good.url_of(&path)));
        }
        goods.push(good);
    }
    let runner = Runner::new(app.clone());
    runner.dispatch(clock.now()).await;
    runner.wait_idle().await;
    for id in &good_ids {
        let st = app.store().state(id).expect("state").expect("present");
        assert_eq!(st.status, Status::Ok, "{:?}", st.error);
    }
    // An order, not a duration: every request to the good hosts reached them while the
    // hanging request was still open, before the fetcher gave up on it (its hang-up is
    // seen by the hanging server, a moment after the timeout).
    let last = goods
        .iter()
        .flat_map(Site::log)
        .map(|h| h.start)
        .max()
        .expect("hits");
    let mut gave_up = None;
    for _ in 0..500 {
        gave_up = hung_up.lock().expect("hung up").first().copied();
        if gave_up.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let gave_up = gave_up.expect("the fetcher hung up the hanging request");
    assert!(
        last < gave_up,
        "the good hosts were served while the hanging one was still waited for"
    );
    assert_eq!(
        *connections.lock().expect("count"),
        1,
        "one request hung; the rest waited"
    );
    let mut failed = 0;
    for id in &bad_ids {
        let st = app.store().state(id).expect("state").expect("present");
        match st.status {
            Status::Error => {
                failed += 1;
                assert!(
                    st.error.as_deref().is_some_and(|e| e.contains(error)),
                    "{:?}",
                    st.error
                );
            }
            // Deferred, or left waiting for the host by the scheduler: never checked.
            Status::New => assert_eq!(st.checks, 0),
            Status::Ok => panic!("a hanging host cannot be Ok"),
        }
    }
    // The first check fails; one that waited its turn may fail the same cheap way
    // (from the cached robots.txt verdict); the rest were deferred.
    assert!((1..=2).contains(&failed), "{failed}");
}

#[tokio::test]
async fn conditional_get_stores_validators_and_uses_them() {
    let site = Site::empty().await;
    site.route(
        "/",
        vec![Canned::html(list(PAGE))
            .header("etag", "\"v1\"")
            .header("last-modified", "Wed, 21 Oct 2015 07:28:00 GMT")],
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, clock) = common::app(dir.path());
    let id = watch(&app, &site.url_of("/"));
    let w = app.store().watch(&id).expect("read").expect("watch");
    app.check(&w, false).await.expect("check");
    let st = app.store().state(&id).expect("state").expect("present");
    assert_eq!(st.etag.as_deref(), Some("\"v1\""));
    assert_eq!(
        st.last_modified.as_deref(),
        Some("Wed, 21 Oct 2015 07:28:00 GMT")
    );
    clock.advance(3600);
    let report = app.check(&w, false).await.expect("check");
    assert!(report.error.is_none() && !report.changed);
    let last = site.log().pop().expect("a request");
    assert_eq!(last.headers["if-none-match"], "\"v1\"");
    assert_eq!(
        last.headers["if-modified-since"],
        "Wed, 21 Oct 2015 07:28:00 GMT"
    );
    let st = app.store().state(&id).expect("state").expect("present");
    assert_eq!(st.etag.as_deref(), Some("\"v1\""), "kept across a 304");
    assert_eq!(app.store().links(&id).expect("links").len(), 2);
}

/// Many watches on a few hosts, run by the scheduler: from each server's own log, no
/// two requests were ever closer than the delay, nor at once; and every watch got
/// checked. A host is host:port, so each local server is one host.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_watches_on_few_hosts_respect_the_per_host_delay() {
    const HOSTS: usize = 4;
    const PER_HOST: usize = 6;
    let delay = Duration::from_millis(150);
    let mut sites = Vec::new();
    for _ in 0..HOSTS {
        let s = Site::empty().await;
        for p in 0..PER_HOST {
            s.route(
                &format!("/?p={p}"),
                vec![Canned::html(list(PAGE)).work(Duration::from_millis(20))],
            );
        }
        sites.push(s);
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, clock) = common::app_with(dir.path(), |c| {
        c.fetch.per_host_delay = delay;
        c.fetch.global_concurrency = 8;
    });
    let mut ids = Vec::new();
    for s in &sites {
        for p in 0..PER_HOST {
            ids.push(watch(&app, &s.url_of(&format!("/?p={p}"))));
        }
    }
    let runner = Runner::new(app.clone());
    // Deferred watches come back once their host has time: move the clock on until
    // every watch was checked (bounded).
    for _ in 0..20 {
        runner.dispatch(clock.now()).await;
        runner.wait_idle().await;
        let done = ids
            .iter()
            .filter(|id| {
                app.store()
                    .state(id)
                    .expect("state")
                    .is_some_and(|s| s.checks > 0)
            })
            .count();
        if done == ids.len() {
            break;
        }
        clock.advance(60);
    }
    for id in &ids {
        let st = app.store().state(id).expect("state").expect("present");
        assert_eq!(st.status, Status::Ok, "{id}: {:?}", st.error);
    }
    for s in &sites {
        let mut log = s.log();
        log.sort_by_key(|h| h.start);
        assert_eq!(
            log.iter().filter(|h| h.path != "/robots.txt").count(),
            PER_HOST
        );
        for pair in log.windows(2) {
            let gap = pair[1].start.saturating_duration_since(pair[0].end);
            assert!(
                pair[1].start >= pair[0].end + delay,
                "{}: {} then {} only {gap:?} apart",
                s.addr,
                pair[0].path,
                pair[1].path
            );
        }
    }
}

#[tokio::test]
async fn robots_meta_nofollow_is_recorded_for_deep_watches() {
    let site = Site::empty().await;
    let html = list(PAGE).replace(
        "<title>",
        "<meta name=\"robots\" content=\"noindex, nofollow\"><title>",
    );
    site.route("/", vec![Canned::html(html)]);
    site.route("/open", vec![Canned::html(list(PAGE))]);
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, _) = common::app(dir.path());
    for (path, expect) in [("/", true), ("/open", false)] {
        let id = watch(&app, &site.url_of(path));
        let w = app.store().watch(&id).expect("read").expect("watch");
        let report = app.check(&w, false).await.expect("check");
        assert!(report.error.is_none(), "{:?}", report.error);
        let st = app.store().state(&id).expect("state").expect("present");
        assert_eq!(st.nofollow, expect, "{path}");
        assert_eq!(app.store().links(&id).expect("links").len(), 2);
    }
}
