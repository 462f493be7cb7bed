//! The HTTP server: one `router()` per concern, merged in [`router`]; graceful serve.

pub mod api;
mod error;
mod feeds;
mod index;

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, Method};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::get;
use axum::Router;

pub use error::ApiError;

use crate::app::App;

/// Largest request body accepted (OPML uploads included).
const MAX_REQUEST_BYTES: usize = 2 * 1024 * 1024;

/// The whole application as a router; tests call it with `oneshot`.
pub fn router(app: Arc<App>) -> Router {
    Router::new()
        .merge(feeds::router())
        .merge(api::router())
        .merge(index::router())
        .route("/healthz", get(|| async { "ok" }))
        .route("/metrics", get(metrics))
        .layer(middleware::from_fn_with_state(app.clone(), auth))
        .layer(axum::extract::DefaultBodyLimit::max(MAX_REQUEST_BYTES))
        .with_state(app)
}

async fn metrics(
    State(app): State<Arc<App>>,
) -> Result<([(header::HeaderName, &'static str); 1], String), ApiError> {
    let watches = app.store.watches()?.len();
    let due = app.store.due(app.clock.now(), usize::MAX)?.len();
    Ok((
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        app.metrics.render(watches, due, app.store.size_on_disk()),
    ))
}

/// With `admin_token` set, every mutating request needs `Authorization: Bearer <token>`.
async fn auth(State(app): State<Arc<App>>, req: Request, next: Next) -> Result<Response, ApiError> {
    let token = &app.config.server.admin_token;
    let mutating = !matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    if token.is_empty() || !mutating {
        return Ok(next.run(req).await);
    }
    let given = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or("");
    if constant_time_eq(given.as_bytes(), token.as_bytes()) {
        Ok(next.run(req).await)
    } else {
        Err(ApiError::Unauthorized)
    }
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Serves until `cancel` fires, then finishes in-flight requests.
pub async fn serve(
    app: Arc<App>,
    listener: tokio::net::TcpListener,
    cancel: tokio_util::sync::CancellationToken,
) -> std::io::Result<()> {
    axum::serve(listener, router(app))
        .with_graceful_shutdown(async move { cancel.cancelled().await })
        .await
}
