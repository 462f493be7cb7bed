//! The service under load: the web server stays responsive while big pages are analysed,
//! feeds of long articles rendered and the list of many watches read (CPU work runs on a
//! bounded blocking pool, not on the async workers), and checks of many watches on one
//! slow host are served fairly. Local sites on 127.0.0.1:0.

mod common;

use std::fmt::Write;
use std::time::{Duration, Instant};

use common::Site;
use sitefeed::app::NewWatch;
use sitefeed::schedule::clock::Clock;

/// A list page of about `bytes` bytes: entries with a link and some text.
fn big_page(bytes: usize) -> String {
    let mut s = String::from("<!doctype html><html><head><title>Big</title></head><body><ul>");
    let mut i = 0;
    while s.len() < bytes {
        let _ = write!(
            s,
            "<li><a href=\"/n/{i}\">Notice number {i}</a> <span>posted by someone, with a few \
             words of summary so the page is mostly text around its links</span></li>"
        );
        i += 1;
    }
    s.push_str("</ul></body></html>");
    s
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn healthz_answers_while_ten_big_pages_are_analysed() {
    let page = big_page(5_000_000);
    let mut sites = Vec::new();
    for _ in 0..10 {
        let s = Site::start(&[]).await;
        s.set_raw("text/html; charset=utf-8", page.clone());
        sites.push(s);
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, _clock) = common::app_with(dir.path(), |c| {
        c.fetch.max_body_bytes = 6_000_000;
        c.fetch.timeout = Duration::from_secs(300);
    });
    let base = common::serve(app.clone()).await;
    let mut checks = Vec::new();
    for s in &sites {
        let (w, _) = app
            .add_watch(&NewWatch {
                url: s.url(),
                ..Default::default()
            })
            .expect("add");
        let app = app.clone();
        checks.push(tokio::spawn(async move { app.check(&w, false).await }));
    }
    // Probe from a thread of its own, on a fixed beat whatever the answers do, so a
    // stalled server shows in every probe that falls into the stall.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let prober = {
        let stop = stop.clone();
        let url = format!("{base}/healthz");
        std::thread::spawn(move || probe(&url, &stop))
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    while checks.iter().any(|c| !c.is_finished()) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    let mut took = prober.join().expect("prober");
    // Every page was fetched and analysed (on a busy machine an analysis may hit the
    // extraction's time limit: the work was done all the same).
    for c in checks {
        c.await.expect("task").expect("check");
    }
    for s in &sites {
        assert!(s.requests() >= 1);
    }
    took.sort();
    let median = took[took.len() / 2];
    let p90 = took[took.len() * 9 / 10];
    let slow = took
        .iter()
        .filter(|t| **t >= Duration::from_millis(100))
        .count();
    eprintln!(
        "healthz during analysis: {} probes, median {median:?}, p90 {p90:?}, {slow} of 100 ms \
         or more, max {:?}",
        took.len(),
        took.last().expect("probes")
    );
    assert!(
        took.len() >= 5,
        "the analyses were too quick to probe: {took:?}"
    );
    // A bound on the typical answer, generous for a busy machine: with the analyses on
    // the async workers, every probe that lands during one waits for it whole (seconds).
    assert!(
        median < Duration::from_millis(100),
        "the web server stalled: median {median:?}, p90 {p90:?}, {slow} of {} probes slow",
        took.len()
    );
}

/// An article of about `bytes` bytes: paragraphs of words, links and markup, which the
/// sanitizer reads and writes out whole.
fn long_article(n: usize, bytes: usize) -> String {
    let mut s = format!("<article><h1>Article {n}</h1>");
    let mut i = 0;
    while s.len() < bytes {
        let _ = write!(
            s,
            "<p class=\"para\" onclick=\"steal()\">Paragraph {i} of article {n}, with \
             <a href=\"/ref/{i}\">a reference</a>, <b>some</b> <i>words</i> and \
             <span style=\"color:red\">a note</span>.</p>"
        );
        i += 1;
    }
    s.push_str("</article>");
    s
}

/// The answers stay quick while feeds whose items hold long articles are asked for
/// again and again: reading the items, sanitizing the articles, rendering and compressing
/// run on the CPU pool (the tag feed is rendered for each request; the API's list too).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn healthz_answers_while_feeds_of_long_articles_are_rendered() {
    let entries: Vec<(String, String)> = (0..12)
        .map(|i| (format!("Story {i} about the harbour"), format!("/n/{i}")))
        .collect();
    let site = Site::empty().await;
    site.set(&entries);
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, _clock) = common::app_with(dir.path(), |_| {});
    let base = common::serve(app.clone()).await;
    let (w, _) = app
        .add_watch(&NewWatch {
            url: site.url(),
            tags: vec!["long".into()],
            backfill: Some(12),
            ..Default::default()
        })
        .expect("add");
    app.check(&w, false).await.expect("baseline");
    let items = app.store().items(&w.id, 100).expect("items");
    assert_eq!(items.len(), 12, "the backfill");
    let articles: Vec<(String, String)> = items
        .iter()
        .enumerate()
        .map(|(n, i)| (i.id.clone(), long_article(n, 150_000)))
        .collect();
    app.store()
        .add_full_text(&w.id, &articles, &[], &[])
        .expect("articles");

    let paths = vec![
        "/feed/tag/long.xml".to_owned(),
        "/feed/tag/long.atom".to_owned(),
        "/feed/tag/long.json".to_owned(),
        format!("/api/watches/{}/items", w.id),
    ];
    answered_while_asked(&base, paths, |body| {
        body.contains("Paragraph 9 of article 3") && !body.contains("steal()")
    })
    .await;
}

/// The answers stay quick while the list of many watches is asked for again and again:
/// reading every watch and its state, filtering, sorting and writing out the list run on
/// the CPU pool (the API's list and the web page's alike).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn healthz_answers_while_the_list_of_many_watches_is_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, clock) = common::app_with(dir.path(), |_| {});
    let base = common::serve(app.clone()).await;
    let state = sitefeed::state::WatchState::new(
        clock.now() + 86_400,
        sitefeed::schedule::Adaptive::initial(&app.config().schedule),
    );
    for i in 0..10_000 {
        let url = format!("https://site{}.example/notices/{i}", i % 97);
        let mut w = sitefeed::model::Watch::of_url(&url, clock.now());
        w.options.tags = vec![format!("group{}", i % 7)];
        app.store().insert_watch(&w, &state).expect("insert");
    }
    let paths = vec![
        "/api/watches?sort=-url".to_owned(),
        "/api/watches?q=notices&sort=title&per_page=50".to_owned(),
        "/?sort=url".to_owned(),
        "/?tag=group3".to_owned(),
    ];
    answered_while_asked(&base, paths, |body| body.contains(".example/notices/")).await;
}

/// Asks for each of `paths` (one client each, again and again) for three seconds while
/// `/healthz` is probed, and fails when the probes' median is 100 ms or more. Every
/// answer must be a 200 whose body `ok` accepts.
async fn answered_while_asked(base: &str, paths: Vec<String>, ok: fn(&str) -> bool) {
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut readers = Vec::new();
    for path in paths {
        let (url, stop) = (format!("{base}{path}"), stop.clone());
        readers.push(tokio::spawn(async move {
            let c = reqwest::Client::new();
            let mut served = 0;
            while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                let r = c.get(&url).send().await.expect("answer");
                assert_eq!(r.status(), 200, "{url}");
                let body = r.text().await.expect("body");
                let start: String = body.chars().take(300).collect();
                assert!(ok(&body), "{url}: {start}");
                served += 1;
            }
            served
        }));
    }
    let prober = {
        let (stop, url) = (stop.clone(), format!("{base}/healthz"));
        std::thread::spawn(move || probe(&url, &stop))
    };
    tokio::time::sleep(Duration::from_secs(3)).await;
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    let mut took = prober.join().expect("prober");
    let mut served = 0;
    for r in readers {
        served += r.await.expect("reader");
    }
    took.sort();
    let median = took[took.len() / 2];
    eprintln!(
        "healthz during {served} answers: {} probes, median {median:?}, max {:?}",
        took.len(),
        took.last().expect("probes")
    );
    assert!(served >= 4, "every reader was served: {served}");
    // As above: on the async workers, a probe that lands during one waits for it.
    assert!(
        median < Duration::from_millis(100),
        "the web server stalled: median {median:?} over {} probes",
        took.len()
    );
}

/// Sends `GET url` every 50 ms, each on its own, until `stop`; returns how long each took.
fn probe(url: &str, stop: &std::sync::atomic::AtomicBool) -> Vec<Duration> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let client = reqwest::Client::new();
        let mut probes = Vec::new();
        while !stop.load(std::sync::atomic::Ordering::SeqCst) {
            let (c, url) = (client.clone(), url.to_owned());
            probes.push(tokio::spawn(async move {
                let t = Instant::now();
                let r = c.get(url).send().await.expect("healthz");
                assert_eq!(r.status(), 200);
                t.elapsed()
            }));
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let mut took = Vec::new();
        for p in probes {
            took.push(p.await.expect("probe"));
        }
        took
    })
}

#[tokio::test]
async fn fifty_watches_on_one_slow_host_are_all_checked_in_turn() {
    let site = Site::start(&[("A", "/n/1"), ("B", "/n/2")]).await;
    site.set_delay(Duration::from_millis(20));
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, clock) = common::app_with(dir.path(), |c| {
        c.fetch.global_concurrency = 8;
        c.schedule.strategy = sitefeed::config::Strategy::Fixed;
        c.schedule.initial_interval = Duration::from_secs(10);
        c.schedule.min_interval = Duration::from_secs(1);
    });
    let mut ids = Vec::new();
    for i in 0..50 {
        let (w, _) = app
            .add_watch(&NewWatch {
                url: format!("{}?p={i}", site.url()),
                ..Default::default()
            })
            .expect("add");
        ids.push(w.id);
    }
    let runner = sitefeed::runner::Runner::new(app.clone());
    // The host serves three checks per simulated second (one in flight, two queued);
    // fifty watches that want a check every ten seconds are more than it can serve.
    let checks = |app: &sitefeed::App| -> Vec<u64> {
        ids.iter()
            .map(|id| {
                app.store()
                    .state(id)
                    .expect("state")
                    .expect("present")
                    .checks
            })
            .collect()
    };
    let mut first_check = vec![None; ids.len()];
    for second in 0..60 {
        clock.advance(1);
        runner.dispatch(clock.now()).await;
        runner.wait_idle().await;
        for (i, n) in checks(&app).iter().enumerate() {
            if *n > 0 && first_check[i].is_none() {
                first_check[i] = Some(second);
            }
        }
    }
    let counts = checks(&app);
    let (min, max) = (
        *counts.iter().min().expect("min"),
        *counts.iter().max().expect("max"),
    );
    let total: u64 = counts.iter().sum();
    eprintln!("checks per watch over 60 s: min {min}, max {max}, total {total}: {counts:?}");
    let waited = first_check
        .iter()
        .map(|s| s.unwrap_or(u64::MAX))
        .max()
        .expect("max");
    assert!(total >= 100, "the host was kept busy: {total}");
    // Every watch got its first check within the time the host needs for all of them
    // (50 checks at about 3 per second), and none got more than its share.
    assert!(
        waited <= 25,
        "a watch waited {waited} s for its first check: {first_check:?}"
    );
    assert!(max - min <= 2, "unfair: {counts:?}");
}

#[tokio::test]
async fn metrics_gauges_follow_changes_without_reading_the_store() {
    let site = Site::start(&[("A", "/n/1")]).await;
    site.set_delay(Duration::from_millis(300));
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, clock) = common::app_with(dir.path(), |c| {
        c.fetch.global_concurrency = 4;
    });
    let base = common::serve(app.clone()).await;
    let client = reqwest::Client::new();
    let scrape = || {
        let (client, base) = (client.clone(), base.clone());
        async move {
            let m = common::get_text(&client, &format!("{base}/metrics")).await;
            move |name: &str| -> u64 {
                m.lines()
                    .find_map(|l| l.strip_prefix(name).and_then(|r| r.strip_prefix(' ')))
                    .unwrap_or_else(|| panic!("{name} missing"))
                    .parse()
                    .expect("number")
            }
        }
    };
    let mut ids = Vec::new();
    for i in 0..6 {
        ids.push(common::add_watch(&client, &base, &format!("{}?p={i}", site.url())).await);
    }
    assert_eq!(scrape().await("sitefeed_watches"), 6);
    let r = client
        .delete(format!("{base}/api/watches/{}", ids[0]))
        .send()
        .await
        .expect("delete");
    assert_eq!(r.status(), 204);
    assert_eq!(scrape().await("sitefeed_watches"), 5);
    // A watch written to the store behind the service's back is not seen: the scrape
    // reads the counters, it does not scan the watches.
    let hidden = sitefeed::model::Watch {
        id: sitefeed::model::WatchId::for_url("https://hidden.example/"),
        url: "https://hidden.example/".into(),
        title: None,
        depth: 1,
        select: None,
        keywords: Vec::new(),
        created: clock.now(),
        strategy: None,
        options: sitefeed::model::WatchOptions::default(),
        render: sitefeed::model::Render::Plain,
    };
    let state = sitefeed::state::WatchState::new(
        clock.now() + 86_400,
        sitefeed::schedule::Adaptive::initial(&app.config().schedule),
    );
    app.store().insert_watch(&hidden, &state).expect("insert");
    let m = scrape().await;
    assert_eq!(m("sitefeed_watches"), 5);
    assert_eq!(m("sitefeed_watches_by_render{render=\"plain\"}"), 5);
    // The queue: five due watches of one host, which takes two at once (one request in
    // flight, one queued): three wait.
    let runner = sitefeed::runner::Runner::new(app.clone());
    runner.dispatch(clock.now()).await;
    let m = scrape().await;
    assert_eq!(
        (m("sitefeed_queue_depth"), m("sitefeed_checks_running")),
        (3, 2)
    );
    runner.wait_idle().await;
    assert_eq!(scrape().await("sitefeed_checks_running"), 0);
    assert_eq!(scrape().await("sitefeed_storage_failing"), 0);
}
