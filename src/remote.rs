//! Store commands (`add`, `list`, `remove`, `check`, OPML) when `sitefeed serve` holds
//! the store: they go through the running server's HTTP API instead, so a user can
//! manage watches while the service runs (e.g. `docker exec … sitefeed add URL`).

use std::io::Write;

use serde_json::Value;

use crate::cli::Command;
use crate::config::Config;
use crate::error::Error;

/// Runs `command` against the server that `config` describes.
#[allow(clippy::too_many_lines, reason = "one flat match arm per command")]
pub async fn run(config: &Config, command: Command, out: &mut dyn Write) -> Result<(), Error> {
    let api = Api::new(config)?;
    match command {
        Command::Add {
            url,
            depth,
            title,
            select,
            keywords,
            strategy,
            render,
            backfill,
            tags,
        } => {
            let keywords: Vec<String> = keywords
                .map(|k| {
                    k.split(',')
                        .map(|s| s.trim().to_owned())
                        .filter(|s| !s.is_empty())
                        .collect()
                })
                .unwrap_or_default();
            let body = serde_json::json!({"url": url, "depth": depth, "title": title, "select": select, "keywords": keywords, "strategy": strategy, "render": render, "backfill": backfill, "tags": tags.map(|t| t.split(',').map(|s| s.trim().to_owned()).filter(|s| !s.is_empty()).collect::<Vec<_>>())});
            let (status, w) = api
                .send(
                    reqwest::Method::POST,
                    "/api/watches",
                    Some(body.to_string()),
                )
                .await?;
            let verb = if status == 201 { "added" } else { "exists" };
            writeln!(out, "{}\t{}\t{verb}", text(&w["id"]), text(&w["feed_url"]))?;
            crate::cli::paste_hint(config, text(&w["feed_url"]));
        }
        Command::List => {
            let (_, list) = api.send(reqwest::Method::GET, "/api/watches", None).await?;
            writeln!(out, "ID\tURL\tLAST CHECK\tSTATUS\tITEMS\tTAGS")?;
            for w in list.as_array().map_or(&[][..], Vec::as_slice) {
                let mut status = match w["error"].as_str() {
                    Some(e) => format!("error: {e}"),
                    None => text(&w["status"]).to_owned(),
                };
                if w["paused"] == true {
                    status = format!("paused, {status}");
                }
                let checked = w["last_check"].as_str().unwrap_or("never");
                let tags: Vec<&str> = w["tags"]
                    .as_array()
                    .map(|t| t.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                writeln!(
                    out,
                    "{}\t{}\t{checked}\t{status}\t{}\t{}",
                    text(&w["id"]),
                    text(&w["url"]),
                    w["item_count"],
                    tags.join(",")
                )?;
            }
        }
        Command::Remove { id, yes } => {
            let id = api.resolve(&id).await?;
            crate::cli::confirm_removal(&id, yes)?;
            api.send(reqwest::Method::DELETE, &format!("/api/watches/{id}"), None)
                .await?;
            writeln!(out, "removed {id}")?;
        }
        Command::Check { target, dry_run } => {
            let id = api.resolve(&target).await?;
            let query = if dry_run { "?dry_run=true" } else { "" };
            let (_, r) = api
                .send(
                    reqwest::Method::POST,
                    &format!("/api/watches/{id}/check{query}"),
                    None,
                )
                .await?;
            if let Some(e) = r["error"].as_str() {
                return Err(Error::Failed(format!("check of {id} failed: {e}")));
            }
            for i in r["items"].as_array().map_or(&[][..], Vec::as_slice) {
                writeln!(
                    out,
                    "{}",
                    serde_json::json!({"title": i["title"], "link": i["link"]})
                )?;
            }
        }
        Command::Edit { target, args } => {
            let id = api.resolve(&target).await?;
            let before = api
                .send(reqwest::Method::GET, &format!("/api/watches/{id}"), None)
                .await?
                .1;
            let (_, w) = api
                .send(
                    reqwest::Method::PATCH,
                    &format!("/api/watches/{id}"),
                    Some(args.to_json().to_string()),
                )
                .await?;
            let rebaselined = before["select"] != w["select"] || before["depth"] != w["depth"];
            crate::cli::print_edited(out, &w, rebaselined)?;
        }
        Command::ImportOpml { file } => {
            let opml = std::fs::read_to_string(&file)
                .map_err(|e| Error::Usage(format!("cannot read {}: {e}", file.display())))?;
            let (_, r) = api
                .send(reqwest::Method::POST, "/api/opml", Some(opml))
                .await?;
            let rejected = r["rejected"].as_array().map_or(&[][..], Vec::as_slice);
            writeln!(
                out,
                "added {}, existing {}, rejected {}",
                r["added"],
                r["existing"],
                rejected.len()
            )?;
            for x in rejected {
                writeln!(out, "rejected {}: {}", text(&x["url"]), text(&x["error"]))?;
            }
        }
        Command::ExportOpml => out.write_all(api.get_text("/opml").await?.as_bytes())?,
        Command::Serve
        | Command::Diff { .. }
        | Command::Replay { .. }
        | Command::Eval { .. }
        | Command::Synth { .. }
        | Command::Migrate { .. } => {}
    }
    Ok(())
}

/// Whether a sitefeed server answers at the config's listen address (within 2 s).
pub async fn answers(config: &Config) -> bool {
    let Ok(api) = Api::new(config) else {
        return false;
    };
    api.client
        .get(format!("{}/healthz", api.base))
        .timeout(std::time::Duration::from_secs(2))
        .send()
        .await
        .is_ok_and(|r| r.status().is_success())
}

fn text(v: &Value) -> &str {
    v.as_str().unwrap_or("")
}

struct Api {
    client: reqwest::Client,
    base: String,
    token: String,
}

impl Api {
    fn new(config: &Config) -> Result<Self, Error> {
        let mut addr = config.server.listen;
        if addr.ip().is_unspecified() {
            addr.set_ip(std::net::Ipv4Addr::LOCALHOST.into());
        }
        let client = reqwest::Client::builder()
            .timeout(std::time::Duration::from_secs(120))
            .build()
            .map_err(|e| Error::Failed(format!("cannot build HTTP client: {e}")))?;
        Ok(Self {
            client,
            base: format!("http://{addr}"),
            token: config.server.admin_token.clone(),
        })
    }

    async fn send(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<String>,
    ) -> Result<(u16, Value), Error> {
        let mut req = self.client.request(method, format!("{}{path}", self.base));
        if !self.token.is_empty() {
            req = req.bearer_auth(&self.token);
        }
        if let Some(b) = body {
            let ct = if path == "/api/opml" {
                "text/xml; charset=utf-8"
            } else {
                "application/json"
            };
            req = req.header("content-type", ct).body(b);
        }
        let resp = req.send().await.map_err(|e| self.unreachable(&e))?;
        let status = resp.status().as_u16();
        let bytes = resp.bytes().await.map_err(|e| self.unreachable(&e))?;
        let value: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        match status {
            200..=299 => Ok((status, value)),
            400 | 401 => Err(Error::Usage(
                value["error"].as_str().unwrap_or("bad request").to_owned(),
            )),
            404 => Err(Error::Usage(format!(
                "{}: `sitefeed list` shows the watches",
                value["error"]
                    .as_str()
                    .map_or_else(|| String::from_utf8_lossy(&bytes), Into::into)
                    .trim()
            ))),
            _ => Err(Error::Failed(format!(
                "the server answered {status}{}",
                value["error"]
                    .as_str()
                    .map(|e| format!(": {e}"))
                    .unwrap_or_default()
            ))),
        }
    }

    async fn get_text(&self, path: &str) -> Result<String, Error> {
        let resp = self
            .client
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .map_err(|e| self.unreachable(&e))?;
        resp.text().await.map_err(|e| self.unreachable(&e))
    }

    /// An id as given, or the id of the watch whose URL is `target`.
    async fn resolve(&self, target: &str) -> Result<String, Error> {
        if crate::model::WatchId::parse(target).is_some() {
            return Ok(target.to_owned());
        }
        let norm = crate::extract::url::parse_user_url(target)
            .ok()
            .and_then(|u| crate::extract::url::normalize(&u))
            .map(|u| u.to_string());
        let (_, list) = self
            .send(reqwest::Method::GET, "/api/watches", None)
            .await?;
        list.as_array()
            .and_then(|l| l.iter().find(|w| norm.as_deref() == w["url"].as_str()))
            .map(|w| text(&w["id"]).to_owned())
            .ok_or_else(|| {
                Error::Usage(format!(
                    "no watch with id or URL `{target}`; `sitefeed list` shows them"
                ))
            })
    }

    fn unreachable(&self, e: &reqwest::Error) -> Error {
        Error::Failed(format!(
            "the store is in use by another process, and the server at {} does not answer ({e}); is `sitefeed serve` running with this config?",
            self.base
        ))
    }
}
