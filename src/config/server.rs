//! `[server]`: where the service listens, its public address, the tokens, the proxies
//! it believes and the time zone of its web page. Uses only the config's shared helpers
//! ([`super::Bad`]) and [`super::env::IpRange`].

use std::net::SocketAddr;

use serde::Deserialize;

use super::env::IpRange;
use super::{Bad, ConfigError};

const DEFAULT_LISTEN: &str = "127.0.0.1:8080";

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
    pub(super) fn items(self) -> Vec<String> {
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

/// The validated `[server]` section.
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

impl RawServer {
    pub(super) fn validate(self, bad: Bad<'_>) -> Result<ServerConfig, ConfigError> {
        let listen_s = self.listen.unwrap_or_else(|| DEFAULT_LISTEN.to_owned());
        let listen: SocketAddr = listen_s.parse().map_err(|_| {
            bad(
                "server.listen",
                format!("`{listen_s}` is not an address:port such as 127.0.0.1:8080"),
            )
        })?;
        let base_url = match self.base_url.as_deref().map(str::trim) {
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

        let tz_name = self.timezone.as_deref().map_or("UTC", str::trim);
        let timezone: chrono_tz::Tz = tz_name.parse().map_err(|_| {
            bad(
                "server.timezone",
                format!("`{tz_name}` is not an IANA time zone such as UTC or Europe/Berlin"),
            )
        })?;

        let feed_token = self.feed_token.unwrap_or_default();
        if !feed_token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.~".contains(&b))
        {
            return Err(bad(
                "server.feed_token",
                "use only letters, digits and - _ . ~ (it goes into URLs as ?key=)".into(),
            ));
        }
        Ok(ServerConfig {
            listen,
            base_url,
            trusted_proxies,
            timezone,
            admin_token: self.admin_token.unwrap_or_default(),
            feed_token,
        })
    }
}
