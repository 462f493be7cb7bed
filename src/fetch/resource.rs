//! One request of a page rendered in the headless browser (a script, an XHR, a
//! stylesheet), made by the fetcher on the browser's behalf with the same guard, gates and
//! limits as a page.

use url::Url;

use super::retry::retry_after;
use super::{FetchError, Fetcher, Halt};

/// A response to one request of a rendered page, handed to the browser as it is.
#[derive(Debug)]
pub struct Resource {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

/// Request headers of the browser not passed on: the connection's own, and those the
/// fetcher sets itself (its User-Agent, the encodings it decodes).
const DROPPED_REQUEST_HEADERS: &[&str] = &[
    "host",
    "connection",
    "content-length",
    "transfer-encoding",
    "user-agent",
    "accept-encoding",
    "proxy-authorization",
    "upgrade",
    "te",
    "keep-alive",
];

/// Response headers not handed to the browser: the body is given whole and decoded.
const DROPPED_RESPONSE_HEADERS: &[&str] = &[
    "content-encoding",
    "content-length",
    "transfer-encoding",
    "connection",
    "keep-alive",
];

impl Fetcher {
    /// One request of a rendered page (a script, an XHR, a stylesheet): one hop (the
    /// browser follows redirects, each hop intercepted again), through the address guard
    /// and the guarded resolver, the host gate and the global cap, with this fetcher's
    /// User-Agent and at most `cap` bytes of body. robots.txt is the page's matter: a
    /// page that may be fetched may load what it needs.
    pub(crate) async fn resource(
        &self,
        method: &str,
        url: &Url,
        headers: &[(String, String)],
        body: Option<Vec<u8>>,
        cap: u64,
    ) -> Result<Resource, Halt> {
        self.admit(url)?;
        let method = reqwest::Method::from_bytes(method.as_bytes())
            .map_err(|_| FetchError::Other(format!("bad method `{method}`")))?;
        let (key, permits) = self.permits(url).await?;
        let mut req = self.inner.client.request(method, url.clone());
        for (name, value) in headers {
            if DROPPED_REQUEST_HEADERS.contains(&name.to_ascii_lowercase().as_str()) {
                continue;
            }
            req = req.header(name.as_str(), value.as_str());
        }
        if let Some(b) = body {
            req = req.body(b);
        }
        let resp = req.send().await.map_err(|e| self.classify(&e))?;
        let status = resp.status();
        if let Some(wait) = retry_after(status, resp.headers()) {
            self.inner.gates.back_off(&key, wait);
        }
        let headers = resp
            .headers()
            .iter()
            .filter(|(n, _)| !DROPPED_RESPONSE_HEADERS.contains(&n.as_str()))
            .filter_map(|(n, v)| Some((n.as_str().to_owned(), v.to_str().ok()?.to_owned())))
            .collect();
        let body = self.read_body(resp, cap, false).await?;
        drop(permits);
        Ok(Resource {
            status: status.as_u16(),
            headers,
            body,
        })
    }
}
