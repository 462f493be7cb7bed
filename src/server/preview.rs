//! The preview: the links sitefeed extracts from a watched page as it is now, with the
//! ones the next check would call new marked, so a user sees whether the CSS selector is
//! right. Read-only: it fetches the page (no validators, so never a 304) and runs the
//! extraction and the diff against the stored link array, but commits nothing.

use std::collections::HashSet;

use url::Url;

use crate::app::App;
use crate::diff;
use crate::extract::{self, Selector};
use crate::fetch::{FetchOutcome, Validators};
use crate::model::{Link, Watch};
use crate::store::StoreError;

/// One extracted link and what the next check would make of it.
#[derive(Debug)]
pub struct PreviewLink {
    pub link: Link,
    /// The next check would make it an item.
    pub new: bool,
}

/// The page as the preview found it.
#[derive(Debug)]
pub struct Preview {
    /// The page's `<title>`.
    pub title: Option<String>,
    /// The URL after redirects.
    pub url: String,
    pub links: Vec<PreviewLink>,
    /// No baseline yet: the next check only records the page, nothing is new.
    pub baseline: bool,
}

/// Fetches and analyses the page of `watch`. The inner `Err` is a reason a user can act
/// on (the page cannot be fetched, the selector matches nothing...).
pub async fn run(app: &App, watch: &Watch) -> Result<Result<Preview, String>, StoreError> {
    let Ok(url) = Url::parse(&watch.url) else {
        return Ok(Err(format!(
            "the watched URL `{}` does not parse",
            watch.url
        )));
    };
    let page = match app
        .fetcher
        .get_as(&url, &Validators::default(), watch.into())
        .await
    {
        Ok(FetchOutcome::Page(p)) => p,
        Ok(FetchOutcome::NotModified) => {
            return Ok(Err(
                "the server answered 304 Not Modified to a plain GET".into()
            ))
        }
        Err(e) => return Ok(Err(format!("cannot fetch the page: {e}"))),
    };
    let selector = match watch.select.as_deref().map(Selector::parse).transpose() {
        Ok(s) => s,
        Err(e) => return Ok(Err(e.to_string())),
    };
    let decoded =
        extract::charset::decode_for_url(&page.body, page.content_type.as_deref(), &page.url);
    let extracted = match extract::extract(&decoded.text, &page.url, selector.as_ref()) {
        Ok(p) => p,
        Err(e) => return Ok(Err(e.to_string())),
    };
    let state = app.store.state(&watch.id)?;
    let baseline = !matches!(&state, Some(s) if s.link_fingerprint.is_some());
    let new: HashSet<usize> = if baseline {
        HashSet::new()
    } else {
        let old = app.store.links(&watch.id)?;
        let old_urls: HashSet<&str> = old.iter().map(|l| l.url.as_str()).collect();
        let failed = std::cell::RefCell::new(None);
        let is_seen = |l: &Link| {
            old_urls.contains(l.url.as_str())
                || app.store.is_seen(&watch.id, &l.url).unwrap_or_else(|e| {
                    failed.borrow_mut().get_or_insert(e);
                    true
                })
        };
        let idx = diff::new_links(&old, &extracted.links, &is_seen);
        if let Some(e) = failed.into_inner() {
            return Err(e);
        }
        idx.into_iter().collect()
    };
    Ok(Ok(Preview {
        title: extracted.title,
        url: page.url.to_string(),
        links: extracted
            .links
            .into_iter()
            .enumerate()
            .map(|(i, link)| PreviewLink {
                link,
                new: new.contains(&i),
            })
            .collect(),
        baseline,
    }))
}
