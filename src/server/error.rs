//! The one HTTP error type. Clients get a short message; internal causes go to the log.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;

use crate::app::AppError;

#[derive(Debug)]
pub enum ApiError {
    /// 400 with `{"error": "..."}`.
    BadRequest(String),
    /// 401 with `{"error": "..."}`.
    Unauthorized,
    /// 404 with a short text body.
    NotFound(String),
    /// 415 with `{"error": "..."}`.
    UnsupportedType(String),
    /// 409 with `{"error": "..."}`: another node holds the watch's host now.
    Conflict(String),
    /// 500; the cause is logged, not sent.
    Internal(String),
    /// 507 (a full disk) or 503 (other storage failures) with `{"error": "..."}`; the
    /// store's health logs the cause once.
    Storage { full: bool },
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        match self {
            Self::BadRequest(msg) => {
                (StatusCode::BAD_REQUEST, Json(serde_json::json!({ "error": msg }))).into_response()
            }
            Self::Unauthorized => (
                StatusCode::UNAUTHORIZED,
                [(axum::http::header::WWW_AUTHENTICATE, "Bearer")],
                Json(serde_json::json!({ "error": "missing or wrong admin token: send \"Authorization: Bearer <token>\"" })),
            )
                .into_response(),
            Self::Conflict(msg) => {
                (StatusCode::CONFLICT, Json(serde_json::json!({ "error": msg }))).into_response()
            }
            Self::UnsupportedType(msg) => (
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                Json(serde_json::json!({ "error": msg })),
            )
                .into_response(),
            Self::NotFound(what) => (StatusCode::NOT_FOUND, format!("not found: {what}\n")).into_response(),
            Self::Storage { full } => {
                let (code, msg) = if full {
                    (
                        StatusCode::INSUFFICIENT_STORAGE,
                        "storage full: the server cannot save changes now; nothing was lost, try again when the operator has freed space",
                    )
                } else {
                    (
                        StatusCode::SERVICE_UNAVAILABLE,
                        "storage unavailable: the server cannot save changes now; nothing was lost, try again later",
                    )
                };
                (code, Json(serde_json::json!({ "error": msg }))).into_response()
            }
            Self::Internal(cause) => {
                tracing::error!(%cause, "internal error answering a request");
                (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    Json(serde_json::json!({ "error": "internal error; see the server log" })),
                )
                    .into_response()
            }
        }
    }
}

impl From<AppError> for ApiError {
    fn from(e: AppError) -> Self {
        match e {
            AppError::BadInput(m) => Self::BadRequest(m),
            AppError::NotFound(id) => Self::NotFound(format!("watch {id}")),
            AppError::Store(e) => e.into(),
            AppError::Client(e) => Self::Internal(e.to_string()),
        }
    }
}

impl From<crate::store::StoreError> for ApiError {
    fn from(e: crate::store::StoreError) -> Self {
        if e.is_storage() {
            Self::Storage { full: e.is_full() }
        } else if e.is_lease_lost() {
            Self::Conflict(e.to_string())
        } else {
            Self::Internal(e.to_string())
        }
    }
}

/// Largest error body turned into JSON; longer ones are cut.
const MAX_ERROR_TEXT: usize = 4096;

/// Middleware for `/api/*`: every error answer has a JSON body `{"error": "..."}`, also
/// those axum writes itself (a body too large, a bad path, a method not allowed).
pub(crate) async fn json_errors(
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    if !req.uri().path().starts_with("/api/") {
        return next.run(req).await;
    }
    let resp = next.run(req).await;
    let status = resp.status();
    let is_json = resp
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return resp;
    }
    let (mut parts, body) = resp.into_parts();
    let text = match axum::body::to_bytes(body, MAX_ERROR_TEXT).await {
        Ok(b) if !b.is_empty() => String::from_utf8_lossy(&b).trim().to_owned(),
        _ => status
            .canonical_reason()
            .unwrap_or("error")
            .to_ascii_lowercase(),
    };
    parts.headers.remove(axum::http::header::CONTENT_LENGTH);
    let mut out = (status, Json(serde_json::json!({ "error": text }))).into_response();
    for (k, v) in &parts.headers {
        if k != axum::http::header::CONTENT_TYPE {
            out.headers_mut().insert(k.clone(), v.clone());
        }
    }
    out
}
