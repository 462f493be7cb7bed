//! End to end through the HTTP API: a local site evolves between checks and the served
//! RSS, Atom and JSON feeds carry exactly the added entries.

mod common;

use common::Site;

const NASTY: &str = "Tom & Jerry <b>bold</b> ]]> end\u{7}bell";

fn titles(feed: &feed_rs::model::Feed) -> Vec<String> {
    feed.entries
        .iter()
        .map(|e| {
            e.title
                .as_ref()
                .map(|t| t.content.clone())
                .unwrap_or_default()
        })
        .collect()
}

fn links(feed: &feed_rs::model::Feed) -> Vec<String> {
    feed.entries
        .iter()
        .map(|e| e.links[0].href.clone())
        .collect()
}

async fn get_feed(
    client: &reqwest::Client,
    base: &str,
    id: &str,
    ext: &str,
) -> feed_rs::model::Feed {
    let resp = client
        .get(format!("{base}/feed/{id}.{ext}"))
        .send()
        .await
        .expect("feed request");
    assert_eq!(resp.status(), 200, "{ext}");
    let body = resp.bytes().await.expect("feed body");
    if ext != "json" {
        // Well-formed XML from the first byte to the last.
        let mut reader = quick_xml::Reader::from_reader(body.as_ref());
        let mut buf = Vec::new();
        loop {
            match reader.read_event_into(&mut buf) {
                Ok(quick_xml::events::Event::Eof) => break,
                Ok(_) => {}
                Err(e) => panic!("{ext} is not well-formed XML: {e}"),
            }
            buf.clear();
        }
    }
    feed_rs::parser::parse(body.as_ref()).unwrap_or_else(|e| panic!("{ext} does not parse: {e}"))
}

async fn check(client: &reqwest::Client, base: &str, id: &str) -> serde_json::Value {
    let resp = client
        .post(format!("{base}/api/watches/{id}/check"))
        .send()
        .await
        .expect("check");
    assert_eq!(resp.status(), 200);
    resp.json().await.expect("check json")
}

#[tokio::test]
#[allow(clippy::too_many_lines, reason = "one scenario, step by step")]
async fn evolving_page_gives_exactly_the_added_items_in_every_format() {
    let v1: Vec<(String, String)> = (1..=10)
        .rev()
        .map(|i| (format!("Notice {i}"), format!("/n/{i}")))
        .collect();
    let as_ref = |v: &[(String, String)]| {
        v.iter()
            .map(|(a, b)| (a.clone(), b.clone()))
            .collect::<Vec<_>>()
    };
    let site = Site::start(&[]).await;
    let set = |v: &[(String, String)]| {
        let r: Vec<(&str, &str)> = v.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        site.set(&r);
    };
    set(&v1);

    let dir = tempfile::tempdir().expect("tempdir");
    let (app, clock) = common::app(dir.path());
    let base = common::serve(app.clone()).await;
    let client = reqwest::Client::new();

    let resp = client
        .post(format!("{base}/api/watches"))
        .json(&serde_json::json!({"url": site.url()}))
        .send()
        .await
        .expect("add");
    assert_eq!(resp.status(), 201);
    let w: serde_json::Value = resp.json().await.expect("json");
    let id = w["id"].as_str().expect("id").to_owned();
    assert!(w["feed_url"]
        .as_str()
        .expect("feed_url")
        .ends_with(&format!("/feed/{id}.xml")));
    // The answer shows the watch as stored: no check yet, and when the first is due.
    assert_eq!(w["status"], "new", "{w}");
    assert_eq!(w["checks"], 0, "{w}");
    let due = w["next_check"].as_str().expect("a due time");
    assert!(
        chrono::DateTime::parse_from_rfc3339(due).is_ok(),
        "next_check {due}"
    );

    // Adding again gives the same id with 200.
    let again = client
        .post(format!("{base}/api/watches"))
        .json(&serde_json::json!({"url": site.url()}))
        .send()
        .await
        .expect("add");
    assert_eq!(again.status(), 200);
    assert_eq!(
        again.json::<serde_json::Value>().await.expect("json")["id"],
        id.as_str()
    );

    // Check 1: baseline, nothing new.
    let r = check(&client, &base, &id).await;
    assert_eq!(r["new_items"], 0);
    assert_eq!(r["baseline"], true);

    // Only the visit counter changes: no new items.
    clock.advance(3600);
    let r = check(&client, &base, &id).await;
    assert_eq!(r["new_items"], 0, "{r}");

    // v2: two new at the top (one with a nasty title), the oldest dropped.
    let mut v2 = as_ref(&v1[..9]);
    v2.insert(0, ("Notice 11".into(), "/n/11".into()));
    v2.insert(0, (NASTY.into(), "/n/12".into()));
    set(&v2);
    clock.advance(3600);
    let r = check(&client, &base, &id).await;
    assert_eq!(r["new_items"], 2, "{r}");

    // v3: Notice 5 bumped to the top, one new entry in the middle.
    let mut v3 = as_ref(&v2);
    let pos = v3
        .iter()
        .position(|(t, _)| t == "Notice 5")
        .expect("notice 5");
    let bumped = v3.remove(pos);
    v3.insert(0, bumped);
    v3.insert(4, ("Notice 13 (middle)".into(), "/n/13".into()));
    set(&v3);
    clock.advance(3600);
    let r = check(&client, &base, &id).await;
    assert_eq!(r["new_items"], 1, "{r}");

    // v4: the dropped entry comes back: it was seen before, so it is not new.
    let mut v4 = as_ref(&v3);
    v4.push(("Notice 1".into(), "/n/1".into()));
    set(&v4);
    clock.advance(3600);
    let r = check(&client, &base, &id).await;
    assert_eq!(r["new_items"], 0, "{r}");

    let s = site.addr;
    let want_links = vec![
        format!("http://{s}/n/13"),
        format!("http://{s}/n/12"),
        format!("http://{s}/n/11"),
    ];
    let want_titles = vec![
        "Notice 13 (middle)".to_owned(),
        "Tom & Jerry <b>bold</b> ]]> endbell".to_owned(),
        "Notice 11".to_owned(),
    ];
    let icon = format!("http://{s}/favicon.png");
    let atom = get_feed(&client, &base, &id, "atom").await;
    assert_eq!(
        atom.icon.map(|i| i.uri),
        Some(icon.clone()),
        "Atom <icon> from <link rel=icon>"
    );
    let rss = get_feed(&client, &base, &id, "xml").await;
    assert_eq!(
        rss.logo.map(|i| i.uri),
        Some(icon),
        "RSS <image> from <link rel=icon>"
    );
    for ext in ["xml", "atom", "json"] {
        let feed = get_feed(&client, &base, &id, ext).await;
        assert_eq!(links(&feed), want_links, "{ext}");
        assert_eq!(titles(&feed), want_titles, "{ext}");
    }

    let items: Vec<serde_json::Value> = client
        .get(format!("{base}/api/watches/{id}/items"))
        .send()
        .await
        .expect("items")
        .json()
        .await
        .expect("json");
    assert_eq!(items.len(), 3);
    assert_eq!(items[0]["link"], want_links[0].as_str());

    let w: serde_json::Value = client
        .get(format!("{base}/api/watches/{id}"))
        .send()
        .await
        .expect("show")
        .json()
        .await
        .expect("json");
    assert_eq!(w["status"], "ok");
    assert_eq!(w["item_count"], 3);
    assert_eq!(w["title"], "Notice board");
}

#[tokio::test]
async fn feeds_answer_304_to_matching_validators() {
    let site = Site::start(&[("A", "/n/1")]).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, _clock) = common::app(dir.path());
    let base = common::serve(app.clone()).await;
    let client = reqwest::Client::new();
    let id = &common::add_watch(&client, &base, &site.url()).await;
    let first = client
        .get(format!("{base}/feed/{id}.xml"))
        .send()
        .await
        .expect("feed");
    assert_eq!(
        first.headers()["content-type"],
        "application/rss+xml; charset=utf-8"
    );
    let etag = first.headers()["etag"].to_str().expect("etag").to_owned();
    let lm = first.headers()["last-modified"]
        .to_str()
        .expect("lm")
        .to_owned();
    let again = client
        .get(format!("{base}/feed/{id}.xml"))
        .header("if-none-match", &etag)
        .send()
        .await
        .expect("feed");
    assert_eq!(again.status(), 304);
    let again = client
        .get(format!("{base}/feed/{id}.xml"))
        .header("if-modified-since", &lm)
        .send()
        .await
        .expect("feed");
    assert_eq!(again.status(), 304);
    let other = client
        .get(format!("{base}/feed/{id}.xml"))
        .header("if-none-match", "\"nope\"")
        .send()
        .await
        .expect("feed");
    assert_eq!(other.status(), 200);
    let unknown = client
        .get(format!("{base}/feed/000000000000.xml"))
        .send()
        .await
        .expect("feed");
    assert_eq!(unknown.status(), 404);
}

#[tokio::test]
async fn the_store_keeps_as_many_items_as_the_feed_shows() {
    let notices = |range: std::ops::RangeInclusive<u32>| -> Vec<(String, String)> {
        range
            .rev()
            .map(|i| (format!("Notice {i}"), format!("/n/{i}")))
            .collect()
    };
    let site = Site::start(&[]).await;
    let set = |v: &[(String, String)]| {
        let r: Vec<(&str, &str)> = v.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        site.set(&r);
    };
    set(&notices(1..=10));
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, clock) = common::app_with(dir.path(), |c| c.feed.max_items = 2);
    assert_eq!(
        app.store().items_kept(),
        2,
        "feed.max_items reaches the store"
    );
    let base = common::serve(app.clone()).await;
    let client = reqwest::Client::new();
    let id = common::add_watch(&client, &base, &site.url()).await;
    let r = check(&client, &base, &id).await;
    assert_eq!(r["baseline"], true);
    // Two new at the top, then one more: three items found, the newest two kept.
    set(&notices(1..=12));
    clock.advance(3600);
    assert_eq!(check(&client, &base, &id).await["new_items"], 2);
    set(&notices(1..=13));
    clock.advance(3600);
    assert_eq!(check(&client, &base, &id).await["new_items"], 1);
    let s = site.addr;
    let want = vec![format!("http://{s}/n/13"), format!("http://{s}/n/12")];
    let wid = sitefeed::model::WatchId::parse(&id).expect("watch id");
    let stored: Vec<String> = app
        .store()
        .items(&wid, usize::MAX)
        .expect("items")
        .into_iter()
        .map(|i| i.link)
        .collect();
    assert_eq!(stored, want, "the store holds no more than the feed shows");
    for ext in ["xml", "atom", "json"] {
        assert_eq!(
            links(&get_feed(&client, &base, &id, ext).await),
            want,
            "{ext}"
        );
    }
}

/// A check runs on the watch as stored when it starts, not as its caller read it (the
/// scheduler reads the due watches' records before it waits for a free worker): a
/// selector set in between applies to the check.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_check_reads_the_watch_as_it_is_when_it_starts() {
    let site = Site::empty().await;
    site.set_raw(
        "text/html",
        r#"<html><body><nav><a href="/about">About us</a> <a href="/contact">Contact page</a></nav>
        <ul id="news"><li><a href="/n/1">First story of the day</a></li>
        <li><a href="/n/2">Second story of the day</a></li></ul></body></html>"#,
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, _clock) = common::app(dir.path());
    let id = common::watch(&app, &site.url());
    let read_before = app.store().watch(&id).expect("read").expect("watch");
    app.edit(
        &id,
        &sitefeed::app::WatchEdit {
            select: Some(Some("#news".into())),
            ..Default::default()
        },
    )
    .await
    .expect("edit");
    app.check(&read_before, false).await.expect("check");
    let links = app.store().links(&id).expect("links");
    let mut paths: Vec<&str> = links
        .iter()
        .map(|l| l.url.rsplit_once(".0.0.1:").map_or("", |(_, p)| p))
        .map(|p| p.split_once('/').map_or("", |(_, p)| p))
        .collect();
    paths.sort_unstable();
    assert_eq!(paths, ["n/1", "n/2"], "{links:?}");
}
