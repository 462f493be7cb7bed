//! The service exposed to hostile browsers and clients: cross-origin forms and API calls,
//! CSRF tokens bound to the session, server-side sessions that expire and end, login
//! throttling, page text that cannot turn the page's sentences around, and input limits
//! with JSON errors. A local site on 127.0.0.1:0; nothing leaves the machine.

mod common;

use common::{client, csrf_field, get_text, Browser, Site};
use reqwest::header::{CONTENT_TYPE, COOKIE, ORIGIN};
use sitefeed::session::{FREE_FAILURES, MAX_LOCKOUT, SESSION_IDLE};

fn watch_count(app: &sitefeed::App) -> usize {
    app.store().watches().expect("watches").len()
}

#[tokio::test]
async fn a_page_on_another_port_cannot_post_forms_or_call_the_api() {
    let site = Site::start(&[("A", "/n/1")]).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, _clock) = common::app(dir.path());
    let base = common::serve(app.clone()).await;
    let evil = "http://127.0.0.1:1";

    // The attacker gets a cookie and its form token from the server like anyone can,
    // then plants the cookie in the victim's browser (cookies do not separate ports).
    let mut attacker = Browser::new(&base);
    let page = attacker.get("/").await.body;
    let token = csrf_field(&page);
    let planted = attacker.cookie("sitefeed_csrf").expect("csrf cookie");
    let mut victim = Browser::new(&base);
    victim.set_cookie("sitefeed_csrf", &planted);
    let form = [("url", site.url()), ("csrf", token.clone())];
    let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let a = victim.post("/watches", &form, &[("origin", evil)]).await;
    assert_eq!(a.status, 403, "another origin: {}", a.body);
    let a = victim
        .post("/watches", &form, &[("sec-fetch-site", "same-site")])
        .await;
    assert_eq!(a.status, 403, "a sibling site");
    let a = victim.post("/watches", &form, &[("origin", "null")]).await;
    assert_eq!(a.status, 403, "an opaque origin");
    assert_eq!(watch_count(&app), 0);

    // The API: text/plain is what another page can post without asking first.
    let c = client();
    let opml = format!(
        "<opml version=\"2.0\"><body><outline xmlUrl=\"{}\"/></body></opml>",
        site.url()
    );
    let r = c
        .post(format!("{base}/api/opml"))
        .header(CONTENT_TYPE, "text/plain")
        .header(ORIGIN, evil)
        .body(opml.clone())
        .send()
        .await
        .expect("api");
    assert_eq!(r.status(), 403);
    let r = c
        .post(format!("{base}/api/opml"))
        .header(CONTENT_TYPE, "text/plain")
        .body(opml.clone())
        .send()
        .await
        .expect("api");
    assert_eq!(r.status(), 415, "OPML comes as XML");
    let err: serde_json::Value = r.json().await.expect("json error");
    assert!(err["error"].as_str().expect("error").contains("text/xml"));
    let r = c
        .post(format!("{base}/api/watches"))
        .header(CONTENT_TYPE, "text/plain")
        .body(serde_json::json!({ "url": site.url() }).to_string())
        .send()
        .await
        .expect("api");
    assert_eq!(r.status(), 400, "JSON comes as JSON");
    assert_eq!(watch_count(&app), 0);

    // This server's own page and plain clients still work.
    let a = victim.get("/").await;
    let own = csrf_field(&a.body);
    let a = victim
        .post(
            "/watches",
            &[("url", &site.url()), ("csrf", &own)],
            &[("origin", &base), ("sec-fetch-site", "same-origin")],
        )
        .await;
    assert_eq!(a.status, 303, "{}", a.body);
    let r = c
        .post(format!("{base}/api/opml"))
        .header(CONTENT_TYPE, "text/xml")
        .body(opml)
        .send()
        .await
        .expect("api");
    assert_eq!(r.status(), 200);
    let id = sitefeed::model::WatchId::for_url(&site.url());
    let r = c
        .post(format!("{base}/api/watches/{id}/check"))
        .header(ORIGIN, evil)
        .send()
        .await
        .expect("api");
    assert_eq!(r.status(), 403, "no cross-origin check either");
    assert_eq!(site.requests(), 0);
}

#[tokio::test]
async fn csrf_tokens_are_bound_to_the_session() {
    let site = Site::start(&[("A", "/n/1")]).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, _clock) = common::app_with(dir.path(), |c| {
        c.server.admin_token = "s3cret".into();
    });
    let base = common::serve(app.clone()).await;
    let mut victim = Browser::new(&base);
    assert_eq!(victim.login("s3cret", None).await.status, 303);

    // A token the attacker got for a cookie of its own, planted beside the session: no
    // good, even from a browser that sends no Origin.
    let mut attacker = Browser::new(&base);
    let token = csrf_field(&attacker.get("/login").await.body);
    let planted = attacker.cookie("sitefeed_csrf").expect("csrf cookie");
    victim.set_cookie("sitefeed_csrf", &planted);
    let a = victim
        .post("/watches", &[("url", &site.url()), ("csrf", &token)], &[])
        .await;
    assert_eq!(a.status, 403);
    assert_eq!(watch_count(&app), 0);
    let own = csrf_field(&victim.get("/").await.body);
    assert_ne!(own, token);
    let a = victim
        .post("/watches", &[("url", &site.url()), ("csrf", &own)], &[])
        .await;
    assert_eq!(a.status, 303);
    assert_eq!(watch_count(&app), 1);

    // The API with the session cookie: only from this server's page.
    let json = |url: String| serde_json::json!({ "url": url }).to_string();
    let r = victim
        .client
        .post(format!("{base}/api/watches"))
        .header(COOKIE, victim.cookie_header())
        .header(CONTENT_TYPE, "application/json")
        .body(json(format!("{}?2", site.url())))
        .send()
        .await
        .expect("api");
    assert_eq!(r.status(), 403);
    let r = victim
        .client
        .post(format!("{base}/api/watches"))
        .header(COOKIE, victim.cookie_header())
        .header(CONTENT_TYPE, "application/json")
        .header(ORIGIN, &base)
        .body(json(format!("{}?3", site.url())))
        .send()
        .await
        .expect("api");
    assert_eq!(r.status(), 201);
    assert_eq!(watch_count(&app), 2);
}

#[tokio::test]
async fn sessions_are_random_server_side_and_end() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, clock) = common::app_with(dir.path(), |c| {
        c.server.admin_token = "s3cret".into();
    });
    let base = common::serve(app.clone()).await;
    let mut one = Browser::new(&base);
    let mut two = Browser::new(&base);
    assert_eq!(one.login("s3cret", None).await.status, 303);
    let set = one.set_cookies.join("\n");
    for attr in ["HttpOnly", "SameSite=Strict", "Max-Age=", "Path=/"] {
        assert!(set.contains(attr), "{attr} in {set}");
    }
    assert!(!set.contains("Secure"), "plain http");
    assert_eq!(two.login("s3cret", None).await.status, 303);
    let (s1, s2) = (
        one.cookie("sitefeed_session").expect("session"),
        two.cookie("sitefeed_session").expect("session"),
    );
    assert_ne!(s1, s2, "random ids, not derived from the token");
    assert_eq!(s1.len(), 64);
    assert_eq!(one.get("/").await.status, 200);

    // Logout ends the session on the server: the old cookie is worth nothing.
    let csrf = csrf_field(&one.get("/").await.body);
    assert_eq!(
        one.post("/logout", &[("csrf", &csrf)], &[]).await.status,
        303
    );
    let mut replay = Browser::new(&base);
    replay.set_cookie("sitefeed_session", &s1);
    assert_eq!(replay.get("/").await.status, 303);
    assert_eq!(two.get("/").await.status, 200, "other sessions live on");

    // Idle too long: over.
    clock.advance(SESSION_IDLE - 10);
    assert_eq!(two.get("/").await.status, 200);
    clock.advance(SESSION_IDLE);
    let a = two.get("/api/watches").await;
    assert_eq!(a.status, 401);

    // Over https the cookie is Secure.
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, _clock) = common::app_with(dir.path(), |c| {
        c.server.admin_token = "s3cret".into();
        c.server.base_url = Some("https://feeds.example".into());
    });
    let base = common::serve(app).await;
    let mut b = Browser::new(&base);
    assert_eq!(b.login("s3cret", None).await.status, 303);
    assert!(b.set_cookies.join("\n").contains("; Secure"));
}

#[tokio::test]
async fn login_returns_to_the_page_it_came_from() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, _clock) = common::app_with(dir.path(), |c| {
        c.server.admin_token = "s3cret".into();
    });
    let (w, _) = app
        .add_watch(&sitefeed::app::NewWatch {
            url: "https://example.org/news/".into(),
            ..Default::default()
        })
        .expect("add");
    let base = common::serve(app.clone()).await;
    let mut b = Browser::new(&base);
    let a = b.get(&format!("/watches/{}/preview?x=1", w.id)).await;
    assert_eq!(a.status, 303);
    let loc = a.location.expect("location");
    assert_eq!(
        loc,
        format!("/login?next=%2Fwatches%2F{}%2Fpreview%3Fx%3D1", w.id)
    );
    let page = b.get(&loc).await.body;
    assert!(
        page.contains(&format!(
            "name=\"next\" value=\"/watches/{}/preview?x=1\"",
            w.id
        )),
        "{page}"
    );
    let next = format!("/watches/{}", w.id);
    let a = b.login("s3cret", Some(&next)).await;
    assert_eq!(a.location.as_deref(), Some(next.as_str()));
    // Never to another site.
    let mut b = Browser::new(&base);
    for evil in [
        "//evil.example/",
        "https://evil.example/",
        "/\\evil.example",
    ] {
        let a = b.login("s3cret", Some(evil)).await;
        assert_eq!(a.location.as_deref(), Some("/"), "{evil}");
    }
}

#[tokio::test]
async fn wrong_tokens_are_throttled() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, clock) = common::app_with(dir.path(), |c| {
        c.server.admin_token = "s3cret".into();
    });
    let base = common::serve(app.clone()).await;
    let mut b = Browser::new(&base);
    let mut statuses = Vec::new();
    for i in 0..12 {
        statuses.push(b.login(&format!("guess{i}"), None).await.status.as_u16());
    }
    let free = FREE_FAILURES as usize;
    assert!(statuses[..free].iter().all(|s| *s == 401), "{statuses:?}");
    assert!(statuses[free..].iter().all(|s| *s == 429), "{statuses:?}");
    // Locked out: even the right token waits, and the bearer door is the same door.
    assert_eq!(b.login("s3cret", None).await.status, 429);
    let r = client()
        .get(format!("{base}/api/watches"))
        .bearer_auth("s3cret")
        .send()
        .await
        .expect("api");
    assert_eq!(r.status(), 429);
    assert!(r.headers().contains_key("retry-after"));
    clock.advance(MAX_LOCKOUT);
    assert_eq!(b.login("s3cret", None).await.status, 303);
    let r = client()
        .get(format!("{base}/api/watches"))
        .bearer_auth("s3cret")
        .send()
        .await
        .expect("api");
    assert_eq!(r.status(), 200);
}

#[tokio::test]
async fn page_text_is_isolated_from_the_sentence_around_it() {
    let site = Site::start(&[("A", "/n/1")]).await;
    let page = "<html><head><title>Board \u{202e}txt.exe</title></head><body><ul>\
        <li><a href=\"/1\">First \u{202e}reversed</a></li><li><a href=\"/2\">Second</a></li>\
        </ul></body></html>";
    site.set_raw("text/html; charset=utf-8", page);
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, _clock) = common::app(dir.path());
    let base = common::serve(app.clone()).await;
    let (w, _) = app
        .add_watch(&sitefeed::app::NewWatch {
            url: site.url(),
            ..Default::default()
        })
        .expect("add");
    app.check(&w, false).await.expect("check");
    let c = client();
    let index = get_text(&c, &format!("{base}/")).await;
    assert!(
        index.contains("<bdi>Board \u{202e}txt.exe</bdi>"),
        "{index}"
    );
    let watch = get_text(&c, &format!("{base}/watches/{}", w.id)).await;
    assert!(
        watch.contains("<h1><bdi>Board \u{202e}txt.exe</bdi></h1>"),
        "{watch}"
    );
    let title = &watch[watch.find("<title>").expect("title")..watch.find("</title>").expect("end")];
    assert!(!title.contains('\u{202e}'), "{title}");
    let preview = get_text(&c, &format!("{base}/watches/{}/preview", w.id)).await;
    assert!(
        preview.contains("<bdi>First \u{202e}reversed</bdi>"),
        "{preview}"
    );
    assert!(
        preview.contains("<em><bdi>Board \u{202e}txt.exe</bdi></em>"),
        "{preview}"
    );
}

#[tokio::test]
async fn inputs_have_limits_and_every_api_error_is_json() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, _clock) = common::app(dir.path());
    let base = common::serve(app.clone()).await;
    let c = client();
    let add = |url: String| {
        c.post(format!("{base}/api/watches"))
            .json(&serde_json::json!({ "url": url }))
            .send()
    };
    let long = |n: usize| {
        let head = "https://example.org/";
        format!("{head}{}", "a".repeat(n - head.len()))
    };
    let r = add(long(2049)).await.expect("add");
    assert_eq!(r.status(), 400);
    let e: serde_json::Value = r.json().await.expect("json");
    assert!(e["error"].as_str().expect("msg").contains("2048"), "{e}");
    assert_eq!(add(long(2048)).await.expect("add").status(), 201);
    for creds in [
        "https://alice:hunter2@example.org/x",
        "https://alice@example.org/y",
    ] {
        let r = add(creds.into()).await.expect("add");
        assert_eq!(r.status(), 400, "{creds}");
        let e: serde_json::Value = r.json().await.expect("json");
        assert!(
            e["error"].as_str().expect("msg").contains("user name"),
            "{e}"
        );
        assert!(
            !e["error"].as_str().expect("msg").contains("hunter2"),
            "{e}"
        );
    }
    assert_eq!(watch_count(&app), 1);
    // Nor is the password echoed when an OPML outline carries one.
    let r = c
        .post(format!("{base}/api/opml"))
        .header(CONTENT_TYPE, "text/xml")
        .body("<opml version=\"2.0\"><body><outline xmlUrl=\"https://alice:hunter2@example.org/z\"/></body></opml>")
        .send()
        .await
        .expect("opml");
    let report = r.text().await.expect("text");
    assert!(report.contains("\"rejected\":[{"), "{report}");
    assert!(!report.contains("hunter2"), "{report}");
    assert_eq!(watch_count(&app), 1);
    // Non-UTF-8 OPML, an unknown watch, a wrong method: JSON all the same.
    let r = c
        .post(format!("{base}/api/opml"))
        .header(CONTENT_TYPE, "text/xml")
        .body(b"<opml version=\"2.0\"><body><outline text=\"\xff\xfe\"/></body></opml>".to_vec())
        .send()
        .await
        .expect("opml");
    assert_eq!(r.status(), 400);
    let e: serde_json::Value = r.json().await.expect("json");
    assert!(e["error"].as_str().expect("msg").contains("UTF-8"), "{e}");
    let r = c
        .get(format!("{base}/api/watches/nope"))
        .send()
        .await
        .expect("get");
    assert_eq!(r.status(), 404);
    let e: serde_json::Value = r.json().await.expect("json");
    assert!(e["error"].as_str().expect("msg").contains("nope"), "{e}");
    let r = c
        .put(format!("{base}/api/watches"))
        .send()
        .await
        .expect("put");
    assert_eq!(r.status(), 405);
    let _: serde_json::Value = r.json().await.expect("json");
}
