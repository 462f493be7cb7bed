//! What one check writes ([`CheckRecord`]: its links, seen URLs, items, a deep watch's
//! crawl) and the view of a watch's past that the analysis reads ([`WatchHistory`]). The
//! watch's state itself is data of [`crate::state`]; the reads and writes are the
//! store's (`mod.rs`, `pg/`).

use std::cell::RefCell;

use super::{LinksRead, ReadLinks, SeenCache, Store, StoreError};
use crate::model::{Item, Link, WatchId};

/// One watch's past as the analysis reads it ([`crate::analysis::History`]). Its seen set
/// is read once, at the first question (an analysis asks about every new link).
#[derive(Debug)]
pub struct WatchHistory<'a> {
    pub(super) store: &'a Store,
    pub(super) id: &'a WatchId,
    pub(super) seen: SeenCache,
    /// What [`links`](crate::analysis::History::links) read the array from.
    pub(super) read: RefCell<Option<LinksRead>>,
}

impl WatchHistory<'_> {
    /// The stored values the link array was read from, if it was read (on sled).
    pub fn take_read(&self) -> Option<LinksRead> {
        self.read.borrow_mut().take()
    }

    /// The seen set as the analysis read it, for the rest of the same check (a deep
    /// watch's crawl), so that the check does not read it again.
    pub fn into_seen(self) -> SeenCache {
        self.seen
    }
}

impl crate::analysis::History for WatchHistory<'_> {
    type Error = StoreError;
    fn links(&self) -> Result<Vec<Link>, StoreError> {
        let (links, read) = self.store.links_read(self.id)?;
        *self.read.borrow_mut() = read;
        Ok(links)
    }
    fn is_seen(&self, url: &str) -> Result<bool, StoreError> {
        self.seen.contains(self.store, self.id, url)
    }
}

/// The results of one check, written atomically.
#[derive(Debug, Default)]
pub struct CheckRecord {
    /// The new link array, when it changed.
    pub links: Option<Vec<Link>>,
    /// The last link array as this check read it (with what it was read from): the
    /// commit writes the new array as a delta against it without reading it again, when
    /// the store still holds the same values.
    pub earlier_links: Option<ReadLinks>,
    /// URLs to remember as seen on the page.
    pub seen_urls: Vec<String>,
    /// New items, oldest first (they get increasing sequence numbers).
    pub new_items: Vec<Item>,
    /// Items whose title was edited on the page: the stored item with the same id takes
    /// the new title (no new item).
    pub retitled: Vec<Item>,
    /// A deep watch's crawl: its new state and the link arrays of the pages it fetched.
    pub crawl: Option<CrawlRecord>,
    /// The server asked for this pause (`Retry-After`). On PostgreSQL the host's lease
    /// keeps it, so whichever node holds the host next waits it out too.
    pub host_pause: Option<std::time::Duration>,
}

/// What a deep watch's check writes of its site.
#[derive(Debug, Default)]
pub struct CrawlRecord {
    pub state: crate::model::crawl::CrawlState,
    /// New link arrays of pages, by page URL.
    pub pages: Vec<(String, Vec<Link>)>,
    /// The state as this check read it (with what it was read from): the commit writes
    /// the pages that changed as a delta when the store still holds the same values.
    pub read: Option<super::CrawlRead>,
}
