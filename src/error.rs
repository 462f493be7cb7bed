//! The top-level error of the binary, and its exit code: 2 for bad usage or input
//! (the message says what to fix), 1 for anything else.
//!
//! May use: config, store.

use crate::config::ConfigError;
use crate::store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Bad usage or input: exit 2.
    #[error("{0}")]
    Usage(String),
    /// Anything else: exit 1.
    #[error("{0}")]
    Failed(String),
    /// Standard output was closed by its reader (`sitefeed list | head`): nothing more
    /// to say, and nothing went wrong.
    #[error("standard output closed")]
    OutputClosed,
}

impl Error {
    pub fn is_usage(&self) -> bool {
        matches!(self, Self::Usage(_))
    }
}

impl From<ConfigError> for Error {
    fn from(e: ConfigError) -> Self {
        Self::Usage(e.to_string())
    }
}

impl From<StoreError> for Error {
    fn from(e: StoreError) -> Self {
        Self::Failed(e.to_string())
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            Self::OutputClosed
        } else {
            Self::Failed(e.to_string())
        }
    }
}
