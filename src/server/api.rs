//! `/api/watches` and `/api/opml`: JSON in, JSON out.

use std::sync::Arc;

use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use serde::Deserialize;

use super::base::PublicBase;
use super::error::ApiError;
use crate::app::{App, AppError, NewWatch};
use crate::dto::{
    CheckJson, CheckLogJson, EditBody, FeedUrls, ItemJson, NewWatchBody, OpmlReport, RenderJson,
    ScheduleJson, WatchJson,
};
use crate::model::{rfc3339, Watch, WatchId};
use crate::store::WatchState;

pub fn router() -> Router<Arc<App>> {
    Router::new()
        .route("/api/watches", post(create).get(list))
        .route("/api/watches/{id}", get(show).delete(remove).patch(edit))
        .route("/api/watches/{id}/check", post(check))
        .route("/api/watches/{id}/items", get(items))
        .route("/api/opml", post(import_opml))
}

/// The last render of `w`'s page, if the browser rendered it.
pub fn last_render(app: &App, w: &Watch) -> Option<RenderJson> {
    let r = app.fetcher.browser()?.last_render(&w.url)?;
    Some(RenderJson {
        ms: r.ms,
        ok: r.ok,
        requests: r.requests,
        refused: r.refused,
        blocked: r.blocked,
    })
}

fn schedule_json(app: &App, w: &Watch, s: Option<&WatchState>) -> ScheduleJson {
    let cfg = &app.config.schedule;
    let strategy = w.strategy.unwrap_or(cfg.strategy);
    let fresh = crate::schedule::Learned::default();
    let learned = s.map_or(&fresh, |s| &s.learned);
    let mut why = crate::schedule::explain(cfg, strategy, learned);
    if why.strategy == crate::config::Strategy::Periodic
        && learned.in_force == Some(crate::config::Strategy::Adaptive)
    {
        // `plan` had the history but could not fit a curve to it (degenerate data).
        why = crate::schedule::InForce {
            strategy: crate::config::Strategy::Adaptive,
            reason: "adaptive: the daily model could not be fitted to the history yet".into(),
        };
    }
    ScheduleJson {
        strategy: strategy.as_str().to_owned(),
        in_force: why.strategy.as_str().to_owned(),
        reason: why.reason,
        history_days: (learned.history.days() * 10.0).round() / 10.0,
        effective_links: learned.page.effective_links(),
        probable_losses: learned.page.probable_losses,
        last_probable_loss: learned.page.last_probable_loss.map(rfc3339),
    }
}

pub fn watch_json(app: &App, base: &str, w: &Watch, s: Option<&WatchState>) -> WatchJson {
    WatchJson {
        id: w.id.to_string(),
        url: w.url.clone(),
        title: app.display_title(w, s),
        user_title: w.title.clone(),
        depth: w.depth,
        select: w.select.clone(),
        keywords: w.keywords.clone(),
        render: w.render.as_str().to_owned(),
        last_render: last_render(app, w),
        content: w.options.content.as_str().to_owned(),
        full_text_pending: s.map_or(0, |s| s.full_text.len()),
        feed_url: app.feed_url_at(base, &w.id, "xml"),
        feeds: FeedUrls {
            rss: app.feed_url_at(base, &w.id, "xml"),
            atom: app.feed_url_at(base, &w.id, "atom"),
            json: app.feed_url_at(base, &w.id, "json"),
        },
        created: rfc3339(w.created),
        status: match s.map(|s| s.status) {
            None | Some(crate::model::Status::New) => "new",
            Some(crate::model::Status::Ok) => "ok",
            Some(crate::model::Status::Error) => "error",
        }
        .to_owned(),
        error: s.and_then(|s| s.error.clone()),
        note: s.and_then(|s| s.note.clone()),
        last_check: s.and_then(|s| s.last_check).map(rfc3339),
        next_check: s.map(|s| rfc3339(s.next_check)),
        last_change: s.and_then(|s| s.last_change).map(rfc3339),
        item_count: s.map_or(0, |s| s.item_count),
        link_count: s.map_or(0, |s| s.link_count),
        checks: s.map_or(0, |s| s.checks),
        crawl: s.and_then(|s| s.crawl),
        schedule: schedule_json(app, w, s),
        tags: w.options.tags.clone(),
        paused: w.options.paused,
        min_interval: w.options.min_interval,
        max_interval: w.options.max_interval,
        error_item: !w.options.no_error_item,
        webhook: w.options.webhook.clone(),
        timezone: app.tz_for(w).name().to_owned(),
        error_since: s.and_then(|s| s.error_since).map(rfc3339),
        consecutive_errors: s.map_or(0, |s| s.consecutive_errors),
        webhook_at: s.and_then(|s| s.webhook_at).map(rfc3339),
        webhook_error: s.and_then(|s| s.webhook_error.clone()),
        backfill: s.map_or(0, |s| s.backfill),
        recent_checks: s
            .map(|s| {
                s.recent_checks
                    .iter()
                    .map(|c| CheckLogJson {
                        at: rfc3339(c.at),
                        duration_ms: c.duration_ms,
                        new_items: c.new_items,
                        changed: c.changed,
                        error: c.error.clone(),
                    })
                    .collect()
            })
            .unwrap_or_default(),
    }
}

fn body<T>(b: Result<Json<T>, JsonRejection>) -> Result<T, ApiError> {
    b.map(|Json(v)| v)
        .map_err(|e| ApiError::BadRequest(format!("invalid JSON body: {}", e.body_text())))
}

async fn create(
    State(app): State<Arc<App>>,
    Extension(base): Extension<PublicBase>,
    b: Result<Json<NewWatchBody>, JsonRejection>,
) -> Result<Response, ApiError> {
    let req = NewWatch::try_from(body(b)?)?;
    // The insert is flushed to disk: on the CPU pool, off the async workers.
    let pool_app = app.clone();
    let (w, added) = crate::cpu::run(move || pool_app.add_watch(&req)).await?;
    let s = app.store.state(&w.id)?;
    let code = if added {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((code, Json(watch_json(&app, &base.0, &w, s.as_ref()))).into_response())
}

/// `GET /api/watches`: every watch, a JSON array; with `q`, `tag`, `status`, `error`,
/// `sort`, `page`, `per_page` (see [`super::list::ListQuery`]) the ones they select, still
/// an array, with the count before paging in `X-Total-Count`.
async fn list(
    State(app): State<Arc<App>>,
    Extension(base): Extension<PublicBase>,
    q: Result<
        axum::extract::Query<super::list::ListQuery>,
        axum::extract::rejection::QueryRejection,
    >,
) -> Result<Response, ApiError> {
    let axum::extract::Query(q) = q.map_err(|e| ApiError::BadRequest(e.body_text()))?;
    let (rows, total) = super::list::select(&app, &q, usize::MAX)?;
    let out: Vec<WatchJson> = rows
        .iter()
        .map(|(_, w, s)| watch_json(&app, &base.0, w, s.as_ref()))
        .collect();
    Ok((
        [(
            axum::http::HeaderName::from_static("x-total-count"),
            total.to_string(),
        )],
        Json(out),
    )
        .into_response())
}

fn find(app: &App, id: &str) -> Result<Watch, ApiError> {
    let wid = WatchId::parse(id).ok_or_else(|| ApiError::NotFound(format!("watch {id}")))?;
    app.store
        .watch(&wid)?
        .ok_or_else(|| ApiError::NotFound(format!("watch {id}")))
}

async fn show(
    State(app): State<Arc<App>>,
    Extension(base): Extension<PublicBase>,
    Path(id): Path<String>,
) -> Result<Json<WatchJson>, ApiError> {
    let w = find(&app, &id)?;
    let s = app.store.state(&w.id)?;
    Ok(Json(watch_json(&app, &base.0, &w, s.as_ref())))
}

async fn remove(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let w = find(&app, &id)?;
    app.remove(&w.id).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Debug, Default, Deserialize)]
struct CheckQuery {
    /// `true`: fetch and analyse, store nothing.
    dry_run: Option<bool>,
}

async fn check(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    axum::extract::Query(q): axum::extract::Query<CheckQuery>,
) -> Result<Json<CheckJson>, ApiError> {
    let w = find(&app, &id)?;
    let dry_run = q.dry_run.unwrap_or(false);
    let r = app.check(&w, dry_run).await?;
    if !dry_run {
        app.wake.notify_one();
        app.notify(&w, &r);
    }
    Ok(Json(CheckJson {
        new_items: r.new_items.len(),
        changed: r.changed,
        baseline: r.baseline,
        error: r.error,
        items: r.new_items.iter().map(ItemJson::from).collect(),
        next_check: rfc3339(r.next_check),
    }))
}

/// A duration as users write it (`90`, `10m`, `1h30m`, `2d`), for field `field`.
fn duration(field: &str, v: &str) -> Result<std::time::Duration, AppError> {
    crate::config::parse_duration(v)
        .filter(|d| !d.is_zero())
        .ok_or_else(|| {
            AppError::BadInput(format!(
                "{field} `{v}` is not a duration such as 10m, 1h or 1d"
            ))
        })
}

/// The [`WatchEdit`](crate::app::WatchEdit) a PATCH body asks for (also `sitefeed edit`
/// and the web page's edit form).
pub fn watch_edit(b: EditBody) -> Result<crate::app::WatchEdit, AppError> {
    let dur = |field: &str, v: Option<Option<String>>| {
        v.map(|o| o.map(|s| duration(field, &s)).transpose())
            .transpose()
    };
    let mut min_interval = dur("min_interval", b.min_interval)?;
    let mut max_interval = dur("max_interval", b.max_interval)?;
    if let Some(i) = b.interval {
        let d = duration("interval", &i)?;
        min_interval = Some(Some(d));
        max_interval = Some(Some(d));
    }
    let strategy = match b.strategy {
        None => None,
        Some(None) => Some(None),
        Some(Some(name)) => Some(Some(crate::config::Strategy::parse(&name).ok_or_else(
            || {
                AppError::BadInput(format!(
                    "strategy `{name}` is not one of {}",
                    crate::config::Strategy::NAMES
                ))
            },
        )?)),
    };
    Ok(crate::app::WatchEdit {
        title: b.title,
        select: b.select,
        depth: b.depth,
        keywords: b.keywords,
        strategy,
        tags: b.tags,
        paused: b.paused,
        min_interval,
        max_interval,
        error_item: b.error_item,
        webhook: b.webhook,
        timezone: b.timezone,
        content: b
            .content
            .as_deref()
            .map(crate::app::parse_content)
            .transpose()?,
    })
}

async fn edit(
    State(app): State<Arc<App>>,
    Extension(base): Extension<PublicBase>,
    Path(id): Path<String>,
    b: Result<Json<EditBody>, JsonRejection>,
) -> Result<Json<WatchJson>, ApiError> {
    let w = find(&app, &id)?;
    let e = watch_edit(body(b)?)?;
    let edited = app.edit(&w.id, &e).await?;
    let s = app.store.state(&w.id)?;
    Ok(Json(watch_json(&app, &base.0, &edited.watch, s.as_ref())))
}

async fn items(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
) -> Result<Json<Vec<ItemJson>>, ApiError> {
    let w = find(&app, &id)?;
    let items = app.store.items(&w.id, app.config.feed.max_items)?;
    Ok(Json(items.iter().map(ItemJson::from).collect()))
}

/// Content types an OPML upload may have. Not `text/plain` nor a form type: those are
/// what another site's page can send here without the browser asking first.
const OPML_TYPES: [&str; 4] = [
    "text/xml",
    "application/xml",
    "text/x-opml",
    "application/x-opml+xml",
];

async fn import_opml(
    State(app): State<Arc<App>>,
    headers: axum::http::HeaderMap,
    body: axum::body::Bytes,
) -> Result<Json<OpmlReport>, ApiError> {
    let ct = headers
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let essence = ct
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    if !OPML_TYPES.contains(&essence.as_str()) {
        return Err(ApiError::UnsupportedType(format!(
            "send the OPML document with \"Content-Type: text/xml\" (got `{}`)",
            ct.chars().take(60).collect::<String>()
        )));
    }
    let text = std::str::from_utf8(&body).map_err(|e| {
        ApiError::BadRequest(format!(
            "the OPML document is not UTF-8 (invalid byte at offset {}); save it as UTF-8",
            e.valid_up_to()
        ))
    })?;
    // Many inserts, each flushed: on the CPU pool.
    let text = text.to_owned();
    Ok(Json(crate::cpu::run(move || app.import_opml(&text)).await?))
}
