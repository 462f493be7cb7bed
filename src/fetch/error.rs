//! Why a fetch failed ([`FetchError`], in words a user can act on), why one was not
//! tried ([`Deferral`]: the host's turn did not come; not a failure), and how transport
//! errors and host-gate refusals become them.

use std::net::IpAddr;
use std::time::Duration;

use reqwest::StatusCode;

use super::host::{self, GateError, HostKey};
use super::{dns, guard, robots, Fetcher};

/// A fetch not tried: the host is busy or asked for a pause, or every browser tab is
/// taken. Not a failure of the watch: its check comes again after `wait`.
#[derive(Debug, Clone, thiserror::Error)]
#[error("not fetched yet: {reason}; next try in {}s", .wait.as_secs().max(1))]
pub struct Deferral {
    pub reason: String,
    pub wait: Duration,
}

/// What stopped a request inside the fetcher before it had an answer: it was not tried,
/// or it failed. The public calls turn the first into [`super::FetchOutcome::Deferred`].
#[derive(Debug)]
pub(crate) enum Halt {
    Deferred(Deferral),
    Failed(FetchError),
}

impl From<FetchError> for Halt {
    fn from(e: FetchError) -> Self {
        Self::Failed(e)
    }
}

impl From<Deferral> for Halt {
    fn from(d: Deferral) -> Self {
        Self::Deferred(d)
    }
}

/// Why a fetch failed, in words a user can act on.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("timed out after {0:?}")]
    Timeout(Duration),
    #[error("the server sent less than 1 KiB in {0:?} and was cut off (fetch.stall_timeout_secs)")]
    Stalled(Duration),
    #[error("could not connect: {0}")]
    Connect(String),
    /// The host's name does not resolve.
    #[error("{0}")]
    Dns(String),
    #[error("connection refused: nothing listens at that address and port (is the site down, or the port wrong?)")]
    ConnectionRefused,
    #[error("the server answered {code}{}", after(.retry_after.as_ref()))]
    Status {
        code: StatusCode,
        /// How long the server asked us to wait (`Retry-After`; 60 s for a bare 429).
        retry_after: Option<Duration>,
    },
    #[error("the page is larger than the limit of {0} bytes (fetch.max_body_bytes)")]
    TooLarge(u64),
    #[error("not an HTML page (Content-Type: {0})")]
    NotHtml(String),
    #[error("the page is empty")]
    Empty,
    #[error("redirect refused: {0}")]
    Redirect(String),
    #[error("refused to fetch {0}: not a public address (set fetch.allow_private_addresses = true to allow)")]
    Refused(IpAddr),
    #[error("refused to fetch: {0}")]
    RefusedHost(String),
    #[error("`{0}:` URLs are not fetched, only http and https")]
    Scheme(String),
    #[error("robots.txt of {origin} disallows {path} for {agent} (fetch.respect_robots)")]
    Robots {
        origin: String,
        path: String,
        agent: String,
    },
    #[error("robots.txt of {origin} cannot be read ({reason}), which by RFC 9309 means wait")]
    RobotsUnreachable { origin: String, reason: String },
    /// The headless browser could not render the page.
    #[error("rendering in the browser failed: {0}")]
    Render(String),
    #[error("{0}")]
    Other(String),
}

fn after(retry_after: Option<&Duration>) -> String {
    retry_after.map_or_else(String::new, |d| format!(" (Retry-After: {}s)", d.as_secs()))
}

impl FetchError {
    /// A short label for metrics.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Timeout(_) | Self::Stalled(_) => "timeout",
            Self::Connect(_) | Self::ConnectionRefused => "connect",
            Self::Dns(_) => "dns",
            Self::Status { .. } => "status",
            Self::TooLarge(_) => "too_large",
            Self::NotHtml(_) => "not_html",
            Self::Empty => "empty",
            Self::Redirect(_) => "redirect",
            Self::Refused(_) | Self::RefusedHost(_) | Self::Scheme(_) => "refused",
            Self::Robots { .. } | Self::RobotsUnreachable { .. } => "robots",
            Self::Render(_) => "render",
            Self::Other(_) => "other",
        }
    }

    /// How long the next check should wait at least, when the server (or politeness)
    /// says so.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::Status { retry_after, .. } => *retry_after,
            Self::RobotsUnreachable { .. } => Some(robots::UNREACHABLE_TTL),
            _ => None,
        }
    }

    /// Whether the host as a whole seems down or overloaded (not just this page).
    pub(crate) fn is_host_failure(&self) -> bool {
        match self {
            Self::Timeout(_) | Self::Stalled(_) | Self::Connect(_) | Self::ConnectionRefused => {
                true
            }
            Self::Status { code, .. } => code.is_server_error(),
            _ => false,
        }
    }
}

impl Fetcher {
    pub(super) fn classify(&self, e: &reqwest::Error) -> FetchError {
        let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
        while let Some(err) = cur {
            if let Some(r) = err.downcast_ref::<guard::RefusedAddresses>() {
                return FetchError::RefusedHost(r.to_string());
            }
            if let Some(r) = err.downcast_ref::<dns::NameNotResolved>() {
                return FetchError::Dns(r.to_string());
            }
            if let Some(io) = err.downcast_ref::<std::io::Error>() {
                if io.kind() == std::io::ErrorKind::ConnectionRefused {
                    return FetchError::ConnectionRefused;
                }
            }
            cur = err.source();
        }
        if e.is_timeout() {
            return FetchError::Timeout(if e.is_connect() {
                self.cfg().connect_timeout
            } else {
                self.cfg().timeout
            });
        }
        let cause = root_cause(e);
        if e.is_connect() {
            return FetchError::Connect(cause);
        }
        FetchError::Other(cause)
    }
}

/// The deferral for a request the host gate did not let through.
pub(super) fn deferral(key: &HostKey, e: &GateError) -> Deferral {
    let reason = match e {
        GateError::Backoff {
            why: host::Pause::RetryAfter,
            ..
        } => format!("{key} asked for a pause (Retry-After)"),
        GateError::Backoff {
            why: host::Pause::Failing(n),
            ..
        } => format!("{key} is paused after {n} failed request(s) in a row"),
        GateError::Busy { waiters, .. } => {
            format!("{waiters} other checks of {key} are waiting their turn")
        }
    };
    Deferral {
        reason,
        wait: e.wait(),
    }
}

/// The innermost message of an error chain, which is the one that says what happened.
fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cur = e;
    while let Some(next) = cur.source() {
        cur = next;
    }
    cur.to_string()
}
