//! `[browser]`: the optional headless Chromium that renders the pages of watches with
//! `render = "browser"` (or `"auto"`, when the plain page is an empty application shell).

use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;

use super::{positive, Bad, ConfigError};

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawBrowser {
    pub path: Option<PathBuf>,
    pub ws_url: Option<String>,
    pub tabs: Option<usize>,
    pub page_timeout_secs: Option<u64>,
    pub idle_ms: Option<u64>,
    pub memory_mb: Option<u64>,
    pub max_renders: Option<u32>,
    pub max_requests: Option<usize>,
    pub max_total_bytes: Option<u64>,
    pub block: Option<Vec<String>>,
}

/// The validated `[browser]` section.
#[derive(Debug, Clone)]
pub struct BrowserConfig {
    /// The Chromium binary sitefeed launches (when `ws_url` is not set).
    pub path: PathBuf,
    /// A running browser's DevTools WebSocket (`ws://host:port/devtools/browser/…`);
    /// when set, nothing is launched.
    pub ws_url: Option<String>,
    /// Pages rendered at once (tabs); two more per tab wait their turn, further ones are
    /// deferred.
    pub tabs: usize,
    /// A render that has not settled by then fails.
    pub page_timeout: Duration,
    /// The page has settled when no request was in flight and the DOM did not change for
    /// this long after its load event.
    pub idle: Duration,
    /// A launched browser whose processes hold more than this (resident) is restarted
    /// after the render that found it so.
    pub memory_bytes: u64,
    /// The browser is restarted after this many renders (leaks do not accumulate).
    pub max_renders: u32,
    /// Requests one page may make; more are refused.
    pub max_requests: usize,
    /// Bytes one page may load, all its requests together.
    pub max_total_bytes: u64,
    /// Resource types never loaded (DevTools names, lower case: image, font, media,
    /// stylesheet, …).
    pub block: Vec<String>,
}

impl Default for BrowserConfig {
    fn default() -> Self {
        Self {
            path: PathBuf::from("chromium"),
            ws_url: None,
            tabs: 2,
            page_timeout: Duration::from_secs(30),
            idle: Duration::from_millis(500),
            memory_bytes: 1024 * 1024 * 1024,
            max_renders: 200,
            max_requests: 200,
            max_total_bytes: 20_000_000,
            block: ["image", "font", "media"].map(str::to_owned).to_vec(),
        }
    }
}

/// Resource types of the DevTools protocol (`Network.ResourceType`), lower case.
const RESOURCE_TYPES: &[&str] = &[
    "document",
    "stylesheet",
    "image",
    "media",
    "font",
    "script",
    "texttrack",
    "xhr",
    "fetch",
    "prefetch",
    "eventsource",
    "websocket",
    "manifest",
    "signedexchange",
    "ping",
    "cspviolationreport",
    "preflight",
    "other",
];

impl RawBrowser {
    pub(super) fn validate(self, bad: Bad<'_>) -> Result<BrowserConfig, ConfigError> {
        let d = BrowserConfig::default();
        let ws_url = self.ws_url.filter(|s| !s.trim().is_empty());
        if let Some(ws) = &ws_url {
            match url::Url::parse(ws) {
                Ok(u) if u.scheme() == "ws" && u.host_str().is_some() => {}
                _ => {
                    return Err(bad(
                        "browser.ws_url",
                        format!(
                            "`{ws}` is not a ws:// DevTools URL such as \
                             ws://127.0.0.1:9222/devtools/browser/<id>"
                        ),
                    ))
                }
            }
        }
        let path = self.path.unwrap_or(d.path);
        if path.as_os_str().is_empty() {
            return Err(bad("browser.path", "must not be empty".into()));
        }
        let tabs = positive(
            bad,
            "browser.tabs",
            self.tabs.map(|v| v as u64),
            d.tabs as u64,
        )?;
        if tabs > 64 {
            return Err(bad("browser.tabs", format!("{tabs} is more than 64")));
        }
        let block = self.block.unwrap_or(d.block);
        for t in &block {
            if !RESOURCE_TYPES.contains(&t.as_str()) {
                return Err(bad(
                    "browser.block",
                    format!("`{t}` is not one of {}", RESOURCE_TYPES.join(", ")),
                ));
            }
        }
        if block.iter().any(|t| t == "document") {
            return Err(bad(
                "browser.block",
                "`document` cannot be blocked: it is the page".into(),
            ));
        }
        Ok(BrowserConfig {
            path,
            ws_url,
            tabs: tabs as usize,
            page_timeout: Duration::from_secs(positive(
                bad,
                "browser.page_timeout_secs",
                self.page_timeout_secs,
                d.page_timeout.as_secs(),
            )?),
            idle: Duration::from_millis(positive(
                bad,
                "browser.idle_ms",
                self.idle_ms,
                d.idle.as_millis() as u64,
            )?),
            memory_bytes: positive(
                bad,
                "browser.memory_mb",
                self.memory_mb,
                d.memory_bytes / (1024 * 1024),
            )? * 1024
                * 1024,
            max_renders: positive(
                bad,
                "browser.max_renders",
                self.max_renders.map(u64::from),
                u64::from(d.max_renders),
            )? as u32,
            max_requests: positive(
                bad,
                "browser.max_requests",
                self.max_requests.map(|v| v as u64),
                d.max_requests as u64,
            )? as usize,
            max_total_bytes: positive(
                bad,
                "browser.max_total_bytes",
                self.max_total_bytes,
                d.max_total_bytes,
            )?,
            block,
        })
    }
}
