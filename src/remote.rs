//! The typed client of a running sitefeed's HTTP API: one method per route, reading and
//! writing the API's own shapes ([`crate::dto`]). The CLI goes through it when
//! `sitefeed serve` holds the store, so a user can manage watches while the service runs
//! (e.g. `docker exec … sitefeed add URL`). May use [`crate::dto`], [`crate::config`]
//! (where the server listens, its token), [`crate::error`] and the URL normalization of
//! [`crate::extract::url`]; never the CLI.
//!
//! May use: config, dto, error, extract, model.

use serde::de::DeserializeOwned;
use serde::Deserialize;

use crate::config::Config;
use crate::dto::{CheckJson, EditBody, NewWatchBody, OpmlReport, WatchJson};
use crate::error::Error;

/// A client of the server at a config's listen address.
pub struct Client {
    http: reqwest::Client,
    base: String,
    token: String,
}

/// The body of an API error.
#[derive(Deserialize)]
struct ErrorJson {
    error: String,
}

impl Client {
    pub fn new(config: &Config) -> Result<Self, Error> {
        let mut addr = config.server.listen;
        if addr.ip().is_unspecified() {
            addr.set_ip(std::net::Ipv4Addr::LOCALHOST.into());
        }
        let http = reqwest::Client::builder()
            .timeout(std::time::Duration::from_secs(120))
            .build()
            .map_err(|e| Error::Failed(format!("cannot build HTTP client: {e}")))?;
        Ok(Self {
            http,
            base: format!("http://{addr}"),
            token: config.server.admin_token.clone(),
        })
    }

    /// Whether a sitefeed server answers at the config's listen address (within 2 s).
    pub async fn answers(&self) -> bool {
        self.http
            .get(format!("{}/healthz", self.base))
            .timeout(std::time::Duration::from_secs(2))
            .send()
            .await
            .is_ok_and(|r| r.status().is_success())
    }

    /// `POST /api/watches`: the watch, and whether it is new (`false`: it existed).
    pub async fn add(&self, body: &NewWatchBody) -> Result<(WatchJson, bool), Error> {
        let (status, w) = self
            .send(reqwest::Method::POST, "/api/watches", Some(json(body)?))
            .await?;
        Ok((decode(&w)?, status == 201))
    }

    /// `GET /api/watches`.
    pub async fn list(&self) -> Result<Vec<WatchJson>, Error> {
        let (_, list) = self
            .send(reqwest::Method::GET, "/api/watches", None)
            .await?;
        decode(&list)
    }

    /// `GET /api/watches/<id>`.
    pub async fn watch(&self, id: &str) -> Result<WatchJson, Error> {
        let (_, w) = self
            .send(reqwest::Method::GET, &format!("/api/watches/{id}"), None)
            .await?;
        decode(&w)
    }

    /// `DELETE /api/watches/<id>`.
    pub async fn remove(&self, id: &str) -> Result<(), Error> {
        self.send(reqwest::Method::DELETE, &format!("/api/watches/{id}"), None)
            .await
            .map(drop)
    }

    /// `POST /api/watches/<id>/check`.
    pub async fn check(&self, id: &str, dry_run: bool) -> Result<CheckJson, Error> {
        let query = if dry_run { "?dry_run=true" } else { "" };
        let (_, r) = self
            .send(
                reqwest::Method::POST,
                &format!("/api/watches/{id}/check{query}"),
                None,
            )
            .await?;
        decode(&r)
    }

    /// `PATCH /api/watches/<id>`.
    pub async fn edit(&self, id: &str, body: &EditBody) -> Result<WatchJson, Error> {
        let (_, w) = self
            .send(
                reqwest::Method::PATCH,
                &format!("/api/watches/{id}"),
                Some(json(body)?),
            )
            .await?;
        decode(&w)
    }

    /// `POST /api/opml`.
    pub async fn import_opml(&self, opml: String) -> Result<OpmlReport, Error> {
        let (_, r) = self
            .send(
                reqwest::Method::POST,
                "/api/opml",
                Some(("text/xml; charset=utf-8", opml)),
            )
            .await?;
        decode(&r)
    }

    /// `GET /opml`.
    pub async fn export_opml(&self) -> Result<String, Error> {
        let resp = self
            .http
            .get(format!("{}/opml", self.base))
            .send()
            .await
            .map_err(|e| self.unreachable(&e))?;
        resp.text().await.map_err(|e| self.unreachable(&e))
    }

    /// An id as given, or the id of the watch whose URL is `target`.
    pub async fn resolve(&self, target: &str) -> Result<String, Error> {
        if crate::model::WatchId::parse(target).is_some() {
            return Ok(target.to_owned());
        }
        let norm = crate::extract::url::parse_user_url(target)
            .ok()
            .and_then(|u| crate::extract::url::normalize(&u))
            .map(|u| u.to_string());
        self.list()
            .await?
            .into_iter()
            .find(|w| norm.as_deref() == Some(w.url.as_str()))
            .map(|w| w.id)
            .ok_or_else(|| {
                Error::Usage(format!(
                    "no watch with id or URL `{target}`; `sitefeed list` shows them"
                ))
            })
    }

    /// Sends a request; a 2xx answer is its status and body, any other an error that
    /// says what the server said.
    async fn send(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<(&str, String)>,
    ) -> Result<(u16, Vec<u8>), Error> {
        let mut req = self.http.request(method, format!("{}{path}", self.base));
        if !self.token.is_empty() {
            req = req.bearer_auth(&self.token);
        }
        if let Some((content_type, b)) = body {
            req = req.header("content-type", content_type).body(b);
        }
        let resp = req.send().await.map_err(|e| self.unreachable(&e))?;
        let status = resp.status().as_u16();
        let bytes = resp
            .bytes()
            .await
            .map_err(|e| self.unreachable(&e))?
            .to_vec();
        let error = serde_json::from_slice::<ErrorJson>(&bytes)
            .ok()
            .map(|e| e.error);
        match status {
            200..=299 => Ok((status, bytes)),
            400 | 401 => Err(Error::Usage(
                error.unwrap_or_else(|| "bad request".to_owned()),
            )),
            404 => Err(Error::Usage(format!(
                "{}: `sitefeed list` shows the watches",
                error
                    .unwrap_or_else(|| String::from_utf8_lossy(&bytes).into_owned())
                    .trim()
            ))),
            _ => Err(Error::Failed(format!(
                "the server answered {status}{}",
                error.map(|e| format!(": {e}")).unwrap_or_default()
            ))),
        }
    }

    fn unreachable(&self, e: &reqwest::Error) -> Error {
        Error::Failed(format!(
            "the store is in use by another process, and the server at {} does not answer ({e}); is `sitefeed serve` running with this config?",
            self.base
        ))
    }
}

/// A JSON request body.
fn json(body: &impl serde::Serialize) -> Result<(&'static str, String), Error> {
    serde_json::to_string(body)
        .map(|b| ("application/json", b))
        .map_err(|e| Error::Failed(format!("cannot write the request: {e}")))
}

/// An answer of the API as its type.
fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, Error> {
    serde_json::from_slice(bytes).map_err(|e| {
        Error::Failed(format!(
            "the server's answer is not what this sitefeed expects ({e}); are both the same version?"
        ))
    })
}
