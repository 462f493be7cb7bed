//! `/api/watches` and `/api/opml`: JSON in, JSON out.

use std::sync::Arc;

use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use serde::Deserialize;

use super::base::PublicBase;
use super::error::ApiError;
use crate::app::{App, NewWatch};
use crate::dto::{CheckJson, EditBody, ItemJson, NewWatchBody, OpmlReport, WatchJson};
use crate::model::{rfc3339, Watch, WatchId};

pub fn router() -> Router<Arc<App>> {
    Router::new()
        .route("/api/watches", post(create).get(list))
        .route("/api/watches/{id}", get(show).delete(remove).patch(edit))
        .route("/api/watches/{id}/check", post(check))
        .route("/api/watches/{id}/items", get(items))
        .route("/api/opml", post(import_opml))
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
    // The insert is flushed to disk (and waits for a compaction or the watch count):
    // on the blocking pool, a few at a time, off the async workers and the CPU pool. The
    // state the answer shows is read there too (a round trip on PostgreSQL).
    let pool_app = app.clone();
    let (w, added, s) = crate::cpu::write_on_disk(move || {
        let (w, added) = pool_app.add_watch(&req)?;
        let s = pool_app.state(&w.id)?;
        Ok::<_, crate::app::AppError>((w, added, s))
    })
    .await?;
    let code = if added {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((code, Json(app.watch_json(&base.0, &w, s.as_ref()))).into_response())
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
    // Every watch and its state read, filtered, sorted and written out: on the CPU pool.
    let (json, total) = {
        let app = app.clone();
        crate::cpu::run_first(move || -> Result<_, ApiError> {
            let (rows, total) = super::list::select(&app, &q, usize::MAX)?;
            let out: Vec<WatchJson> = rows
                .iter()
                .map(|(_, w, s)| app.watch_json(&base.0, w, s.as_ref()))
                .collect();
            Ok((to_json(&out)?, total))
        })
        .await?
    };
    Ok((
        [
            (
                axum::http::HeaderName::from_static("x-total-count"),
                total.to_string(),
            ),
            (header::CONTENT_TYPE, "application/json".to_owned()),
        ],
        json,
    )
        .into_response())
}

/// `value` as a JSON body, written where it is called (on the CPU pool, for a long list).
fn to_json<T: serde::Serialize>(value: &T) -> Result<Vec<u8>, ApiError> {
    serde_json::to_vec(value).map_err(|e| ApiError::Internal(e.to_string()))
}

fn find(app: &App, id: &str) -> Result<Watch, ApiError> {
    let wid = WatchId::parse(id).ok_or_else(|| ApiError::NotFound(format!("watch {id}")))?;
    app.watch(&wid)?
        .ok_or_else(|| ApiError::NotFound(format!("watch {id}")))
}

async fn show(
    State(app): State<Arc<App>>,
    Extension(base): Extension<PublicBase>,
    Path(id): Path<String>,
) -> Result<Json<WatchJson>, ApiError> {
    let w = find(&app, &id)?;
    let s = app.state(&w.id)?;
    Ok(Json(app.watch_json(&base.0, &w, s.as_ref())))
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
        // Its new items are in the answer: durable first.
        app.settle(r.reading).await?;
        app.wake_runner();
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

async fn edit(
    State(app): State<Arc<App>>,
    Extension(base): Extension<PublicBase>,
    Path(id): Path<String>,
    b: Result<Json<EditBody>, JsonRejection>,
) -> Result<Json<WatchJson>, ApiError> {
    let w = find(&app, &id)?;
    let e = crate::app::WatchEdit::try_from(body(b)?)?;
    let edited = app.edit(&w.id, &e).await?;
    let s = app.state(&w.id)?;
    Ok(Json(app.watch_json(&base.0, &edited.watch, s.as_ref())))
}

async fn items(State(app): State<Arc<App>>, Path(id): Path<String>) -> Result<Response, ApiError> {
    let w = find(&app, &id)?;
    let reading = app.reading();
    // Reading the items (unpacking them), sanitizing their articles, writing the JSON:
    // on the CPU pool.
    let json = {
        let app = app.clone();
        crate::cpu::run_first(move || -> Result<Vec<u8>, ApiError> {
            let items = app.items_unsettled(&w.id, app.config().feed.max_items)?;
            let items: Vec<ItemJson> = items.iter().map(ItemJson::from).collect();
            to_json(&items)
        })
        .await?
    };
    app.settle(reading).await?;
    Ok(([(header::CONTENT_TYPE, "application/json")], json).into_response())
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
    // Many inserts, each flushed: they wait for the disk off the async workers.
    let text = text.to_owned();
    Ok(Json(
        crate::cpu::wait_on_disk(move || app.import_opml(&text)).await?,
    ))
}
