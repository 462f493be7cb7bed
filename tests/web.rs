//! The web page, its forms and their protection (login, CSRF), the preview, the feeds of
//! a new watch ("now watched" item, backfill), `feed_token`, OPML upload and round trip,
//! and `/metrics`. A local site on 127.0.0.1:0; nothing leaves the machine.

mod common;

use common::{client, csrf_field, feed_titles, get_text, notices, refs, Browser, Site};
use reqwest::header::COOKIE;
use reqwest::StatusCode;

#[tokio::test]
#[allow(clippy::too_many_lines, reason = "one user journey, step by step")]
async fn add_through_the_form_list_page_preview_and_checks() {
    let v1 = notices(10);
    let site = Site::start(&refs(&v1)).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, clock) = common::app(dir.path());
    let base = common::serve(app.clone()).await;
    let mut b = Browser::new(&base);

    let (st, page, _) = b.get("/").await.parts();
    assert_eq!(st, 200);
    assert!(page.contains("Nothing watched yet"));
    let csrf = csrf_field(&page);
    // The token is bound to the browser's id by the server's secret, not a copy of it.
    assert_ne!(csrf, b.csrf());

    // Without the CSRF token: refused, nothing added.
    let (st, _, _) = b
        .post("/watches", &[("url", &site.url())], &[])
        .await
        .parts();
    assert_eq!(st, 403);
    assert!(app.store().watches().expect("watches").is_empty());

    // Bad input: a clear message, the form refilled.
    let (st, page, _) = b
        .post(
            "/watches",
            &[("url", "ftp://x"), ("title", "Mine"), ("csrf", &csrf)],
            &[],
        )
        .await
        .parts();
    assert_eq!(st, 400);
    assert!(page.contains("Not added:"), "{page}");
    assert!(page.contains("value=\"Mine\""));
    let (st, page, _) = b
        .post(
            "/watches",
            &[("url", &site.url()), ("backfill", "lots"), ("csrf", &csrf)],
            &[],
        )
        .await
        .parts();
    assert_eq!(st, 400);
    assert!(
        page.contains("backfill <code>lots</code> is not a whole number"),
        "{page}"
    );
    let (st, page, _) = b
        .post(
            "/watches",
            &[("url", &site.url()), ("select", "li[["), ("csrf", &csrf)],
            &[],
        )
        .await
        .parts();
    assert_eq!(st, 400, "{page}");

    let (st, _, loc) = b
        .post(
            "/watches",
            &[
                ("url", &site.url()),
                ("depth", "1"),
                ("select", "#list"),
                ("csrf", &csrf),
            ],
            &[],
        )
        .await
        .parts();
    assert_eq!(st, 303);
    let loc = loc.expect("location");
    let id = loc.strip_prefix("/?added=").expect("added").to_owned();
    let (st, page, _) = b.get(&loc).await.parts();
    assert_eq!(st, 200);
    assert!(page.contains("Watching"));
    assert!(page.contains(&format!("/feed/{id}.xml")));
    assert!(page.contains(&format!("/feed/{id}.atom")));
    assert!(page.contains(&format!("/feed/{id}.json")));
    assert!(page.contains("not checked yet"));

    // Preview before the baseline: links listed, none new.
    let (st, page, _) = b.get(&format!("/watches/{id}/preview")).await.parts();
    assert_eq!(st, 200);
    assert!(page.contains("20 links extracted"), "{page}");
    assert!(page.contains("The first check will record them"));

    // Check now through the form: the baseline.
    let (st, _, loc) = b
        .post(&format!("/watches/{id}/check"), &[("csrf", &csrf)], &[])
        .await
        .parts();
    assert_eq!(st, 303);
    assert_eq!(loc.as_deref(), Some(format!("/watches/{id}").as_str()));

    // The page changes; the preview marks exactly the new entry.
    let mut v2 = v1.clone();
    v2.insert(0, ("Brand <new> & shiny".into(), "/n/11".into()));
    site.set(&refs(&v2));
    let (_, page, _) = b.get(&format!("/watches/{id}/preview")).await.parts();
    assert!(page.contains("1 would be new"), "{page}");
    assert_eq!(page.matches("<mark>new</mark>").count(), 2, "{page}"); // legend + one row
    assert!(page.contains("Brand &lt;new&gt; &amp; shiny"));
    // The preview commits nothing.
    assert_eq!(
        app.store()
            .items(&sitefeed::model::WatchId::parse(&id).expect("id"), 10)
            .expect("items")
            .len(),
        0
    );

    clock.advance(3600);
    b.post(&format!("/watches/{id}/check"), &[("csrf", &csrf)], &[])
        .await;
    let (st, page, _) = b.get(&format!("/watches/{id}")).await.parts();
    assert_eq!(st, 200);
    assert!(page.contains("Brand &lt;new&gt; &amp; shiny"));
    assert!(page.contains("1 new item"), "{page}");
    assert!(
        page.contains("links changed, nothing new")
            || page.contains("unchanged")
            || page.contains("new item")
    );
    assert_eq!(
        page.matches(" ms</td>").count(),
        2,
        "two checks logged: {page}"
    );

    // Remove through the form.
    let (st, _, loc) = b
        .post(&format!("/watches/{id}/remove"), &[("csrf", &csrf)], &[])
        .await
        .parts();
    assert_eq!(st, 303);
    assert!(loc.expect("loc").starts_with("/?removed="));
    assert!(app.store().watches().expect("watches").is_empty());
    let (st, _, _) = b.get(&format!("/watches/{id}")).await.parts();
    assert_eq!(st, 404);
}

#[tokio::test]
async fn admin_token_guards_page_and_api_but_not_feeds() {
    let site = Site::start(&[("A", "/n/1")]).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, _clock) = common::app_with(dir.path(), |c| {
        c.server.admin_token = "s3cret".into();
    });
    let base = common::serve(app.clone()).await;
    let (w, _) = app
        .add_watch(&sitefeed::app::NewWatch {
            url: site.url(),
            ..Default::default()
        })
        .expect("add");
    let c = client();

    // The API needs the token, reads included.
    let r = c
        .get(format!("{base}/api/watches"))
        .send()
        .await
        .expect("api");
    assert_eq!(r.status(), 401);
    let r = c
        .get(format!("{base}/api/watches"))
        .bearer_auth("s3cret")
        .send()
        .await
        .expect("api");
    assert_eq!(r.status(), 200);
    // Feeds, OPML, health and metrics stay open (no feed_token).
    for p in [
        format!("/feed/{}.xml", w.id),
        "/opml".into(),
        "/healthz".into(),
        "/metrics".into(),
    ] {
        let r = c.get(format!("{base}{p}")).send().await.expect("open");
        assert_eq!(r.status(), 200, "{p}");
    }

    // The page sends a browser to the login form.
    let mut b = Browser::new(&base);
    let (st, _, loc) = b.get("/").await.parts();
    assert_eq!(st, 303);
    assert_eq!(loc.as_deref(), Some("/login?next=%2F"));
    let (st, page, _) = b.get("/login").await.parts();
    assert_eq!(st, 200);
    let csrf = csrf_field(&page);
    let (st, page, _) = b
        .post("/login", &[("token", "nope"), ("csrf", &csrf)], &[])
        .await
        .parts();
    assert_eq!(st, 401);
    assert!(page.contains("Wrong token"));
    let (st, _, _) = b.post("/login", &[("token", "s3cret")], &[]).await.parts();
    assert_eq!(st, 403, "login needs the CSRF token too");
    let (st, _, loc) = b
        .post("/login", &[("token", "s3cret"), ("csrf", &csrf)], &[])
        .await
        .parts();
    assert_eq!(st, 303);
    assert_eq!(loc.as_deref(), Some("/"));
    let (st, page, _) = b.get("/").await.parts();
    assert_eq!(st, 200);
    assert!(page.contains(&format!("/watches/{}", w.id)));
    // The session cookie works for the API too, and is not the token itself.
    assert!(!b.cookie_header().contains("s3cret"));
    let (st, _, _) = b.get("/api/watches").await.parts();
    assert_eq!(st, 200);

    // Log out (the form's token is now bound to the session): back to the login form.
    let (st, _, _) = b.post("/logout", &[("csrf", &csrf)], &[]).await.parts();
    assert_eq!(st, 403, "the token from before login is not the session's");
    let csrf = csrf_field(&page);
    let (st, _, _) = b.post("/logout", &[("csrf", &csrf)], &[]).await.parts();
    assert_eq!(st, 303);
    let (st, _, loc) = b.get("/").await.parts();
    assert_eq!(
        (st, loc.as_deref()),
        (StatusCode::SEE_OTHER, Some("/login?next=%2F"))
    );
}

#[tokio::test]
async fn feed_token_is_required_by_feeds_and_carried_by_every_url() {
    let site = Site::start(&[("A", "/n/1")]).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, _clock) = common::app_with(dir.path(), |c| {
        c.server.feed_token = "k3y".into();
    });
    let base = common::serve(app.clone()).await;
    let c = client();
    let w = common::json(
        c.post(format!("{base}/api/watches"))
            .json(&serde_json::json!({"url": site.url()})),
    )
    .await;
    let id = w["id"].as_str().expect("id");
    for k in ["rss", "atom", "json"] {
        assert!(
            w["feeds"][k].as_str().expect("url").ends_with("?key=k3y"),
            "{w}"
        );
    }
    for ext in ["xml", "atom", "json"] {
        let r = c
            .get(format!("{base}/feed/{id}.{ext}"))
            .send()
            .await
            .expect("feed");
        assert_eq!(r.status(), 401, "never a redirect to a login page");
        let r = c
            .get(format!("{base}/feed/{id}.{ext}?key=wrong"))
            .send()
            .await
            .expect("feed");
        assert_eq!(r.status(), 401);
        let r = c
            .get(format!("{base}/feed/{id}.{ext}?key=k3y"))
            .send()
            .await
            .expect("feed");
        assert_eq!(r.status(), 200);
        let body = r.text().await.expect("body");
        assert!(
            body.contains(&format!("/feed/{id}.{ext}?key=k3y")),
            "self link keeps the key: {body}"
        );
    }
    let r = c.get(format!("{base}/opml")).send().await.expect("opml");
    assert_eq!(r.status(), 401);
    let opml = get_text(&c, &format!("{base}/opml?key=k3y")).await;
    assert!(opml.contains(&format!("/feed/{id}.xml?key=k3y")), "{opml}");
    // The page links carry it too.
    let page = get_text(&c, &format!("{base}/")).await;
    assert!(page.contains(&format!("/feed/{id}.atom?key=k3y")));
}

#[tokio::test]
#[allow(
    clippy::too_many_lines,
    reason = "one story: plain and backfilled watch side by side"
)]
async fn a_new_watch_neither_floods_nor_stays_empty() {
    let v1 = notices(10);
    let site = Site::start(&refs(&v1)).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, clock) = common::app(dir.path());
    let base = common::serve(app.clone()).await;
    let c = client();
    let add = |body: serde_json::Value| {
        let c = c.clone();
        let base = base.clone();
        async move {
            let r = c
                .post(format!("{base}/api/watches"))
                .json(&body)
                .send()
                .await
                .expect("add");
            let v: serde_json::Value = r.json().await.expect("json");
            v["id"].as_str().expect("id").to_owned()
        }
    };
    let plain = add(serde_json::json!({"url": site.url()})).await;
    let shown: serde_json::Value = c
        .get(format!("{base}/api/watches/{plain}"))
        .send()
        .await
        .expect("show")
        .json()
        .await
        .expect("json");
    assert_eq!(shown["backfill"], 0);
    assert_eq!(shown["recent_checks"], serde_json::json!([]));
    let back = add(serde_json::json!({"url": format!("{}?v=2", site.url()), "backfill": 3})).await;
    let r = c
        .post(format!("{base}/api/watches"))
        .json(&serde_json::json!({"url": format!("{}?v=3", site.url()), "backfill": 1000}))
        .send()
        .await
        .expect("add");
    assert_eq!(r.status(), 400);

    // Before the first check: an empty feed.
    assert!(feed_titles(&c, &format!("{base}/feed/{plain}.xml"))
        .await
        .is_empty());
    for id in [&plain, &back] {
        c.post(format!("{base}/api/watches/{id}/check"))
            .send()
            .await
            .expect("check");
    }
    // After the baseline: one "now watched" item, or the first three entries.
    for ext in ["xml", "atom", "json"] {
        let t = feed_titles(&c, &format!("{base}/feed/{plain}.{ext}")).await;
        assert_eq!(
            t,
            vec!["sitefeed now watches Notice board".to_owned()],
            "{ext}"
        );
        // Three items taken from the page, its first entry among them, and not the "now
        // watched" item. (Which three is the backfill's business: entries, not the menu,
        // and this test does not pin a menu link down as an item.)
        let t = feed_titles(&c, &format!("{base}/feed/{back}.{ext}")).await;
        assert_eq!(t.len(), 3, "{ext}: {t:?}");
        assert!(t.iter().any(|t| t == "Notice 10"), "{ext}: {t:?}");
        assert!(
            !t.iter().any(|t| t.starts_with("sitefeed now watches")),
            "{ext}: {t:?}"
        );
    }
    let shown: serde_json::Value = c
        .get(format!("{base}/api/watches/{back}"))
        .send()
        .await
        .expect("show")
        .json()
        .await
        .expect("json");
    assert_eq!(shown["backfill"], 3);
    assert_eq!(shown["recent_checks"][0]["changed"], true, "{shown}");
    // The backfill is stored as items by the baseline check: listed and counted.
    assert_eq!(shown["recent_checks"][0]["new_items"], 3, "{shown}");
    assert_eq!(shown["item_count"], 3, "{shown}");
    let listed: serde_json::Value = c
        .get(format!("{base}/api/watches/{back}/items"))
        .send()
        .await
        .expect("items")
        .json()
        .await
        .expect("json");
    assert_eq!(listed.as_array().map(Vec::len), Some(3), "{listed}");
    // The first new entry replaces the "now watched" item, and joins the backfilled
    // entries, which stay (stored items) and are never repeated.
    let mut v2 = v1.clone();
    v2.insert(0, ("Notice 11".into(), "/n/11".into()));
    site.set(&refs(&v2));
    clock.advance(3600);
    for (id, want) in [
        (&plain, vec!["Notice 11"]),
        (
            &back,
            vec!["Notice 11", "Notice 10", "Notice 9", "Notice 8"],
        ),
    ] {
        c.post(format!("{base}/api/watches/{id}/check"))
            .send()
            .await
            .expect("check");
        let t = feed_titles(&c, &format!("{base}/feed/{id}.xml")).await;
        assert_eq!(t, want);
    }
}

#[tokio::test]
async fn opml_upload_malformed_adds_nothing_and_round_trip_keeps_ids() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, _clock) = common::app(dir.path());
    let base = common::serve(app.clone()).await;
    let c = client();
    let mut b = Browser::new(&base);
    let (_, page, _) = b.get("/").await.parts();
    let csrf = csrf_field(&page);
    let upload = |text: &'static str, csrf: String| {
        let form = reqwest::multipart::Form::new().text("csrf", csrf).part(
            "opml",
            reqwest::multipart::Part::text(text).file_name("feeds.opml"),
        );
        c.post(format!("{base}/opml/import"))
            .header(COOKIE, b.cookie_header())
            .multipart(form)
            .send()
    };
    let bad = "<opml version=\"2.0\"><body><outline xmlUrl=\"https://a.example/\"/><outline";
    let r = upload(bad, csrf.clone()).await.expect("upload");
    assert_eq!(r.status(), 400);
    assert!(r
        .text()
        .await
        .expect("text")
        .contains("Nothing imported: <bdi>invalid OPML"));
    assert!(app.store().watches().expect("w").is_empty());
    let r = c
        .post(format!("{base}/api/opml"))
        .header(reqwest::header::CONTENT_TYPE, "text/xml")
        .body(bad)
        .send()
        .await
        .expect("api");
    assert_eq!(r.status(), 400);
    assert!(app.store().watches().expect("w").is_empty());

    let good = "<?xml version=\"1.0\"?><opml version=\"2.0\"><head/><body>\
        <outline text=\"A\" htmlUrl=\"https://a.example/news/\"/>\
        <outline text=\"bad\" htmlUrl=\"ftp://nope/\"/>\
        <outline text=\"B\" xmlUrl=\"https://b.example/\" title=\"Bee\"/></body></opml>";
    let r = upload(good, String::new()).await.expect("upload");
    assert_eq!(r.status(), 403, "CSRF token required");
    let r = upload(good, csrf.clone()).await.expect("upload");
    assert_eq!(r.status(), 200);
    let page = r.text().await.expect("text");
    assert!(
        page.contains("2 added, 0 already watched, 1 rejected"),
        "{page}"
    );

    // Export, import into a fresh store: same watches, same ids, same titles.
    let exported = get_text(&c, &format!("{base}/opml")).await;
    let dir2 = tempfile::tempdir().expect("tempdir");
    let (app2, _clock) = common::app(dir2.path());
    let report = app2.import_opml(&exported).expect("import");
    assert_eq!(
        (report.added, report.existing, report.rejected.len()),
        (2, 0, 0)
    );
    let summary = |a: &sitefeed::App| {
        a.store()
            .watches()
            .expect("w")
            .into_iter()
            .map(|w| (w.id.to_string(), w.url, w.title))
            .collect::<Vec<_>>()
    };
    assert_eq!(summary(&app), summary(&app2));
}

#[tokio::test]
async fn metrics_count_checks_errors_items_latency_queue_and_store() {
    let v1 = notices(10);
    let site = Site::start(&refs(&v1)).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, clock) = common::app(dir.path());
    let base = common::serve(app.clone()).await;
    let c = client();
    let ok = app
        .add_watch(&sitefeed::app::NewWatch {
            url: site.url(),
            ..Default::default()
        })
        .expect("add")
        .0;
    let broken = app
        .add_watch(&sitefeed::app::NewWatch {
            url: format!("http://{}/missing", site.addr),
            ..Default::default()
        })
        .expect("add")
        .0;
    app.check(&ok, false).await.expect("check");
    let mut v2 = v1.clone();
    v2.insert(0, ("Notice 11".into(), "/n/11".into()));
    site.set(&refs(&v2));
    clock.advance(3600);
    app.check(&ok, false).await.expect("check");
    app.check(&broken, false).await.expect("check");
    let r = c
        .get(format!("{base}/metrics"))
        .send()
        .await
        .expect("metrics");
    assert_eq!(r.status(), 200);
    assert!(r.headers()["content-type"]
        .to_str()
        .expect("ct")
        .starts_with("text/plain"));
    let m = r.text().await.expect("text");
    let value = |name: &str| -> f64 {
        m.lines()
            .find_map(|l| l.strip_prefix(name).and_then(|r| r.strip_prefix(' ')))
            .unwrap_or_else(|| panic!("{name} missing in\n{m}"))
            .parse()
            .expect("number")
    };
    assert!((value("sitefeed_checks_total") - 3.0).abs() < f64::EPSILON);
    assert!((value("sitefeed_new_items_total") - 1.0).abs() < f64::EPSILON);
    assert!(
        m.lines()
            .any(|l| l.starts_with("sitefeed_check_errors_total{kind=")),
        "{m}"
    );
    assert!((value("sitefeed_check_duration_seconds_count") - 3.0).abs() < f64::EPSILON);
    assert!(
        (value("sitefeed_check_duration_seconds_bucket{le=\"+Inf\"}") - 3.0).abs() < f64::EPSILON
    );
    assert!((value("sitefeed_watches") - 2.0).abs() < f64::EPSILON);
    assert!(value("sitefeed_queue_depth") >= 0.0);
    assert!(value("sitefeed_store_bytes") > 0.0);
    assert!(m.contains("# TYPE sitefeed_check_duration_seconds histogram"));
}

/// A restart over a store that holds watches: the service does not count them before it
/// answers, and `/metrics` shows each once, by how it reads its page, with the adds and
/// removals that follow.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_count_the_stored_watches_once_after_a_restart() {
    let dir = tempfile::tempdir().expect("tempdir");
    {
        let (app, _) = common::app(dir.path());
        for (url, render) in [
            ("http://a.example/", None),
            ("http://b.example/", Some(sitefeed::model::Render::Browser)),
            ("http://c.example/", Some(sitefeed::model::Render::Plain)),
        ] {
            app.add_watch(&sitefeed::app::NewWatch {
                url: url.into(),
                render,
                ..Default::default()
            })
            .expect("add");
        }
    }
    let (app, _) = common::app(dir.path());
    assert!(!app.metrics().watches_counted());
    let base = common::serve(app.clone()).await;
    let c = client();
    let gauge = |m: &str, name: &str| -> u64 {
        m.lines()
            .find_map(|l| l.strip_prefix(name).and_then(|r| r.strip_prefix(' ')))
            .unwrap_or_else(|| panic!("{name} missing in\n{m}"))
            .parse()
            .expect("number")
    };
    let m = get_text(&c, &format!("{base}/metrics")).await;
    assert_eq!(gauge(&m, "sitefeed_watches"), 3);
    assert_eq!(gauge(&m, "sitefeed_watches_by_render{render=\"plain\"}"), 2);
    assert_eq!(
        gauge(&m, "sitefeed_watches_by_render{render=\"browser\"}"),
        1
    );

    let added = common::add_watch(&c, &base, "http://d.example/").await;
    let m = get_text(&c, &format!("{base}/metrics")).await;
    assert_eq!(gauge(&m, "sitefeed_watches"), 4);
    assert_eq!(gauge(&m, "sitefeed_watches_by_render{render=\"plain\"}"), 3);
    let r = c
        .delete(format!("{base}/api/watches/{added}"))
        .send()
        .await
        .expect("delete");
    assert!(r.status().is_success(), "{}", r.status());
    let m = get_text(&c, &format!("{base}/metrics")).await;
    assert_eq!(gauge(&m, "sitefeed_watches"), 3);
}
