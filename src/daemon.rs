//! `sitefeed serve`, the composition root: the service ([`App`]), the [`Runner`] that
//! checks due watches and the HTTP server, under one cancellation token, shut down in
//! order. Nothing in the crate depends on this module but the CLI.
//!
//! May use: app, config, cpu, error, runner, server.

use std::sync::Arc;

use crate::app::App;
use crate::config::Config;
use crate::runner::Runner;

/// `sitefeed serve`: adds the configured watches, then runs the scheduler and the HTTP
/// server until SIGINT or SIGTERM, and shuts down in order: stop intake, let the
/// server finish its requests, give running checks a grace period.
pub fn serve_blocking(config: Config) -> Result<(), crate::error::Error> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(crate::cpu::async_threads())
        .enable_all()
        .build()
        .map_err(|e| crate::error::Error::Failed(format!("cannot start the runtime: {e}")))?;
    rt.block_on(async move {
        let listen = config.server.listen;
        let data = std::path::absolute(&config.storage.path)
            .unwrap_or_else(|_| config.storage.path.clone());
        let file = config.file.as_ref().map_or_else(
            || "none (built-in defaults; --config or SITEFEED_CONFIG names a file)".to_owned(),
            |f| f.display().to_string(),
        );
        tracing::info!(config = %file, data = %data.display(), "starting");
        let app = Arc::new(App::open(config)?);
        app.add_configured_watches()?;
        let listener = tokio::net::TcpListener::bind(listen).await.map_err(|e| {
            crate::error::Error::Failed(format!("cannot listen on {listen}: {e} (set server.listen or SITEFEED_LISTEN)"))
        })?;
        let cancel = tokio_util::sync::CancellationToken::new();
        let local = listener.local_addr()?;
        if let Some(b) = &app.config().server.base_url {
            tracing::info!(address = %local, base_url = %b, "sitefeed serving");
        } else {
            tracing::info!(address = %local, "sitefeed serving; feed URLs follow the address each request came to (server.base_url / SITEFEED_BASE_URL is not set)");
        }
        let runner = Runner::new(app.clone());
        let sched = tokio::spawn(runner.run(cancel.clone(), std::time::Duration::from_secs(10)));
        let server = tokio::spawn(crate::server::serve(app.clone(), listener, cancel.clone()));
        // The watch gauges: with many watches, counting them is the longest read of a
        // start from a cold disk, so it runs once the service answers.
        let census = app.clone();
        tokio::task::spawn_blocking(move || {
            if let Err(e) = census.count_watches() {
                tracing::warn!(error = %e, "cannot count the watches for /metrics; its next scrape tries again");
            }
        });
        // Failing watches are checked again within a minute of a start (a fixed config,
        // a site back up). Moved while the service already answers: after an outage
        // that is one durable write per failing watch, seconds for many thousands.
        let recheck = app.clone();
        tokio::task::spawn_blocking(move || match recheck.recheck_failing() {
            Ok(0) => {}
            Ok(moved) => {
                tracing::info!(watches = moved, "failing watches are checked again within a minute");
            }
            Err(e) => tracing::warn!(error = %e, "cannot move the failing watches' next checks forward"),
        });
        shutdown_signal().await;
        tracing::info!("shutting down");
        cancel.cancel();
        if let Ok(Err(e)) = server.await {
            tracing::error!(error = %e, "server error");
        }
        let _ = sched.await;
        if let Some(b) = app.fetcher().browser() {
            b.shutdown().await;
        }
        app.store().flush()?;
        Ok(())
    })
}

async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = term => {}
    }
}
