//! The CSRF check of every form the pages accept: [`Checked`] extracts a form and lets
//! the handler run only when the form's `csrf` field is the token of this request's
//! binding ([`super::auth::csrf_ok`]); otherwise the answer is a 403 page saying the
//! form expired. The OPML upload, a multipart form, calls [`refused`], the same check.

use std::sync::Arc;

use axum::extract::{FromRequest, Request};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Form;
use maud::html;
use serde::de::DeserializeOwned;
use serde::Deserialize;

use super::{auth, Ctx};
use crate::app::App;

/// A form that carries a CSRF token.
pub(super) trait CsrfField {
    /// The `csrf` field as sent (`None` when missing).
    fn csrf(&self) -> Option<&str>;
}

/// A form with no field but its CSRF token (the buttons of a watch's page, log out).
#[derive(Debug, Deserialize)]
pub(super) struct CsrfOnly {
    csrf: Option<String>,
}

impl CsrfField for CsrfOnly {
    fn csrf(&self) -> Option<&str> {
        self.csrf.as_deref()
    }
}

/// A urlencoded form `T` whose CSRF token matched.
pub(super) struct Checked<T>(pub T);

impl<T> FromRequest<Arc<App>> for Checked<T>
where
    T: DeserializeOwned + CsrfField + Send,
{
    type Rejection = Response;

    async fn from_request(req: Request, app: &Arc<App>) -> Result<Self, Response> {
        let headers = req.headers().clone();
        let Form(form) = Form::<T>::from_request(req, app)
            .await
            .map_err(IntoResponse::into_response)?;
        match refused(app, &headers, form.csrf().unwrap_or("")) {
            Some(expired) => Err(expired),
            None => Ok(Self(form)),
        }
    }
}

/// `None` when `token` is the CSRF token of this request; otherwise the page to answer.
pub(super) fn refused(app: &App, headers: &HeaderMap, token: &str) -> Option<Response> {
    if auth::csrf_ok(app, headers, token) {
        return None;
    }
    Some(Ctx::new(app, headers).page(
        StatusCode::FORBIDDEN,
        "expired form",
        &html! {
            h1 { "This form has expired" }
            p.msg { "The form was not sent from this sitefeed page (its CSRF token does not match). "
                    a href="/" { "Reload the page" } " and send it again." }
        },
    ))
}
