//! The watch list as users narrow it: search, tag, status and error filters, a sort and
//! pages. Shared by `GET /api/watches?...` and the web page's list.

use serde::Deserialize;

use super::error::ApiError;
use crate::app::App;
use crate::model::{Status, Watch};
use crate::state::WatchState;

/// What a list request asks for; every field optional.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ListQuery {
    /// Case-insensitive words that must all appear in the title, URL or tags.
    pub q: Option<String>,
    /// Only watches with this tag.
    pub tag: Option<String>,
    /// `ok`, `error`, `new` or `paused`.
    pub status: Option<String>,
    /// Only failing watches whose error contains this (case-insensitive).
    pub error: Option<String>,
    /// `title` (default), `url`, `status`, `last_check`, `next_check`, `items`,
    /// `created`; a leading `-` reverses it.
    pub sort: Option<String>,
    /// 1-based page of `per_page` watches.
    pub page: Option<usize>,
    pub per_page: Option<usize>,
}

/// Most watches one page holds.
pub(crate) const MAX_PER_PAGE: usize = 500;

/// One row of the list: the display title, the watch, its state.
pub(crate) type Row = (String, Watch, Option<WatchState>);

/// The status word of a watch, as the filter and the API name it.
pub(crate) fn status_word(w: &Watch, s: Option<&WatchState>) -> &'static str {
    if w.options.paused {
        return "paused";
    }
    match s.map(|s| s.status) {
        Some(Status::Error) => "error",
        Some(Status::Ok) => "ok",
        _ => "new",
    }
}

/// The rows `q` selects, sorted and cut to its page, and how many matched in all.
pub fn select(
    app: &App,
    q: &ListQuery,
    default_per_page: usize,
) -> Result<(Vec<Row>, usize), ApiError> {
    let words: Vec<String> =
        q.q.as_deref()
            .unwrap_or("")
            .split_whitespace()
            .map(str::to_lowercase)
            .collect();
    let tag = q
        .tag
        .as_deref()
        .map(|t| t.trim().to_lowercase())
        .filter(|t| !t.is_empty());
    let status = q.status.as_deref().map(str::trim).filter(|s| !s.is_empty());
    if let Some(s) = status {
        if !matches!(s, "ok" | "error" | "new" | "paused") {
            return Err(ApiError::BadRequest(format!(
                "status `{s}` is not one of ok, error, new, paused"
            )));
        }
    }
    let error = q
        .error
        .as_deref()
        .map(str::to_lowercase)
        .filter(|e| !e.is_empty());
    let mut rows: Vec<Row> = Vec::new();
    for (w, s) in app.watches_with_state(tag.as_deref())? {
        if status.is_some_and(|st| st != status_word(&w, s.as_ref())) {
            continue;
        }
        if let Some(e) = &error {
            let msg = s.as_ref().and_then(|s| s.error.as_deref()).unwrap_or("");
            if !msg.to_lowercase().contains(e.as_str()) {
                continue;
            }
        }
        let title = app.display_title(&w, s.as_ref());
        if !words.is_empty() {
            let hay = format!("{} {} {}", title, w.url, w.options.tags.join(" ")).to_lowercase();
            if !words.iter().all(|x| hay.contains(x.as_str())) {
                continue;
            }
        }
        rows.push((title, w, s));
    }
    // No sort asked: the store's order (by id), as before there were sorts.
    let sort = q.sort.as_deref().unwrap_or("");
    let (desc, key) = match sort.strip_prefix('-') {
        Some(k) => (true, k),
        None => (false, sort),
    };
    let last = |r: &Row| r.2.as_ref().and_then(|s| s.last_check).unwrap_or(i64::MIN);
    let next = |r: &Row| r.2.as_ref().map_or(i64::MIN, |s| s.next_check);
    let items = |r: &Row| r.2.as_ref().map_or(0, |s| s.item_count);
    match key {
        "" => {}
        "title" => rows.sort_by_cached_key(|r| r.0.to_lowercase()),
        "url" => rows.sort_by(|a, b| a.1.url.cmp(&b.1.url)),
        "status" => rows.sort_by_key(|r| status_word(&r.1, r.2.as_ref())),
        "last_check" => rows.sort_by_key(last),
        "next_check" => rows.sort_by_key(next),
        "items" => rows.sort_by_key(items),
        "created" => rows.sort_by_key(|r| r.1.created),
        other => {
            return Err(ApiError::BadRequest(format!(
                "sort `{other}` is not one of title, url, status, last_check, next_check, items, created (a leading - reverses it)"
            )))
        }
    }
    if desc {
        rows.reverse();
    }
    let total = rows.len();
    let per_page = q
        .per_page
        .unwrap_or(default_per_page)
        .clamp(1, MAX_PER_PAGE.max(default_per_page));
    let page = q.page.unwrap_or(1).max(1);
    let rows = rows
        .into_iter()
        .skip((page - 1).saturating_mul(per_page))
        .take(per_page)
        .collect();
    Ok((rows, total))
}
