use std::io::IsTerminal;
use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = sitefeed::cli::Cli::parse();
    // RUST_LOG picks what is logged (default: info, with sled's internals at warn);
    // colours only on a terminal, so a log file or journal gets no escape codes.
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,sled=warn"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal());
    match cli.log_format {
        sitefeed::cli::LogFormat::Json => builder.json().init(),
        sitefeed::cli::LogFormat::Text => builder.init(),
    }
    // Names the allocator's low-memory defaults, so the linker keeps the constructor
    // that installs them (see `sitefeed::alloc`).
    let mem = sitefeed::alloc::low_memory_defaults();
    tracing::debug!(
        installed = mem.installed,
        eager_commit = mem.eager_commit,
        purge_delay_ms = mem.purge_delay_ms,
        generic_collect = mem.generic_collect,
        "allocator: mimalloc with its low-memory defaults"
    );
    match sitefeed::cli::run(cli) {
        // A closed stdout (`sitefeed list | head`) is not an error worth a message.
        Ok(()) | Err(sitefeed::error::Error::OutputClosed) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("sitefeed: {e}");
            ExitCode::from(if e.is_usage() { 2 } else { 1 })
        }
    }
}
