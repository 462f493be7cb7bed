//! The web page, rendered on the server with maud (escaped by construction; one line of
//! JavaScript selects a feed URL on click): the watches and a form to add one (`index`:
//! `/`, OPML upload), a page per watch with its latest items, recent checks, edit form
//! and the preview of what sitefeed extracts from the page now (`watch`:
//! `/watches/<id>…`), and the login form when `admin_token` is set (`login`). Every form
//! carries a CSRF token and every form handler takes its fields through one extractor
//! that checks it ([`csrf::Checked`]; the token itself is [`super::auth`]'s). Text that
//! comes from a watched page (titles, link texts, errors, URLs) is isolated in `<bdi>`
//! (or `dir="auto"`), so a right-to-left override in it cannot reverse the sentence
//! around it. This file holds the page shell and the pieces several pages show.
//!
//! May use the server's other parts, [`crate::app`] (the service every page calls),
//! [`crate::model`] and the store's read types; nothing here writes except through `App`.

mod csrf;
mod index;
mod login;
mod watch;

use std::sync::Arc;

use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use maud::{html, Markup, PreEscaped, DOCTYPE};

use super::auth;
use super::error::ApiError;
use crate::app::App;
use crate::model::{Status, Watch, WatchId};
use crate::state::WatchState;

pub fn router() -> Router<Arc<App>> {
    Router::new()
        .route("/", get(index::index))
        .route("/watches", post(index::add))
        .route("/watches/{id}", get(watch::watch_page))
        .route("/watches/{id}/preview", get(watch::preview_page))
        .route("/watches/{id}/check", post(watch::check_now))
        .route("/watches/{id}/remove", post(watch::remove))
        .route("/watches/{id}/edit", post(watch::edit))
        .route("/watches/{id}/pause", post(watch::pause))
        .route("/opml/import", post(index::import_opml))
        .route("/login", get(login::login_page).post(login::login))
        .route("/logout", post(login::logout))
}

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
#[derive(Clone)]
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
            logged_in: !app.config().server.admin_token.is_empty(),
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
    if parts.len().is_multiple_of(2) {
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

fn find(app: &App, id: &str) -> Result<Watch, ApiError> {
    WatchId::parse(id)
        .map(|id| app.watch(&id))
        .transpose()?
        .flatten()
        .ok_or_else(|| ApiError::NotFound(format!("watch {id}")))
}
