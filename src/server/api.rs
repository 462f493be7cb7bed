//! `/api/watches` and `/api/opml`: JSON in, JSON out.

use std::sync::Arc;

use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};

use super::error::ApiError;
use crate::app::{App, AppError, NewWatch};
use crate::model::{Item, Watch, WatchId};
use crate::store::WatchState;

pub fn router() -> Router<Arc<App>> {
    Router::new()
        .route("/api/watches", post(create).get(list))
        .route("/api/watches/{id}", get(show).delete(remove))
        .route("/api/watches/{id}/check", post(check))
        .route("/api/watches/{id}/items", get(items))
        .route("/api/opml", post(import_opml))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateBody {
    url: String,
    depth: Option<u8>,
    title: Option<String>,
    select: Option<String>,
    keywords: Option<Vec<String>>,
    strategy: Option<String>,
    render: Option<String>,
    backfill: Option<u32>,
}

/// A watch as the API shows it.
#[derive(Debug, Serialize)]
pub struct WatchJson {
    pub id: String,
    pub url: String,
    pub title: String,
    pub user_title: Option<String>,
    pub depth: u8,
    pub select: Option<String>,
    pub keywords: Vec<String>,
    /// How the page is read: plain, browser or auto.
    pub render: &'static str,
    /// The last render of the page in the browser since the service started.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_render: Option<RenderJson>,
    pub feed_url: String,
    pub feeds: FeedUrls,
    pub created: String,
    pub status: &'static str,
    pub error: Option<String>,
    /// A remark on the last change of the page (a layout change that re-baselined it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub last_check: Option<String>,
    pub next_check: Option<String>,
    pub last_change: Option<String>,
    pub item_count: u64,
    pub link_count: u64,
    pub checks: u64,
    pub schedule: ScheduleJson,
    /// Entries shown as items until the first new one (0: a "now watched" item).
    pub backfill: u32,
    /// The last checks, newest first.
    pub recent_checks: Vec<CheckLogJson>,
    /// A deep watch's site: pages known by kind, candidates waiting, pages fetched by
    /// the last check.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crawl: Option<crate::crawl::state::Summary>,
}

/// The last render of a watch's page.
#[derive(Debug, Serialize)]
pub struct RenderJson {
    pub ms: u64,
    pub ok: bool,
    /// Requests of the page answered, refused by the guard, blocked unsent.
    pub requests: u64,
    pub refused: u64,
    pub blocked: u64,
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

/// How a watch is scheduled (DESIGN 3).
#[derive(Debug, Serialize)]
pub struct ScheduleJson {
    /// The watch's strategy: its own, else the config's default.
    pub strategy: &'static str,
    /// The strategy that schedules it now (`periodic` falls back to `adaptive`).
    pub in_force: &'static str,
    /// Why, in words.
    pub reason: String,
    /// Days of daily history (decayed: about four weeks count).
    pub history_days: f64,
    /// Effective link count v of the page, once known.
    pub effective_links: Option<u32>,
    /// Checks that found the whole previous list gone (items probably lost).
    pub probable_losses: u64,
    pub last_probable_loss: Option<String>,
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
        strategy: strategy.as_str(),
        in_force: why.strategy.as_str(),
        reason: why.reason,
        history_days: (learned.history.days() * 10.0).round() / 10.0,
        effective_links: learned.page.effective_links(),
        probable_losses: learned.page.probable_losses,
        last_probable_loss: learned.page.last_probable_loss.map(rfc3339),
    }
}

/// One entry of `recent_checks`.
#[derive(Debug, Serialize)]
pub struct CheckLogJson {
    pub at: String,
    pub duration_ms: u64,
    pub new_items: u32,
    pub changed: bool,
    pub error: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct FeedUrls {
    pub rss: String,
    pub atom: String,
    pub json: String,
}

#[derive(Debug, Serialize)]
pub struct ItemJson {
    pub id: String,
    pub title: String,
    pub link: String,
    pub first_seen: String,
}

impl From<&Item> for ItemJson {
    fn from(i: &Item) -> Self {
        Self {
            id: i.id.clone(),
            title: i.title.clone(),
            link: i.link.clone(),
            first_seen: rfc3339(i.first_seen),
        }
    }
}

pub fn rfc3339(t: i64) -> String {
    chrono::DateTime::from_timestamp(t, 0)
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

pub fn watch_json(app: &App, w: &Watch, s: Option<&WatchState>) -> WatchJson {
    WatchJson {
        id: w.id.to_string(),
        url: w.url.clone(),
        title: app.display_title(w, s),
        user_title: w.title.clone(),
        depth: w.depth,
        select: w.select.clone(),
        keywords: w.keywords.clone(),
        render: w.render.as_str(),
        last_render: last_render(app, w),
        feed_url: app.feed_url(&w.id, "xml"),
        feeds: FeedUrls {
            rss: app.feed_url(&w.id, "xml"),
            atom: app.feed_url(&w.id, "atom"),
            json: app.feed_url(&w.id, "json"),
        },
        created: rfc3339(w.created),
        status: match s.map(|s| s.status) {
            None | Some(crate::model::Status::New) => "new",
            Some(crate::model::Status::Ok) => "ok",
            Some(crate::model::Status::Error) => "error",
        },
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
    b: Result<Json<CreateBody>, JsonRejection>,
) -> Result<Response, ApiError> {
    let b = body(b)?;
    let strategy = match b.strategy.as_deref() {
        None => None,
        Some(name) => Some(crate::config::Strategy::parse(name).ok_or_else(|| {
            ApiError::BadRequest(format!(
                "strategy `{name}` is not one of {}",
                crate::config::Strategy::NAMES
            ))
        })?),
    };
    let render = match b.render.as_deref() {
        None => None,
        Some(name) => Some(crate::model::Render::parse(name).ok_or_else(|| {
            ApiError::BadRequest(format!(
                "render `{name}` is not one of {}",
                crate::model::Render::NAMES
            ))
        })?),
    };
    let req = NewWatch {
        strategy,
        render,
        url: b.url,
        depth: b.depth,
        title: b.title,
        select: b.select,
        keywords: b.keywords.unwrap_or_default(),
        backfill: b.backfill,
    };
    let (w, added) = app.add_watch(&req)?;
    let s = app.store.state(&w.id)?;
    let code = if added {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((code, Json(watch_json(&app, &w, s.as_ref()))).into_response())
}

async fn list(State(app): State<Arc<App>>) -> Result<Json<Vec<WatchJson>>, ApiError> {
    let mut out = Vec::new();
    for w in app.store.watches()? {
        let s = app.store.state(&w.id)?;
        out.push(watch_json(&app, &w, s.as_ref()));
    }
    Ok(Json(out))
}

fn find(app: &App, id: &str) -> Result<Watch, ApiError> {
    let wid = WatchId::parse(id).ok_or_else(|| ApiError::NotFound(format!("watch {id}")))?;
    app.store
        .watch(&wid)?
        .ok_or_else(|| ApiError::NotFound(format!("watch {id}")))
}

async fn show(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
) -> Result<Json<WatchJson>, ApiError> {
    let w = find(&app, &id)?;
    let s = app.store.state(&w.id)?;
    Ok(Json(watch_json(&app, &w, s.as_ref())))
}

async fn remove(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let w = find(&app, &id)?;
    app.remove(&w.id).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Debug, Serialize)]
struct CheckJson {
    new_items: usize,
    changed: bool,
    baseline: bool,
    error: Option<String>,
    items: Vec<ItemJson>,
    next_check: String,
}

async fn check(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
) -> Result<Json<CheckJson>, ApiError> {
    let w = find(&app, &id)?;
    let r = app.check(&w, false).await?;
    app.wake.notify_one();
    Ok(Json(CheckJson {
        new_items: r.new_items.len(),
        changed: r.changed,
        baseline: r.baseline,
        error: r.error,
        items: r.new_items.iter().map(ItemJson::from).collect(),
        next_check: rfc3339(r.next_check),
    }))
}

async fn items(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
) -> Result<Json<Vec<ItemJson>>, ApiError> {
    let w = find(&app, &id)?;
    let items = app.store.items(&w.id, app.config.feed.max_items)?;
    Ok(Json(items.iter().map(ItemJson::from).collect()))
}

#[derive(Debug, Serialize)]
pub struct OpmlReport {
    pub added: usize,
    pub existing: usize,
    pub rejected: Vec<Rejected>,
}

#[derive(Debug, Serialize)]
pub struct Rejected {
    pub url: String,
    pub error: String,
}

/// Imports OPML in two passes, so nothing is added half-way: the document is parsed
/// whole (a malformed one is an error and adds nothing), then every outline is validated
/// (an invalid one is reported in `rejected`, the others are added), and only then are the
/// valid ones added. Only a store failure can stop the second pass, and what it added
/// before is then kept: each watch is added atomically and a retry adds the rest.
pub fn import(app: &App, text: &str) -> Result<OpmlReport, AppError> {
    let entries = crate::render::opml_parse(text)
        .map_err(|e| AppError::BadInput(format!("invalid OPML: {e}")))?;
    let mut report = OpmlReport {
        added: 0,
        existing: 0,
        rejected: Vec::new(),
    };
    let mut valid = Vec::new();
    for e in entries {
        let render = match e.render.as_deref() {
            None => None,
            Some(name) => {
                if let Some(r) = crate::model::Render::parse(name) {
                    Some(r)
                } else {
                    report.rejected.push(Rejected {
                        url: e.url,
                        error: format!(
                            "render `{name}` is not one of {}",
                            crate::model::Render::NAMES
                        ),
                    });
                    continue;
                }
            }
        };
        let req = NewWatch {
            url: e.url.clone(),
            title: e.title,
            render,
            ..NewWatch::default()
        };
        match app.validate(&req) {
            Ok(_) => valid.push(req),
            Err(AppError::BadInput(m)) => report.rejected.push(Rejected {
                url: e.url,
                error: m,
            }),
            Err(other) => return Err(other),
        }
    }
    for req in valid {
        match app.add_watch(&req)? {
            (_, true) => report.added += 1,
            (_, false) => report.existing += 1,
        }
    }
    Ok(report)
}

async fn import_opml(
    State(app): State<Arc<App>>,
    text: String,
) -> Result<Json<OpmlReport>, ApiError> {
    Ok(Json(import(&app, &text)?))
}
