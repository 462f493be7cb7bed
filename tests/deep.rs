//! Deep watches (`docs/design.md` §5) on a local multi-page site: a front page, sections,
//! item pages, a shared menu and footer, an off-site link farm, a calendar trap, a
//! near-duplicate mirror, a hub and a repeated-segment trap. Nothing touches the internet:
//! "off-site" links point at this same server under the name `localhost`, so a crawl that
//! followed them would show up in the request log.

mod common;

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::{Arc, Mutex};

use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Router;

use sitefeed::app::NewWatch;
use sitefeed::model::crawl::Kind;
use sitefeed::App;

#[derive(Default)]
struct SiteData {
    /// Section path → its entries (title, path), top first.
    sections: BTreeMap<String, Vec<(String, String)>>,
    /// Menu entries (title, path) on every page.
    menu: Vec<(String, String)>,
    /// Footer entries on every page.
    footer: Vec<(String, String)>,
    /// Entries the front page shows ("latest news"), top first.
    front: Vec<(String, String)>,
    /// Requests: (Host header, path and query).
    log: Vec<(String, String)>,
    port: u16,
    /// The front page leaves out its link to the mirror.
    no_mirror: bool,
}

#[derive(Clone)]
struct Site {
    data: Arc<Mutex<SiteData>>,
    base: String,
}

fn owned(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}

impl Site {
    async fn start() -> Self {
        let data = Arc::new(Mutex::new(SiteData::default()));
        let app = Router::new().fallback(serve_page).with_state(data.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        tokio::spawn(async move { axum::serve(listener, app).await.expect("serve") });
        {
            let mut d = data.lock().expect("lock");
            d.port = addr.port();
            d.menu = owned(&[
                ("Home", "/"),
                ("News", "/news/"),
                ("Events", "/events/"),
                ("Campus life", "/campus/"),
                ("Site map", "/sitemap"),
                ("About us", "/about"),
            ]);
            d.footer = owned(&[
                ("Contact", "/contact"),
                ("Privacy", "/privacy"),
                ("Jobs at the university", "/jobs"),
            ]);
            let news: Vec<(String, String)> = (1..=8)
                .rev()
                .map(|i| {
                    (
                        format!("Library opening hours change, part {i}"),
                        format!("/news/{i}"),
                    )
                })
                .collect();
            d.front = news[..4].to_vec();
            d.sections.insert("/news/".into(), news);
            d.sections.insert(
                "/events/".into(),
                (1..=7)
                    .rev()
                    .map(|i| {
                        (
                            format!("Concert in the great hall number {i}"),
                            format!("/events/{i}"),
                        )
                    })
                    .collect(),
            );
            d.sections.insert(
                "/campus/".into(),
                (1..=6)
                    .rev()
                    .map(|i| {
                        (
                            format!("Student club fair {i}"),
                            format!("/campus/club-{i}"),
                        )
                    })
                    .chain([("Awards and prizes".to_owned(), "/campus/awards/".to_owned())])
                    .collect(),
            );
            d.sections.insert(
                "/campus/awards/".into(),
                (1..=6)
                    .rev()
                    .map(|i| {
                        (
                            format!("Scholarship winners of term {i}"),
                            format!("/campus/awards/{i}"),
                        )
                    })
                    .collect(),
            );
        }
        Self {
            base: format!("http://127.0.0.1:{}", addr.port()),
            data,
        }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    fn edit(&self, f: impl FnOnce(&mut SiteData)) {
        f(&mut self.data.lock().expect("lock"));
    }

    /// Requests whose path starts with `prefix` (any host), and those not to 127.0.0.1.
    fn requests(&self, prefix: &str) -> usize {
        let d = self.data.lock().expect("lock");
        d.log.iter().filter(|(_, p)| p.starts_with(prefix)).count()
    }

    /// Requests for exactly this path and query.
    fn requests_exact(&self, pq: &str) -> usize {
        let d = self.data.lock().expect("lock");
        d.log.iter().filter(|(_, p)| p == pq).count()
    }

    fn offsite_requests(&self) -> usize {
        let d = self.data.lock().expect("lock");
        d.log
            .iter()
            .filter(|(h, _)| !h.starts_with("127.0.0.1"))
            .count()
    }

    fn clear_log(&self) {
        self.data.lock().expect("lock").log.clear();
    }
}

fn shell(d: &SiteData, title: &str, body: &str) -> String {
    let mut s = format!(
        "<!doctype html><html><head><meta charset=utf-8><title>{title}</title></head><body>\
         <div class=\"menu\"><ul>"
    );
    for (t, p) in &d.menu {
        let _ = write!(s, "<li><a href=\"{p}\">{t}</a></li>");
    }
    let _ = write!(
        s,
        "</ul></div><div class=\"main\">{body}</div><div class=\"foot\">"
    );
    for (t, p) in &d.footer {
        let _ = write!(s, "<a href=\"{p}\">{t}</a> ");
    }
    s.push_str("<p>Friends of the university:</p>");
    for i in 0..12 {
        let _ = write!(
            s,
            "<a href=\"http://localhost:{}/farm/{i}\">Partner site {i}</a> ",
            d.port
        );
    }
    s.push_str("</div></body></html>");
    s
}

fn list(entries: &[(String, String)]) -> String {
    let mut s = String::from("<ul class=\"entries\">");
    for (t, p) in entries {
        let _ = write!(
            s,
            "<li><a href=\"{p}\">{t}</a> <span>2026-11-21</span></li>"
        );
    }
    s.push_str("</ul>");
    s
}

fn article(title: &str) -> String {
    format!(
        "<h1>{title}</h1><p>{title}. This notice explains {title} in some detail: who may take \
         part, where to go, which documents to bring, and whom to ask. Read it to the end before \
         you write to the office, because most questions are answered below.</p><p>Posted by \
         the office of {title}.</p>"
    )
}

#[allow(clippy::many_single_char_names, reason = "year, month and the like")]
async fn serve_page(State(data): State<Arc<Mutex<SiteData>>>, req: Request) -> Response {
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("")
        .to_owned();
    let pq = req
        .uri()
        .path_and_query()
        .map_or_else(|| req.uri().path().to_owned(), |p| p.as_str().to_owned());
    let mut d = data.lock().expect("lock");
    d.log.push((host, pq.clone()));
    let path = req.uri().path().to_owned();
    let html = if path == "/robots.txt" {
        return (StatusCode::NOT_FOUND, "").into_response();
    } else if path == "/start" {
        return (StatusCode::MOVED_PERMANENTLY, [(header::LOCATION, "/")]).into_response();
    } else if path == "/" {
        let mirror = if d.no_mirror {
            ""
        } else {
            "<a href=\"/mirror/news/\">News (mirror)</a>"
        };
        let body = format!("<h2>Latest news</h2>{}<p><a href=\"/events/calendar?month=2026-11\">Calendar</a> {mirror} <a href=\"/a/b/a/b/a/b/\">Archive</a></p>", list(&d.front));
        shell(&d, "University", &body)
    } else if let Some(entries) = d.sections.get(&path) {
        shell(&d, &format!("Section {path}"), &list(entries))
    } else if let Some(rest) = path.strip_prefix("/mirror") {
        // The same section under another URL (a print view, a mirror).
        let entries = d.sections.get(rest).cloned().unwrap_or_default();
        let mirrored: Vec<(String, String)> = entries
            .iter()
            .map(|(t, p)| (t.clone(), format!("/mirror{p}")))
            .collect();
        shell(&d, &format!("Section {rest}"), &list(&mirrored))
    } else if path == "/events/calendar" {
        // An endless calendar: every month links the 24 before and after it.
        let q = req.uri().query().unwrap_or("month=2026-11");
        let (y, m) = q
            .strip_prefix("month=")
            .and_then(|s| s.split_once('-'))
            .and_then(|(y, m)| Some((y.parse::<i32>().ok()?, m.parse::<i32>().ok()?)))
            .unwrap_or((2026, 11));
        let mut body = format!("<h1>Calendar {y}-{m:02}</h1><p>");
        for k in -24..=24 {
            let t = y * 12 + (m - 1) + k;
            let _ = write!(
                body,
                "<a href=\"/events/calendar?month={}-{:02}\">{}-{:02}</a> ",
                t / 12,
                t % 12 + 1,
                t / 12,
                t % 12 + 1
            );
        }
        body.push_str("</p>");
        shell(&d, "Calendar", &body)
    } else if path == "/sitemap" {
        let mut body = String::from("<ul>");
        for i in 0..600 {
            let _ = write!(body, "<li><a href=\"/page/{i}\">Page {i}</a></li>");
        }
        body.push_str("</ul>");
        shell(&d, "Site map", &body)
    } else if path.starts_with("/a/b/") {
        shell(
            &d,
            "Archive",
            "<p><a href=\"/a/b/a/b/a/b/a/b/\">Older</a></p>",
        )
    } else {
        let title = d
            .sections
            .values()
            .flatten()
            .find(|(_, p)| *p == path)
            .map_or_else(|| format!("Page {path}"), |(t, _)| t.clone());
        shell(&d, &title, &article(&title))
    };
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], html).into_response()
}

fn deep_app(dir: &std::path::Path) -> (Arc<App>, sitefeed::schedule::clock::ManualClock) {
    common::app_with(dir, |c| {
        c.deep.max_pages_per_check = 200;
    })
}

fn add(app: &App, url: &str, depth: u8, keywords: &[&str]) -> sitefeed::model::Watch {
    app.add_watch(&NewWatch {
        url: url.to_owned(),
        depth: Some(depth),
        keywords: keywords.iter().map(|k| (*k).to_owned()).collect(),
        ..NewWatch::default()
    })
    .expect("add")
    .0
}

async fn check(app: &App, w: &sitefeed::model::Watch) -> Vec<String> {
    let r = app.check(w, false).await.expect("check");
    assert!(r.error.is_none(), "check failed: {:?}", r.error);
    r.new_items.into_iter().map(|i| i.title).collect()
}

#[tokio::test]
async fn depth_three_finds_new_entries_in_sections_once_and_ignores_template_and_traps() {
    let dir = tempfile::tempdir().expect("tmp");
    let site = Site::start().await;
    let (app, clock) = deep_app(dir.path());
    let w = add(&app, &site.url("/"), 3, &[]);

    // Baseline: the front page, its sections, their item pages; nothing is an item but
    // the "now watched" one.
    let first = check(&app, &w).await;
    assert!(first.len() <= 1, "baseline emitted {first:?}");
    // A second look learns the template from what the first one stored.
    clock.advance(3600);
    assert_eq!(check(&app, &w).await, Vec::<String>::new());

    // Traps: never off-site, the calendar capped, the mirror's copies not followed, the
    // hub's 600 links not followed, the repeated-segment archive not fetched.
    assert_eq!(site.offsite_requests(), 0, "followed off-site links");
    let calendar = site.requests("/events/calendar");
    assert!(calendar <= 3 * 2, "calendar fetched {calendar} times");
    assert!(site.requests("/mirror/news/") >= 1);
    assert_eq!(site.requests("/mirror/news/1"), 0, "followed the mirror");
    assert_eq!(site.requests("/page/"), 0, "followed the hub");
    assert_eq!(
        site.requests("/a/b/"),
        0,
        "fetched the repeated-segment trap"
    );
    // Item pages at level 3 were stored (fetched once each).
    assert_eq!(site.requests("/events/3"), 1);

    // A new notice in a section (not on the front page) is an item, once.
    site.edit(|d| {
        let news = d.sections.get_mut("/events/").expect("events");
        news.insert(
            0,
            ("Concert of the winter choir".into(), "/events/8".into()),
        );
    });
    clock.advance(3600);
    assert_eq!(check(&app, &w).await, ["Concert of the winter choir"]);
    clock.advance(3600);
    assert_eq!(check(&app, &w).await, Vec::<String>::new());

    // A new entry on the front page and in a section at once: one item.
    site.edit(|d| {
        let e = (
            "Library opening hours change, part 9".to_owned(),
            "/news/9".to_owned(),
        );
        d.front.insert(0, e.clone());
        d.sections.get_mut("/news/").expect("news").insert(0, e);
    });
    clock.advance(3600);
    assert_eq!(
        check(&app, &w).await,
        ["Library opening hours change, part 9"]
    );

    // Menu and footer changes on every page are not news.
    site.edit(|d| {
        d.menu.insert(3, ("Alumni".into(), "/alumni/".into()));
        d.footer
            .push(("Accessibility".into(), "/accessibility".into()));
    });
    clock.advance(3600);
    assert_eq!(
        check(&app, &w).await,
        Vec::<String>::new(),
        "menu or footer change emitted"
    );

    // Items of a level-3 list (behind "Campus life") are found too.
    site.edit(|d| {
        let a = d.sections.get_mut("/campus/awards/").expect("awards");
        a.insert(
            0,
            (
                "Scholarship winners of term 7".into(),
                "/campus/awards/7".into(),
            ),
        );
    });
    clock.advance(3600);
    assert_eq!(check(&app, &w).await, ["Scholarship winners of term 7"]);

    // The feed holds each item once.
    let items = app.store().items(&w.id, 100).expect("items");
    let mut links: Vec<&str> = items.iter().map(|i| i.link.as_str()).collect();
    let n = links.len();
    links.sort_unstable();
    links.dedup();
    assert_eq!(links.len(), n, "an item twice: {items:?}");
}

#[tokio::test]
async fn depth_two_does_not_diff_third_level_pages() {
    let dir = tempfile::tempdir().expect("tmp");
    let site = Site::start().await;
    let (app, clock) = deep_app(dir.path());
    let w = add(&app, &site.url("/"), 2, &[]);
    check(&app, &w).await;
    // Level 3 (behind /campus/) is not fetched at depth 2.
    assert_eq!(site.requests("/campus/awards/"), 0);
    assert!(site.requests("/campus/") >= 1);
    site.edit(|d| {
        let a = d.sections.get_mut("/campus/awards/").expect("awards");
        a.insert(
            0,
            (
                "Scholarship winners of term 7".into(),
                "/campus/awards/7".into(),
            ),
        );
        let e = d.sections.get_mut("/events/").expect("events");
        e.insert(
            0,
            ("Concert of the winter choir".into(), "/events/8".into()),
        );
    });
    clock.advance(3600);
    assert_eq!(check(&app, &w).await, ["Concert of the winter choir"]);
}

#[tokio::test]
async fn keywords_find_on_topic_items_behind_an_off_topic_page_and_drop_the_rest() {
    let dir = tempfile::tempdir().expect("tmp");
    let site = Site::start().await;
    let (app, clock) = deep_app(dir.path());
    let w = add(&app, &site.url("/"), 3, &["scholarship"]);
    check(&app, &w).await;
    clock.advance(3600);
    check(&app, &w).await;
    // The awards list stands behind "Campus life", a page about clubs.
    assert!(
        site.requests("/campus/awards/") >= 1,
        "did not tunnel through /campus/"
    );
    site.edit(|d| {
        let a = d.sections.get_mut("/campus/awards/").expect("awards");
        a.insert(
            0,
            (
                "Scholarship winners of term 7".into(),
                "/campus/awards/7".into(),
            ),
        );
        a.insert(
            0,
            (
                "Canteen menu for December".into(),
                "/campus/awards/canteen".into(),
            ),
        );
        let e = d.sections.get_mut("/events/").expect("events");
        e.insert(
            0,
            ("Concert of the winter choir".into(), "/events/8".into()),
        );
        e.insert(
            0,
            ("Scholarship information evening".into(), "/events/9".into()),
        );
    });
    clock.advance(3600);
    let mut got = check(&app, &w).await;
    got.sort();
    assert_eq!(
        got,
        [
            "Scholarship information evening",
            "Scholarship winners of term 7"
        ]
    );
}

#[tokio::test]
async fn the_crawl_respects_its_page_budget_and_resumes() {
    let dir = tempfile::tempdir().expect("tmp");
    let site = Site::start().await;
    let (app, clock) = common::app_with(dir.path(), |c| {
        c.deep.max_pages_per_check = 5;
    });
    let w = add(&app, &site.url("/"), 3, &[]);
    site.clear_log();
    check(&app, &w).await;
    // The front page (and robots.txt) plus at most five pages.
    let pages = site.requests("/") - site.requests("/robots.txt");
    assert!(pages <= 6, "{pages} pages fetched with a budget of 5");
    let state = app.store().crawl(&w.id).expect("crawl state");
    assert!(state.pages.len() <= 5);
    assert!(
        !state.frontier.is_empty(),
        "the rest waits for the next check"
    );
    clock.advance(3600);
    check(&app, &w).await;
    let state2 = app.store().crawl(&w.id).expect("crawl state");
    assert!(
        state2.pages.len() > state.pages.len(),
        "the next check went on"
    );
}

#[tokio::test]
async fn removing_a_deep_watch_removes_its_site_state() {
    let dir = tempfile::tempdir().expect("tmp");
    let site = Site::start().await;
    let (app, _clock) = deep_app(dir.path());
    let w = add(&app, &site.url("/"), 2, &[]);
    check(&app, &w).await;
    assert!(!app.store().crawl(&w.id).expect("crawl").pages.is_empty());
    assert!(!app
        .store()
        .page_links(&w.id, &site.url("/news/"))
        .expect("links")
        .is_empty());
    assert!(app.remove(&w.id).await.expect("remove"));
    assert!(app.store().crawl(&w.id).expect("crawl").pages.is_empty());
    assert!(app
        .store()
        .page_links(&w.id, &site.url("/news/"))
        .expect("links")
        .is_empty());
}

#[tokio::test]
async fn the_api_and_the_page_show_the_site_and_bad_keywords_are_refused() {
    let dir = tempfile::tempdir().expect("tmp");
    let site = Site::start().await;
    let (app, _clock) = deep_app(dir.path());
    let w = add(&app, &site.url("/"), 2, &["library", "Library", " "]);
    assert_eq!(
        w.keywords,
        ["library"],
        "keywords are trimmed and kept once"
    );
    check(&app, &w).await;
    let base = common::serve(app.clone()).await;
    let client = reqwest::Client::new();
    let j: serde_json::Value = client
        .get(format!("{base}/api/watches/{}", w.id))
        .send()
        .await
        .expect("get")
        .json()
        .await
        .expect("json");
    assert_eq!(j["depth"], 2);
    let pages = j["crawl"]["pages"].as_u64().expect("crawl.pages");
    let lists = j["crawl"]["lists"].as_u64().expect("crawl.lists");
    assert!(pages >= 5 && lists >= 2, "{j}");
    assert_eq!(j["crawl"]["hubs"], 1, "the site map is a hub: {j}");
    let html = common::get_text(&client, &format!("{base}/watches/{}", w.id)).await;
    assert!(
        html.contains("Site pages") && html.contains("Keywords: library"),
        "{html}"
    );
    // A keyword that is not a short line of text is refused with a clear message.
    let r = client
        .post(format!("{base}/api/watches"))
        .json(&serde_json::json!({"url": site.url("/x"), "keywords": ["a".repeat(300)]}))
        .send()
        .await
        .expect("post");
    assert_eq!(r.status(), 400);
    let e: serde_json::Value = r.json().await.expect("json");
    assert!(
        e["error"].as_str().expect("error").contains("keyword"),
        "{e}"
    );
}

#[tokio::test]
async fn the_page_the_watch_is_redirected_to_is_not_crawled_as_its_own_section() {
    let dir = tempfile::tempdir().expect("tmp");
    let site = Site::start().await;
    let (app, _clock) = deep_app(dir.path());
    // `/start` redirects to `/`, whose menu links `/` ("Home").
    let w = add(&app, &site.url("/start"), 2, &[]);
    check(&app, &w).await;
    let home = site.requests_exact("/");
    assert_eq!(home, 1, "the front page was fetched {home} times");
}

/// A near-duplicate met in a later check than its original (whose page is then read from
/// the store, not fetched in the same check) is known as one, and not followed.
#[tokio::test]
async fn a_mirror_met_after_its_original_was_stored_is_a_near_duplicate() {
    let dir = tempfile::tempdir().expect("tmp");
    let site = Site::start().await;
    site.edit(|d| d.no_mirror = true);
    let (app, clock) = deep_app(dir.path());
    let w = add(&app, &site.url("/"), 2, &[]);
    check(&app, &w).await;
    let news = site.url("/news/");
    let mirror = site.url("/mirror/news/");
    let state = app.store().crawl(&w.id).expect("crawl state");
    assert_eq!(state.pages.get(&news).map(|p| p.kind), Some(Kind::List));
    assert!(!state.pages.contains_key(&mirror));
    site.edit(|d| d.no_mirror = false);
    clock.advance(3600);
    check(&app, &w).await;
    let state = app.store().crawl(&w.id).expect("crawl state");
    let page = state.pages.get(&mirror).expect("the mirror was visited");
    assert_eq!(page.kind, Kind::Duplicate);
    assert_eq!(
        page.why.as_deref(),
        Some(format!("a near-duplicate of {news}").as_str())
    );
}
