//! Configuration: the TOML file as written ([`RawConfig`], every key optional) and the
//! validated, typed [`Config`] the program runs with. Environment overrides are applied
//! here and nowhere else.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

pub const DEFAULT_CONFIG_PATH: &str = "config/sitefeed.toml";
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8080";
pub const DEFAULT_DATA: &str = "data";
pub const DEFAULT_TIMEOUT_SECS: u64 = 20;
pub const DEFAULT_MAX_BODY_BYTES: u64 = 5_000_000;
pub const DEFAULT_MAX_REDIRECTS: usize = 5;
pub const DEFAULT_PER_HOST_DELAY_MS: u64 = 1000;
pub const DEFAULT_GLOBAL_CONCURRENCY: usize = 32;
pub const DEFAULT_MAX_ITEMS: usize = 100;
pub const DEFAULT_CACHE_BYTES: u64 = 16 * 1024 * 1024;

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

// ----- raw: the file as written -----

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawConfig {
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
    pub watch: Vec<RawWatch>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawServer {
    pub listen: Option<String>,
    pub base_url: Option<String>,
    pub admin_token: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawStorage {
    pub path: Option<PathBuf>,
    pub cache_bytes: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawFetch {
    pub user_agent: Option<String>,
    pub timeout_secs: Option<u64>,
    pub max_body_bytes: Option<u64>,
    pub max_redirects: Option<usize>,
    pub per_host_delay_ms: Option<u64>,
    pub global_concurrency: Option<usize>,
    pub respect_robots: Option<bool>,
    pub allow_private_addresses: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSchedule {
    pub strategy: Option<String>,
    pub initial_interval: Option<String>,
    pub min_interval: Option<String>,
    pub max_interval: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawFeed {
    pub max_items: Option<usize>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawWatch {
    pub url: String,
    pub depth: Option<u8>,
    pub title: Option<String>,
    pub select: Option<String>,
    pub keywords: Option<Vec<String>>,
}

// ----- validated -----

#[derive(Debug, Clone)]
pub struct Config {
    pub server: ServerConfig,
    pub storage: StorageConfig,
    pub fetch: FetchConfig,
    pub schedule: ScheduleConfig,
    pub feed: FeedConfig,
    /// Watches declared in the file; added (idempotently) when the service starts.
    pub watches: Vec<RawWatch>,
}

#[derive(Debug, Clone)]
pub struct ServerConfig {
    pub listen: SocketAddr,
    /// No trailing slash.
    pub base_url: String,
    /// Empty: no authentication.
    pub admin_token: String,
}

#[derive(Debug, Clone)]
pub struct StorageConfig {
    pub path: PathBuf,
    /// sled page cache; bounds the store's share of memory.
    pub cache_bytes: u64,
}

#[derive(Debug, Clone)]
pub struct FetchConfig {
    pub user_agent: String,
    pub timeout: Duration,
    pub max_body_bytes: u64,
    pub max_redirects: usize,
    pub per_host_delay: Duration,
    pub global_concurrency: usize,
    pub respect_robots: bool,
    pub allow_private_addresses: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    Adaptive,
    Fixed,
}

#[derive(Debug, Clone, Copy)]
pub struct ScheduleConfig {
    pub strategy: Strategy,
    pub initial_interval: Duration,
    pub min_interval: Duration,
    pub max_interval: Duration,
}

#[derive(Debug, Clone, Copy)]
pub struct FeedConfig {
    pub max_items: usize,
}

impl Default for Config {
    fn default() -> Self {
        RawConfig::default()
            .validate(Path::new("<defaults>"), &|_| None)
            .expect("invariant: the defaults are valid")
    }
}

impl Config {
    /// Loads the file at `path` (or the defaults when `path` is the default path and no
    /// such file exists), then applies the environment overrides of SPEC.
    pub fn load(path: Option<&Path>) -> Result<Self, ConfigError> {
        let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        let (path, explicit) = match path {
            Some(p) => (p.to_path_buf(), true),
            None => match env("SITEFEED_CONFIG") {
                Some(p) => (PathBuf::from(p), true),
                None => (PathBuf::from(DEFAULT_CONFIG_PATH), false),
            },
        };
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if !explicit && e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(source) => return Err(ConfigError::Read { path, source }),
        };
        Self::from_toml(&text, &path, &env)
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
        raw.validate(path, env)
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
    /// Checks every key and builds the typed config (one line per key: long, not deep).
    #[allow(clippy::too_many_lines, reason = "a flat list of keys to check")]
    pub fn validate(
        self,
        path: &Path,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Config, ConfigError> {
        let bad = |key: &str, problem: String| ConfigError::Invalid {
            path: path.to_path_buf(),
            message: format!("key `{key}`: {problem}"),
        };

        let listen_s = env("SITEFEED_LISTEN")
            .or(self.server.listen)
            .unwrap_or_else(|| DEFAULT_LISTEN.to_owned());
        let listen: SocketAddr = listen_s.parse().map_err(|_| {
            bad(
                "server.listen",
                format!("`{listen_s}` is not an address:port such as 127.0.0.1:8080"),
            )
        })?;
        let base_url = self
            .server
            .base_url
            .unwrap_or_else(|| format!("http://{listen}"));
        let base_url = base_url.trim_end_matches('/').to_owned();
        match url::Url::parse(&base_url) {
            Ok(u) if matches!(u.scheme(), "http" | "https") => {}
            _ => {
                return Err(bad(
                    "server.base_url",
                    format!("`{base_url}` is not an http(s) URL"),
                ))
            }
        }

        let data = env("SITEFEED_DATA")
            .map(PathBuf::from)
            .or(self.storage.path)
            .unwrap_or_else(|| PathBuf::from(DEFAULT_DATA));

        let f = self.fetch;
        let positive = |key: &str, v: Option<u64>, default: u64| match v {
            Some(0) => Err(bad(key, "must be greater than 0".into())),
            Some(v) => Ok(v),
            None => Ok(default),
        };
        let timeout_secs = positive("fetch.timeout_secs", f.timeout_secs, DEFAULT_TIMEOUT_SECS)?;
        let max_body_bytes = positive(
            "fetch.max_body_bytes",
            f.max_body_bytes,
            DEFAULT_MAX_BODY_BYTES,
        )?;
        let global_concurrency = positive(
            "fetch.global_concurrency",
            f.global_concurrency.map(|v| v as u64),
            DEFAULT_GLOBAL_CONCURRENCY as u64,
        )? as usize;
        let user_agent = f.user_agent.unwrap_or_else(|| {
            format!(
                "sitefeed/{} (+https://github.com/sitefeed/sitefeed)",
                env!("CARGO_PKG_VERSION")
            )
        });
        if user_agent.trim().is_empty() || user_agent.contains(['\r', '\n']) {
            return Err(bad("fetch.user_agent", "must be one non-empty line".into()));
        }

        let s = self.schedule;
        let strategy = match s.strategy.as_deref().unwrap_or("adaptive") {
            "adaptive" => Strategy::Adaptive,
            "fixed" => Strategy::Fixed,
            "periodic" => {
                return Err(bad(
                    "schedule.strategy",
                    "`periodic` (the daily model) is not available in this version; use `adaptive` or `fixed`".into(),
                ))
            }
            other => {
                return Err(bad(
                    "schedule.strategy",
                    format!("`{other}` is not one of adaptive, fixed"),
                ))
            }
        };
        let dur = |key: &str, v: Option<String>, default: &str| {
            let v = v.unwrap_or_else(|| default.to_owned());
            parse_duration(&v).ok_or_else(|| {
                bad(
                    key,
                    format!("`{v}` is not a duration such as 30s, 5m, 1h or 1d"),
                )
            })
        };
        let initial_interval = dur("schedule.initial_interval", s.initial_interval, "1h")?;
        let min_interval = dur("schedule.min_interval", s.min_interval, "5m")?;
        let max_interval = dur("schedule.max_interval", s.max_interval, "1d")?;
        if min_interval > max_interval {
            return Err(bad(
                "schedule.min_interval",
                "is greater than schedule.max_interval".into(),
            ));
        }
        if min_interval.is_zero() {
            return Err(bad("schedule.min_interval", "must be at least 1s".into()));
        }

        let max_items = self.feed.max_items.unwrap_or(DEFAULT_MAX_ITEMS);
        if max_items == 0 || max_items as u64 > crate::store::ITEMS_KEPT {
            return Err(bad(
                "feed.max_items",
                format!("must be between 1 and {}", crate::store::ITEMS_KEPT),
            ));
        }
        for (i, w) in self.watch.iter().enumerate() {
            if let Some(d) = w.depth {
                if !(1..=3).contains(&d) {
                    return Err(bad(
                        &format!("watch[{i}].depth"),
                        format!("{d} is not 1, 2 or 3"),
                    ));
                }
            }
        }

        Ok(Config {
            server: ServerConfig {
                listen,
                base_url,
                admin_token: self.server.admin_token.unwrap_or_default(),
            },
            storage: StorageConfig {
                path: data,
                cache_bytes: self.storage.cache_bytes.unwrap_or(DEFAULT_CACHE_BYTES),
            },
            fetch: FetchConfig {
                user_agent,
                timeout: Duration::from_secs(timeout_secs),
                max_body_bytes,
                max_redirects: f.max_redirects.unwrap_or(DEFAULT_MAX_REDIRECTS),
                per_host_delay: Duration::from_millis(
                    f.per_host_delay_ms.unwrap_or(DEFAULT_PER_HOST_DELAY_MS),
                ),
                global_concurrency,
                respect_robots: f.respect_robots.unwrap_or(true),
                allow_private_addresses: f.allow_private_addresses.unwrap_or(false),
            },
            schedule: ScheduleConfig {
                strategy,
                initial_interval,
                min_interval,
                max_interval,
            },
            feed: FeedConfig { max_items },
            watches: self.watch,
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
mod tests {
    use super::*;

    fn no_env(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn shipped_config_parses_and_matches_defaults() {
        let text = include_str!("../config/sitefeed.toml");
        let c = Config::from_toml(text, Path::new("config/sitefeed.toml"), &no_env)
            .expect("shipped config is valid");
        let d = Config::default();
        assert_eq!(c.server.listen, d.server.listen);
        assert_eq!(c.fetch.timeout, d.fetch.timeout);
        assert_eq!(c.fetch.max_body_bytes, d.fetch.max_body_bytes);
        assert_eq!(c.schedule.min_interval, Duration::from_secs(300));
        assert_eq!(c.schedule.max_interval, Duration::from_secs(86_400));
        assert_eq!(c.feed.max_items, 100);
    }

    #[test]
    fn env_overrides_file() {
        let env = |k: &str| match k {
            "SITEFEED_LISTEN" => Some("127.0.0.1:9999".to_owned()),
            "SITEFEED_DATA" => Some("/tmp/x".to_owned()),
            _ => None,
        };
        let c = Config::from_toml(
            "[server]\nlisten = \"0.0.0.0:1\"\n[storage]\npath = \"d\"\n",
            Path::new("f.toml"),
            &env,
        )
        .expect("valid");
        assert_eq!(c.server.listen.port(), 9999);
        assert_eq!(c.storage.path, PathBuf::from("/tmp/x"));
    }

    #[test]
    fn invalid_type_names_file_line_and_key() {
        let err = Config::from_toml(
            "[fetch]\ntimeout_secs = \"soon\"\n",
            Path::new("my.toml"),
            &no_env,
        )
        .expect_err("invalid");
        let s = err.to_string();
        assert!(s.starts_with("my.toml: line 2"), "{s}");
        assert!(s.contains("timeout_secs"), "{s}");
        assert!(!s.contains('\n'), "one line: {s}");
    }

    #[test]
    fn unknown_key_is_rejected() {
        let err = Config::from_toml("[fetch]\ntimeout = 3\n", Path::new("c.toml"), &no_env)
            .expect_err("unknown key");
        assert!(err.to_string().contains("unknown field `timeout`"), "{err}");
    }

    #[test]
    fn semantic_errors_name_the_key() {
        for (text, key) in [
            (
                "[schedule]\nmin_interval = \"2d\"\n",
                "schedule.min_interval",
            ),
            (
                "[schedule]\nmax_interval = \"soon\"\n",
                "schedule.max_interval",
            ),
            ("[schedule]\nstrategy = \"random\"\n", "schedule.strategy"),
            ("[server]\nlisten = \"localhost\"\n", "server.listen"),
            ("[fetch]\ntimeout_secs = 0\n", "fetch.timeout_secs"),
            (
                "[[watch]]\nurl = \"http://a/\"\ndepth = 7\n",
                "watch[0].depth",
            ),
        ] {
            let err = Config::from_toml(text, Path::new("c.toml"), &no_env).expect_err(text);
            assert!(err.to_string().contains(key), "{err} should name {key}");
        }
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("90"), Some(Duration::from_secs(90)));
        assert_eq!(parse_duration("5m"), Some(Duration::from_secs(300)));
        assert_eq!(parse_duration("1h30m"), Some(Duration::from_secs(5400)));
        assert_eq!(parse_duration("1d"), Some(Duration::from_secs(86_400)));
        assert_eq!(parse_duration("5x"), None);
        assert_eq!(parse_duration("m"), None);
        assert_eq!(parse_duration("5m3"), None);
    }
}
