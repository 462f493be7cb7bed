//! Writes that change a watch outside its checks: an edit of its settings (which may
//! re-baseline it) and the outcome of a webhook delivery. Each is atomic and flushed, on
//! sled here and on PostgreSQL through `pg/`.

use super::writes::Writes;
use super::{encode, keys, seen, self_now, Store, StoreError};
use crate::model::{Watch, WatchId};

impl Store {
    /// Replaces a watch's settings (same id). With `rebaseline`, its next check records
    /// the page afresh and emits nothing from it: the last link array and the
    /// fingerprints and validators are dropped, and the URLs of that link array join
    /// the seen set, which is kept whole (so nothing seen before is ever new again).
    /// The due index follows `paused`; `due_at` moves the next check (a resumed or
    /// re-baselined watch is checked soon). Atomic, flushed.
    pub fn update_watch(
        &self,
        watch: &Watch,
        rebaseline: bool,
        note: Option<String>,
        due_at: Option<i64>,
    ) -> Result<(), StoreError> {
        if let Some(pg) = &self.pg {
            return pg.update_watch(watch, rebaseline, note, due_at);
        }
        self.shared
            .health
            .guard(|| self.update_watch_unguarded(watch, rebaseline, note, due_at))
    }

    fn update_watch_unguarded(
        &self,
        watch: &Watch,
        rebaseline: bool,
        note: Option<String>,
        due_at: Option<i64>,
    ) -> Result<(), StoreError> {
        let Some(prev) = self.state(&watch.id)? else {
            return Err(StoreError::NoWatch(watch.id.clone()));
        };
        let mut state = prev.clone();
        let mut batch = Writes::default();
        if rebaseline {
            let left = seen::Stamp::new(self_now(&prev), prev.checks);
            let hashes: Vec<_> = self
                .links(&watch.id)?
                .iter()
                .map(|l| keys::url_hash(&l.url))
                .collect();
            if !hashes.is_empty() {
                let seq = self.next_seen_bucket(&watch.id)?;
                seen::put(&mut batch, &watch.id, seq, hashes, left)?;
            }
            self.remove_links(&mut batch, &watch.id)?;
            state.link_fingerprint = None;
            state.raw_fingerprint = None;
            state.etag = None;
            state.last_modified = None;
            state.entry_roles.clear();
        }
        if note.is_some() {
            state.note = note;
        }
        if let Some(at) = due_at {
            state.next_check = at;
        }
        batch.remove(keys::due(prev.next_check, &watch.id));
        if !watch.options.paused {
            batch.insert(keys::due(state.next_check, &watch.id), &[]);
        }
        batch.insert(keys::watch_key(keys::WATCH, &watch.id), encode(watch));
        batch.insert(keys::watch_key(keys::STATE, &watch.id), encode(&state));
        Self::put_index(&mut batch, watch, &state);
        self.bump_feed(&mut batch, &watch.id, &state)?;
        self.db()?.apply_batch(batch.into_batch())?;
        self.db()?.flush()?;
        Ok(())
    }

    /// Records the outcome of a webhook delivery on the watch's state (nothing else
    /// changes). The caller holds the watch's lock, so no check commits meanwhile.
    pub fn set_webhook_outcome(
        &self,
        id: &WatchId,
        at: i64,
        error: Option<String>,
    ) -> Result<(), StoreError> {
        if let Some(pg) = &self.pg {
            return pg.set_webhook_outcome(id, at, error);
        }
        self.shared.health.guard(|| {
            let Some(mut state) = self.state(id)? else {
                return Err(StoreError::NoWatch(id.clone()));
            };
            state.webhook_at = Some(at);
            state.webhook_error = error;
            self.db()?
                .insert(keys::watch_key(keys::STATE, id), encode(&state))?;
            Ok(())
        })
    }
}
