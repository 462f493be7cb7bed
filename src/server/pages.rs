//! The web page, rendered on the server with maud (escaped by construction; one line of
//! JavaScript selects a feed URL on click): the watches and a form to add one (`/`), a
//! page per watch with its latest items and recent checks (`/watches/<id>`), the preview
//! of what sitefeed extracts from the page now (`/watches/<id>/preview`), OPML upload,
//! and the login form when `admin_token` is set. Every form carries a CSRF token
//! (see [`super::auth`]).

use std::sync::Arc;

use axum::extract::{Multipart, Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Form, Router};
use maud::{html, Markup, PreEscaped, DOCTYPE};
use serde::Deserialize;

use super::api::OpmlReport;
use super::auth;
use super::error::ApiError;
use super::preview;
use crate::app::{App, AppError, NewWatch};
use crate::model::{Status, Watch, WatchId};
use crate::store::WatchState;

pub fn router() -> Router<Arc<App>> {
    Router::new()
        .route("/", get(index))
        .route("/watches", post(add))
        .route("/watches/{id}", get(watch_page))
        .route("/watches/{id}/preview", get(preview_page))
        .route("/watches/{id}/check", post(check_now))
        .route("/watches/{id}/remove", post(remove))
        .route("/opml/import", post(import_opml))
        .route("/login", get(login_page).post(login))
        .route("/logout", post(logout))
}

/// Items shown on a watch's page.
const PAGE_ITEMS: usize = 50;

const CSS: &str = "body{font:15px/1.4 system-ui,sans-serif;max-width:72em;margin:1em auto;padding:0 1em;color:#222}\
table{border-collapse:collapse;width:100%}td,th{padding:.3em .4em;border-bottom:1px solid #ddd;text-align:left;vertical-align:top}\
.err{color:#a00}.ok{color:#070}.new{background:#efe}.muted{color:#666}.msg{padding:.5em;border:1px solid #a00;background:#fee}\
.note{padding:.5em;border:1px solid #070;background:#efe}input.feed{width:22em;font:12px monospace}\
form.inline{display:inline}fieldset{border:1px solid #ccc;margin:1em 0}label{display:inline-block;margin:.2em .6em .2em 0}\
mark{background:#cfc;padding:0 .3em}";

/// Per-request things every page needs: the CSRF token (and its cookie when new) and
/// whether to show the logout button.
struct Ctx {
    csrf: String,
    set_cookie: Option<axum::http::HeaderValue>,
    logged_in: bool,
}

impl Ctx {
    fn new(app: &App, headers: &HeaderMap) -> Self {
        let (csrf, set_cookie) = auth::csrf(headers);
        Self {
            csrf,
            set_cookie,
            logged_in: !app.config.server.admin_token.is_empty(),
        }
    }

    fn hidden(&self) -> Markup {
        html! { input type="hidden" name="csrf" value=(self.csrf); }
    }

    /// A complete HTML response.
    fn page(&self, status: StatusCode, title: &str, body: &Markup) -> Response {
        let doc = html! {
            (DOCTYPE)
            html lang="en" {
                head {
                    meta charset="utf-8";
                    meta name="viewport" content="width=device-width";
                    title { (title) " · sitefeed" }
                    style { (PreEscaped(CSS)) }
                }
                body {
                    header {
                        a href="/" { strong { "sitefeed" } }
                        @if self.logged_in {
                            " "
                            form.inline method="post" action="/logout" {
                                (self.hidden()) button { "Log out" }
                            }
                        }
                    }
                    (body)
                }
            }
        };
        let mut resp = (status, doc).into_response();
        if let Some(c) = &self.set_cookie {
            resp.headers_mut().append(header::SET_COOKIE, c.clone());
        }
        resp
    }
}

/// A date for people: `2024-05-01 12:00 UTC`.
fn when(t: i64) -> String {
    chrono::DateTime::from_timestamp(t, 0)
        .unwrap_or_default()
        .format("%Y-%m-%d %H:%M UTC")
        .to_string()
}

fn status_of(s: Option<&WatchState>) -> Markup {
    match s {
        Some(s) if s.status == Status::Error => html! {
            span.err { "error" } @if let Some(e) = &s.error { br; span.err { (e) } }
        },
        Some(s) if s.status == Status::Ok => html! { span.ok { "ok" } },
        _ => html! { span.muted { "new (not checked yet)" } },
    }
}

/// The copy-able feed URLs of a watch.
fn feed_links(app: &App, id: &WatchId) -> Markup {
    html! {
        @for (name, ext) in [("RSS", "xml"), ("Atom", "atom"), ("JSON", "json")] {
            @let url = app.feed_url(id, ext);
            div {
                a.feed href=(url) { (name) } " "
                input.feed readonly value=(url) onclick="this.select()" aria-label={ (name) " feed URL" };
            }
        }
    }
}

/// What the add form was given, to refill it after an error.
#[derive(Debug, Default, Deserialize)]
struct AddForm {
    url: Option<String>,
    depth: Option<String>,
    title: Option<String>,
    select: Option<String>,
    keywords: Option<String>,
    backfill: Option<String>,
    render: Option<String>,
    csrf: Option<String>,
}

fn add_form(ctx: &Ctx, f: &AddForm) -> Markup {
    let v = |o: &Option<String>| o.clone().unwrap_or_default();
    let depth = f.depth.clone().unwrap_or_else(|| "1".into());
    html! {
        form #add method="post" action="/watches" {
            fieldset {
                legend { "Watch a page" }
                (ctx.hidden())
                label { "URL " input name="url" type="text" size="50" required
                    placeholder="https://example.org/news/" value=(v(&f.url)); }
                label { "Depth "
                    select name="depth" {
                        @for d in ["1", "2", "3"] {
                            option value=(d) selected[depth == d] { (d) }
                        }
                    }
                }
                br;
                label { "Title " input name="title" placeholder="from the page" value=(v(&f.title)); }
                label { "CSS selector " input name="select" placeholder="e.g. main .news" value=(v(&f.select)); }
                label { "Keywords " input name="keywords" placeholder="a, b (only items on this topic)" value=(v(&f.keywords)); }
                label { "Backfill " input name="backfill" type="number" min="0" max="100" size="4"
                    placeholder="0" value=(v(&f.backfill)); }
                @let render = f.render.clone().unwrap_or_else(|| "plain".into());
                label { "Read "
                    select name="render" {
                        @for (r, text) in [("plain", "as served"), ("browser", "in the browser (scripts run)"), ("auto", "in the browser if it is an empty app shell")] {
                            option value=(r) selected[render == r] { (text) }
                        }
                    }
                }
                button type="submit" { "Watch" }
                p.muted { "The first check only records the page. The feed then says the page is watched, "
                    "or, with a backfill of N, carries the page's first N entries." }
            }
        }
    }
}

fn index_body(
    app: &App,
    ctx: &Ctx,
    form: &AddForm,
    msg: Option<&Markup>,
) -> Result<Markup, ApiError> {
    let mut rows = Vec::new();
    for w in app.store.watches()? {
        let s = app.store.state(&w.id)?;
        rows.push((app.display_title(&w, s.as_ref()), w, s));
    }
    rows.sort_by_key(|r| r.0.to_lowercase());
    Ok(html! {
        h1 { "sitefeed" }
        @if let Some(m) = msg { (m) }
        (add_form(ctx, form))
        h2 { "Watches (" (rows.len()) ")" }
        @if rows.is_empty() {
            p.muted { "Nothing watched yet: add a page above, or import an OPML file below." }
        } @else {
            table #watches {
                tr { th { "Title / URL" } th { "Status" } th { "Last check" } th { "Next check" } th { "Items" } th { "Feeds" } }
                @for (title, w, s) in &rows {
                    tr {
                        td {
                            a.watch href={ "/watches/" (w.id) } { (title) }
                            @if !w.render.is_plain() { " " span.render.muted title="how the page is read" { "[" (w.render.as_str()) "]" } }
                            br;
                            a.muted href=(w.url) { (w.url) }
                        }
                        td { (status_of(s.as_ref())) }
                        td { (s.as_ref().and_then(|s| s.last_check).map_or_else(|| "never".into(), when)) }
                        td { (s.as_ref().map(|s| when(s.next_check)).unwrap_or_default()) }
                        td { (s.as_ref().map_or(0, |s| s.item_count)) }
                        td { (feed_links(app, &w.id)) }
                    }
                }
            }
        }
        @if let Some(b) = app.fetcher.browser().filter(|b| {
            b.health().state != "idle" || rows.iter().any(|r| !r.1.render.is_plain())
        }) {
            (browser_health(&b.health()))
        }
        h2 { "OPML" }
        p { a href={ "/opml" (app.key_query()) } { "Export all feeds as OPML" } }
        form method="post" action="/opml/import" enctype="multipart/form-data" {
            (ctx.hidden())
            label { "Import OPML " input type="file" name="opml" accept=".opml,.xml,text/xml,text/x-opml" required; }
            button type="submit" { "Import" }
        }
    })
}

#[derive(Debug, Deserialize)]
struct IndexQuery {
    added: Option<String>,
    removed: Option<String>,
}

async fn index(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Query(q): Query<IndexQuery>,
) -> Result<Response, ApiError> {
    let ctx = Ctx::new(&app, &headers);
    let msg = if let Some(id) = q.added.as_deref().and_then(WatchId::parse) {
        app.store.watch(&id)?.map(|w| {
            html! { p.note { "Watching " a href={ "/watches/" (w.id) } { (w.url) } ". Its first check sets the baseline." } }
        })
    } else {
        q.removed.map(|u| html! { p.note { "Removed " (u) "." } })
    };
    let body = index_body(&app, &ctx, &AddForm::default(), msg.as_ref())?;
    Ok(ctx.page(StatusCode::OK, "watches", &body))
}

fn csrf_failed(ctx: &Ctx) -> Response {
    ctx.page(
        StatusCode::FORBIDDEN,
        "expired form",
        &html! {
            h1 { "This form has expired" }
            p.msg { "The form was not sent from this sitefeed page (its CSRF token does not match). "
                    a href="/" { "Reload the page" } " and send it again." }
        },
    )
}

/// Parses an optional number field; `Err` is the message for the user.
fn number<T: std::str::FromStr>(field: &str, v: Option<&str>) -> Result<Option<T>, String> {
    match v.map(str::trim) {
        None | Some("") => Ok(None),
        Some(s) => s
            .parse()
            .map(Some)
            .map_err(|_| format!("{field} `{s}` is not a whole number")),
    }
}

async fn add(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Form(f): Form<AddForm>,
) -> Result<Response, ApiError> {
    let ctx = Ctx::new(&app, &headers);
    if !auth::csrf_ok(&headers, f.csrf.as_deref().unwrap_or("")) {
        return Ok(csrf_failed(&ctx));
    }
    let parsed = (|| -> Result<NewWatch, String> {
        let url = f.url.clone().unwrap_or_default();
        if url.trim().is_empty() {
            return Err(
                "enter the URL of the page to watch, e.g. https://example.org/news/".into(),
            );
        }
        Ok(NewWatch {
            url,
            depth: number("depth", f.depth.as_deref())?,
            title: f.title.clone(),
            select: f.select.clone(),
            keywords: f
                .keywords
                .as_deref()
                .unwrap_or("")
                .split(',')
                .map(|k| k.trim().to_owned())
                .filter(|k| !k.is_empty())
                .collect(),
            backfill: number("backfill", f.backfill.as_deref())?,
            strategy: None,
            render: match f.render.as_deref().map(str::trim) {
                None | Some("") => None,
                Some(r) => Some(crate::model::Render::parse(r).ok_or_else(|| {
                    format!("read `{r}` is not one of {}", crate::model::Render::NAMES)
                })?),
            },
        })
    })();
    let result = parsed
        .map_err(AppError::BadInput)
        .and_then(|req| app.add_watch(&req));
    match result {
        Ok((w, _)) => Ok(Redirect::to(&format!("/?added={}", w.id)).into_response()),
        Err(AppError::BadInput(m)) => {
            let msg = html! { p.msg #error { "Not added: " (m) } };
            let body = index_body(&app, &ctx, &f, Some(&msg))?;
            Ok(ctx.page(StatusCode::BAD_REQUEST, "watches", &body))
        }
        Err(e) => Err(e.into()),
    }
}

fn find(app: &App, id: &str) -> Result<Watch, ApiError> {
    WatchId::parse(id)
        .map(|id| app.store.watch(&id))
        .transpose()?
        .flatten()
        .ok_or_else(|| ApiError::NotFound(format!("watch {id}")))
}

/// The headless browser's state, for the index when some watch renders.
fn browser_health(h: &crate::fetch::browser::Health) -> Markup {
    html! {
        h2 { "Browser" }
        table #browser {
            tr { th { "State" } td {
                @match h.state {
                    "running" => span.ok { "running" },
                    "down" => span.err { "down (started again by the next render)" },
                    _ => span.muted { "not started (it starts on the first render)" },
                }
                " · " (h.endpoint)
            } }
            tr { th { "Tabs" } td { (h.tabs_busy) " of " (h.tabs) " rendering" } }
            tr { th { "Renders" } td {
                (h.renders) " (" (h.failures) " failed), " (h.restarts) " restarts"
                @if let Some(ms) = h.mean_render_ms { "; " (ms) " ms on average" }
            } }
            tr { th { "Requests of pages" } td { (h.refused) " refused (private addresses and the like), " (h.blocked) " blocked unsent (images, fonts, media, limits)" } }
            @if let Some(m) = h.memory_bytes { tr { th { "Memory" } td { (m / (1024 * 1024)) " MiB (proportional set size of its processes)" } } }
            @if let Some(e) = &h.last_error { tr { th { "Last error" } td.err { (e) } } }
        }
    }
}

fn watch_header(app: &App, w: &Watch, s: Option<&WatchState>) -> Markup {
    html! {
        h1 { (app.display_title(w, s)) }
        p { a href=(w.url) { (w.url) } }
        @if let Some(sel) = &w.select { p { "CSS selector: " code { (sel) } } }
        @if w.depth > 1 { p { "Depth " (w.depth) ": the pages it links to are watched too." } }
        @if !w.keywords.is_empty() { p { "Keywords: " (w.keywords.join(", ")) } }
        @match w.render {
            crate::model::Render::Browser => p #render { "Read in the headless browser: its scripts run, and the page as they leave it is read." },
            crate::model::Render::Auto => p #render { "Read as served, and in the headless browser when that is an empty application shell." },
            crate::model::Render::Plain => {},
        }
        @if let Some(r) = super::api::last_render(app, w) {
            p #last-render {
                "Last render: " (r.ms) " ms, " @if r.ok { "ok" } @else { span.err { "failed" } }
                "; " (r.requests) " requests answered, " (r.refused) " refused, " (r.blocked) " blocked"
            }
        }
    }
}

async fn watch_page(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let ctx = Ctx::new(&app, &headers);
    let w = find(&app, &id)?;
    let s = app.store.state(&w.id)?;
    let items = app.store.items(&w.id, PAGE_ITEMS)?;
    let crawl = s.as_ref().and_then(|s| s.crawl);
    let body = html! {
        (watch_header(&app, &w, s.as_ref()))
        table {
            tr { th { "Status" } td { (status_of(s.as_ref())) } }
            tr { th { "Last check" } td { (s.as_ref().and_then(|s| s.last_check).map_or_else(|| "never".into(), when)) } }
            tr { th { "Next check" } td { (s.as_ref().map(|s| when(s.next_check)).unwrap_or_default()) } }
            tr { th { "Last new item" } td { (s.as_ref().and_then(|s| s.last_change).map_or_else(|| "none yet".into(), when)) } }
            tr { th { "Items" } td { (s.as_ref().map_or(0, |s| s.item_count)) } }
            tr { th { "Links on the page" } td { (s.as_ref().map_or(0, |s| s.link_count)) } }
            tr { th { "Feeds" } td { (feed_links(&app, &w.id)) } }
            @if let Some(c) = crawl.as_ref() {
                tr #crawl { th { "Site pages" } td {
                    (c.pages) " known: " (c.lists) " lists, " (c.leaves) " item pages, "
                    (c.hubs) " hubs, " (c.duplicates) " near-duplicates, " (c.unusable) " unusable; "
                    (c.waiting) " waiting; " (c.fetched_last_check) " fetched by the last check"
                } }
            }
        }
        p {
            a #preview href={ "/watches/" (w.id) "/preview" } { "Preview what sitefeed extracts now" } " "
            form.inline method="post" action={ "/watches/" (w.id) "/check" } { (ctx.hidden()) button { "Check now" } } " "
            form.inline method="post" action={ "/watches/" (w.id) "/remove" } { (ctx.hidden()) button { "Remove" } }
        }
        h2 { "Latest items" }
        @if items.is_empty() {
            p.muted { "No new links found yet." }
        } @else {
            table #items {
                tr { th { "First seen" } th { "Item" } }
                @for i in &items {
                    tr { td { (when(i.first_seen)) } td { a href=(i.link) { (i.title) } } }
                }
            }
        }
        h2 { "Recent checks" }
        @match s.as_ref().map(|s| &s.recent_checks).filter(|c| !c.is_empty()) {
            None => p.muted { "Not checked yet." },
            Some(checks) => table #checks {
                tr { th { "When" } th { "What changed" } th { "Took" } }
                @for c in checks {
                    tr {
                        td { (when(c.at)) }
                        td {
                            @if let Some(e) = &c.error { span.err { "failed: " (e) } }
                            @else if c.new_items > 0 { (c.new_items) " new item" @if c.new_items > 1 { "s" } }
                            @else if c.changed { "links changed, nothing new" }
                            @else { "unchanged" }
                        }
                        td { (c.duration_ms) " ms" }
                    }
                }
            }
        }
    };
    Ok(ctx.page(StatusCode::OK, &app.display_title(&w, s.as_ref()), &body))
}

async fn preview_page(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let ctx = Ctx::new(&app, &headers);
    let w = find(&app, &id)?;
    let s = app.store.state(&w.id)?;
    let result = preview::run(&app, &w).await?;
    let body = html! {
        (watch_header(&app, &w, s.as_ref()))
        p { a href={ "/watches/" (w.id) } { "Back to the watch" } }
        h2 { "Preview" }
        @match &result {
            Err(m) => p.msg #error { (m) },
            Ok(p) => {
                @let new = p.links.iter().filter(|l| l.new).count();
                p #summary {
                    (p.links.len()) " links extracted"
                    @if let Some(t) = &p.title { " from " em { (t) } }
                    " (" a href=(p.url) { (p.url) } "). "
                    @if p.baseline { "The first check will record them as the baseline: none is new yet." }
                    @else { (new) " would be new at the next check (marked " mark { "new" } ")." }
                }
                table #links {
                    tr { th { "#" } th { "" } th { "Link text" } th { "URL" } }
                    @for (n, l) in p.links.iter().enumerate() {
                        tr class=[l.new.then_some("new")] {
                            td { (n + 1) }
                            td { @if l.new { mark { "new" } } }
                            td { (l.link.text) }
                            td { a href=(l.link.url) { (l.link.url) } }
                        }
                    }
                }
            }
        }
    };
    Ok(ctx.page(StatusCode::OK, "preview", &body))
}

#[derive(Debug, Deserialize)]
struct CsrfForm {
    csrf: Option<String>,
}

async fn check_now(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    Form(f): Form<CsrfForm>,
) -> Result<Response, ApiError> {
    if !auth::csrf_ok(&headers, f.csrf.as_deref().unwrap_or("")) {
        return Ok(csrf_failed(&Ctx::new(&app, &headers)));
    }
    let w = find(&app, &id)?;
    app.check(&w, false).await?;
    app.wake.notify_one();
    Ok(Redirect::to(&format!("/watches/{}", w.id)).into_response())
}

async fn remove(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    Form(f): Form<CsrfForm>,
) -> Result<Response, ApiError> {
    if !auth::csrf_ok(&headers, f.csrf.as_deref().unwrap_or("")) {
        return Ok(csrf_failed(&Ctx::new(&app, &headers)));
    }
    let w = find(&app, &id)?;
    app.remove(&w.id).await?;
    let q: String = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("removed", &w.url)
        .finish();
    Ok(Redirect::to(&format!("/?{q}")).into_response())
}

async fn import_opml(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    mut form: Multipart,
) -> Result<Response, ApiError> {
    let ctx = Ctx::new(&app, &headers);
    let mut csrf = String::new();
    let mut text = None;
    let mut bad = None;
    loop {
        match form.next_field().await {
            Ok(Some(field)) => {
                let name = field.name().unwrap_or("").to_owned();
                match field.bytes().await {
                    Ok(b) if name == "csrf" => csrf = String::from_utf8_lossy(&b).into_owned(),
                    Ok(b) if name == "opml" => {
                        text = Some(String::from_utf8_lossy(&b).into_owned());
                    }
                    Ok(_) => {}
                    Err(e) => bad = Some(e.body_text()),
                }
            }
            Ok(None) => break,
            Err(e) => {
                bad = Some(e.body_text());
                break;
            }
        }
    }
    if !auth::csrf_ok(&headers, &csrf) {
        return Ok(csrf_failed(&ctx));
    }
    let result = match (bad, text) {
        (Some(e), _) => Err(format!("the upload could not be read: {e}")),
        (None, None) => Err("choose an OPML file to import".into()),
        (None, Some(t)) => match super::api::import(&app, &t) {
            Ok(r) => Ok(r),
            Err(AppError::BadInput(m)) => Err(m),
            Err(e) => return Err(e.into()),
        },
    };
    let (status, msg) = match &result {
        Ok(r) => (StatusCode::OK, import_report(r)),
        Err(m) => (
            StatusCode::BAD_REQUEST,
            html! { p.msg #error { "Nothing imported: " (m) } },
        ),
    };
    let body = index_body(&app, &ctx, &AddForm::default(), Some(&msg))?;
    Ok(ctx.page(status, "OPML import", &body))
}

fn import_report(r: &OpmlReport) -> Markup {
    html! {
        div.note #report {
            "OPML imported: " (r.added) " added, " (r.existing) " already watched"
            @if !r.rejected.is_empty() {
                ", " (r.rejected.len()) " rejected:"
                ul { @for x in &r.rejected { li { (x.url) ": " (x.error) } } }
            }
            "."
        }
    }
}

async fn login_page(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    let ctx = Ctx::new(&app, &headers);
    login_form(&app, &ctx, StatusCode::OK, None)
}

fn login_form(app: &App, ctx: &Ctx, status: StatusCode, msg: Option<&str>) -> Response {
    let ctx = Ctx {
        csrf: ctx.csrf.clone(),
        set_cookie: ctx.set_cookie.clone(),
        logged_in: false,
    };
    let body = html! {
        h1 { "Log in to sitefeed" }
        @if app.config.server.admin_token.is_empty() {
            p { "This sitefeed has no admin token: " a href="/" { "go to the watches" } "." }
        } @else {
            @if let Some(m) = msg { p.msg #error { (m) } }
            form method="post" action="/login" {
                (ctx.hidden())
                label { "Admin token " input type="password" name="token" autofocus required; }
                button { "Log in" }
            }
            p.muted { "The token is `server.admin_token` in the config." }
        }
    };
    ctx.page(status, "log in", &body)
}

#[derive(Debug, Deserialize)]
struct LoginForm {
    token: Option<String>,
    csrf: Option<String>,
}

async fn login(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Form(f): Form<LoginForm>,
) -> Response {
    let ctx = Ctx::new(&app, &headers);
    if !auth::csrf_ok(&headers, f.csrf.as_deref().unwrap_or("")) {
        return csrf_failed(&ctx);
    }
    let token = &app.config.server.admin_token;
    if token.is_empty() {
        return Redirect::to("/").into_response();
    }
    if !auth::is_admin_token(&app, f.token.as_deref().unwrap_or("")) {
        return login_form(&app, &ctx, StatusCode::UNAUTHORIZED, Some("Wrong token."));
    }
    let mut resp = Redirect::to("/").into_response();
    resp.headers_mut()
        .append(header::SET_COOKIE, auth::session_cookie(token));
    resp
}

async fn logout(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Form(f): Form<CsrfForm>,
) -> Response {
    if !auth::csrf_ok(&headers, f.csrf.as_deref().unwrap_or("")) {
        return csrf_failed(&Ctx::new(&app, &headers));
    }
    let mut resp = Redirect::to("/login").into_response();
    resp.headers_mut()
        .append(header::SET_COOKIE, auth::logout_cookie());
    resp
}
