//! The HTTP server: one `router()` per concern, merged in [`router`]; graceful serve.
//! Calls the service ([`crate::app::App`]) and speaks the API's shapes ([`crate::dto`]);
//! may read the store's types and use render, metrics and the session secrets. Nothing
//! below it (app, store, check, fetch) may use it.
//!
//! May use: app, cpu, dto, fetch, metrics, model, render, session, state, store.

pub mod api;
mod auth;
pub mod base;
mod encoding;
mod error;
mod feeds;
pub mod list;
mod pages;

use std::sync::Arc;

use axum::extract::State;
use axum::http::header;
use axum::middleware;
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
        .merge(pages::router())
        .route("/healthz", get(healthz))
        .route("/metrics", get(metrics))
        .layer(middleware::from_fn_with_state(app.clone(), auth::layer))
        .layer(middleware::from_fn(error::json_errors))
        .layer(middleware::from_fn_with_state(app.clone(), base::layer))
        .layer(axum::extract::DefaultBodyLimit::max(MAX_REQUEST_BYTES))
        .with_state(app)
}

/// `ok`, or `503` saying why the service is degraded (its storage refuses writes: feeds
/// are still served, checks wait).
async fn healthz(State(app): State<Arc<App>>) -> axum::response::Response {
    use axum::response::IntoResponse;
    match app.storage_failing() {
        None => "ok".into_response(),
        Some(why) => (
            axum::http::StatusCode::SERVICE_UNAVAILABLE,
            format!("degraded: {why}; feeds are served, checks wait for the storage\n"),
        )
            .into_response(),
    }
}

async fn metrics(
    State(app): State<Arc<App>>,
) -> Result<([(header::HeaderName, &'static str); 1], String), ApiError> {
    if !app.metrics().watches_counted() {
        // Before the count `serve` starts is done: wait for it, or count (once).
        let census = app.clone();
        crate::cpu::wait_on_disk(move || census.count_watches()).await?;
    }
    let mut text = app
        .metrics()
        .render(app.storage_bytes(), app.storage_failing().is_some());
    let by_render = app.metrics().by_render();
    let browser = app.fetcher().browser();
    text.push_str(&crate::metrics::Metrics::render_browser(
        &by_render,
        browser.map(crate::fetch::browser::Browser::health).as_ref(),
        browser.map_or(0, |b| {
            b.stats()
                .requests
                .load(std::sync::atomic::Ordering::Relaxed)
        }),
    ));
    Ok(([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], text))
}

/// Serves until `cancel` fires, then finishes in-flight requests.
pub async fn serve(
    app: Arc<App>,
    listener: tokio::net::TcpListener,
    cancel: tokio_util::sync::CancellationToken,
) -> std::io::Result<()> {
    axum::serve(
        listener,
        router(app).into_make_service_with_connect_info::<std::net::SocketAddr>(),
    )
    .with_graceful_shutdown(async move { cancel.cancelled().await })
    .await
}
