//! Limits against misbehaving local servers (127.0.0.1 only): a slow drip, an endless
//! body, redirect loops and chains, a gzip bomb, compressed pages, and types that are
//! not HTML. Each test checks the outcome and that nothing stored was lost.

mod common;

use std::io::Write;
use std::time::Duration;

use common::{list, raw_server, watch, Canned, Misbehave, Site};
use sitefeed::model::{Status, WatchId};
use sitefeed::App;

const PAGE: &[(&str, &str)] = &[("First notice", "/n/1"), ("Second notice", "/n/2")];

async fn check(app: &App, id: &WatchId) -> sitefeed::check::CheckReport {
    let w = app.store().watch(id).expect("read").expect("watch");
    app.check(&w, false).await.expect("check runs")
}

fn assert_failed(app: &App, id: &WatchId, report: &sitefeed::check::CheckReport, words: &str) {
    let err = report.error.as_deref().expect("the check failed");
    assert!(err.contains(words), "`{err}` should say `{words}`");
    let st = app.store().state(id).expect("state").expect("present");
    assert_eq!(st.status, Status::Error);
    assert_eq!(st.error.as_deref(), Some(err));
    assert!(st.consecutive_errors >= 1);
}

#[tokio::test]
async fn a_slow_drip_is_cut_off_by_the_stall_rule() {
    let (addr, count) = raw_server(Misbehave::Drip {
        every: Duration::from_millis(200),
    })
    .await;
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, _) = common::app_with(dir.path(), |c| {
        c.fetch.stall_timeout = Duration::from_secs(1);
        c.fetch.timeout = Duration::from_secs(30);
        c.fetch.retries = 1;
    });
    let id = watch(&app, &format!("http://{addr}/"));
    let report = check(&app, &id).await;
    // Cut off by the stall rule (1 s), not the total timeout (30 s).
    assert_failed(&app, &id, &report, "less than 1 KiB in 1s");
    assert_eq!(report.error_kind, Some("timeout"));
    assert_eq!(*count.lock().expect("count"), 2, "a stall is retried once");
    assert!(app.store().links(&id).expect("links").is_empty());
}

#[tokio::test]
async fn an_endless_body_hits_the_size_cap() {
    let (addr, _) = raw_server(Misbehave::Endless).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, _) = common::app_with(dir.path(), |c| {
        c.fetch.max_body_bytes = 200_000;
    });
    let id = watch(&app, &format!("http://{addr}/"));
    let report = check(&app, &id).await;
    assert_failed(&app, &id, &report, "larger than the limit of 200000 bytes");
    assert_eq!(report.error_kind, Some("too_large"));
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(data).expect("gzip");
    e.finish().expect("gzip")
}

#[tokio::test]
async fn a_gzip_bomb_is_capped_on_decompressed_bytes() {
    // 1 MiB of zeros per write, 32 writes: ~32 KiB on the wire, 32 MiB unpacked.
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(b"<html><body>").expect("gzip");
    let zeros = vec![b' '; 1 << 20];
    for _ in 0..32 {
        e.write_all(&zeros).expect("gzip");
    }
    let bomb = e.finish().expect("gzip");
    assert!(bomb.len() < 200_000, "{}", bomb.len());
    let (addr, _) = raw_server(Misbehave::Raw {
        head: "content-type: text/html\r\ncontent-encoding: gzip\r\n".into(),
        body: bomb,
    })
    .await;
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, _) = common::app_with(dir.path(), |c| {
        c.fetch.max_body_bytes = 1_000_000;
    });
    let id = watch(&app, &format!("http://{addr}/"));
    let report = check(&app, &id).await;
    assert_failed(&app, &id, &report, "larger than the limit of 1000000 bytes");
}

#[tokio::test]
async fn gzip_deflate_and_brotli_pages_are_decoded() {
    let html = list(PAGE);
    let mut deflate = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    deflate.write_all(html.as_bytes()).expect("deflate");
    let mut br = Vec::new();
    {
        let mut w = brotli::CompressorWriter::new(&mut br, 4096, 5, 22);
        w.write_all(html.as_bytes()).expect("brotli");
    }
    for (encoding, body) in [
        ("gzip", gzip(html.as_bytes())),
        ("deflate", deflate.finish().expect("deflate")),
        ("br", br),
    ] {
        let (addr, _) = raw_server(Misbehave::Raw {
            head: format!("content-type: text/html\r\ncontent-encoding: {encoding}\r\n"),
            body,
        })
        .await;
        let dir = tempfile::tempdir().expect("tempdir");
        let (app, _) = common::app(dir.path());
        let id = watch(&app, &format!("http://{addr}/"));
        let report = check(&app, &id).await;
        assert!(report.error.is_none(), "{encoding}: {:?}", report.error);
        let texts: Vec<String> = app
            .store()
            .links(&id)
            .expect("links")
            .into_iter()
            .map(|l| l.text)
            .collect();
        assert_eq!(texts, ["First notice", "Second notice"], "{encoding}");
    }
}

#[tokio::test]
async fn redirect_loops_and_long_chains_are_refused() {
    let site = Site::empty().await;
    site.route("/a", vec![Canned::redirect("/b")]);
    site.route("/b", vec![Canned::redirect("/a")]);
    for i in 0..10 {
        site.route(
            &format!("/chain/{i}"),
            vec![Canned::redirect(&format!("/chain/{}", i + 1))],
        );
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, _) = common::app_with(dir.path(), |c| {
        c.fetch.max_redirects = 5;
    });
    let looped = watch(&app, &site.url_of("/a"));
    let report = check(&app, &looped).await;
    assert_failed(&app, &looped, &report, "redirect loop");
    assert_eq!(report.error_kind, Some("redirect"));
    assert_eq!((site.hits("/a"), site.hits("/b")), (1, 1));

    let chain = watch(&app, &site.url_of("/chain/0"));
    let report = check(&app, &chain).await;
    assert_failed(&app, &chain, &report, "more than 5 redirects");
    assert_eq!(site.hits("/chain/5"), 1);
    assert_eq!(
        site.hits("/chain/6"),
        0,
        "the hop past the cap is not requested"
    );
}

#[tokio::test]
async fn non_html_types_are_refused_and_the_stored_page_is_kept() {
    let site = Site::empty().await;
    site.route("/", vec![Canned::html(list(PAGE))]);
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, clock) = common::app(dir.path());
    let id = watch(&app, &site.url_of("/"));
    assert!(check(&app, &id).await.error.is_none());
    let before = app.store().links(&id).expect("links");
    assert_eq!(before.len(), 2);
    for (ct, body) in [
        ("text/plain; charset=utf-8", b"just text".to_vec()),
        ("application/pdf", b"%PDF-1.4 ...".to_vec()),
    ] {
        site.route("/", vec![Canned::new(200, ct, body)]);
        clock.advance(3600);
        let report = check(&app, &id).await;
        assert_failed(
            &app,
            &id,
            &report,
            &format!("not an HTML page (Content-Type: {ct})"),
        );
        assert_eq!(report.error_kind, Some("not_html"));
        assert_eq!(
            app.store().links(&id).expect("links"),
            before,
            "nothing stored is lost"
        );
    }
    // The page comes back: the watch recovers from its stored baseline.
    site.route(
        "/",
        vec![Canned::html(list(&[("Third", "/n/3"), PAGE[0], PAGE[1]]))],
    );
    clock.advance(86_400);
    let report = check(&app, &id).await;
    assert!(report.error.is_none(), "{:?}", report.error);
    let titles: Vec<_> = report.new_items.iter().map(|i| i.title.as_str()).collect();
    assert_eq!(titles, ["Third"]);
    let st = app.store().state(&id).expect("state").expect("present");
    assert_eq!((st.status, st.consecutive_errors), (Status::Ok, 0));
}
