//! `[fetch]`: how politely and how far the fetcher goes (user agent, timeouts, retries,
//! body and redirect limits, per-host delay and concurrency). Uses only the config's
//! shared helpers.

use std::time::Duration;

use serde::Deserialize;

use super::{positive, Bad, ConfigError};

const DEFAULT_TIMEOUT_SECS: u64 = 20;
const DEFAULT_MAX_BODY_BYTES: u64 = 5_000_000;
const DEFAULT_MAX_REDIRECTS: usize = 5;
const DEFAULT_PER_HOST_DELAY_MS: u64 = 1000;
const DEFAULT_PER_HOST_CONCURRENCY: usize = 1;
const DEFAULT_CONNECT_TIMEOUT_SECS: u64 = 10;
const DEFAULT_STALL_TIMEOUT_SECS: u64 = 10;
const DEFAULT_RETRIES: u32 = 2;
const DEFAULT_CONTACT: &str = "https://github.com/sitefeed/sitefeed";
const DEFAULT_GLOBAL_CONCURRENCY: usize = 32;

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

/// The validated `[fetch]` section.
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

impl RawFetch {
    pub(super) fn validate(self, bad: Bad<'_>) -> Result<FetchConfig, ConfigError> {
        let f = self;
        let timeout_secs = positive(
            bad,
            "fetch.timeout_secs",
            f.timeout_secs,
            DEFAULT_TIMEOUT_SECS,
        )?;
        let max_body_bytes = positive(
            bad,
            "fetch.max_body_bytes",
            f.max_body_bytes,
            DEFAULT_MAX_BODY_BYTES,
        )?;
        let global_concurrency = positive(
            bad,
            "fetch.global_concurrency",
            f.global_concurrency.map(|v| v as u64),
            DEFAULT_GLOBAL_CONCURRENCY as u64,
        )? as usize;
        let connect_timeout_secs = positive(
            bad,
            "fetch.connect_timeout_secs",
            f.connect_timeout_secs,
            DEFAULT_CONNECT_TIMEOUT_SECS.min(timeout_secs),
        )?;
        let stall_timeout_secs = positive(
            bad,
            "fetch.stall_timeout_secs",
            f.stall_timeout_secs,
            DEFAULT_STALL_TIMEOUT_SECS.min(timeout_secs),
        )?;
        let per_host_concurrency = positive(
            bad,
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
        Ok(FetchConfig {
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
        })
    }
}
