//! Configuration: the TOML file as written ([`RawConfig`], every key optional) and the
//! validated, typed [`Config`] the program runs with. Environment overrides are applied
//! here and nowhere else. Each section has its own file with its raw and validated form
//! and its `validate`; this file holds what they share (errors, helpers) and the whole.
//! May use [`crate::model`] (the names a watch's strategy and render mode take) and no
//! other module of the crate.
//!
//! May use: model.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

mod browser;
mod deep;
mod env;
mod feed;
mod fetch;
mod items;
mod schedule;
mod server;
mod storage;
pub use browser::{BrowserConfig, RawBrowser};
pub use deep::{DeepConfig, RawDeep};
pub use env::{var_name, IpRange, Kind as EnvKind, ENV_KEYS};
pub use feed::{FeedConfig, RawFeed, RawWatch};
pub use fetch::{FetchConfig, RawFetch};
pub use items::{FullText, ItemsConfig, RawItems};
pub use schedule::{RawSchedule, ScheduleConfig};
pub use server::{RawServer, ServerConfig, StringList};
pub use storage::{Backend, RawStorage, StorageConfig, DEFAULT_COMPACT_RATIO, DEFAULT_LEASE_SECS};

pub use crate::model::Strategy;

pub const DEFAULT_CONFIG_PATH: &str = "config/sitefeed.toml";

/// Errors in the configuration file; each names the file and what is wrong.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read config file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Invalid { path: PathBuf, message: String },
}

/// Builds the error for one key: `bad("fetch.retries", "11 is more than 10")`.
type Bad<'a> = &'a dyn Fn(&str, String) -> ConfigError;

/// A number that must be greater than 0; `default` when not given.
fn positive(bad: Bad<'_>, key: &str, v: Option<u64>, default: u64) -> Result<u64, ConfigError> {
    match v {
        Some(0) => Err(bad(key, "must be greater than 0".into())),
        Some(v) => Ok(v),
        None => Ok(default),
    }
}

/// A duration written as [`parse_duration`] reads it; `default` when not given.
fn duration(
    bad: Bad<'_>,
    key: &str,
    v: Option<String>,
    default: &str,
) -> Result<Duration, ConfigError> {
    let v = v.unwrap_or_else(|| default.to_owned());
    parse_duration(&v).ok_or_else(|| {
        bad(
            key,
            format!("`{v}` is not a duration such as 30s, 5m, 1h or 1d"),
        )
    })
}

// ----- raw: the file as written -----

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawConfig {
    #[serde(default)]
    pub server: RawServer,
    #[serde(default)]
    pub storage: RawStorage,
    #[serde(default)]
    pub fetch: RawFetch,
    #[serde(default)]
    pub schedule: RawSchedule,
    #[serde(default)]
    pub feed: RawFeed,
    #[serde(default)]
    pub items: RawItems,
    #[serde(default)]
    pub deep: RawDeep,
    #[serde(default)]
    pub browser: RawBrowser,
    #[serde(default)]
    pub watch: Vec<RawWatch>,
}

/// A TOML number written either way (`3` or `3.0`).
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(untagged)]
pub enum Number {
    Int(i64),
    Float(f64),
}

impl Number {
    fn get(self) -> f64 {
        match self {
            Self::Int(i) => i as f64,
            Self::Float(f) => f,
        }
    }
}

// ----- validated -----

#[derive(Debug, Clone)]
pub struct Config {
    pub server: ServerConfig,
    pub storage: StorageConfig,
    pub fetch: FetchConfig,
    pub schedule: ScheduleConfig,
    pub feed: FeedConfig,
    pub items: ItemsConfig,
    pub deep: DeepConfig,
    pub browser: BrowserConfig,
    /// Watches declared in the file; added (idempotently) when the service starts.
    pub watches: Vec<RawWatch>,
    /// The file read, when there was one (`None`: the defaults).
    pub file: Option<PathBuf>,
}

impl Default for Config {
    fn default() -> Self {
        RawConfig::default()
            .validate(Path::new("<defaults>"))
            .expect("invariant: the defaults are valid")
    }
}

impl Config {
    /// Loads the file at `path` (or the defaults when `path` is the default path and no
    /// such file exists), then applies the environment overrides (`config/env.rs`).
    pub fn load(path: Option<&Path>) -> Result<Self, ConfigError> {
        let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        let (path, explicit) = match path {
            Some(p) => (p.to_path_buf(), true),
            None => match env("SITEFEED_CONFIG") {
                Some(p) => (PathBuf::from(p), true),
                None => (PathBuf::from(DEFAULT_CONFIG_PATH), false),
            },
        };
        let (text, found) = match std::fs::read_to_string(&path) {
            Ok(t) => (t, true),
            Err(e) if !explicit && e.kind() == std::io::ErrorKind::NotFound => {
                (String::new(), false)
            }
            Err(source) => return Err(ConfigError::Read { path, source }),
        };
        let mut c = Self::from_toml(&text, &path, &env)?;
        c.file = found.then(|| std::path::absolute(&path).unwrap_or(path));
        Ok(c)
    }

    /// Parses and validates `text`; `env` supplies the environment overrides.
    pub fn from_toml(
        text: &str,
        path: &Path,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Self, ConfigError> {
        let raw: RawConfig = toml::from_str(text).map_err(|e| ConfigError::Invalid {
            path: path.to_path_buf(),
            message: toml_error_line(text, &e),
        })?;
        let raw = env::apply(text, raw, path, env)?;
        raw.validate(path)
    }
}

/// One line from a TOML error: the line number, the offending line, and the message.
fn toml_error_line(text: &str, e: &toml::de::Error) -> String {
    let msg = e.message().replace('\n', " ");
    match e.span() {
        Some(span) => {
            let line_no = text[..span.start.min(text.len())].matches('\n').count() + 1;
            let line = text.lines().nth(line_no - 1).unwrap_or("").trim();
            format!("line {line_no} (`{line}`): {msg}")
        }
        None => msg,
    }
}

impl RawConfig {
    /// Checks every section (each in its own file) and builds the typed config; the
    /// first key found wrong is the error, naming `path`.
    pub fn validate(self, path: &Path) -> Result<Config, ConfigError> {
        let bad = |key: &str, problem: String| ConfigError::Invalid {
            path: path.to_path_buf(),
            message: format!("key `{key}`: {problem}"),
        };
        let server = self.server.validate(&bad)?;
        let storage = self.storage.validate(&bad)?;
        let fetch = self.fetch.validate(&bad)?;
        let schedule = self.schedule.validate(&bad)?;
        let feed = self.feed.validate(&bad)?;
        feed::validate_watches(&self.watch, &bad)?;
        let items = self.items.validate(&bad)?;
        let deep = self.deep.validate(&bad)?;
        let browser = self.browser.validate(&bad)?;
        Ok(Config {
            server,
            storage,
            fetch,
            schedule,
            feed,
            items,
            deep,
            browser,
            watches: self.watch,
            file: None,
        })
    }
}

/// Parses `90`, `30s`, `5m`, `1h`, `2d` (also combined: `1h30m`).
pub fn parse_duration(s: &str) -> Option<Duration> {
    let s = s.trim();
    if s.is_empty() {
        return None;
    }
    if let Ok(secs) = s.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let mut total: u64 = 0;
    let mut num = String::new();
    for c in s.chars() {
        if c.is_ascii_digit() {
            num.push(c);
            continue;
        }
        let n: u64 = num.parse().ok()?;
        num.clear();
        let unit = match c {
            's' => 1,
            'm' => 60,
            'h' => 3600,
            'd' => 86_400,
            'w' => 604_800,
            _ => return None,
        };
        total = total.checked_add(n.checked_mul(unit)?)?;
    }
    if !num.is_empty() {
        return None;
    }
    Some(Duration::from_secs(total))
}

#[cfg(test)]
mod tests;
