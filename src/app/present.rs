//! What the API, the web page and the CLI show of the watches: the JSON view of one
//! ([`WatchJson`]), the OPML of them all, and the reads behind them. The server and the
//! CLI read watches, their state and their items here, not from the store.

use super::{App, AppError};
use crate::dto::{CheckLogJson, FeedUrls, RenderJson, ScheduleJson, WatchJson};
use crate::model::{rfc3339, Item, Watch, WatchId};
use crate::state::{FeedStamp, WatchState};
use crate::store::Reading;

impl App {
    /// The links of `watch`'s page as it is now, each with what the next check would make
    /// of it; nothing is stored ([`preview`](super::preview)). The inner `Err` is a reason
    /// the user can act on; the outer one an error of the service.
    pub async fn preview(
        &self,
        watch: &Watch,
    ) -> Result<Result<super::Preview, super::PreviewError>, AppError> {
        super::preview::run(self, watch).await
    }

    /// The watch with id `id`.
    pub fn watch(&self, id: &WatchId) -> Result<Option<Watch>, AppError> {
        Ok(self.store.watch(id)?)
    }

    /// Every watch, in id order.
    pub fn watches(&self) -> Result<Vec<Watch>, AppError> {
        Ok(self.store.watches()?)
    }

    /// What the checks of watch `id` have learnt (`None`: never checked).
    pub fn state(&self, id: &WatchId) -> Result<Option<WatchState>, AppError> {
        Ok(self.store.state(id)?)
    }

    /// Every watch with its state, those with tag `tag` only when it is given.
    pub fn watches_with_state(
        &self,
        tag: Option<&str>,
    ) -> Result<Vec<(Watch, Option<WatchState>)>, AppError> {
        let mut out = Vec::new();
        for w in self.store.watches()? {
            if tag.is_some_and(|t| !w.options.tags.iter().any(|x| x == t)) {
                continue;
            }
            let s = self.store.state(&w.id)?;
            out.push((w, s));
        }
        Ok(out)
    }

    /// What watch `id`'s feed depends on (its change sequence, since when it fails): one
    /// small read, all a conditional feed request needs.
    pub fn feed_stamp(&self, id: &WatchId) -> Result<Option<FeedStamp>, AppError> {
        Ok(self.store.feed_stamp(id)?)
    }

    /// Why the store's writes fail, while they do (a full disk...), for `/healthz`.
    pub fn storage_failing(&self) -> Option<String> {
        self.store.failing()
    }

    /// Bytes the store takes on disk, for `/metrics`.
    pub fn storage_bytes(&self) -> u64 {
        self.store.size_on_disk()
    }

    /// The newest `limit` items of watch `id`, newest first, made durable to be served
    /// ([`App::settle`]).
    pub async fn items(&self, id: &WatchId, limit: usize) -> Result<Vec<Item>, AppError> {
        self.items_since(self.reading(), id, limit).await
    }

    /// [`App::items`] for a reader that read other things it serves with them (a feed's
    /// stamp, its ETag) since `reading`.
    pub async fn items_since(
        &self,
        reading: Reading,
        id: &WatchId,
        limit: usize,
    ) -> Result<Vec<Item>, AppError> {
        let items = self.items_unsettled(id, limit)?;
        self.settle(reading).await?;
        Ok(items)
    }

    /// [`App::items`] without the wait: for work on the CPU pool, whose caller settles
    /// what it read before serving it ([`App::settle`]).
    pub fn items_unsettled(&self, id: &WatchId, limit: usize) -> Result<Vec<Item>, AppError> {
        Ok(self.store.items(id, limit)?)
    }

    /// Taken before reading what will be served, for [`App::settle`].
    pub fn reading(&self) -> Reading {
        self.store.reading()
    }

    /// Makes what was read from the store since `reading` durable, before it is served:
    /// items, a feed's stamp, a check's report (`Store::settle`). Waits on the disk off
    /// the async workers, and only when a flush is needed.
    pub async fn settle(&self, reading: Reading) -> Result<(), AppError> {
        if self.store.settled(reading) {
            return Ok(());
        }
        let store = self.store.clone();
        crate::cpu::wait_on_disk(move || store.settle(reading)).await?;
        Ok(())
    }

    /// The OPML of the watches (those with tag `tag` when it is given), their feeds at
    /// `base`, and the time the newest of them was added (for `Last-Modified`).
    pub fn opml_export(&self, base: &str, tag: Option<&str>) -> Result<(String, i64), AppError> {
        let mut entries = Vec::new();
        let mut updated = 0;
        for (w, s) in self.watches_with_state(tag)? {
            updated = updated.max(w.created);
            let title = self.display_title(&w, s.as_ref());
            entries.push((w, title));
        }
        let body = crate::render::opml_export(&entries, base, &self.key_query());
        Ok((body, updated))
    }

    /// The last render of `w`'s page, if the browser rendered it.
    pub fn last_render(&self, w: &Watch) -> Option<RenderJson> {
        let r = self.fetcher.browser()?.last_render(&w.url)?;
        Some(RenderJson {
            ms: r.ms,
            ok: r.ok,
            requests: r.requests,
            refused: r.refused,
            blocked: r.blocked,
        })
    }

    fn schedule_json(&self, w: &Watch, s: Option<&WatchState>) -> ScheduleJson {
        let cfg = &self.config.schedule;
        let strategy = w.strategy.unwrap_or(cfg.strategy);
        let fresh = crate::schedule::Learned::default();
        let learned = s.map_or(&fresh, |s| &s.learned);
        let mut why = crate::schedule::explain(cfg, strategy, learned);
        if why.strategy == crate::config::Strategy::Periodic
            && learned.in_force == Some(crate::config::Strategy::Adaptive)
        {
            // `plan` had the history but could not fit a curve to it (degenerate data).
            why = crate::schedule::InForce {
                strategy: crate::config::Strategy::Adaptive,
                reason: "adaptive: the daily model could not be fitted to the history yet".into(),
            };
        }
        ScheduleJson {
            strategy: strategy.as_str().to_owned(),
            in_force: why.strategy.as_str().to_owned(),
            reason: why.reason,
            history_days: (learned.history.days() * 10.0).round() / 10.0,
            effective_links: learned.page.effective_links(),
            probable_losses: learned.page.probable_losses,
            last_probable_loss: learned.page.last_probable_loss.map(rfc3339),
        }
    }

    /// The JSON view of a watch (the API's, the CLI's), its feed URLs at `base`.
    pub fn watch_json(&self, base: &str, w: &Watch, s: Option<&WatchState>) -> WatchJson {
        WatchJson {
            id: w.id.to_string(),
            url: w.url.clone(),
            title: self.display_title(w, s),
            user_title: w.title.clone(),
            depth: w.depth,
            select: w.select.clone(),
            keywords: w.keywords.clone(),
            render: w.render.as_str().to_owned(),
            last_render: self.last_render(w),
            content: w.options.content.as_str().to_owned(),
            full_text_pending: s.map_or(0, |s| s.full_text.len()),
            feed_url: self.feed_url_at(base, &w.id, "xml"),
            feeds: FeedUrls {
                rss: self.feed_url_at(base, &w.id, "xml"),
                atom: self.feed_url_at(base, &w.id, "atom"),
                json: self.feed_url_at(base, &w.id, "json"),
            },
            created: rfc3339(w.created),
            status: match s.map(|s| s.status) {
                None | Some(crate::model::Status::New) => "new",
                Some(crate::model::Status::Ok) => "ok",
                Some(crate::model::Status::Error) => "error",
            }
            .to_owned(),
            error: s.and_then(|s| s.error.clone()),
            note: s.and_then(|s| s.note.clone()),
            last_check: s.and_then(|s| s.last_check).map(rfc3339),
            next_check: s.map(|s| rfc3339(s.next_check)),
            last_change: s.and_then(|s| s.last_change).map(rfc3339),
            item_count: s.map_or(0, |s| s.item_count),
            link_count: s.map_or(0, |s| s.link_count),
            checks: s.map_or(0, |s| s.checks),
            crawl: s.and_then(|s| s.crawl),
            schedule: self.schedule_json(w, s),
            tags: w.options.tags.clone(),
            paused: w.options.paused,
            min_interval: w.options.min_interval,
            max_interval: w.options.max_interval,
            error_item: !w.options.no_error_item,
            webhook: w.options.webhook.clone(),
            timezone: self.tz_for(w).name().to_owned(),
            error_since: s.and_then(|s| s.error_since).map(rfc3339),
            consecutive_errors: s.map_or(0, |s| s.consecutive_errors),
            webhook_at: s.and_then(|s| s.webhook_at).map(rfc3339),
            webhook_error: s.and_then(|s| s.webhook_error.clone()),
            backfill: s.map_or(0, |s| s.backfill),
            recent_checks: s
                .map(|s| {
                    s.recent_checks
                        .iter()
                        .map(|c| CheckLogJson {
                            at: rfc3339(c.at),
                            duration_ms: c.duration_ms,
                            new_items: c.new_items,
                            changed: c.changed,
                            error: c.error.clone(),
                        })
                        .collect()
                })
                .unwrap_or_default(),
        }
    }
}
