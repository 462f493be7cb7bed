//! `GET /feed/<id>.{xml,atom,json}` and `GET /opml`, with ETag / Last-Modified and 304.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Extension;
use axum::Router;

use super::error::ApiError;
use crate::app::App;
use crate::model::{Item, Watch, WatchId};
use crate::render::{self, FeedView};
use crate::store::WatchState;

pub fn router() -> Router<Arc<App>> {
    Router::new()
        .route("/feed/{file}", get(feed))
        .route("/feed/tag/{file}", get(tag_feed))
        .route("/opml", get(opml))
}

async fn feed(
    State(app): State<Arc<App>>,
    Path(file): Path<String>,
    Extension(base): Extension<super::base::PublicBase>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let not_found = || ApiError::NotFound(format!("feed {file}"));
    let (id, ext) = file.rsplit_once('.').ok_or_else(not_found)?;
    let id = WatchId::parse(id).ok_or_else(not_found)?;
    let watch = app.store.watch(&id)?.ok_or_else(not_found)?;
    let state = app.store.state(&id)?;
    let mut items = app.store.items(&id, app.config.feed.max_items)?;
    // One item per id (= per link), whatever the store holds: a feed never repeats one.
    let mut once = std::collections::HashSet::new();
    items.retain(|i| once.insert(i.id.clone()));
    if items.is_empty() {
        if let Some(s) = &state {
            items = first_items(&app, &watch, s);
        }
    }
    if let Some(e) = state
        .as_ref()
        .and_then(|s| error_item(&app, &base.0, &watch, s))
    {
        items.insert(0, e);
    }
    let title = app.display_title(&watch, state.as_ref());
    let updated = items.first().map_or(watch.created, |i| i.first_seen);
    let key_query = app.key_query();
    let view = FeedView {
        watch: &watch,
        title: &title,
        items: &items,
        base_url: &base.0,
        key_query: &key_query,
        updated,
        ttl_minutes: state
            .as_ref()
            .map(|s| (s.sched.b / 60.0).ceil().max(1.0) as u32),
        icon: state.as_ref().and_then(|s| s.icon.as_deref()),
        self_path: None,
    };
    let (body, content_type) = match ext {
        "xml" | "rss" => (render::rss(&view), "application/rss+xml; charset=utf-8"),
        "atom" => (render::atom(&view), "application/atom+xml; charset=utf-8"),
        "json" => (render::json_feed(&view), "application/feed+json"),
        _ => return Err(not_found()),
    };
    Ok(conditional(&headers, body, content_type, updated))
}

/// What a watch's feed shows before its first new item, so that a new watch does not
/// stay empty: nothing before the first check; after it (the baseline), one item saying
/// the page is now watched, linking to it. It is derived, not stored, with an id of its
/// own; once a check finds new items (or the baseline stored a backfill) the feed shows
/// those instead.
fn first_items(app: &App, watch: &Watch, state: &WatchState) -> Vec<Item> {
    let Some(at) = state
        .baseline_at
        .or(state.link_fingerprint.as_ref().and(state.last_check))
    else {
        return Vec::new();
    };
    let title = app.display_title(watch, Some(state));
    vec![Item {
        id: format!("watching-{}", watch.id),
        title: format!("sitefeed now watches {title}"),
        link: watch.url.clone(),
        first_seen: at,
        ..Item::default()
    }]
}

/// The item a watch's feed carries while the watch has been failing for longer than
/// `feed.error_item_after` (unless the watch turned it off): what is wrong and since
/// when, linking to the watch's page here. Its id is the same for the whole run of
/// failures (a reader shows it once) and new for the next one; it goes away with the
/// first successful check.
pub fn error_item(app: &App, base: &str, watch: &Watch, state: &WatchState) -> Option<Item> {
    let after = app.config.feed.error_item_after?;
    if watch.options.no_error_item || state.status != crate::model::Status::Error {
        return None;
    }
    let since = state.error_since?;
    let shown = since.saturating_add(i64::try_from(after.as_secs()).unwrap_or(i64::MAX / 4));
    if app.clock.now() < shown {
        return None;
    }
    let when = chrono::DateTime::from_timestamp(since, 0)
        .unwrap_or_default()
        .format("%Y-%m-%d %H:%M UTC");
    let error = state.error.as_deref().unwrap_or("unknown error");
    Some(Item {
        id: format!("error-{}-{since}", watch.id),
        title: format!(
            "sitefeed cannot read this page since {when} ({} failed checks): {error}",
            state.consecutive_errors
        ),
        link: format!("{base}/watches/{}", watch.id),
        first_seen: shown,
        ..Item::default()
    })
}

/// `GET /feed/tag/<tag>.{xml,atom,json}`: the items of every watch with this tag, newest
/// first (an item two watches found is in it once), with their error items.
async fn tag_feed(
    State(app): State<Arc<App>>,
    Path(file): Path<String>,
    Extension(base): Extension<super::base::PublicBase>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let not_found = || ApiError::NotFound(format!("tag feed {file}"));
    let (name, ext) = file.rsplit_once('.').ok_or_else(not_found)?;
    let tag = crate::app::validate_tags(&[name.to_owned()])
        .ok()
        .and_then(|t| t.into_iter().next())
        .ok_or_else(not_found)?;
    let max = app.config.feed.max_items;
    let mut items = Vec::new();
    let mut found = false;
    for w in app.store.watches()? {
        if !w.options.tags.contains(&tag) {
            continue;
        }
        found = true;
        items.extend(app.store.items(&w.id, max)?);
        if let Some(s) = app.store.state(&w.id)? {
            items.extend(error_item(&app, &base.0, &w, &s));
        }
    }
    if !found {
        return Err(not_found());
    }
    items.sort_by_key(|i| std::cmp::Reverse(i.first_seen));
    let mut once = std::collections::HashSet::new();
    items.retain(|i| once.insert(i.id.clone()));
    items.truncate(max);
    let home = format!("{}/?tag={}", base.0, query_value(&tag));
    let watch = Watch {
        id: WatchId::for_url(&format!("tag:{tag}")),
        url: home,
        title: None,
        depth: 1,
        select: None,
        keywords: Vec::new(),
        created: 0,
        strategy: None,
        options: crate::model::WatchOptions::default(),
        render: crate::model::Render::Plain,
    };
    let title = format!("sitefeed: {tag}");
    let updated = items.first().map_or(0, |i| i.first_seen);
    let key_query = app.key_query();
    let self_path = format!("/feed/tag/{}", path_segment(&tag));
    let view = FeedView {
        watch: &watch,
        title: &title,
        items: &items,
        base_url: &base.0,
        key_query: &key_query,
        updated,
        ttl_minutes: None,
        icon: None,
        self_path: Some(&self_path),
    };
    let (body, content_type) = match ext {
        "xml" | "rss" => (render::rss(&view), "application/rss+xml; charset=utf-8"),
        "atom" => (render::atom(&view), "application/atom+xml; charset=utf-8"),
        "json" => (render::json_feed(&view), "application/feed+json"),
        _ => return Err(not_found()),
    };
    Ok(conditional(&headers, body, content_type, updated))
}

/// `s` percent-encoded for a path segment.
pub fn path_segment(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes())
        .collect::<String>()
        .replace('+', "%20")
}

/// `s` percent-encoded for a query value.
pub fn query_value(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

#[derive(Debug, serde::Deserialize)]
struct OpmlQuery {
    /// Only the watches with this tag.
    tag: Option<String>,
}

async fn opml(
    State(app): State<Arc<App>>,
    Extension(base): Extension<super::base::PublicBase>,
    axum::extract::Query(q): axum::extract::Query<OpmlQuery>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let tag = q.tag.as_deref().map(|t| t.trim().to_lowercase());
    let mut entries = Vec::new();
    let mut updated = 0;
    for w in app.store.watches()? {
        if tag.as_ref().is_some_and(|t| !w.options.tags.contains(t)) {
            continue;
        }
        let state = app.store.state(&w.id)?;
        updated = updated.max(w.created);
        let title = app.display_title(&w, state.as_ref());
        entries.push((w, title));
    }
    let body = render::opml_export(&entries, &base.0, &app.key_query());
    Ok(conditional(
        &headers,
        body,
        "text/x-opml; charset=utf-8",
        updated,
    ))
}

/// A 200 with validators, or a 304 when the request's validators match.
fn conditional(headers: &HeaderMap, body: String, content_type: &str, updated: i64) -> Response {
    let etag = render::etag(body.as_bytes());
    let last_modified = httpdate(updated);
    let inm = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok());
    let fresh = match inm {
        Some(inm) => inm.split(',').any(|t| {
            let t = t.trim();
            t == "*" || t.trim_start_matches("W/") == etag
        }),
        None => headers
            .get(header::IF_MODIFIED_SINCE)
            .and_then(|v| v.to_str().ok())
            .and_then(|s| chrono::DateTime::parse_from_rfc2822(s).ok())
            .is_some_and(|since| since.timestamp() >= updated),
    };
    let mut h = HeaderMap::new();
    if let Ok(v) = HeaderValue::from_str(&etag) {
        h.insert(header::ETAG, v);
    }
    if let Ok(v) = HeaderValue::from_str(&last_modified) {
        h.insert(header::LAST_MODIFIED, v);
    }
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("max-age=60"),
    );
    if fresh {
        return (StatusCode::NOT_MODIFIED, h).into_response();
    }
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_str(content_type).unwrap_or(HeaderValue::from_static("text/plain")),
    );
    (StatusCode::OK, h, body).into_response()
}

/// An HTTP date (RFC 7231 IMF-fixdate).
fn httpdate(t: i64) -> String {
    chrono::DateTime::from_timestamp(t, 0)
        .unwrap_or_default()
        .format("%a, %d %b %Y %H:%M:%S GMT")
        .to_string()
}
