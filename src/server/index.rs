//! `GET /`: the watches, their status and feeds, and a form to add one.

use std::fmt::Write;
use std::sync::Arc;

use axum::extract::State;
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Form, Router};
use serde::Deserialize;

use super::api::rfc3339;
use super::error::ApiError;
use crate::app::{App, AppError, NewWatch};

pub fn router() -> Router<Arc<App>> {
    Router::new()
        .route("/", get(index))
        .route("/watches", post(add))
}

#[derive(Debug, Deserialize)]
struct AddForm {
    url: String,
    title: Option<String>,
    select: Option<String>,
}

async fn index(State(app): State<Arc<App>>) -> Result<Html<String>, ApiError> {
    page(&app, None).map(Html)
}

async fn add(State(app): State<Arc<App>>, Form(f): Form<AddForm>) -> Result<Response, ApiError> {
    let req = NewWatch {
        url: f.url,
        title: f.title,
        select: f.select,
        ..NewWatch::default()
    };
    match app.add_watch(&req) {
        Ok(_) => Ok(Redirect::to("/").into_response()),
        Err(AppError::BadInput(m)) => Ok((
            axum::http::StatusCode::BAD_REQUEST,
            Html(page(&app, Some(&m))?),
        )
            .into_response()),
        Err(e) => Err(e.into()),
    }
}

fn page(app: &App, error: Option<&str>) -> Result<String, ApiError> {
    let mut s = String::from(concat!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>sitefeed</title>",
        "<meta name=\"viewport\" content=\"width=device-width\">",
        "<style>body{font:15px system-ui,sans-serif;max-width:70em;margin:1em auto;padding:0 1em}",
        "table{border-collapse:collapse;width:100%}td,th{padding:.3em;border-bottom:1px solid #ddd;text-align:left}",
        ".err{color:#a00}</style></head><body><h1>sitefeed</h1>",
        "<form method=\"post\" action=\"/watches\"><input name=\"url\" type=\"url\" required placeholder=\"https://example.org/news/\" size=\"50\"> ",
        "<input name=\"title\" placeholder=\"title (optional)\"> <input name=\"select\" placeholder=\"CSS selector (optional)\"> ",
        "<button>Watch</button></form>"
    ));
    if let Some(e) = error {
        let _ = write!(s, "<p class=\"err\">{}</p>", esc(e));
    }
    s.push_str("<table><tr><th>Title</th><th>Status</th><th>Last check</th><th>Next check</th><th>Items</th><th>Feeds</th></tr>");
    for w in app.store.watches()? {
        let st = app.store.state(&w.id)?;
        let title = app.display_title(&w, st.as_ref());
        let status = match &st {
            Some(s) if s.error.is_some() => format!(
                "<span class=\"err\">error: {}</span>",
                esc(s.error.as_deref().unwrap_or(""))
            ),
            Some(s) if s.last_check.is_some() => "ok".to_owned(),
            _ => "new".to_owned(),
        };
        let _ = write!(
            s,
            "<tr><td><a href=\"{url}\">{title}</a></td><td>{status}</td><td>{last}</td><td>{next}</td><td>{n}</td><td><a href=\"{rss}\">RSS</a> <a href=\"{atom}\">Atom</a> <a href=\"{json}\">JSON</a></td></tr>",
            url = esc(&w.url),
            title = esc(&title),
            last = st.as_ref().and_then(|s| s.last_check).map(rfc3339).unwrap_or_default(),
            next = st.as_ref().map(|s| rfc3339(s.next_check)).unwrap_or_default(),
            n = st.as_ref().map_or(0, |s| s.item_count),
            rss = esc(&app.feed_url(&w.id, "xml")),
            atom = esc(&app.feed_url(&w.id, "atom")),
            json = esc(&app.feed_url(&w.id, "json")),
        );
    }
    s.push_str("</table><p><a href=\"/opml\">OPML of all feeds</a></p></body></html>");
    Ok(s)
}

/// Escapes text for HTML content and attribute values.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}
