//! The scheduler on an injected clock: due watches run, others wait; no sleeping.

mod common;

use common::Site;
use sitefeed::app::NewWatch;
use sitefeed::runner::Runner;
use sitefeed::schedule::clock::Clock;

#[tokio::test]
async fn runner_checks_due_watches_and_reschedules_them() {
    let site = Site::start(&[("A", "/n/1")]).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, clock) = common::app(dir.path());
    let mut ids = Vec::new();
    for path in ["", "?p=2", "?p=3"] {
        let (w, _) = app
            .add_watch(&NewWatch {
                url: format!("{}{path}", site.url()),
                ..Default::default()
            })
            .expect("add");
        ids.push(w.id);
    }
    let runner = Runner::new(app.clone());
    let t0 = clock.now();

    // New watches are due at once.
    assert_eq!(runner.dispatch(t0).await, 3);
    runner.wait_idle().await;
    assert_eq!(site.requests(), 3);
    for id in &ids {
        let st = app.store().state(id).expect("state").expect("present");
        assert_eq!(st.last_check, Some(t0));
        // initial_interval = 1h, no update: B = 1h + 1h/2.
        assert_eq!(
            st.next_check,
            t0 + 5400,
            "adaptive interval after a first check"
        );
    }

    // Nothing is due before the next check time.
    clock.advance(5399);
    assert_eq!(runner.dispatch(clock.now()).await, 0);
    assert_eq!(site.requests(), 3);

    // At the due time all three run again, once each.
    clock.advance(1);
    assert_eq!(runner.dispatch(clock.now()).await, 3);
    runner.wait_idle().await;
    assert_eq!(site.requests(), 6);

    // A removed watch is never checked again.
    app.remove(&ids[0]).await.expect("remove");
    clock.advance(86_400 * 2);
    assert_eq!(runner.dispatch(clock.now()).await, 2);
    runner.wait_idle().await;
    assert_eq!(site.requests(), 8);
}

#[tokio::test]
async fn failing_watches_back_off_and_do_not_block_others() {
    let site = Site::start(&[("A", "/n/1")]).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, clock) = common::app(dir.path());
    let (good, _) = app
        .add_watch(&NewWatch {
            url: site.url(),
            ..Default::default()
        })
        .expect("add");
    // Nothing listens on port 9 of loopback: connection refused.
    let (bad, _) = app
        .add_watch(&NewWatch {
            url: "http://127.0.0.1:9/".into(),
            ..Default::default()
        })
        .expect("add");
    let runner = Runner::new(app.clone());
    let t0 = clock.now();
    assert_eq!(runner.dispatch(t0).await, 2);
    runner.wait_idle().await;
    let g = app
        .store()
        .state(&good.id)
        .expect("state")
        .expect("present");
    let b = app.store().state(&bad.id).expect("state").expect("present");
    assert_eq!(g.status, sitefeed::model::Status::Ok);
    assert_eq!(b.status, sitefeed::model::Status::Error);
    assert!(
        b.error.as_deref().unwrap_or("").contains("connect"),
        "{:?}",
        b.error
    );
    // One failure: twice the usual interval.
    assert_eq!(b.next_check, t0 + 7200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn checks_never_exceed_the_global_concurrency_cap() {
    let site = Site::start(&[("A", "/n/1")]).await;
    site.set_delay(std::time::Duration::from_millis(100));
    let dir = tempfile::tempdir().expect("tempdir");
    // One site is one host, whose gate allows one request at a time by default: let
    // this host take them all, so that only the global cap limits.
    let (app, clock) = common::app_with(dir.path(), |c| {
        c.fetch.global_concurrency = 2;
        c.fetch.per_host_concurrency = 6;
    });
    for n in 0..6 {
        app.add_watch(&NewWatch {
            url: format!("{}?n={n}", site.url()),
            ..Default::default()
        })
        .expect("add");
    }
    let runner = Runner::new(app.clone());
    assert_eq!(runner.dispatch(clock.now()).await, 6);
    runner.wait_idle().await;
    assert_eq!(site.requests(), 6);
    assert_eq!(
        site.max_in_flight(),
        2,
        "two at a time: no more, and the cap is used"
    );
}
