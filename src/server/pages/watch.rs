//! A watch's page (`/watches/<id>`): its state, feeds, latest items and recent checks,
//! the edit form, and the buttons that check, pause or remove it; the preview of what
//! sitefeed extracts from the page now. Uses the page shell of [`super`],
//! [`crate::app::App::preview`] and [`crate::app::App`].

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::Extension;
use maud::{html, Markup};
use serde::Deserialize;

use super::csrf::{Checked, CsrfField, CsrfOnly};
use super::{feed_links, find, number, plain, status_of, when, Ctx};
use crate::app::{App, AppError};
use crate::dto::EditBody;
use crate::model::Watch;
use crate::server::base::PublicBase;
use crate::server::error::ApiError;

use crate::state::WatchState;

/// Items shown on a watch's page.
const PAGE_ITEMS: usize = 50;

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
        @if w.options.content == crate::model::Content::Full {
            p #content { "Items carry the full article of their page, fetched once for each new item"
                @if let Some(n) = s.map(|s| s.full_text.len()).filter(|n| *n > 0) { " (" (n) " waiting)" }
                "." }
        }
        @if let Some(r) = app.last_render(w) {
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
                br;
                label { "Items carry "
                    select name="content" {
                        @for (c, text) in [(crate::model::Content::Summary, "the summary on the page"), (crate::model::Content::Full, "the full article (fetched from each new item's page)")] {
                            option value=(c.as_str()) selected[w.options.content == c] { (text) }
                        }
                    }
                }
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

pub(super) async fn watch_page(
    State(app): State<Arc<App>>,
    Extension(base): Extension<PublicBase>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let ctx = Ctx::new(&app, &headers);
    let w = find(&app, &id)?;
    let s = app.state(&w.id)?;
    let items = app.items(&w.id, PAGE_ITEMS).await?;
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
                    tr { td { (when(i.first_seen, tz)) } td dir="auto" { a href=(i.link) { bdi { (i.title) } } (item_content(i, tz)) } }
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

/// What the feed carries of an item besides its title: the date its entry states, its
/// author, its summary and its picture (loaded without a referrer).
fn item_content(i: &crate::model::Item, tz: chrono_tz::Tz) -> maud::Markup {
    html! {
        @if i.published.is_some() || i.author.is_some() {
            div.muted.item-meta {
                @if let Some(t) = i.published { "dated " time.published { (when(t, tz)) } }
                @if let Some(a) = &i.author { " by " bdi.author { (a) } }
            }
        }
        @if let Some(img) = &i.image {
            img.item-image src=(img) alt="" loading="lazy" referrerpolicy="no-referrer" width="96";
        }
        @if let Some(sm) = &i.summary { p.item-summary dir="auto" { bdi { (sm) } } }
    }
}

pub(super) async fn preview_page(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let ctx = Ctx::new(&app, &headers);
    let w = find(&app, &id)?;
    let s = app.state(&w.id)?;
    let result = app.preview(&w).await?;
    let tz = app.tz_for(&w);
    let body = html! {
        (watch_header(&app, &w, s.as_ref()))
        p { a href={ "/watches/" (w.id) } { "Back to the watch" } }
        h2 { "Preview" }
        @match &result {
            Err(m) => p.msg #error { bdi { (plain(&m.to_string())) } },
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
                            td dir="auto" {
                                bdi { (l.link.text) }
                                @if let Some(i) = &l.item { (item_content(i, tz)) }
                            }
                            td { a href=(l.link.url) { bdi { (l.link.url) } } }
                        }
                    }
                }
            }
        }
    };
    Ok(ctx.page(StatusCode::OK, "preview", &body))
}

pub(super) async fn check_now(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    Checked(_): Checked<CsrfOnly>,
) -> Result<Response, ApiError> {
    let w = find(&app, &id)?;
    let r = app.check(&w, false).await?;
    app.wake_runner();
    app.notify(&w, &r);
    Ok(Redirect::to(&format!("/watches/{}", w.id)).into_response())
}

/// The edit form as sent. A checkbox that is not ticked is not sent at all.
#[derive(Debug, Default, Deserialize)]
pub(super) struct EditForm {
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
    content: Option<String>,
}

impl CsrfField for EditForm {
    fn csrf(&self) -> Option<&str> {
        self.csrf.as_deref()
    }
}

impl EditForm {
    /// The same edit as a PATCH body: an empty text field clears its setting.
    fn to_body(&self) -> Result<EditBody, String> {
        let text = |v: &Option<String>| {
            Some(
                v.as_deref()
                    .map(str::trim)
                    .filter(|t| !t.is_empty())
                    .map(str::to_owned),
            )
        };
        let list = |v: &Option<String>| {
            Some(
                v.as_deref()
                    .unwrap_or("")
                    .split(',')
                    .map(|k| k.trim().to_owned())
                    .filter(|k| !k.is_empty())
                    .collect(),
            )
        };
        Ok(EditBody {
            title: text(&self.title),
            select: text(&self.select),
            tags: list(&self.tags),
            keywords: list(&self.keywords),
            min_interval: text(&self.min_interval),
            max_interval: text(&self.max_interval),
            error_item: Some(self.error_item.is_some()),
            webhook: text(&self.webhook),
            timezone: text(&self.timezone),
            depth: number::<u8>("depth", self.depth.as_deref())?,
            content: self
                .content
                .as_deref()
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .map(str::to_owned),
            ..EditBody::default()
        })
    }
}

pub(super) async fn edit(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    Checked(f): Checked<EditForm>,
) -> Result<Response, ApiError> {
    let ctx = Ctx::new(&app, &headers);
    let w = find(&app, &id)?;
    let result = f
        .to_body()
        .map_err(AppError::BadInput)
        .and_then(crate::app::WatchEdit::try_from);
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
pub(super) struct PauseForm {
    csrf: Option<String>,
    paused: Option<String>,
}

impl CsrfField for PauseForm {
    fn csrf(&self) -> Option<&str> {
        self.csrf.as_deref()
    }
}

pub(super) async fn pause(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    Checked(f): Checked<PauseForm>,
) -> Result<Response, ApiError> {
    let w = find(&app, &id)?;
    let edit = crate::app::WatchEdit {
        paused: Some(f.paused.as_deref() != Some("false")),
        ..crate::app::WatchEdit::default()
    };
    app.edit(&w.id, &edit).await?;
    Ok(Redirect::to(&format!("/watches/{}", w.id)).into_response())
}

pub(super) async fn remove(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    Checked(_): Checked<CsrfOnly>,
) -> Result<Response, ApiError> {
    let w = find(&app, &id)?;
    app.remove(&w.id).await?;
    let q: String = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("removed", &w.url)
        .finish();
    Ok(Redirect::to(&format!("/?{q}")).into_response())
}
