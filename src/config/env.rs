//! Environment overrides: every key of the file can be set as
//! `SITEFEED_<SECTION>_<KEY>` (upper case), e.g. `SITEFEED_SERVER_BASE_URL` or
//! `SITEFEED_FETCH_TIMEOUT_SECS`. Four short names are kept for the settings people set
//! most: `SITEFEED_LISTEN`, `SITEFEED_DATA`, `SITEFEED_DATABASE_URL` and
//! `SITEFEED_BASE_URL`. An override wins over the file; an empty variable is ignored.

use std::net::IpAddr;
use std::path::Path;

use super::{ConfigError, RawConfig};

/// How an environment value is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Taken as written.
    Text,
    /// A TOML number or boolean (`20`, `0.5`, `true`).
    Scalar,
    /// Comma-separated strings.
    List,
}

/// Every key of the file: (section, key, how its environment value is read).
pub const ENV_KEYS: &[(&str, &str, Kind)] = &[
    ("server", "listen", Kind::Text),
    ("server", "base_url", Kind::Text),
    ("server", "admin_token", Kind::Text),
    ("server", "feed_token", Kind::Text),
    ("server", "trusted_proxies", Kind::List),
    ("server", "timezone", Kind::Text),
    ("storage", "path", Kind::Text),
    ("storage", "cache_bytes", Kind::Scalar),
    ("storage", "backend", Kind::Text),
    ("storage", "url", Kind::Text),
    ("storage", "lease_secs", Kind::Scalar),
    ("storage", "compact_ratio", Kind::Scalar),
    ("fetch", "user_agent", Kind::Text),
    ("fetch", "contact", Kind::Text),
    ("fetch", "timeout_secs", Kind::Scalar),
    ("fetch", "connect_timeout_secs", Kind::Scalar),
    ("fetch", "stall_timeout_secs", Kind::Scalar),
    ("fetch", "retries", Kind::Scalar),
    ("fetch", "per_host_concurrency", Kind::Scalar),
    ("fetch", "max_body_bytes", Kind::Scalar),
    ("fetch", "max_redirects", Kind::Scalar),
    ("fetch", "per_host_delay_ms", Kind::Scalar),
    ("fetch", "global_concurrency", Kind::Scalar),
    ("fetch", "respect_robots", Kind::Scalar),
    ("fetch", "allow_private_addresses", Kind::Scalar),
    ("schedule", "strategy", Kind::Text),
    ("schedule", "initial_interval", Kind::Text),
    ("schedule", "min_interval", Kind::Text),
    ("schedule", "max_interval", Kind::Text),
    ("schedule", "change_ratio", Kind::Scalar),
    ("schedule", "periodic_min_days", Kind::Scalar),
    ("schedule", "periodic_degree", Kind::Scalar),
    ("schedule", "error_backoff_max", Kind::Text),
    ("feed", "max_items", Kind::Scalar),
    ("feed", "error_item_after", Kind::Text),
    ("items", "tracking_params", Kind::List),
    ("items", "extra_tracking_params", Kind::List),
    ("items", "full_text_per_check", Kind::Scalar),
    ("items", "full_text_tries", Kind::Scalar),
    ("items", "full_text_queue", Kind::Scalar),
    ("deep", "max_pages_per_check", Kind::Scalar),
    ("deep", "max_pages", Kind::Scalar),
    ("deep", "hub_links", Kind::Scalar),
    ("deep", "list_entries", Kind::Scalar),
    ("deep", "max_url_len", Kind::Scalar),
    ("deep", "max_path_segments", Kind::Scalar),
    ("deep", "calendar_pages", Kind::Scalar),
    ("deep", "template_share", Kind::Scalar),
    ("deep", "relevance_threshold", Kind::Scalar),
    ("deep", "tunnel_cutoff", Kind::Scalar),
    ("browser", "path", Kind::Text),
    ("browser", "ws_url", Kind::Text),
    ("browser", "tabs", Kind::Scalar),
    ("browser", "page_timeout_secs", Kind::Scalar),
    ("browser", "idle_ms", Kind::Scalar),
    ("browser", "memory_mb", Kind::Scalar),
    ("browser", "max_renders", Kind::Scalar),
    ("browser", "max_requests", Kind::Scalar),
    ("browser", "max_total_bytes", Kind::Scalar),
    ("browser", "block", Kind::List),
];

/// Short names: (variable, section, key).
const ALIASES: &[(&str, &str, &str)] = &[
    ("SITEFEED_LISTEN", "server", "listen"),
    ("SITEFEED_DATA", "storage", "path"),
    ("SITEFEED_DATABASE_URL", "storage", "url"),
    ("SITEFEED_BASE_URL", "server", "base_url"),
];

/// The variable that overrides `section.key`.
pub fn var_name(section: &str, key: &str) -> String {
    format!("SITEFEED_{section}_{key}").to_ascii_uppercase()
}

/// `raw` with the environment's overrides applied (`text` is the file it came from).
pub(super) fn apply(
    text: &str,
    raw: RawConfig,
    path: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<RawConfig, ConfigError> {
    let mut set: Vec<(String, &str, &str, Kind, String)> = Vec::new();
    for &(section, key, kind) in ENV_KEYS {
        let name = var_name(section, key);
        let alias = ALIASES
            .iter()
            .find(|a| a.1 == section && a.2 == key)
            .map(|a| a.0);
        // The long name wins over the short one.
        let found = env(&name)
            .map(|v| (name.clone(), v))
            .or_else(|| alias.and_then(|a| env(a).map(|v| (a.to_owned(), v))));
        if let Some((var, value)) = found {
            set.push((var, section, key, kind, value));
        }
    }
    if set.is_empty() {
        return Ok(raw);
    }
    let invalid = |message: String| ConfigError::Invalid {
        path: path.to_path_buf(),
        message,
    };
    // Already parsed once as RawConfig, so it parses as a table.
    let mut table: toml::Table = toml::from_str(text).map_err(|e| invalid(e.to_string()))?;
    for (var, section, key, kind, value) in &set {
        let v = match kind {
            Kind::Text => toml::Value::String(value.clone()),
            Kind::List => toml::Value::Array(
                value
                    .split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(|s| toml::Value::String(s.to_owned()))
                    .collect(),
            ),
            Kind::Scalar => toml::from_str::<toml::Table>(&format!("v = {value}"))
                .ok()
                .and_then(|mut t| t.remove("v"))
                .filter(|v| !matches!(v, toml::Value::Table(_) | toml::Value::Array(_)))
                .ok_or_else(|| {
                    invalid(format!(
                        "environment variable {var}: `{value}` is not a number or true/false"
                    ))
                })?,
        };
        let entry = table
            .entry((*section).to_owned())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        if let toml::Value::Table(t) = entry {
            t.insert((*key).to_owned(), v);
        } else {
            return Err(invalid(format!("`{section}` is not a [section]")));
        }
    }
    let names: Vec<&str> = set.iter().map(|s| s.0.as_str()).collect();
    toml::Value::Table(table)
        .try_into()
        .map_err(|e: toml::de::Error| {
            invalid(format!(
                "with the environment overrides {}: {}",
                names.join(", "),
                e.message().replace('\n', " ")
            ))
        })
}

/// An address or a CIDR range of addresses (`10.0.0.0/8`, `::1`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IpRange {
    addr: IpAddr,
    prefix: u8,
}

impl IpRange {
    pub fn parse(s: &str) -> Option<Self> {
        let (a, p) = match s.trim().split_once('/') {
            Some((a, p)) => (a, Some(p)),
            None => (s.trim(), None),
        };
        let addr: IpAddr = a.parse().ok()?;
        let max = if addr.is_ipv4() { 32 } else { 128 };
        let prefix = match p {
            Some(p) => p.parse::<u8>().ok().filter(|&p| p <= max)?,
            None => max,
        };
        Some(Self { addr, prefix })
    }

    pub fn contains(&self, ip: IpAddr) -> bool {
        let ip = match ip {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
            v4 @ IpAddr::V4(_) => v4,
        };
        match (self.addr, ip) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => {
                let mask = u32::MAX
                    .checked_shl(32 - u32::from(self.prefix))
                    .unwrap_or(0);
                u32::from(net) & mask == u32::from(ip) & mask
            }
            (IpAddr::V6(net), IpAddr::V6(ip)) => {
                let mask = u128::MAX
                    .checked_shl(128 - u32::from(self.prefix))
                    .unwrap_or(0);
                u128::from(net) & mask == u128::from(ip) & mask
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_match_their_addresses_only() {
        let r = IpRange::parse("10.1.0.0/16").expect("range");
        assert!(r.contains("10.1.200.3".parse().expect("ip")));
        assert!(!r.contains("10.2.0.1".parse().expect("ip")));
        assert!(r.contains("::ffff:10.1.0.9".parse().expect("ip")));
        let one = IpRange::parse("127.0.0.1").expect("one");
        assert!(one.contains("127.0.0.1".parse().expect("ip")));
        assert!(!one.contains("127.0.0.2".parse().expect("ip")));
        let all = IpRange::parse("0.0.0.0/0").expect("all");
        assert!(all.contains("8.8.8.8".parse().expect("ip")));
        assert!(IpRange::parse("::1")
            .expect("v6")
            .contains("::1".parse().expect("ip")));
        for bad in ["10.0.0.0/33", "example.org", "10.0.0/8", ""] {
            assert!(IpRange::parse(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn every_key_of_the_file_has_a_variable() {
        // A variable per key of the shipped file, so none is missing from ENV_KEYS.
        let text = include_str!("../../config/sitefeed.toml");
        let mut section = String::new();
        for line in text.lines() {
            let l = line.trim().trim_start_matches('#').trim();
            if l.starts_with("[[") {
                section.clear();
            } else if let Some(s) = l.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
                section = s.to_owned();
            } else if let Some((k, _)) = l.split_once(" = ") {
                if section.is_empty() || k.contains(' ') {
                    continue;
                }
                assert!(
                    ENV_KEYS.iter().any(|e| e.0 == section && e.1 == k),
                    "{section}.{k} has no SITEFEED_ variable"
                );
            }
        }
    }
}
