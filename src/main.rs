use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .init();
    let cli = sitefeed::cli::Cli::parse();
    match sitefeed::cli::run(cli) {
        // A closed stdout (`sitefeed list | head`) is not an error worth a message.
        Ok(()) | Err(sitefeed::error::Error::OutputClosed) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("sitefeed: {e}");
            ExitCode::from(if e.is_usage() { 2 } else { 1 })
        }
    }
}
