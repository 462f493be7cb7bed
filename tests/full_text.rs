//! Full text on request (`content = "full"`): against local sites (127.0.0.1 only), a
//! full watch's new items carry the article of their page in every feed format,
//! sanitized, without the page's menu and footer; the article fetch obeys robots.txt
//! and the host gate, is bounded per check, retried on later checks and given up after
//! a bound; the setting goes through the API, the CLI and OPML.

mod common;

use std::fmt::Write as _;
use std::time::Duration;

use common::{get_text, post_json, Canned, Site};
use serde_json::{json, Value};
use sitefeed::app::NewWatch;
use sitefeed::model::{Content, WatchId};
use sitefeed::App;

/// A notice list: one entry per `(title, path)`, each with a teaser (the summary).
fn list_page(entries: &[(&str, &str)]) -> String {
    let mut h = String::from(
        "<!doctype html><html><head><title>News</title></head><body>\
         <nav><a href=\"/\">Home</a> <a href=\"/about\">About</a></nav><main>",
    );
    for (title, path) in entries {
        let _ = write!(
            h,
            "<article><h2><a href=\"{path}\">{title}</a></h2>\
             <p>Teaser of {title}: a few words that say what the story is about.</p></article>"
        );
    }
    h.push_str("</main></body></html>");
    h
}

/// An article page: a big menu, the story (with a script, a handler and a relative
/// picture in it), a sidebar and a footer.
fn article_page(words: &str) -> String {
    let mut menu = String::new();
    for i in 0..30 {
        let _ = write!(
            menu,
            "<li><a href=\"/section/{i}\">MENUMARK section {i}</a></li>"
        );
    }
    let para = format!(
        "<p>{words} The council met on Tuesday evening to discuss the budget for the coming \
         year, and members argued at length about the cost of the old bridge.</p>"
    );
    format!(
        "<!doctype html><html><head><title>Story</title></head><body>\
         <header><nav><ul>{menu}</ul></nav></header>\
         <main><article><h1>The story</h1>{para}{para}\
         <p onclick=\"steal()\">Engineers say the bridge is no longer safe for heavy traffic, \
         and repairs will take most of next year.<script>alert('x')</script></p>\
         <p><img src=\"pics/bridge.jpg\" alt=\"The bridge\" onerror=\"steal()\"> \
         <a href=\"javascript:steal()\">a trick link</a></p>{para}{para}</article></main>\
         <aside><h3>Most read</h3><ul><li><a href=\"/x\">SIDEMARK other story</a></li></ul></aside>\
         <footer><p>FOOTERMARK Copyright the Daily, all rights reserved.</p></footer>\
         </body></html>"
    )
}

fn full_watch(app: &App, url: &str) -> WatchId {
    app.add_watch(&NewWatch {
        url: url.to_owned(),
        content: Some(Content::Full),
        ..NewWatch::default()
    })
    .expect("add watch")
    .0
    .id
}

async fn check(app: &App, id: &WatchId) -> sitefeed::check::CheckReport {
    let w = app.store().watch(id).expect("watch").expect("present");
    let r = app.check(&w, false).await.expect("check");
    assert_eq!(r.error, None);
    r
}

async fn feed(c: &reqwest::Client, base: &str, id: &WatchId, ext: &str) -> (String, String) {
    let r = c
        .get(format!("{base}/feed/{id}.{ext}"))
        .send()
        .await
        .expect("feed");
    assert_eq!(r.status(), 200);
    let etag = r
        .headers()
        .get("etag")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    (r.text().await.expect("body"), etag)
}

fn content_of(app: &App, id: &WatchId, link: &str) -> Option<String> {
    app.store()
        .items(id, 100)
        .expect("items")
        .into_iter()
        .find(|i| i.link == link)
        .expect("the item")
        .content
}

#[tokio::test]
async fn a_full_watch_carries_the_article_in_every_feed_format_sanitized() {
    let site = Site::empty().await;
    site.set_raw("text/html", list_page(&[("Old story", "/news/old")]));
    site.route("/news/old", vec![Canned::html(article_page("OLD"))]);
    site.route(
        "/news/bridge",
        vec![Canned::html(article_page("BRIDGEMARK"))],
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, _clock) = common::app(dir.path());
    let id = full_watch(&app, &site.url());
    check(&app, &id).await; // the baseline: no item, no article
    assert_eq!(
        site.hits("/news/old"),
        0,
        "what was on the page is not an item"
    );

    site.set_raw(
        "text/html",
        list_page(&[
            ("Bridge closed", "/news/bridge"),
            ("Old story", "/news/old"),
        ]),
    );
    let r = check(&app, &id).await;
    assert_eq!(r.new_items.len(), 1);
    assert_eq!(site.hits("/news/bridge"), 1, "the article is fetched once");
    let stored = content_of(&app, &id, &site.url_of("/news/bridge")).expect("full text");
    assert!(stored.contains("BRIDGEMARK"), "{stored}");
    assert!(
        stored.contains(&site.url_of("/news/pics/bridge.jpg")),
        "relative URLs are absolute: {stored}"
    );

    let base = common::serve(app.clone()).await;
    let c = reqwest::Client::new();
    for ext in ["xml", "atom", "json"] {
        let (body, _) = feed(&c, &base, &id, ext).await;
        assert!(body.contains("BRIDGEMARK"), "{ext}: the article: {body}");
        assert!(body.contains("no longer safe"), "{ext}");
        assert!(
            body.contains("Teaser of Bridge closed"),
            "{ext}: the summary stays"
        );
        for chrome in ["MENUMARK", "FOOTERMARK", "SIDEMARK"] {
            assert!(!body.contains(chrome), "{ext}: {chrome} is not the article");
        }
        for evil in ["steal()", "alert(", "onclick", "onerror", "<script"] {
            assert!(
                !body.contains(evil),
                "{ext}: {evil} is sanitized away: {body}"
            );
        }
    }
    // The API's item list shows the article as the feeds serve it.
    let items = common::json(c.get(format!("{base}/api/watches/{id}/items"))).await;
    let article = items[0]["content_html"].as_str().unwrap_or_default();
    assert!(article.contains("BRIDGEMARK"), "{items}");
    assert!(
        !article.contains("steal()") && !article.contains("<script"),
        "{article}"
    );
    // A second check fetches nothing again.
    check(&app, &id).await;
    assert_eq!(site.hits("/news/bridge"), 1);

    // A summary watch of the same kind of page fetches no article.
    let plain = Site::empty().await;
    plain.set_raw("text/html", list_page(&[("Old story", "/news/old")]));
    plain.route("/news/plain", vec![Canned::html(article_page("PLAIN"))]);
    let pid = common::watch(&app, &plain.url());
    check(&app, &pid).await;
    plain.set_raw(
        "text/html",
        list_page(&[("Plain", "/news/plain"), ("Old story", "/news/old")]),
    );
    assert_eq!(check(&app, &pid).await.new_items.len(), 1);
    assert_eq!(plain.hits("/news/plain"), 0);
    assert_eq!(content_of(&app, &pid, &plain.url_of("/news/plain")), None);
}

#[tokio::test]
async fn an_article_robots_txt_disallows_is_not_fetched_and_the_item_keeps_its_summary() {
    let site = Site::empty().await;
    site.route(
        "/robots.txt",
        vec![Canned::new(
            200,
            "text/plain",
            "User-agent: *\nDisallow: /private/\n",
        )],
    );
    site.set_raw("text/html", list_page(&[]));
    site.route("/private/a", vec![Canned::html(article_page("SECRET"))]);
    site.route("/news/b", vec![Canned::html(article_page("OPEN"))]);
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, _clock) = common::app(dir.path());
    let id = full_watch(&app, &site.url());
    check(&app, &id).await;
    site.set_raw(
        "text/html",
        list_page(&[("Closed one", "/private/a"), ("Open one", "/news/b")]),
    );
    assert_eq!(check(&app, &id).await.new_items.len(), 2);
    check(&app, &id).await;
    assert_eq!(site.hits("/private/a"), 0, "robots.txt says no");
    assert_eq!(site.hits("/news/b"), 1);
    let items = app.store().items(&id, 10).expect("items");
    let closed = items
        .iter()
        .find(|i| i.link.ends_with("/private/a"))
        .expect("item");
    assert_eq!(closed.content, None);
    assert!(closed
        .summary
        .as_deref()
        .unwrap_or("")
        .contains("Teaser of Closed one"));
    let open = items
        .iter()
        .find(|i| i.link.ends_with("/news/b"))
        .expect("item");
    assert!(open.content.as_deref().unwrap_or("").contains("OPEN"));
    let st = app.store().state(&id).expect("state").expect("present");
    assert!(st.full_text.is_empty(), "nothing waits: {:?}", st.full_text);
}

#[tokio::test]
async fn a_failing_article_is_retried_on_later_checks_and_given_up_after_the_bound() {
    let site = Site::empty().await;
    site.set_raw("text/html", list_page(&[]));
    // 4xx: a 5xx would pause the whole host for a while (the fetcher's rule for a
    // failing host), deferring the next checks in real time.
    site.route("/news/broken", vec![Canned::status(410)]);
    site.route(
        "/news/late",
        vec![Canned::status(404), Canned::html(article_page("LATE"))],
    );
    let dir = tempfile::tempdir().expect("tempdir");
    // Two tries, not the default three: the configured bound is the one kept.
    let tries = 2;
    let (app, _clock) = common::app_with(dir.path(), |c| {
        c.fetch.retries = 0;
        c.items.full_text.tries = tries;
    });
    let base = common::serve(app.clone()).await;
    let c = reqwest::Client::new();
    let id = full_watch(&app, &site.url());
    check(&app, &id).await;
    site.set_raw(
        "text/html",
        list_page(&[("Broken", "/news/broken"), ("Late", "/news/late")]),
    );
    let report = check(&app, &id).await;
    assert_eq!(report.new_items.len(), 2);
    assert!(
        report.new_items.iter().all(|i| i.content.is_none()),
        "no article came, so the check reports none"
    );
    assert_eq!(site.hits("/news/broken"), 1);
    assert_eq!(site.hits("/news/late"), 1);
    assert_eq!(content_of(&app, &id, &site.url_of("/news/late")), None);
    let (before, etag_before) = feed(&c, &base, &id, "json").await;
    assert!(before.contains("Teaser of Late"), "the summary meanwhile");

    // The next check (the page unchanged) tries both again: the late one arrives.
    check(&app, &id).await;
    assert_eq!(site.hits("/news/late"), 2);
    assert!(content_of(&app, &id, &site.url_of("/news/late"))
        .unwrap_or_default()
        .contains("LATE"));
    let (after, etag_after) = feed(&c, &base, &id, "json").await;
    assert!(after.contains("LATE"), "{after}");
    assert_ne!(
        etag_before, etag_after,
        "the feed's ETag moves with the full text"
    );

    // The broken one is tried `tries` times in all, then never again.
    for _ in 0..5 {
        check(&app, &id).await;
    }
    assert_eq!(site.hits("/news/broken"), usize::from(tries));
    assert_eq!(
        site.hits("/news/late"),
        2,
        "a stored article is not fetched again"
    );
    assert_eq!(content_of(&app, &id, &site.url_of("/news/broken")), None);
    let st = app.store().state(&id).expect("state").expect("present");
    assert!(st.full_text.is_empty(), "{:?}", st.full_text);
}

#[tokio::test]
async fn a_check_fetches_a_bounded_number_of_articles_and_the_rest_wait() {
    // A bound of the config's own, below the default.
    let per_check = 4;
    let n = per_check + 3;
    let site = Site::empty().await;
    site.set_raw("text/html", list_page(&[]));
    let entries: Vec<(String, String)> = (0..n)
        .map(|i| (format!("Story {i}"), format!("/news/{i}")))
        .collect();
    for (_, path) in &entries {
        site.route(path, vec![Canned::html(article_page(path))]);
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, _clock) = common::app_with(dir.path(), |c| c.items.full_text.per_check = per_check);
    let id = full_watch(&app, &site.url());
    check(&app, &id).await;
    let refs: Vec<(&str, &str)> = entries
        .iter()
        .map(|(t, p)| (t.as_str(), p.as_str()))
        .collect();
    site.set_raw("text/html", list_page(&refs));
    let report = check(&app, &id).await;
    assert_eq!(report.new_items.len(), n);
    let fetched = |s: &Site| entries.iter().filter(|(_, p)| s.hits(p) > 0).count();
    assert_eq!(fetched(&site), per_check);
    // What the check reports (and a webhook sends) carries the articles it stored.
    let with_article: Vec<&str> = report
        .new_items
        .iter()
        .filter(|i| i.content.as_deref().is_some_and(|c| c.contains("/news/")))
        .map(|i| i.link.as_str())
        .collect();
    assert_eq!(with_article.len(), per_check, "{with_article:?}");
    assert_eq!(
        app.store()
            .state(&id)
            .expect("state")
            .expect("present")
            .full_text
            .len(),
        3
    );
    check(&app, &id).await;
    assert_eq!(fetched(&site), n);
    let items = app.store().items(&id, 100).expect("items");
    assert!(items.iter().all(|i| i.content.is_some()));
    assert!(entries.iter().all(|(_, p)| site.hits(p) == 1));
}

/// The article fetches take their turn at the host gate like the check's own: from the
/// server's log, no two requests overlapped or came closer than the per-host delay.
#[tokio::test]
async fn article_fetches_wait_for_the_host_gate() {
    let delay = Duration::from_millis(120);
    let site = Site::empty().await;
    site.set_raw("text/html", list_page(&[]));
    for p in ["/news/1", "/news/2", "/news/3"] {
        site.route(p, vec![Canned::html(article_page(p))]);
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, _clock) = common::app_with(dir.path(), |c| c.fetch.per_host_delay = delay);
    let id = full_watch(&app, &site.url());
    check(&app, &id).await;
    site.set_raw(
        "text/html",
        list_page(&[("One", "/news/1"), ("Two", "/news/2"), ("Three", "/news/3")]),
    );
    assert_eq!(check(&app, &id).await.new_items.len(), 3);
    let mut log = site.log();
    log.sort_by_key(|h| h.start);
    assert!(
        log.iter().filter(|h| h.path.starts_with("/news/")).count() == 3,
        "{:?}",
        log.iter().map(|h| &h.path).collect::<Vec<_>>()
    );
    for pair in log.windows(2) {
        assert!(
            pair[1].start >= pair[0].end + delay,
            "{} then {} closer than the per-host delay",
            pair[0].path,
            pair[1].path
        );
    }
    assert_eq!(site.max_in_flight(), 1);
}

#[tokio::test]
#[allow(clippy::too_many_lines, reason = "one walk through every surface")]
async fn the_setting_through_the_api_opml_and_the_web_forms() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, _clock) = common::app(dir.path());
    let base = common::serve(app.clone()).await;
    let c = reqwest::Client::new();
    let (code, w) = post_json(
        &c,
        &format!("{base}/api/watches"),
        &json!({"url": "https://a.example/news/", "content": "full"}),
    )
    .await;
    assert_eq!(code, 201, "{w}");
    assert_eq!(w["content"], "full");
    let (_, plain) = post_json(
        &c,
        &format!("{base}/api/watches"),
        &json!({"url": "https://b.example/"}),
    )
    .await;
    assert_eq!(plain["content"], "summary", "summary is the default");
    let (code, err) = post_json(
        &c,
        &format!("{base}/api/watches"),
        &json!({"url": "https://c.example/", "content": "everything"}),
    )
    .await;
    assert_eq!(code, 400);
    assert!(
        err["error"]
            .as_str()
            .unwrap_or("")
            .contains("summary, full"),
        "{err}"
    );

    let opml = get_text(&c, &format!("{base}/opml")).await;
    assert_eq!(opml.matches("content=\"full\"").count(), 1, "{opml}");

    // The OPML read back elsewhere keeps the setting.
    let dir2 = tempfile::tempdir().expect("tempdir");
    let (app2, _clock) = common::app(dir2.path());
    let report = app2.import_opml(&opml).expect("import");
    assert_eq!(report.added, 2);
    let contents: Vec<(String, Content)> = app2
        .store()
        .watches()
        .expect("watches")
        .into_iter()
        .map(|w| (w.url, w.options.content))
        .collect();
    assert!(contents.contains(&("https://a.example/news/".into(), Content::Full)));
    assert!(contents.contains(&("https://b.example/".into(), Content::Summary)));
    let bad = opml.replace("content=\"full\"", "content=\"most\"");
    let dir3 = tempfile::tempdir().expect("tempdir");
    let (app3, _clock) = common::app(dir3.path());
    let report = app3.import_opml(&bad).expect("import");
    assert_eq!(report.rejected.len(), 1, "{report:?}");

    // PATCH switches it, and a bad value is a 400.
    let id = w["id"].as_str().expect("id");
    let r = c
        .patch(format!("{base}/api/watches/{id}"))
        .json(&json!({"content": "summary"}))
        .send()
        .await
        .expect("patch");
    assert_eq!(r.status(), 200);
    let w: Value = r.json().await.expect("json");
    assert_eq!(w["content"], "summary");
    let r = c
        .patch(format!("{base}/api/watches/{id}"))
        .json(&json!({"content": "all"}))
        .send()
        .await
        .expect("patch");
    assert_eq!(r.status(), 400);
    let r = c
        .patch(format!("{base}/api/watches/{id}"))
        .json(&json!({"content": "full"}))
        .send()
        .await
        .expect("patch");
    let w: Value = r.json().await.expect("json");
    assert_eq!(w["content"], "full");

    // The web page's add form offers it, and the edit form shows the watch's.
    assert!(get_text(&c, &format!("{base}/"))
        .await
        .contains("name=\"content\""));
    let page = get_text(&c, &format!("{base}/watches/{id}")).await;
    assert!(
        page.contains("<option value=\"full\" selected>"),
        "the edit form: {page}"
    );
}

#[test]
fn the_setting_through_the_cli() {
    use assert_cmd::Command;
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("none.toml"), "").expect("config");
    let run = |args: &[&str]| {
        Command::cargo_bin("sitefeed")
            .expect("binary")
            .env("SITEFEED_DATA", dir.path().join("data"))
            .env("SITEFEED_CONFIG", dir.path().join("none.toml"))
            .env_remove("SITEFEED_LISTEN")
            .env("RUST_LOG", "warn")
            .args(args)
            .output()
            .expect("run")
    };
    let out = run(&["add", "https://a.example/news/", "--content", "full"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let opml = String::from_utf8_lossy(&run(&["export-opml"]).stdout).into_owned();
    assert!(opml.contains("content=\"full\""), "{opml}");
    let out = run(&["edit", "https://a.example/news/", "--content", "summary"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let opml = String::from_utf8_lossy(&run(&["export-opml"]).stdout).into_owned();
    assert!(!opml.contains("content="), "{opml}");
    let out = run(&["add", "https://b.example/", "--content", "all"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("full"));
}
