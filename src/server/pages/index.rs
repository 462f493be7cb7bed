//! The index (`/`): the add form, the filtered and paged list of watches, the browser's
//! health, and OPML export and import. Uses the page shell of [`super`], the watch list's
//! filters ([`crate::server::list`]) and [`crate::app::App`].

use std::sync::Arc;

use axum::extract::{Multipart, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::Extension;
use maud::{html, Markup};
use serde::Deserialize;

use super::csrf::{self, Checked, CsrfField};
use super::{feed_links, number, plain, status_of, when, Ctx};
use crate::app::{App, AppError, NewWatch};
use crate::dto::OpmlReport;
use crate::model::WatchId;
use crate::server::base::PublicBase;
use crate::server::error::ApiError;
use crate::server::list::ListQuery;

/// What the add form was given, to refill it after an error.
#[derive(Debug, Clone, Default, Deserialize)]
pub(super) struct AddForm {
    url: Option<String>,
    depth: Option<String>,
    title: Option<String>,
    select: Option<String>,
    keywords: Option<String>,
    backfill: Option<String>,
    tags: Option<String>,
    render: Option<String>,
    content: Option<String>,
    csrf: Option<String>,
}

impl CsrfField for AddForm {
    fn csrf(&self) -> Option<&str> {
        self.csrf.as_deref()
    }
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
                @let content = f.content.clone().unwrap_or_else(|| "summary".into());
                label { "Items carry "
                    select name="content" {
                        @for (c, text) in [("summary", "the summary on the page"), ("full", "the full article (fetched from each item's page)")] {
                            option value=(c) selected[content == c] { (text) }
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

/// [`index_body`] on the CPU pool: it reads every watch and its state, filters, sorts and
/// writes out the page.
async fn index_body_off(
    app: &Arc<App>,
    base: &str,
    ctx: &Ctx,
    form: AddForm,
    msg: Option<Markup>,
    list: ListQuery,
) -> Result<Markup, ApiError> {
    let (app, base, ctx) = (app.clone(), base.to_owned(), ctx.clone());
    crate::cpu::run_first(move || index_body(&app, &base, &ctx, &form, msg.as_ref(), &list)).await
}

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
    let (rows, total) = crate::server::list::select(app, &list, LIST_PAGE)?;
    let all_watches = app.watches()?;
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
                    a href={ (base) "/feed/tag/" (crate::server::feeds::path_segment(t)) ".xml" (app.key_query()) } { "its feed (RSS)" } ", "
                    a href={ (base) "/opml?tag=" (crate::server::feeds::query_value(t)) (app.key_query().replacen('?', "&", 1)) } { "its OPML" }
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
                                        br; @for t in &w.options.tags { a.tag href={ "/?tag=" (crate::server::feeds::query_value(t)) } { (t) } " " }
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
        @if let Some(b) = app.fetcher().browser().filter(|b| {
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
pub(super) struct IndexQuery {
    added: Option<String>,
    exists: Option<String>,
    removed: Option<String>,
    q: Option<String>,
    tag: Option<String>,
    status: Option<String>,
    sort: Option<String>,
    page: Option<String>,
}

pub(super) async fn index(
    State(app): State<Arc<App>>,
    Extension(base): Extension<PublicBase>,
    headers: HeaderMap,
    Query(q): Query<IndexQuery>,
) -> Result<Response, ApiError> {
    let ctx = Ctx::new(&app, &headers);
    let msg = if let Some(id) = q.added.as_deref().and_then(WatchId::parse) {
        app.watch(&id)?.map(|w| {
            html! { p.note { "Watching " a href={ "/watches/" (w.id) } { bdi { (w.url) } } ". Its first check sets the baseline." } }
        })
    } else if let Some(id) = q.exists.as_deref().and_then(WatchId::parse) {
        app.watch(&id)?.map(|w| {
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
    let body = index_body_off(&app, &base.0, &ctx, AddForm::default(), msg, list).await?;
    Ok(ctx.page(StatusCode::OK, "watches", &body))
}

pub(super) async fn add(
    State(app): State<Arc<App>>,
    Extension(base): Extension<PublicBase>,
    headers: HeaderMap,
    Checked(f): Checked<AddForm>,
) -> Result<Response, ApiError> {
    let ctx = Ctx::new(&app, &headers);
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
            content: match f.content.as_deref().map(str::trim) {
                None | Some("") => None,
                Some(c) => Some(crate::model::Content::parse(c).ok_or_else(|| {
                    format!(
                        "content `{c}` is not one of {}",
                        crate::model::Content::NAMES
                    )
                })?),
            },
        })
    })();
    // The insert and its flush wait for the disk: off the async workers, as in the API.
    let result = match parsed {
        Err(m) => Err(AppError::BadInput(m)),
        Ok(req) => {
            let pool_app = app.clone();
            crate::cpu::write_on_disk(move || pool_app.add_watch(&req)).await
        }
    };
    match result {
        Ok((w, true)) => Ok(Redirect::to(&format!("/?added={}", w.id)).into_response()),
        Ok((w, false)) => Ok(Redirect::to(&format!("/?exists={}", w.id)).into_response()),
        Err(AppError::BadInput(m)) => {
            let msg = html! { p.msg #error { "Not added: " bdi { (plain(&m)) } } };
            let body =
                index_body_off(&app, &base.0, &ctx, f, Some(msg), ListQuery::default()).await?;
            Ok(ctx.page(StatusCode::BAD_REQUEST, "watches", &body))
        }
        Err(e) => Err(e.into()),
    }
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

pub(super) async fn import_opml(
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
    if let Some(expired) = csrf::refused(&app, &headers, &csrf) {
        return Ok(expired);
    }
    // Many inserts, each flushed: off the async workers, as in the API.
    let imported = match (&bad, text) {
        (None, Some(t)) => {
            let pool_app = app.clone();
            Some(crate::cpu::wait_on_disk(move || pool_app.import_opml(&t)).await)
        }
        _ => None,
    };
    let result = match (bad, imported) {
        (Some(e), _) => Err(format!("the upload could not be read: {e}")),
        (None, None) => Err("choose an OPML file to import".into()),
        (None, Some(Ok(r))) => Ok(r),
        (None, Some(Err(AppError::BadInput(m)))) => Err(m),
        (None, Some(Err(e))) => return Err(e.into()),
    };
    let (status, msg) = match &result {
        Ok(r) => (StatusCode::OK, import_report(r)),
        Err(m) => (
            StatusCode::BAD_REQUEST,
            html! { p.msg #error { "Nothing imported: " bdi { (plain(m)) } } },
        ),
    };
    let body = index_body_off(
        &app,
        &base.0,
        &ctx,
        AddForm::default(),
        Some(msg),
        ListQuery::default(),
    )
    .await?;
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
