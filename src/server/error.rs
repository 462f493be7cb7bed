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
    /// 500; the cause is logged, not sent.
    Internal(String),
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
            Self::NotFound(what) => (StatusCode::NOT_FOUND, format!("not found: {what}\n")).into_response(),
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
            AppError::Store(e) => Self::Internal(e.to_string()),
            AppError::Internal(m) => Self::Internal(m),
        }
    }
}

impl From<crate::store::StoreError> for ApiError {
    fn from(e: crate::store::StoreError) -> Self {
        Self::Internal(e.to_string())
    }
}
