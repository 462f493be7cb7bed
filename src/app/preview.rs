//! The preview: the links sitefeed extracts from a watched page as it is now, each with
//! what the next check would make of it, so a user sees whether the CSS selector is
//! right and why a link is or is not an item. Read-only: it fetches the page (no
//! validators, so never a 304) and runs the one analysis ([`crate::analysis`]) against
//! the watch's stored state, exactly as a check would, but commits nothing.

use url::Url;

use super::{App, AppError};
use crate::analysis::{Analysis, PageInput, Unusable, Verdict};
use crate::fetch::{Deferral, FetchError, FetchOutcome, Validators};
use crate::model::{Item, Link, Watch};
use crate::state::WatchState;
use crate::store::StoreError;

/// Why the preview has no links to show: a reason the user can act on.
#[derive(Debug, thiserror::Error)]
pub enum PreviewError {
    #[error("the watched URL `{0}` does not parse")]
    Url(String),
    #[error("the server answered 304 Not Modified to a plain GET")]
    NotModified,
    #[error("cannot fetch the page: {0}")]
    Fetch(FetchError),
    /// The host's turn did not come (it is busy, or asked for a pause).
    #[error(transparent)]
    Deferred(Deferral),
    #[error(transparent)]
    Page(Unusable),
    #[error("the page could not be analysed")]
    Unanalysed,
}

/// One extracted link and what the next check would make of it.
#[derive(Debug)]
pub struct PreviewLink {
    pub link: Link,
    /// What the analysis makes of it ([`Verdict::Item`]: the next check emits it).
    pub verdict: Verdict,
    /// The item the next check would emit for it, with what its entry says (summary,
    /// date, picture, author), as the feed will carry it.
    pub item: Option<Item>,
}

impl PreviewLink {
    /// The next check would make it an item.
    pub fn is_item(&self) -> bool {
        self.verdict == Verdict::Item
    }
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
/// on (the page cannot be fetched, the selector matches nothing...); the outer one an
/// error of the service (the store).
pub(super) async fn run(
    app: &App,
    watch: &Watch,
) -> Result<Result<Preview, PreviewError>, AppError> {
    let Ok(url) = Url::parse(&watch.url) else {
        return Ok(Err(PreviewError::Url(watch.url.clone())));
    };
    let page = match app
        .fetcher
        .get_as(&url, &Validators::default(), watch.into())
        .await
    {
        Ok(FetchOutcome::Page(p)) => p,
        Ok(FetchOutcome::NotModified) => return Ok(Err(PreviewError::NotModified)),
        Ok(FetchOutcome::Deferred(d)) => return Ok(Err(PreviewError::Deferred(d))),
        Err(e) => return Ok(Err(PreviewError::Fetch(e))),
    };
    let store = app.store.clone();
    let watch = watch.clone();
    let tracking = app.tracking().clone();
    let fresh = crate::schedule::Adaptive::initial(&app.config.schedule);
    // Parsing and the analysis run on the CPU pool, off the async workers.
    let analysed = crate::cpu::run_first(move || -> Result<_, StoreError> {
        let prev = store
            .state(&watch.id)?
            .unwrap_or_else(|| WatchState::new(0, fresh));
        let input = PageInput {
            body: &page.body,
            content_type: page.content_type.as_deref(),
            url: &page.url,
            validators: Validators::default(),
            template: None,
            force: true,
            tracking: &tracking,
            keep_pass: crate::analysis::Keep::Nothing,
        };
        let now = prev.last_check.unwrap_or(0);
        let a = crate::check::analyse_stored(&store, &watch, &prev, &input, now)?;
        Ok((a, page.url.to_string()))
    })
    .await?;
    let (result, url) = analysed;
    Ok(match result {
        Err(m) => Err(PreviewError::Page(m)),
        // (not met: the analysis is forced to read the page)
        Ok(Analysis::Unchanged { .. }) => Err(PreviewError::Unanalysed),
        Ok(Analysis::Changed(c)) => {
            let c = *c;
            let mut items: std::collections::HashMap<String, Item> = c
                .new_items
                .into_iter()
                .map(|i| (i.link.clone(), i))
                .collect();
            Ok(Preview {
                title: c.title,
                url,
                baseline: c.baseline,
                links: c
                    .links
                    .into_iter()
                    .zip(c.verdicts)
                    .map(|(link, verdict)| {
                        let item = (verdict == Verdict::Item)
                            .then(|| items.remove(&link.url))
                            .flatten();
                        PreviewLink {
                            link,
                            verdict,
                            item,
                        }
                    })
                    .collect(),
            })
        }
    })
}
