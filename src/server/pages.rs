//! The web page, rendered on the server with maud (escaped by construction; one line of
//! JavaScript selects a feed URL on click): the watches and a form to add one (`/`), a
//! page per watch with its latest items and recent checks (`/watches/<id>`), the preview
//! of what sitefeed extracts from the page now (`/watches/<id>/preview`), OPML upload,
//! and the login form when `admin_token` is set. Every form carries a CSRF token
//! (see [`super::auth`]). Text that comes from a watched page (titles, link texts,
//! errors, URLs) is isolated in `<bdi>` (or `dir="auto"`), so a right-to-left override
//! in it cannot reverse the sentence around it.

use std::sync::Arc;

use axum::extract::{Multipart, Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Extension, Form, Router};
use maud::{html, Markup, PreEscaped, DOCTYPE};
use serde::Deserialize;

use super::api::OpmlReport;
use super::auth;
use super::base::PublicBase;
use super::error::ApiError;
use super::list::ListQuery;
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
        .route("/watches/{id}/edit", post(edit))
        .route("/watches/{id}/pause", post(pause))
        .route("/opml/import", post(import_opml))
        .route("/login", get(login_page).post(login))
        .route("/logout", post(logout))
}

/// Items shown on a watch's page.
const PAGE_ITEMS: usize = 50;

const CSS: &str = ":root{color-scheme:light dark}\
body{font:15px/1.4 system-ui,sans-serif;max-width:72em;margin:1em auto;padding:0 1em;color:#222;background:#fff}\
table{border-collapse:collapse;width:100%}td,th{padding:.3em .4em;border-bottom:1px solid #ddd;text-align:left;vertical-align:top;overflow-wrap:anywhere}\
.err{color:#a00}.ok{color:#070}.new{background:#efe}.muted{color:#666}.msg{padding:.5em;border:1px solid #a00;background:#fee}\
.note{padding:.5em;border:1px solid #070;background:#efe}input.feed{width:22em;max-width:100%;font:12px monospace}\
form.inline{display:inline}fieldset{border:1px solid #ccc;margin:1em 0;min-width:0}label{display:inline-block;margin:.2em .6em .2em 0;max-width:100%}\
input,select,button{max-width:100%;box-sizing:border-box}a{overflow-wrap:anywhere}\
mark{background:#cfc;padding:0 .3em}.tag{display:inline-block;padding:0 .4em;border:1px solid #9ab;border-radius:.6em;font-size:90%;margin:.1em 0}\
.lbl{display:none}code{overflow-wrap:anywhere}\
@media (max-width:640px){table#watches thead{display:none}table#watches tr,table#watches td{display:block}\
table#watches tr{border-bottom:2px solid #ccc;padding:.4em 0}table#watches td{border:0;padding:.1em 0}.lbl{display:inline;color:#666}\
input[size]{width:100%}}\
@media (prefers-color-scheme:dark){body{background:#161616;color:#ddd}a{color:#8ab4f8}td,th{border-color:#444}\
.muted,.lbl{color:#999}.err{color:#f77}.ok{color:#6d6}.msg{background:#3a1010;border-color:#a33}\
.note,.new{background:#103a1a;border-color:#3a3}mark{background:#2a5a2a;color:#eee}fieldset{border-color:#555}\
input,select,button,textarea{background:#222;color:#ddd;border:1px solid #555}}";

/// Per-request things every page needs: the CSRF token (and its cookie when new) and
/// whether to show the logout button.
struct Ctx {
    csrf: String,
    set_cookie: Option<axum::http::HeaderValue>,
    logged_in: bool,
}

impl Ctx {
    fn new(app: &App, headers: &HeaderMap) -> Self {
        let (csrf, set_cookie) = auth::csrf(app, headers);
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
                    meta name="viewport" content="width=device-width, initial-scale=1";
                    meta name="color-scheme" content="light dark";
                    title { (title_text(title)) " · sitefeed" }
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

/// Text for the document's `<title>`, which cannot hold a `<bdi>`: without the
/// bidirectional embedding and override controls a page's title could use to turn the
/// tab's text around.
fn title_text(text: &str) -> String {
    text.chars()
        .filter(|c| !matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'))
        .collect()
}

/// A message for the page: text between backticks (keys, values, as the CLI writes
/// them) is set as code, not shown with its backticks.
fn plain(msg: &str) -> Markup {
    let parts: Vec<&str> = msg.split('`').collect();
    // An odd backtick out is kept as text.
    if parts.len() % 2 == 0 {
        return html! { (msg) };
    }
    html! {
        @for (i, part) in parts.iter().enumerate() {
            @if i % 2 == 1 { code { (part) } } @else { (part) }
        }
    }
}

/// A date for people, in time zone `tz`: `2024-05-01 12:00 UTC`, `2024-05-01 14:00 CEST`.
fn when(t: i64, tz: chrono_tz::Tz) -> String {
    chrono::DateTime::from_timestamp(t, 0)
        .unwrap_or_default()
        .with_timezone(&tz)
        .format("%Y-%m-%d %H:%M %Z")
        .to_string()
}

fn status_of(s: Option<&WatchState>, tz: chrono_tz::Tz) -> Markup {
    match s {
        Some(s) if s.status == Status::Error => html! {
            span.err { "error" } @if let Some(e) = &s.error { br; span.err { bdi { (plain(e)) } } }
            br; span.muted {
                @if let Some(t) = s.error_since { "failing since " (when(t, tz)) ", " }
                (s.consecutive_errors) " failed check" @if s.consecutive_errors != 1 { "s" } " in a row; next try " (when(s.next_check, tz))
            }
        },
        Some(s) if s.status == Status::Ok => html! { span.ok { "ok" } },
        _ => html! { span.muted { "new (not checked yet)" } },
    }
}

/// The copy-able feed URLs of a watch.
fn feed_links(app: &App, base: &str, id: &WatchId) -> Markup {
    html! {
        @for (name, ext) in [("RSS", "xml"), ("Atom", "atom"), ("JSON", "json")] {
            @let url = app.feed_url_at(base, id, ext);
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
    tags: Option<String>,
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
                label { "Tags " input name="tags" placeholder="news, research" value=(v(&f.tags)); }
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

/// Watches on one page of the list.
const LIST_PAGE: usize = 50;

#[allow(
    clippy::too_many_lines,
    reason = "one page template: the add form, the filters, the list"
)]
fn index_body(
    app: &App,
    base: &str,
    ctx: &Ctx,
    form: &AddForm,
    msg: Option<&Markup>,
    list: &ListQuery,
) -> Result<Markup, ApiError> {
    let mut list = list.clone();
    if list.sort.as_deref().unwrap_or("").is_empty() {
        list.sort = Some("title".into());
    }
    let (rows, total) = super::list::select(app, &list, LIST_PAGE)?;
    let all_watches = app.store.watches()?;
    let mut tags: Vec<&str> = all_watches
        .iter()
        .flat_map(|w| w.options.tags.iter().map(String::as_str))
        .collect();
    tags.sort_unstable();
    tags.dedup();
    let page = list.page.unwrap_or(1).max(1);
    let pages = total.div_ceil(LIST_PAGE).max(1);
    let filtered = list.q.as_deref().is_some_and(|q| !q.trim().is_empty())
        || list.tag.as_deref().is_some_and(|t| !t.is_empty())
        || list.status.as_deref().is_some_and(|t| !t.is_empty());
    let v = |o: &Option<String>| o.clone().unwrap_or_default();
    let page_link = |p: usize| {
        let mut q = url::form_urlencoded::Serializer::new(String::new());
        for (k, val) in [
            ("q", &list.q),
            ("tag", &list.tag),
            ("status", &list.status),
            ("sort", &list.sort),
        ] {
            if let Some(val) = val.as_deref().filter(|x| !x.is_empty()) {
                q.append_pair(k, val);
            }
        }
        q.append_pair("page", &p.to_string());
        format!("/?{}", q.finish())
    };
    let sorts = [
        ("title", "title"),
        ("-last_check", "last checked"),
        ("next_check", "next check"),
        ("-items", "most items"),
        ("status", "status"),
        ("-created", "newest"),
    ];
    Ok(html! {
        h1 { "sitefeed" }
        @if let Some(m) = msg { (m) }
        (add_form(ctx, form))
        h2 { "Watches (" (all_watches.len()) ")" }
        @if all_watches.is_empty() {
            p.muted { "Nothing watched yet: add a page above, or import an OPML file below." }
        } @else {
            form #filter method="get" action="/" {
                label { "Search " input type="search" name="q" value=(v(&list.q)) placeholder="title, URL or tag"; }
                label { "Tag "
                    select name="tag" {
                        option value="" { "all" }
                        @for t in &tags { option value=(t) selected[list.tag.as_deref() == Some(*t)] { (t) } }
                    }
                }
                label { "Status "
                    select name="status" {
                        @for (val, name) in [("", "all"), ("ok", "ok"), ("error", "failing"), ("new", "new"), ("paused", "paused")] {
                            option value=(val) selected[list.status.as_deref().unwrap_or("") == val] { (name) }
                        }
                    }
                }
                label { "Sort "
                    select name="sort" {
                        @for (val, name) in sorts {
                            option value=(val) selected[list.sort.as_deref() == Some(val)] { (name) }
                        }
                    }
                }
                button type="submit" { "Show" }
                @if filtered { " " a href="/" { "all watches" } }
            }
            @if let Some(t) = list.tag.as_deref().filter(|t| tags.contains(t)) {
                p.note #tagfeeds {
                    "Tag " strong { (t) } ": "
                    a href={ (base) "/feed/tag/" (super::feeds::path_segment(t)) ".xml" (app.key_query()) } { "its feed (RSS)" } ", "
                    a href={ (base) "/opml?tag=" (super::feeds::query_value(t)) (app.key_query().replacen('?', "&", 1)) } { "its OPML" }
                }
            }
            @if rows.is_empty() {
                p.muted #nomatch { "No watch matches." }
            } @else {
                table #watches {
                    thead { tr { th { "Title / URL" } th { "Status" } th { "Last check" } th { "Next check" } th { "Items" } th { "Feeds" } } }
                    tbody {
                        @for (title, w, s) in &rows {
                            @let tz = app.tz_for(w);
                            tr.watchrow {
                                td {
                                    a.watch href={ "/watches/" (w.id) } { bdi { (title) } }
                                    @if !w.render.is_plain() { " " span.render.muted title="how the page is read" { "[" (w.render.as_str()) "]" } }
                                    br;
                                    a.muted.url href=(w.url) { bdi { (w.url) } }
                                    @if !w.options.tags.is_empty() {
                                        br; @for t in &w.options.tags { a.tag href={ "/?tag=" (super::feeds::query_value(t)) } { (t) } " " }
                                    }
                                }
                                td { @if w.options.paused { span.muted { "paused" } br; } (status_of(s.as_ref(), tz)) }
                                td { span.lbl { "Last check " } (s.as_ref().and_then(|s| s.last_check).map_or_else(|| "never".into(), |t| when(t, tz))) }
                                td { span.lbl { "Next check " } (s.as_ref().map(|s| when(s.next_check, tz)).unwrap_or_default()) }
                                td { span.lbl { "Items " } (s.as_ref().map_or(0, |s| s.item_count)) }
                                td { (feed_links(app, base, &w.id)) }
                            }
                        }
                    }
                }
                @if pages > 1 {
                    p #pages {
                        @if page > 1 { a rel="prev" href=(page_link(page - 1)) { "previous" } " " }
                        "page " (page) " of " (pages) " (" (total) " watches)"
                        @if page < pages { " " a rel="next" href=(page_link(page + 1)) { "next" } }
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
    exists: Option<String>,
    removed: Option<String>,
    q: Option<String>,
    tag: Option<String>,
    status: Option<String>,
    sort: Option<String>,
    page: Option<String>,
}

async fn index(
    State(app): State<Arc<App>>,
    Extension(base): Extension<PublicBase>,
    headers: HeaderMap,
    Query(q): Query<IndexQuery>,
) -> Result<Response, ApiError> {
    let ctx = Ctx::new(&app, &headers);
    let msg = if let Some(id) = q.added.as_deref().and_then(WatchId::parse) {
        app.store.watch(&id)?.map(|w| {
            html! { p.note { "Watching " a href={ "/watches/" (w.id) } { bdi { (w.url) } } ". Its first check sets the baseline." } }
        })
    } else if let Some(id) = q.exists.as_deref().and_then(WatchId::parse) {
        app.store.watch(&id)?.map(|w| {
            html! { p.note #exists { "Already watched: " a href={ "/watches/" (w.id) } { (app.display_title(&w, None)) } " (" (w.url) ")." } }
        })
    } else {
        q.removed
            .clone()
            .map(|u| html! { p.note { "Removed " bdi { (u) } "." } })
    };
    let list = ListQuery {
        q: q.q,
        tag: q.tag,
        status: q.status,
        sort: q.sort,
        page: q.page.as_deref().and_then(|p| p.trim().parse().ok()),
        ..ListQuery::default()
    };
    let body = index_body(
        &app,
        &base.0,
        &ctx,
        &AddForm::default(),
        msg.as_ref(),
        &list,
    )?;
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
    Extension(base): Extension<PublicBase>,
    headers: HeaderMap,
    Form(f): Form<AddForm>,
) -> Result<Response, ApiError> {
    let ctx = Ctx::new(&app, &headers);
    if !auth::csrf_ok(&app, &headers, f.csrf.as_deref().unwrap_or("")) {
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
            tags: f.tags.iter().map(ToOwned::to_owned).collect(),
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
        Ok((w, true)) => Ok(Redirect::to(&format!("/?added={}", w.id)).into_response()),
        Ok((w, false)) => Ok(Redirect::to(&format!("/?exists={}", w.id)).into_response()),
        Err(AppError::BadInput(m)) => {
            let msg = html! { p.msg #error { "Not added: " bdi { (plain(&m)) } } };
            let body = index_body(&app, &base.0, &ctx, &f, Some(&msg), &ListQuery::default())?;
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
        h1 { bdi { (app.display_title(w, s)) } }
        p { a href=(w.url) { bdi { (w.url) } } }
        @if let Some(sel) = &w.select { p { "CSS selector: " code dir="auto" { (sel) } } }
        @if w.depth > 1 { p { "Depth " (w.depth) ": the pages it links to are watched too." } }
        @if !w.keywords.is_empty() { p { "Keywords: " (w.keywords.join(", ")) } }
        @if !w.options.tags.is_empty() { p.tags { "Tags: " @for t in &w.options.tags { span.tag { (t) } " " } } }
        @if w.options.paused { p.msg #paused { "Paused: the scheduler does not check this watch." } }
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

/// The edit form of a watch's page.
fn edit_form(ctx: &Ctx, w: &Watch) -> Markup {
    let secs = |v: Option<u64>| v.map(human_secs).unwrap_or_default();
    html! {
        form #edit method="post" action={ "/watches/" (w.id) "/edit" } {
            fieldset {
                legend { "Edit" }
                (ctx.hidden())
                label { "Title " input name="title" placeholder="from the page" value=(w.title.clone().unwrap_or_default()); }
                label { "CSS selector " input name="select" placeholder="the whole page" value=(w.select.clone().unwrap_or_default()); }
                label { "Depth "
                    select name="depth" {
                        @for d in [1u8, 2, 3] {
                            option value=(d) selected[w.depth == d] { (d) }
                        }
                    }
                }
                br;
                label { "Tags " input name="tags" placeholder="news, research" value=(w.options.tags.join(", ")); }
                label { "Keywords " input name="keywords" value=(w.keywords.join(", ")); }
                br;
                label { "Check at most every " input name="min_interval" size="6" placeholder="5m" value=(secs(w.options.min_interval)); }
                label { "and at least every " input name="max_interval" size="6" placeholder="1d" value=(secs(w.options.max_interval)); }
                br;
                label { input type="checkbox" name="error_item" value="on" checked[!w.options.no_error_item];
                    " Say so in the feed when the page keeps failing" }
                label { "Webhook " input name="webhook" type="url" placeholder="https://example.org/hook" value=(w.options.webhook.clone().unwrap_or_default()); }
                label { "Time zone " input name="timezone" placeholder="the server's" value=(w.options.timezone.clone().unwrap_or_default()); }
                button type="submit" { "Save" }
                p.muted { "A new selector or depth re-baselines the watch: its next check records the page "
                    "again, and nothing already on it becomes an item." }
            }
        }
    }
}

/// Seconds as people write durations: `90s`, `10m`, `2h`, `1d`.
fn human_secs(s: u64) -> String {
    match s {
        s if s % 86_400 == 0 => format!("{}d", s / 86_400),
        s if s % 3600 == 0 => format!("{}h", s / 3600),
        s if s % 60 == 0 => format!("{}m", s / 60),
        s => format!("{s}s"),
    }
}

async fn watch_page(
    State(app): State<Arc<App>>,
    Extension(base): Extension<PublicBase>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let ctx = Ctx::new(&app, &headers);
    let w = find(&app, &id)?;
    let s = app.store.state(&w.id)?;
    let items = app.store.items(&w.id, PAGE_ITEMS)?;
    let crawl = s.as_ref().and_then(|s| s.crawl);
    let tz = app.tz_for(&w);
    let body = html! {
        (watch_header(&app, &w, s.as_ref()))
        table {
            tr { th { "Status" } td { (status_of(s.as_ref(), tz)) } }
            @if let Some(n) = s.as_ref().and_then(|s| s.note.as_deref()) { tr #note { th { "Note" } td { (plain(n)) } } }
            @if let Some(h) = &w.options.webhook {
                tr #webhook { th { "Webhook" } td {
                    (h) br;
                    @match s.as_ref().and_then(|s| s.webhook_at) {
                        None => span.muted { "nothing sent yet" },
                        Some(at) => @match s.as_ref().and_then(|s| s.webhook_error.as_deref()) {
                            Some(e) => span.err { "failed " (when(at, tz)) ": " (plain(e)) },
                            None => span.ok { "delivered " (when(at, tz)) },
                        },
                    }
                } }
            }
            tr { th { "Last check" } td { (s.as_ref().and_then(|s| s.last_check).map_or_else(|| "never".into(), |t| when(t, tz))) } }
            tr { th { "Next check" } td { (s.as_ref().map(|s| when(s.next_check, tz)).unwrap_or_default()) } }
            tr { th { "Last new item" } td { (s.as_ref().and_then(|s| s.last_change).map_or_else(|| "none yet".into(), |t| when(t, tz))) } }
            tr { th { "Items" } td { (s.as_ref().map_or(0, |s| s.item_count)) } }
            tr { th { "Links on the page" } td { (s.as_ref().map_or(0, |s| s.link_count)) } }
            tr { th { "Feeds" } td { (feed_links(&app, &base.0, &w.id)) } }
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
            form.inline method="post" action={ "/watches/" (w.id) "/check" } { (ctx.hidden()) button #check { "Check now" } } " "
            form.inline method="post" action={ "/watches/" (w.id) "/pause" } {
                (ctx.hidden())
                @if w.options.paused { input type="hidden" name="paused" value="false"; button #pause { "Resume" } }
                @else { input type="hidden" name="paused" value="true"; button #pause { "Pause" } }
            } " "
            form.inline method="post" action={ "/watches/" (w.id) "/remove" }
                onsubmit="return confirm('Remove this watch and all its items?')" { (ctx.hidden()) button #remove { "Remove" } }
        }
        (edit_form(&ctx, &w))
        h2 { "Latest items" }
        @if items.is_empty() {
            p.muted { "No new links found yet." }
        } @else {
            table #items {
                tr { th { "First seen" } th { "Item" } }
                @for i in &items {
                    tr { td { (when(i.first_seen, tz)) } td dir="auto" { a href=(i.link) { bdi { (i.title) } } } }
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
                        td { (when(c.at, tz)) }
                        td {
                            @if let Some(e) = &c.error { span.err { "failed: " bdi { (plain(e)) } } }
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
            Err(m) => p.msg #error { bdi { (plain(m)) } },
            Ok(p) => {
                @let new = p.links.iter().filter(|l| l.is_item()).count();
                p #summary {
                    (p.links.len()) " links extracted"
                    @if let Some(t) = &p.title { " from " em { bdi { (t) } } }
                    " (" a href=(p.url) { bdi { (p.url) } } "). "
                    @if p.baseline { "The first check will record them as the baseline: none is new yet." }
                    @else { (new) " would be new at the next check (marked " mark { "new" } "); beside every other link, why it is not an item." }
                }
                table #links {
                    tr { th { "#" } th { "" } th { "Link text" } th { "URL" } }
                    @for (n, l) in p.links.iter().enumerate() {
                        tr class=[l.is_item().then_some("new")] {
                            td { (n + 1) }
                            td { @if l.is_item() { mark { "new" } } @else { span.muted.why { (l.verdict.reason()) } } }
                            td dir="auto" { bdi { (l.link.text) } }
                            td { a href=(l.link.url) { bdi { (l.link.url) } } }
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
    if !auth::csrf_ok(&app, &headers, f.csrf.as_deref().unwrap_or("")) {
        return Ok(csrf_failed(&Ctx::new(&app, &headers)));
    }
    let w = find(&app, &id)?;
    let r = app.check(&w, false).await?;
    app.wake.notify_one();
    app.notify(&w, &r);
    Ok(Redirect::to(&format!("/watches/{}", w.id)).into_response())
}

/// The edit form as sent. A checkbox that is not ticked is not sent at all.
#[derive(Debug, Default, Deserialize)]
struct EditForm {
    csrf: Option<String>,
    title: Option<String>,
    select: Option<String>,
    depth: Option<String>,
    tags: Option<String>,
    keywords: Option<String>,
    min_interval: Option<String>,
    max_interval: Option<String>,
    error_item: Option<String>,
    webhook: Option<String>,
    timezone: Option<String>,
}

impl EditForm {
    fn to_json(&self) -> Result<serde_json::Value, String> {
        let text = |v: &Option<String>| match v.as_deref().map(str::trim) {
            None | Some("") => serde_json::Value::Null,
            Some(t) => serde_json::json!(t),
        };
        let list = |v: &Option<String>| {
            v.as_deref()
                .unwrap_or("")
                .split(',')
                .map(|k| k.trim().to_owned())
                .filter(|k| !k.is_empty())
                .collect::<Vec<_>>()
        };
        let mut m = serde_json::json!({
            "title": text(&self.title),
            "select": text(&self.select),
            "tags": list(&self.tags),
            "keywords": list(&self.keywords),
            "min_interval": text(&self.min_interval),
            "max_interval": text(&self.max_interval),
            "error_item": self.error_item.is_some(),
            "webhook": text(&self.webhook),
            "timezone": text(&self.timezone),
        });
        if let Some(d) = number::<u8>("depth", self.depth.as_deref())? {
            m["depth"] = serde_json::json!(d);
        }
        Ok(m)
    }
}

async fn edit(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    Form(f): Form<EditForm>,
) -> Result<Response, ApiError> {
    let ctx = Ctx::new(&app, &headers);
    if !auth::csrf_ok(&app, &headers, f.csrf.as_deref().unwrap_or("")) {
        return Ok(csrf_failed(&ctx));
    }
    let w = find(&app, &id)?;
    let result = f
        .to_json()
        .map_err(AppError::BadInput)
        .and_then(super::api::edit_from_json);
    let result = match result {
        Ok(e) => app.edit(&w.id, &e).await,
        Err(e) => Err(e),
    };
    match result {
        Ok(_) => Ok(Redirect::to(&format!("/watches/{}", w.id)).into_response()),
        Err(AppError::BadInput(m)) => {
            let msg = html! { p.msg #error { "Not saved: " (plain(&m)) } };
            let body = html! { (msg) p { a href={ "/watches/" (w.id) } { "Back to the watch" } } };
            Ok(ctx.page(StatusCode::BAD_REQUEST, "not saved", &body))
        }
        Err(e) => Err(e.into()),
    }
}

#[derive(Debug, Deserialize)]
struct PauseForm {
    csrf: Option<String>,
    paused: Option<String>,
}

async fn pause(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    Form(f): Form<PauseForm>,
) -> Result<Response, ApiError> {
    if !auth::csrf_ok(&app, &headers, f.csrf.as_deref().unwrap_or("")) {
        return Ok(csrf_failed(&Ctx::new(&app, &headers)));
    }
    let w = find(&app, &id)?;
    let edit = crate::app::WatchEdit {
        paused: Some(f.paused.as_deref() != Some("false")),
        ..crate::app::WatchEdit::default()
    };
    app.edit(&w.id, &edit).await?;
    Ok(Redirect::to(&format!("/watches/{}", w.id)).into_response())
}

async fn remove(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    Form(f): Form<CsrfForm>,
) -> Result<Response, ApiError> {
    if !auth::csrf_ok(&app, &headers, f.csrf.as_deref().unwrap_or("")) {
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
    Extension(base): Extension<PublicBase>,
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
    if !auth::csrf_ok(&app, &headers, &csrf) {
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
            html! { p.msg #error { "Nothing imported: " bdi { (plain(m)) } } },
        ),
    };
    let body = index_body(
        &app,
        &base.0,
        &ctx,
        &AddForm::default(),
        Some(&msg),
        &ListQuery::default(),
    )?;
    Ok(ctx.page(status, "OPML import", &body))
}

fn import_report(r: &OpmlReport) -> Markup {
    html! {
        div.note #report {
            "OPML imported: " (r.added) " added, " (r.existing) " already watched"
            @if !r.rejected.is_empty() {
                ", " (r.rejected.len()) " rejected:"
                ul { @for x in &r.rejected { li { bdi { (x.url) } ": " bdi { (plain(&x.error)) } } } }
            }
            "."
        }
    }
}

#[derive(Debug, Deserialize)]
struct LoginQuery {
    next: Option<String>,
}

async fn login_page(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Query(q): Query<LoginQuery>,
) -> Response {
    let ctx = Ctx::new(&app, &headers);
    let next = auth::local_path(q.next.as_deref());
    login_form(&app, &ctx, StatusCode::OK, None, &next)
}

fn login_form(app: &App, ctx: &Ctx, status: StatusCode, msg: Option<&str>, next: &str) -> Response {
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
            @if let Some(m) = msg { p.msg #error { (plain(m)) } }
            form method="post" action="/login" {
                (ctx.hidden())
                input type="hidden" name="next" value=(next);
                label { "Admin token " input type="password" name="token" autofocus required; }
                button { "Log in" }
            }
            p.muted { "The token is " code { "server.admin_token" } " in the config (or SITEFEED_SERVER_ADMIN_TOKEN)." }
        }
    };
    ctx.page(status, "log in", &body)
}

#[derive(Debug, Deserialize)]
struct LoginForm {
    token: Option<String>,
    csrf: Option<String>,
    next: Option<String>,
}

async fn login(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    axum::Extension(auth::ClientIp(ip)): axum::Extension<auth::ClientIp>,
    Form(f): Form<LoginForm>,
) -> Response {
    let ctx = Ctx::new(&app, &headers);
    if !auth::csrf_ok(&app, &headers, f.csrf.as_deref().unwrap_or("")) {
        return csrf_failed(&ctx);
    }
    let token = &app.config.server.admin_token;
    if token.is_empty() {
        return Redirect::to("/").into_response();
    }
    let next = auth::local_path(f.next.as_deref());
    let now = app.clock.now();
    if let Err(wait) = app.security.throttle_check(ip, now) {
        let msg = format!("Too many wrong tokens from your address: try again in {wait} s.");
        let mut r = login_form(&app, &ctx, StatusCode::TOO_MANY_REQUESTS, Some(&msg), &next);
        if let Ok(v) = header::HeaderValue::from_str(&wait.to_string()) {
            r.headers_mut().insert(header::RETRY_AFTER, v);
        }
        return r;
    }
    if !app
        .security
        .same_secret(f.token.as_deref().unwrap_or(""), token)
    {
        app.security.throttle_failed(ip, now);
        return login_form(
            &app,
            &ctx,
            StatusCode::UNAUTHORIZED,
            Some("Wrong token."),
            &next,
        );
    }
    app.security.throttle_succeeded(ip);
    // A new session id at login: an id planted before it is worth nothing.
    let _ = auth::end_session(&app, &headers);
    let mut resp = Redirect::to(&next).into_response();
    resp.headers_mut()
        .append(header::SET_COOKIE, auth::start_session(&app));
    resp
}

async fn logout(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Form(f): Form<CsrfForm>,
) -> Response {
    if !auth::csrf_ok(&app, &headers, f.csrf.as_deref().unwrap_or("")) {
        return csrf_failed(&Ctx::new(&app, &headers));
    }
    let mut resp = Redirect::to("/login").into_response();
    resp.headers_mut()
        .append(header::SET_COOKIE, auth::end_session(&app, &headers));
    resp
}
