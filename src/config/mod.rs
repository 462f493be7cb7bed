//! Configuration: the TOML file as written ([`RawConfig`], every key optional) and the
//! validated, typed [`Config`] the program runs with. Environment overrides are applied
//! here and nowhere else.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

mod browser;
mod deep;
mod env;
pub use browser::{BrowserConfig, RawBrowser};
pub use deep::{DeepConfig, RawDeep};
pub use env::{var_name, IpRange, Kind as EnvKind, ENV_KEYS};

pub const DEFAULT_CONFIG_PATH: &str = "config/sitefeed.toml";
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8080";
pub const DEFAULT_DATA: &str = "data";
pub const DEFAULT_TIMEOUT_SECS: u64 = 20;
pub const DEFAULT_MAX_BODY_BYTES: u64 = 5_000_000;
pub const DEFAULT_MAX_REDIRECTS: usize = 5;
pub const DEFAULT_PER_HOST_DELAY_MS: u64 = 1000;
pub const DEFAULT_PER_HOST_CONCURRENCY: usize = 1;
pub const DEFAULT_CONNECT_TIMEOUT_SECS: u64 = 10;
pub const DEFAULT_STALL_TIMEOUT_SECS: u64 = 10;
pub const DEFAULT_RETRIES: u32 = 2;
pub const DEFAULT_CONTACT: &str = "https://github.com/sitefeed/sitefeed";
pub const DEFAULT_GLOBAL_CONCURRENCY: usize = 32;
pub const DEFAULT_MAX_ITEMS: usize = 100;
pub const DEFAULT_CACHE_BYTES: u64 = 16 * 1024 * 1024;
pub const DEFAULT_CHANGE_RATIO: f64 = 0.5;
pub const DEFAULT_PERIODIC_MIN_DAYS: f64 = 3.0;
pub const DEFAULT_PERIODIC_DEGREE: usize = 16;

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
    pub deep: RawDeep,
    #[serde(default)]
    pub browser: RawBrowser,
    #[serde(default)]
    pub watch: Vec<RawWatch>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawServer {
    pub listen: Option<String>,
    pub base_url: Option<String>,
    pub admin_token: Option<String>,
    pub feed_token: Option<String>,
    /// Proxies whose `Forwarded` / `X-Forwarded-*` headers are believed: addresses or
    /// CIDR ranges. A list, or one comma-separated string (as from the environment).
    pub trusted_proxies: Option<StringList>,
    /// IANA time zone of the times the web page shows (default UTC).
    pub timezone: Option<String>,
}

/// A list of strings written as a TOML array or as one comma-separated string.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum StringList {
    List(Vec<String>),
    One(String),
}

impl StringList {
    fn items(self) -> Vec<String> {
        let all = match self {
            Self::List(v) => v,
            Self::One(s) => s.split(',').map(str::to_owned).collect(),
        };
        all.into_iter()
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
            .collect()
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawStorage {
    pub path: Option<PathBuf>,
    pub cache_bytes: Option<u64>,
    pub backend: Option<String>,
    pub url: Option<String>,
    pub lease_secs: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawFetch {
    pub user_agent: Option<String>,
    pub contact: Option<String>,
    pub timeout_secs: Option<u64>,
    pub connect_timeout_secs: Option<u64>,
    pub stall_timeout_secs: Option<u64>,
    pub retries: Option<u32>,
    pub per_host_concurrency: Option<usize>,
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
    pub change_ratio: Option<Number>,
    pub periodic_min_days: Option<Number>,
    pub periodic_degree: Option<usize>,
    pub error_backoff_max: Option<String>,
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

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawFeed {
    pub max_items: Option<usize>,
    pub error_item_after: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawWatch {
    pub url: String,
    pub depth: Option<u8>,
    pub title: Option<String>,
    pub select: Option<String>,
    pub keywords: Option<Vec<String>>,
    /// adaptive | periodic | fixed; default `schedule.strategy`.
    pub strategy: Option<String>,
    pub tags: Option<Vec<String>>,
    /// plain | browser | auto; default plain.
    pub render: Option<String>,
}

// ----- validated -----

#[derive(Debug, Clone)]
pub struct Config {
    pub server: ServerConfig,
    pub storage: StorageConfig,
    pub fetch: FetchConfig,
    pub schedule: ScheduleConfig,
    pub feed: FeedConfig,
    pub deep: DeepConfig,
    pub browser: BrowserConfig,
    /// Watches declared in the file; added (idempotently) when the service starts.
    pub watches: Vec<RawWatch>,
    /// The file read, when there was one (`None`: the defaults).
    pub file: Option<PathBuf>,
}

#[derive(Debug, Clone)]
pub struct ServerConfig {
    pub listen: SocketAddr,
    /// The public address of this server, no trailing slash. `None`: feed URLs are
    /// built from each request (`Host`, or the forwarding headers of a trusted proxy).
    pub base_url: Option<String>,
    /// Proxies whose forwarding headers are believed.
    pub trusted_proxies: Vec<IpRange>,
    /// The time zone of the times the web page shows; a watch may have its own.
    pub timezone: chrono_tz::Tz,
    /// Empty: no authentication.
    pub admin_token: String,
    /// Empty: feeds and OPML are public. Otherwise they need `?key=<feed_token>`, and
    /// every feed and OPML URL sitefeed writes carries it.
    pub feed_token: String,
}

#[derive(Debug, Clone)]
pub struct StorageConfig {
    pub path: PathBuf,
    /// sled page cache; bounds the store's share of memory.
    pub cache_bytes: u64,
    /// Where the store lives: sled in `path` (one node), or PostgreSQL (many nodes).
    pub backend: Backend,
    /// PostgreSQL: how long a node's hold on a host lasts without renewal (a dead node's
    /// hosts move on after it).
    pub lease: Duration,
}

/// `storage.backend`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Backend {
    /// The embedded default: a sled database in `storage.path`.
    Sled,
    /// A PostgreSQL database shared by every node (`storage.url`).
    Postgres { url: String },
}

/// Default `storage.lease_secs`.
pub const DEFAULT_LEASE_SECS: u64 = 30;

#[derive(Debug, Clone)]
pub struct FetchConfig {
    /// Sent with every request; names a contact (`fetch.contact`) unless the user set
    /// `fetch.user_agent` whole.
    pub user_agent: String,
    /// Total time for one request, body included.
    pub timeout: Duration,
    pub connect_timeout: Duration,
    /// A body that delivers less than 1 KiB in this long is cut off (slow drip).
    pub stall_timeout: Duration,
    /// Extra attempts after a timeout, a stall or a 5xx.
    pub retries: u32,
    pub max_body_bytes: u64,
    pub max_redirects: usize,
    /// Minimum time between the end of one request to a host and the start of the next.
    pub per_host_delay: Duration,
    /// Requests in flight at once to one host.
    pub per_host_concurrency: usize,
    /// Requests in flight at once, over all hosts.
    pub global_concurrency: usize,
    pub respect_robots: bool,
    pub allow_private_addresses: bool,
}

pub use crate::model::Strategy;

#[derive(Debug, Clone, Copy)]
pub struct ScheduleConfig {
    /// The default strategy; a watch may override it.
    pub strategy: Strategy,
    pub initial_interval: Duration,
    pub min_interval: Duration,
    pub max_interval: Duration,
    /// z of the daily model (`docs/design.md` §4): the periodic model checks when this
    /// share of the page's effective links is expected to be new.
    pub change_ratio: f64,
    /// Days of history (every hour of the day observed this often) before the periodic
    /// model replaces its adaptive fallback.
    pub periodic_min_days: f64,
    /// Degree of the least-squares polynomial of the daily curve.
    pub periodic_degree: usize,
    /// A failing watch backs off (its interval doubling per failure) up to this.
    pub error_backoff_max: Duration,
}

impl Default for ScheduleConfig {
    fn default() -> Self {
        Config::default().schedule
    }
}

#[derive(Debug, Clone, Copy)]
pub struct FeedConfig {
    pub max_items: usize,
    /// A watch failing for this long gets one item in its feed saying so; `None`: never.
    pub error_item_after: Option<Duration>,
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

        let _ = env; // applied by `env::apply` before validation
        let listen_s = self
            .server
            .listen
            .unwrap_or_else(|| DEFAULT_LISTEN.to_owned());
        let listen: SocketAddr = listen_s.parse().map_err(|_| {
            bad(
                "server.listen",
                format!("`{listen_s}` is not an address:port such as 127.0.0.1:8080"),
            )
        })?;
        let base_url = match self.server.base_url.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(b) => {
                let b = b.trim_end_matches('/').to_owned();
                match url::Url::parse(&b) {
                    Ok(u) if matches!(u.scheme(), "http" | "https") && u.host().is_some() => {}
                    _ => {
                        return Err(bad(
                            "server.base_url",
                            format!(
                                "`{b}` is not an http(s) URL such as https://feeds.example.org"
                            ),
                        ))
                    }
                }
                Some(b)
            }
        };
        let trusted_proxies = self
            .server
            .trusted_proxies
            .map(StringList::items)
            .unwrap_or_default()
            .iter()
            .map(|p| {
                IpRange::parse(p).ok_or_else(|| {
                    bad(
                        "server.trusted_proxies",
                        format!("`{p}` is not an IP address or a CIDR range such as 10.0.0.0/8"),
                    )
                })
            })
            .collect::<Result<Vec<_>, _>>()?;

        let tz_name = self.server.timezone.as_deref().map_or("UTC", str::trim);
        let timezone: chrono_tz::Tz = tz_name.parse().map_err(|_| {
            bad(
                "server.timezone",
                format!("`{tz_name}` is not an IANA time zone such as UTC or Europe/Berlin"),
            )
        })?;

        let data = self
            .storage
            .path
            .unwrap_or_else(|| PathBuf::from(DEFAULT_DATA));
        let url = self.storage.url.as_deref().map_or("", str::trim);
        let backend = match self.storage.backend.as_deref().map(str::trim) {
            None | Some("sled") => Backend::Sled,
            Some("postgres" | "postgresql") if url.is_empty() => {
                return Err(bad(
                    "storage.url",
                    "the postgres backend needs storage.url (or SITEFEED_DATABASE_URL), e.g. postgres://sitefeed@db:5432/sitefeed".into(),
                ))
            }
            Some("postgres" | "postgresql") => Backend::Postgres {
                url: url.to_owned(),
            },
            Some(other) => {
                return Err(bad(
                    "storage.backend",
                    format!("`{other}` is not a backend: use \"sled\" or \"postgres\""),
                ))
            }
        };
        let lease_secs = match self.storage.lease_secs {
            Some(0) => return Err(bad("storage.lease_secs", "must be greater than 0".into())),
            Some(v) => v,
            None => DEFAULT_LEASE_SECS,
        };

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
        let connect_timeout_secs = positive(
            "fetch.connect_timeout_secs",
            f.connect_timeout_secs,
            DEFAULT_CONNECT_TIMEOUT_SECS.min(timeout_secs),
        )?;
        let stall_timeout_secs = positive(
            "fetch.stall_timeout_secs",
            f.stall_timeout_secs,
            DEFAULT_STALL_TIMEOUT_SECS.min(timeout_secs),
        )?;
        let per_host_concurrency = positive(
            "fetch.per_host_concurrency",
            f.per_host_concurrency.map(|v| v as u64),
            DEFAULT_PER_HOST_CONCURRENCY as u64,
        )? as usize;
        let retries = f.retries.unwrap_or(DEFAULT_RETRIES);
        if retries > 10 {
            return Err(bad("fetch.retries", format!("{retries} is more than 10")));
        }
        let one_line = |s: &str| !s.trim().is_empty() && !s.contains(['\r', '\n']);
        let contact = f.contact.unwrap_or_else(|| DEFAULT_CONTACT.to_owned());
        if !one_line(&contact) || contact.contains(['(', ')']) {
            return Err(bad(
                "fetch.contact",
                "must be one non-empty line (a URL or an e-mail address) without parentheses"
                    .into(),
            ));
        }
        let user_agent = f.user_agent.unwrap_or_else(|| {
            format!(
                "sitefeed/{} (+{})",
                env!("CARGO_PKG_VERSION"),
                contact.trim()
            )
        });
        if !one_line(&user_agent) {
            return Err(bad("fetch.user_agent", "must be one non-empty line".into()));
        }

        let s = self.schedule;
        let name = s.strategy.as_deref().unwrap_or("adaptive");
        let strategy = Strategy::parse(name).ok_or_else(|| {
            bad(
                "schedule.strategy",
                format!("`{name}` is not one of {}", Strategy::NAMES),
            )
        })?;
        let change_ratio = s.change_ratio.map_or(DEFAULT_CHANGE_RATIO, Number::get);
        if !(change_ratio > 0.0 && change_ratio <= 1.0) {
            return Err(bad(
                "schedule.change_ratio",
                format!("{change_ratio} is not in (0, 1]; 0.5 checks when half the page is new"),
            ));
        }
        let periodic_min_days = s
            .periodic_min_days
            .map_or(DEFAULT_PERIODIC_MIN_DAYS, Number::get);
        if !(0.5..=28.0).contains(&periodic_min_days) {
            return Err(bad(
                "schedule.periodic_min_days",
                format!("{periodic_min_days} is not between 0.5 and 28"),
            ));
        }
        let periodic_degree = s.periodic_degree.unwrap_or(DEFAULT_PERIODIC_DEGREE);
        if !(1..=20).contains(&periodic_degree) {
            return Err(bad(
                "schedule.periodic_degree",
                format!("{periodic_degree} is not between 1 and 20"),
            ));
        }
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
        let explicit = s.error_backoff_max.is_some();
        let mut error_backoff_max = dur("schedule.error_backoff_max", s.error_backoff_max, "6h")?;
        if !explicit {
            error_backoff_max = error_backoff_max.max(min_interval);
        }
        if error_backoff_max < min_interval {
            return Err(bad(
                "schedule.error_backoff_max",
                "is less than schedule.min_interval".into(),
            ));
        }
        let error_item_after = match dur(
            "feed.error_item_after",
            self.feed.error_item_after.clone(),
            "1d",
        )? {
            d if d.is_zero() => None,
            d => Some(d),
        };

        let max_items = self.feed.max_items.unwrap_or(DEFAULT_MAX_ITEMS);
        if max_items == 0 || max_items as u64 > crate::model::ITEMS_KEPT {
            return Err(bad(
                "feed.max_items",
                format!("must be between 1 and {}", crate::model::ITEMS_KEPT),
            ));
        }
        for (i, w) in self.watch.iter().enumerate() {
            if let Some(name) = w.strategy.as_deref() {
                if Strategy::parse(name).is_none() {
                    return Err(bad(
                        &format!("watch[{i}].strategy"),
                        format!("`{name}` is not one of {}", Strategy::NAMES),
                    ));
                }
            }
            if let Some(name) = w.render.as_deref() {
                if crate::model::Render::parse(name).is_none() {
                    return Err(bad(
                        &format!("watch[{i}].render"),
                        format!("`{name}` is not one of {}", crate::model::Render::NAMES),
                    ));
                }
            }
            if let Some(d) = w.depth {
                if !(1..=3).contains(&d) {
                    return Err(bad(
                        &format!("watch[{i}].depth"),
                        format!("{d} is not 1, 2 or 3"),
                    ));
                }
            }
        }

        let deep = self.deep.validate(&bad)?;
        let browser = self.browser.validate(&bad)?;
        let feed_token = self.server.feed_token.unwrap_or_default();
        if !feed_token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.~".contains(&b))
        {
            return Err(bad(
                "server.feed_token",
                "use only letters, digits and - _ . ~ (it goes into URLs as ?key=)".into(),
            ));
        }

        Ok(Config {
            server: ServerConfig {
                listen,
                base_url,
                trusted_proxies,
                timezone,
                admin_token: self.server.admin_token.unwrap_or_default(),
                feed_token,
            },
            storage: StorageConfig {
                path: data,
                cache_bytes: self.storage.cache_bytes.unwrap_or(DEFAULT_CACHE_BYTES),
                backend,
                lease: Duration::from_secs(lease_secs),
            },
            fetch: FetchConfig {
                user_agent,
                timeout: Duration::from_secs(timeout_secs),
                connect_timeout: Duration::from_secs(connect_timeout_secs),
                stall_timeout: Duration::from_secs(stall_timeout_secs),
                retries,
                max_body_bytes,
                max_redirects: f.max_redirects.unwrap_or(DEFAULT_MAX_REDIRECTS),
                per_host_delay: Duration::from_millis(
                    f.per_host_delay_ms.unwrap_or(DEFAULT_PER_HOST_DELAY_MS),
                ),
                per_host_concurrency,
                global_concurrency,
                respect_robots: f.respect_robots.unwrap_or(true),
                allow_private_addresses: f.allow_private_addresses.unwrap_or(false),
            },
            schedule: ScheduleConfig {
                strategy,
                initial_interval,
                min_interval,
                max_interval,
                change_ratio,
                periodic_min_days,
                periodic_degree,
                error_backoff_max,
            },
            feed: FeedConfig {
                max_items,
                error_item_after,
            },
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
