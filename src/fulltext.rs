//! Full text for watches with `content = "full"`: after a check has committed its new
//! items, the pages of the items waiting for their article (`WatchState::full_text`,
//! queued by that same commit) are fetched through the polite fetcher (robots.txt, the
//! host gate, the address guard, the size limits: every rule of a check's own fetch),
//! the main article of each is extracted with Mozilla's Readability algorithm
//! (`dom_smoothie`) on the CPU pool, and the article HTML is added to the stored item
//! ([`crate::store::Store::add_full_text`]), once. The feeds sanitize it on output like
//! every HTML field.
//!
//! Bounded by `[items]` ([`FullText`]): at most `full_text_per_check` article fetches per
//! check (the rest wait for the next check), and an item whose fetch fails
//! `full_text_tries` times keeps its summary. A page robots.txt disallows, or one with no
//! article in it, is not tried again; a busy host ends this check's fetches without
//! counting a try. An article answered with a 5xx counts as a failure of its host, as
//! every fetch does: the host gate pauses the host (and so the watch's next check of
//! it) as it would for its own page, since a server that fails is left alone a while.
//!
//! May use the fetcher, the charset decoder of [`crate::extract`], the CPU pool, the
//! store, the config and the model.
//!
//! May use: config, cpu, extract, fetch, model, store.

use url::Url;

use crate::config::FullText;
use crate::fetch::{FetchError, FetchOutcome, Fetcher, Validators};
use crate::model::PendingText;
use crate::store::{Store, StoreError};

/// Longest article kept, in bytes of HTML (a longer one is cut at a character boundary;
/// the sanitizer closes what the cut left open).
pub(crate) const MAX_ARTICLE_BYTES: usize = 512 * 1024;

/// Most elements of a page the extraction reads (a larger page keeps its summary).
const MAX_ELEMENTS: usize = 50_000;

/// Puts the items of a check (page order) at the end of the queue of items waiting for
/// their article, keeping at most `max` (the oldest leave first).
pub fn queue(pending: &mut Vec<PendingText>, items: &[crate::model::Item], max: usize) {
    for i in items {
        if i.content.is_none() && !pending.iter().any(|p| p.item == i.id) {
            pending.push(PendingText {
                item: i.id.clone(),
                url: i.link.clone(),
                tries: 0,
            });
        }
    }
    if pending.len() > max {
        pending.drain(..pending.len() - max);
    }
}

/// The main article of an HTML page at `url`, as HTML with absolute URLs; `None` when
/// the page holds no article (too little text, too large, not parsable).
pub fn extract(html: &str, url: &str) -> Option<String> {
    let cfg = dom_smoothie::Config {
        max_elements_to_parse: MAX_ELEMENTS,
        ..dom_smoothie::Config::default()
    };
    let mut r = dom_smoothie::Readability::new(html, Some(url), Some(cfg)).ok()?;
    let article = r.parse().ok()?;
    if article.text_content.trim().is_empty() {
        return None;
    }
    let mut html = article.content.to_string();
    if html.len() > MAX_ARTICLE_BYTES {
        let mut cut = MAX_ARTICLE_BYTES;
        while !html.is_char_boundary(cut) {
            cut -= 1;
        }
        html.truncate(cut);
    }
    Some(html)
}

/// What became of one article fetch.
enum Fetched {
    /// The article's HTML.
    Article(String),
    /// Not to be tried again (robots.txt says no, no article on the page).
    Never,
    /// Failed this time (counted as a try).
    Failed(String),
    /// The host is busy: no request made, nothing counted; stop for this check.
    Busy,
}

async fn fetch_one(fetcher: &Fetcher, url: &str) -> Fetched {
    let Ok(parsed) = Url::parse(url) else {
        return Fetched::Never;
    };
    match fetcher.get(&parsed, &Validators::default()).await {
        Ok(FetchOutcome::Page(page)) => {
            let article = crate::cpu::run(move || {
                let text = crate::extract::charset::decode_for_url(
                    &page.body,
                    page.content_type.as_deref(),
                    &page.url,
                )
                .text;
                // Relative URLs resolve against where the page was served from.
                extract(&text, page.url.as_str())
            })
            .await;
            article.map_or(Fetched::Never, Fetched::Article)
        }
        Ok(FetchOutcome::NotModified) => Fetched::Failed("answered 304 to a plain GET".into()),
        Ok(FetchOutcome::Deferred(_)) => Fetched::Busy,
        Err(e @ FetchError::Robots { .. }) => {
            tracing::debug!(%url, error = %e, "full text not fetched");
            Fetched::Never
        }
        Err(e) => Fetched::Failed(e.to_string()),
    }
}

/// Fetches the articles of up to `limits.per_check` items waiting in `pending` (the queue
/// as committed), stores those found and the queue left. Returns the articles stored:
/// (item id, article HTML as stored, not yet sanitized).
pub async fn fill(
    store: &Store,
    fetcher: &Fetcher,
    id: &crate::model::WatchId,
    pending: &[PendingText],
    limits: FullText,
) -> Result<Vec<(String, String)>, StoreError> {
    if pending.is_empty() {
        return Ok(Vec::new());
    }
    let mut left = Vec::with_capacity(pending.len());
    let mut found = Vec::new();
    let mut requested = 0;
    let mut busy = false;
    for p in pending {
        if busy || requested >= limits.per_check {
            left.push(p.clone());
            continue;
        }
        requested += 1;
        match fetch_one(fetcher, &p.url).await {
            Fetched::Article(html) => found.push((p.item.clone(), html)),
            Fetched::Never => {}
            Fetched::Failed(why) => {
                let tries = p.tries.saturating_add(1);
                tracing::debug!(%id, url = %p.url, error = %why, tries, "full text failed");
                if tries < limits.tries {
                    left.push(PendingText { tries, ..p.clone() });
                }
            }
            Fetched::Busy => {
                busy = true;
                left.push(p.clone());
            }
        }
    }
    let (store, id, took) = (store.clone(), id.clone(), pending.to_vec());
    crate::cpu::run(move || {
        store
            .add_full_text(&id, &found, &took, &left)
            .map(|()| found)
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn article_page(paras: &[&str]) -> String {
        use std::fmt::Write as _;
        let mut nav = String::new();
        for i in 0..30 {
            let _ = write!(nav, "<li><a href=\"/section/{i}\">Menu entry {i}</a></li>");
        }
        let mut body = String::new();
        for p in paras {
            let _ = write!(body, "<p>{p}</p>");
        }
        format!(
            "<html><head><title>A story</title></head><body><nav><ul>{nav}</ul></nav>\
             <main><article><h1>A story</h1>{body}<p><img src=\"pic/a.jpg\" alt=\"a\"> \
             <a href=\"../more.html\">more</a></p></article></main>\
             <footer>Footer text of the whole site, copyright and imprint.</footer></body></html>"
        )
    }

    #[test]
    fn the_article_without_menu_or_footer_and_with_absolute_urls() {
        let p = "The council met on Tuesday evening to discuss the budget for the \
                 coming year, and members argued at length about the old bridge.";
        let html = article_page(&[p, p, p, p, p]);
        let a = extract(&html, "https://news.example.org/2024/05/story.html").expect("article");
        assert!(a.contains("the old bridge"), "{a}");
        assert!(!a.contains("Menu entry"), "{a}");
        assert!(!a.contains("Footer text"), "{a}");
        assert!(
            a.contains("https://news.example.org/2024/05/pic/a.jpg"),
            "{a}"
        );
        assert!(a.contains("https://news.example.org/2024/more.html"), "{a}");
    }

    #[test]
    fn a_chinese_article_is_found() {
        let p = "根据学校校历安排，2024年暑假自7月13日开始，9月1日结束，共计七周。\
                 放假期间，各单位要做好安全检查工作，确保校园安全稳定。";
        let html = article_page(&[p, p, p]);
        let a = extract(&html, "https://www.univ.edu.cn/tz/1.htm").expect("article");
        assert!(a.contains("校园安全稳定"), "{a}");
        assert!(!a.contains("Menu entry"), "{a}");
    }

    #[test]
    fn the_queue_is_bounded_and_takes_each_item_once() {
        let item = |n: usize| crate::model::Item {
            id: format!("{n:016x}"),
            link: format!("https://a.example/{n}"),
            ..crate::model::Item::default()
        };
        let max = 20;
        let mut q = Vec::new();
        let items: Vec<_> = (0..max + 5).map(item).collect();
        queue(&mut q, &items[..3], max);
        queue(&mut q, &items[..3], max);
        assert_eq!(q.len(), 3, "an item waits once");
        queue(&mut q, &items, max);
        assert_eq!(q.len(), max);
        assert_eq!(q[0].item, items[5].id, "the oldest left first");
    }
}
