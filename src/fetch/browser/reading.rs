//! A page as its watch reads it: plain, in the browser, or in the browser when the plain
//! page is an application shell ([`super::shell`]).

use url::Url;

use super::shell;
use crate::fetch::{FetchError, FetchOutcome, Fetcher, Validators};

impl Fetcher {
    /// Gets `url` the way `how` says: plain, in the browser, or in the browser when the
    /// plain page is an application shell. A rendered page carries no validators (a
    /// shell that did not change says nothing about its data).
    pub async fn get_as(
        &self,
        url: &Url,
        validators: &Validators,
        how: Reading<'_>,
    ) -> Result<FetchOutcome, FetchError> {
        use crate::model::Render;
        let browser = || {
            self.browser
                .as_deref()
                .ok_or_else(|| FetchError::Render("no browser is configured".into()))
        };
        match how.render {
            Render::Plain => self.get(url, validators).await,
            Render::Browser => browser()?.render(url, None, how.wait_for).await,
            Render::Auto => {
                let page = match self.get(url, validators).await? {
                    FetchOutcome::Page(page) => page,
                    other => return Ok(other),
                };
                // Parsing runs on the CPU pool, off the async workers.
                let (page, shape) = crate::cpu::run(move || {
                    let s = shell::shape(&page.body);
                    (page, s)
                })
                .await;
                if !shape.is_app_shell() {
                    return Ok(FetchOutcome::Page(page));
                }
                tracing::debug!(%url, ?shape, "an application shell: rendering it");
                browser()?.render(url, Some(page), how.wait_for).await
            }
        }
    }
}

/// How a page is read: the watch's mode, and the region it watches (a rendered page
/// has settled only when the region holds a link, or after its first 10 s).
#[derive(Debug, Clone, Copy)]
pub struct Reading<'a> {
    pub render: crate::model::Render,
    pub wait_for: Option<&'a str>,
}

impl<'a> From<&'a crate::model::Watch> for Reading<'a> {
    fn from(w: &'a crate::model::Watch) -> Self {
        Self {
            render: w.render,
            wait_for: w.select.as_deref(),
        }
    }
}

impl From<crate::model::Render> for Reading<'static> {
    fn from(render: crate::model::Render) -> Self {
        Self {
            render,
            wait_for: None,
        }
    }
}
