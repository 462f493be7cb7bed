//! Log in and out (`/login`, `/logout`) when `server.admin_token` is set: the form, the
//! throttle on wrong tokens, a new session at login. Uses the page shell of [`super`],
//! [`crate::server::auth`] (sessions, client address) and [`crate::app::App`].

use std::sync::Arc;

use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use maud::html;
use serde::Deserialize;

use super::csrf::{Checked, CsrfField, CsrfOnly};
use super::{auth, plain, Ctx};
use crate::app::App;

#[derive(Debug, Deserialize)]
pub(super) struct LoginQuery {
    next: Option<String>,
}

pub(super) async fn login_page(
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
        @if app.config().server.admin_token.is_empty() {
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
pub(super) struct LoginForm {
    token: Option<String>,
    csrf: Option<String>,
    next: Option<String>,
}

impl CsrfField for LoginForm {
    fn csrf(&self) -> Option<&str> {
        self.csrf.as_deref()
    }
}

pub(super) async fn login(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    axum::Extension(auth::ClientIp(ip)): axum::Extension<auth::ClientIp>,
    Checked(f): Checked<LoginForm>,
) -> Response {
    let ctx = Ctx::new(&app, &headers);
    let token = &app.config().server.admin_token;
    if token.is_empty() {
        return Redirect::to("/").into_response();
    }
    let next = auth::local_path(f.next.as_deref());
    let now = app.now();
    if let Err(wait) = app.security().throttle_check(ip, now) {
        let msg = format!("Too many wrong tokens from your address: try again in {wait} s.");
        let mut r = login_form(&app, &ctx, StatusCode::TOO_MANY_REQUESTS, Some(&msg), &next);
        if let Ok(v) = header::HeaderValue::from_str(&wait.to_string()) {
            r.headers_mut().insert(header::RETRY_AFTER, v);
        }
        return r;
    }
    if !app
        .security()
        .same_secret(f.token.as_deref().unwrap_or(""), token)
    {
        app.security().throttle_failed(ip, now);
        return login_form(
            &app,
            &ctx,
            StatusCode::UNAUTHORIZED,
            Some("Wrong token."),
            &next,
        );
    }
    app.security().throttle_succeeded(ip);
    // A new session id at login: an id planted before it is worth nothing.
    let _ = auth::end_session(&app, &headers);
    let mut resp = Redirect::to(&next).into_response();
    resp.headers_mut()
        .append(header::SET_COOKIE, auth::start_session(&app));
    resp
}

pub(super) async fn logout(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Checked(_): Checked<CsrfOnly>,
) -> Response {
    let mut resp = Redirect::to("/login").into_response();
    resp.headers_mut()
        .append(header::SET_COOKIE, auth::end_session(&app, &headers));
    resp
}
