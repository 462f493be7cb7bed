//! OPML import, a domain operation the API, the web page and the CLI share: every
//! outline checked first, then the valid ones added. Uses the OPML reader of
//! [`crate::render`] and the API's report shape ([`crate::dto::OpmlReport`]).

use super::{App, AppError, NewWatch};
use crate::dto::{OpmlReport, Rejected};

impl App {
    /// Imports OPML in two passes, so nothing is added half-way: the document is parsed
    /// whole (a malformed one is an error and adds nothing), then every outline is validated
    /// (an invalid one is reported in `rejected`, the others are added), and only then are the
    /// valid ones added. Only a store failure can stop the second pass, and what it added
    /// before is then kept: each watch is added atomically and a retry adds the rest.
    pub fn import_opml(&self, text: &str) -> Result<OpmlReport, AppError> {
        let entries = crate::render::opml_parse(text)
            .map_err(|e| AppError::BadInput(format!("invalid OPML: {e}")))?;
        let mut report = OpmlReport {
            added: 0,
            existing: 0,
            rejected: Vec::new(),
        };
        let mut valid = Vec::new();
        for e in entries {
            let render = match e.render.as_deref() {
                None => None,
                Some(name) => {
                    if let Some(r) = crate::model::Render::parse(name) {
                        Some(r)
                    } else {
                        report.rejected.push(Rejected {
                            url: e.url,
                            error: format!(
                                "render `{name}` is not one of {}",
                                crate::model::Render::NAMES
                            ),
                        });
                        continue;
                    }
                }
            };
            let content = match e.content.as_deref().map(super::parse_content).transpose() {
                Ok(c) => c,
                Err(err) => {
                    report.rejected.push(Rejected {
                        url: without_credentials(&e.url),
                        error: err.to_string(),
                    });
                    continue;
                }
            };
            let req = NewWatch {
                url: e.url.clone(),
                title: e.title,
                tags: e
                    .tags
                    .iter()
                    .filter_map(|t| crate::app::tag_from_folder(t))
                    .collect(),
                render,
                content,
                ..NewWatch::default()
            };
            match self.validate(&req) {
                Ok(_) => valid.push(req),
                Err(AppError::BadInput(m)) => report.rejected.push(Rejected {
                    url: without_credentials(&e.url),
                    error: m,
                }),
                Err(other) => return Err(other),
            }
        }
        for req in valid {
            match self.add_watch(&req)? {
                (_, true) => report.added += 1,
                (_, false) => report.existing += 1,
            }
        }
        Ok(report)
    }
}

/// `url` without a `user:pass@` part, so a refused URL's password is not echoed.
fn without_credentials(url: &str) -> String {
    match url::Url::parse(url.trim()) {
        Ok(mut u) if !u.username().is_empty() || u.password().is_some() => {
            let _ = u.set_username("");
            let _ = u.set_password(None);
            u.to_string()
        }
        _ => url.chars().take(300).collect(),
    }
}
