//! Compaction of the sled store: its live keys copied into a fresh database that is
//! swapped in, when the file has grown past a multiple of the live data.
//!
//! sled 0.34 appends every write to its log and cleans old segments lazily; under a
//! steady write rate its cleaning falls behind and the file keeps growing while the live
//! data stays flat. A copy holds only the live data (and sled's overhead on it).
//!
//! **When** ([`due`]): the file is at least [`MIN_BYTES`], more than `ratio` times the
//! live bytes and half as large again as the last compaction left it. The live bytes come
//! from a hint in the sled directory (`compact.live`, written by the last measurement or
//! compaction; sled ignores the file); when the hint says it is time, or there is none, a
//! scan measures them before a copy is made. The store checks at start-up ([`Store::open`],
//! before any other use) and every [`EVERY`] on a thread of its own; each check runs on a
//! thread that ends with it, so that the allocator gives back what the copy freed.
//!
//! **No write is lost.** Every operation of the store reaches the database through
//! the gate ([`super::gate::Gate`]) and holds it until it is done, to write or to read
//! only. A compaction keeps writes out and waits until no operation writes, copies
//! while reads go on (nothing changes under them), then keeps reads out too for the
//! swap (a reader left on the old database would look for sled's blob files under a
//! path that is now the copy's), which takes milliseconds. Writes wait for the whole
//! compaction; one thread may enter again while it holds the gate (one operation
//! calling another).
//!
//! **Feed stamps keep increasing**: they come from sled's ID generator, which the copy
//! continues above the old database's (`copy_into`).
//!
//! **Crash safety.** The copy is written to `<path>.compact`, flushed, then
//! `<path>.compact.done` is written and synced; the swap renames `<path>` to
//! `<path>.old` and `<path>.compact` to `<path>`, then removes `<path>.old` and the
//! marker. Every open takes the store's lock first (nothing is touched while another
//! process holds the store), then [`finish_swap`] completes a swap whose marker exists
//! and removes a copy without one, so a crash at any point leaves the old database or the
//! complete copy, never neither.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use super::{Store, StoreError};

/// No compaction below this file size: a small store costs little disk, and sled's
/// fixed part (a few 512 KiB segments, its snapshot) makes the ratio of a small store
/// meaningless.
pub const MIN_BYTES: u64 = 32 * 1024 * 1024;
/// How often a running store looks at its size (a `stat` of its files; a scan only when
/// the hint says the ratio is passed).
pub const EVERY: Duration = Duration::from_secs(10 * 60);

/// Most bytes of keys and values copied in one batch: the copy's file came out smallest
/// with batches of 64 to 256 KiB (2.5–2.8 times the live data, against 5.7 with 4 MiB
/// and 3.2 with one insert per key, on the soak's store).
const BATCH_BYTES: usize = 128 * 1024;
/// sled's default `idgen_persist_interval`, which the store opens with.
const SLED_IDGEN_INTERVAL: u64 = 1_000_000;
/// The file of the live-bytes hint, inside the sled directory (sled ignores it).
const HINT_FILE: &str = "compact.live";

/// When to compact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompactPolicy {
    /// Compact when the file exceeds this many times the live bytes; 0: never.
    pub ratio: u64,
    /// ... and is at least this large.
    pub min_bytes: u64,
    /// How often a running store checks (`None`: only at open and when asked).
    pub every: Option<Duration>,
}

impl Default for CompactPolicy {
    fn default() -> Self {
        Self {
            ratio: crate::config::DEFAULT_COMPACT_RATIO,
            min_bytes: MIN_BYTES,
            every: Some(EVERY),
        }
    }
}

impl CompactPolicy {
    /// Compaction off.
    pub fn off() -> Self {
        Self {
            ratio: 0,
            min_bytes: MIN_BYTES,
            every: None,
        }
    }
}

/// Whether a store of `on_disk` bytes, `live` of them live (`None`: not known), is due
/// for compaction; `left` is the size the last compaction left (0: none), which the file
/// must have passed by half (so that a store whose copy is itself large is not copied again and
/// again). With `live` unknown, "due" means: measure it.
pub fn due(on_disk: u64, live: Option<u64>, left: u64, policy: &CompactPolicy) -> bool {
    if policy.ratio == 0 || on_disk < policy.min_bytes || on_disk < left.saturating_add(left / 2) {
        return false;
    }
    match live {
        None => true,
        Some(live) => on_disk > live.saturating_mul(policy.ratio),
    }
}

/// What one compaction did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Compacted {
    /// Keys copied.
    pub keys: u64,
    /// Bytes of keys and values copied.
    pub live_bytes: u64,
    /// The file before and after.
    pub before: u64,
    pub after: u64,
    /// How long writes waited (the copy and the swap).
    pub took: Duration,
}

/// What [`Store::maybe_compact`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Not due by the file's size and the hint.
    NotDue,
    /// Due by the hint, but the live bytes measured say not yet.
    Measured {
        live_bytes: u64,
    },
    Compacted(Compacted),
}

/// The compaction side of the store's shared state.
#[derive(Debug)]
pub(super) struct Compaction {
    pub policy: CompactPolicy,
    /// The live bytes last measured (or copied), and the file the last compaction left.
    pub hint: Mutex<Hint>,
    /// Dropped with the store: stops the timer thread.
    pub stop: Mutex<Option<std::sync::mpsc::Sender<()>>>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Hint {
    pub live: Option<u64>,
    pub left: u64,
}

impl Compaction {
    pub fn new(policy: CompactPolicy, hint: Hint) -> Self {
        Self {
            policy,
            hint: Mutex::new(hint),
            stop: Mutex::new(None),
        }
    }

    fn hint(&self) -> MutexGuard<'_, Hint> {
        self.hint.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Hint {
    /// The hint kept in the sled directory `dir` (default when absent or unreadable).
    pub fn read(dir: &Path) -> Self {
        let Ok(text) = fs::read_to_string(dir.join(HINT_FILE)) else {
            return Self::default();
        };
        let mut hint = Self::default();
        for word in text.split_whitespace() {
            match word.split_once('=') {
                Some(("live", v)) => hint.live = v.parse().ok(),
                Some(("left", v)) => hint.left = v.parse().unwrap_or(0),
                _ => {}
            }
        }
        hint
    }

    fn write(self, dir: &Path) -> io::Result<()> {
        let text = match self.live {
            Some(live) => format!("live={live} left={}\n", self.left),
            None => format!("left={}\n", self.left),
        };
        fs::write(dir.join(HINT_FILE), text)
    }
}

/// `<path><suffix>`: a sibling of the store's directory.
fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// The copy being written.
pub(super) fn copy_dir(path: &Path) -> PathBuf {
    sibling(path, ".compact")
}

/// Present once the copy is complete and durable.
pub(super) fn marker(path: &Path) -> PathBuf {
    sibling(path, ".compact.done")
}

/// The old database during the swap.
pub(super) fn old_dir(path: &Path) -> PathBuf {
    sibling(path, ".old")
}

fn io_error(e: io::Error) -> StoreError {
    StoreError::Db(sled::Error::Io(e))
}

/// Syncs the directory that holds `path` (so a rename or a new file in it is durable).
fn sync_parent(path: &Path) -> io::Result<()> {
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    fs::File::open(parent)?.sync_all()
}

fn remove_dir_if_there(dir: &Path) -> io::Result<()> {
    match fs::remove_dir_all(dir) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

/// Whether a compaction left anything beside the store at `path` (a copy, the marker,
/// the old store).
pub(super) fn interrupted(path: &Path) -> bool {
    copy_dir(path).exists() || marker(path).exists() || old_dir(path).exists()
}

/// Completes or rolls back a swap a crash interrupted, before the store at `path` is
/// opened: with the marker, the copy is complete and goes in (whatever step the swap
/// reached); without it, a copy is incomplete and removed, and the database at `path`
/// is the store. Returns whether there was anything to do.
pub(super) fn finish_swap(path: &Path) -> io::Result<bool> {
    let (copy, done, old) = (copy_dir(path), marker(path), old_dir(path));
    if done.exists() {
        if copy.exists() {
            if path.exists() {
                remove_dir_if_there(&old)?;
                fs::rename(path, &old)?;
            }
            fs::rename(&copy, path)?;
            sync_parent(path)?;
        }
        remove_dir_if_there(&old)?;
        fs::remove_file(&done)?;
        sync_parent(path)?;
        tracing::warn!(path = %path.display(), "finished a store compaction a stop interrupted");
        return Ok(true);
    }
    let mut did = false;
    if copy.exists() {
        remove_dir_if_there(&copy)?;
        did = true;
        tracing::warn!(path = %path.display(), "removed an incomplete compaction copy");
    }
    if old.exists() {
        // Not left by the steps above (the marker goes last); kept safe all the same.
        if path.exists() {
            remove_dir_if_there(&old)?;
        } else {
            fs::rename(&old, path)?;
        }
        did = true;
    }
    if did {
        sync_parent(path)?;
    }
    Ok(did)
}

/// Opens a database that this process has just closed: sled's background threads may
/// hold its file (and the file's lock) a moment after the last handle is dropped.
pub(super) fn open_closed(config: &sled::Config) -> sled::Result<sled::Db> {
    let mut tries = 0;
    loop {
        match config.open() {
            Err(sled::Error::Io(e))
                if tries < 250 && e.to_string().contains("could not acquire lock") =>
            {
                tries += 1;
                std::thread::sleep(Duration::from_millis(20));
            }
            other => return other,
        }
    }
}

/// Bytes of keys and values in every tree of `db`.
pub(super) fn live_bytes(db: &sled::Db) -> Result<u64, StoreError> {
    let mut bytes = 0u64;
    for name in db.tree_names() {
        let tree = db.open_tree(&name)?;
        for kv in super::scan::evicting(&tree) {
            let (k, v) = kv?;
            bytes += (k.len() + v.len()) as u64;
        }
    }
    Ok(bytes)
}

/// Copies every tree of `from` into a new database at `to`, whose ID generator goes on
/// above `next_id` (the feed stamps' sequence must keep increasing). Returns the keys and
/// bytes copied. `to` (with a page cache of `cache_bytes`, the store's) is flushed and
/// closed on return.
fn copy_into(
    from: &sled::Db,
    to: &Path,
    next_id: u64,
    cache_bytes: u64,
) -> Result<(u64, u64), StoreError> {
    // sled restarts its ID generator at the persisted counter plus twice the persist
    // interval (its documented recovery rule): with an interval of half a multiple of its
    // default interval at or above `next_id`, one reopen puts the generator there, and
    // one ID taken then persists that counter. It must be a multiple of the default
    // interval, which later opens use: sled asserts that the counter it persisted last is
    // one.
    let interval = next_id.div_ceil(SLED_IDGEN_INTERVAL).max(1) * (SLED_IDGEN_INTERVAL / 2);
    let config = || {
        sled::Config::new()
            .path(to)
            .cache_capacity(cache_bytes)
            .idgen_persist_interval(interval)
    };
    let (mut keys, mut bytes) = (0u64, 0u64);
    {
        let db = config().open()?;
        for name in from.tree_names() {
            let src = from.open_tree(&name)?;
            let dst = db.open_tree(&name)?;
            let mut batch = sled::Batch::default();
            let mut batch_bytes = 0usize;
            for kv in super::scan::evicting(&src) {
                let (k, v) = kv?;
                batch_bytes += k.len() + v.len();
                keys += 1;
                bytes += (k.len() + v.len()) as u64;
                batch.insert(k, v);
                if batch_bytes >= BATCH_BYTES {
                    dst.apply_batch(std::mem::take(&mut batch))?;
                    batch_bytes = 0;
                }
            }
            dst.apply_batch(batch)?;
        }
        db.flush()?;
    }
    let db = open_closed(&config())?;
    let first = db.generate_id()?;
    if first < next_id {
        return Err(StoreError::Db(sled::Error::ReportableBug(format!(
            "the copy's ID generator starts at {first}, below {next_id}"
        ))));
    }
    db.flush()?;
    Ok((keys, bytes))
}

impl Store {
    /// Compacts the store if [`due`] says so (measuring the live bytes first when only
    /// the hint says so). A temporary or PostgreSQL store is never compacted.
    pub fn maybe_compact(&self) -> Result<Outcome, StoreError> {
        let Some((path, on_disk, hint)) = self.due_by_hint() else {
            return Ok(Outcome::NotDue);
        };
        let comp = &self.shared.compaction;
        let policy = comp.policy;
        let live = live_bytes(&*self.db_read()?)?;
        let measured = Hint {
            live: Some(live),
            left: hint.left,
        };
        *comp.hint() = measured;
        if let Err(e) = measured.write(path) {
            tracing::debug!(error = %e, "cannot write the store's live-bytes hint");
        }
        if !due(on_disk, Some(live), hint.left, &policy) {
            return Ok(Outcome::Measured { live_bytes: live });
        }
        self.compact().map(Outcome::Compacted)
    }

    /// The store's directory, its size on disk and the live-bytes hint, when the size and
    /// the hint say a compaction may be due ([`due`]; a scan decides). `None` for a
    /// temporary or PostgreSQL store.
    fn due_by_hint(&self) -> Option<(&Path, u64, Hint)> {
        let (path, _) = self.shared.reopen.as_ref()?;
        let on_disk = self.size_on_disk();
        let hint = *self.shared.compaction.hint();
        due(
            on_disk,
            hint.live,
            hint.left,
            &self.shared.compaction.policy,
        )
        .then_some((path.as_path(), on_disk, hint))
    }

    /// Copies the live data into a fresh database and swaps it in (see the module's
    /// notes). Writes wait meanwhile, reads only for the swap. A temporary store is left
    /// as it is.
    pub fn compact(&self) -> Result<Compacted, StoreError> {
        let Some((path, cache_bytes)) = &self.shared.reopen else {
            return Ok(Compacted {
                keys: 0,
                live_bytes: 0,
                before: 0,
                after: 0,
                took: Duration::ZERO,
            });
        };
        // Writes wait for the copy; reads go on (nothing changes under them).
        let writes = self.shared.gate.close_writes()?;
        let start = Instant::now();
        let old = self
            .shared
            .db
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
            .ok_or(StoreError::Closed)?;
        old.flush()?;
        let before = old.size_on_disk()?;
        let next_id = old.generate_id()?;
        let copy = copy_dir(path);
        remove_dir_if_there(&copy).map_err(io_error)?;
        let copied = copy_into(&old, &copy, next_id, *cache_bytes).and_then(|kept| {
            fs::File::open(&copy)
                .and_then(|d| d.sync_all())
                .map_err(io_error)?;
            Ok(kept)
        });
        let (keys, live) = match copied {
            Ok(kept) => kept,
            Err(e) => {
                if let Err(rm) = remove_dir_if_there(&copy) {
                    tracing::warn!(error = %rm, dir = %copy.display(), "cannot remove a failed compaction copy");
                }
                return Err(e);
            }
        };
        let left = Hint {
            live: Some(live),
            left: 0,
        };
        left.write(&copy).map_err(io_error)?;
        write_marker(path).map_err(io_error)?;
        // From here the copy is the store: a crash completes the swap at the next open.
        // Reads wait too for the swap (a reader left on the old database would look for
        // its blob files under the path that is now the copy's). The old database stays
        // open (and its file locked) until the copy is open in its place, so that another
        // process cannot open the store meanwhile.
        let _all = self.shared.gate.close_all(&writes);
        let mut slot = self
            .shared
            .db
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        let config = sled_config(path, *cache_bytes);
        let swapped = rename_in(path)
            .map_err(io_error)
            .and_then(|()| open_closed(&config).map_err(|e| StoreError::opening(path, e)));
        drop(old);
        drop(slot.take());
        let db = match swapped {
            Ok(db) => db,
            Err(e) => {
                // Whatever step failed, what finish_swap leaves is the store.
                tracing::error!(error = %e, "store compaction could not swap the copy in");
                finish_swap(path).map_err(io_error)?;
                let db = open_closed(&config).map_err(|e| StoreError::opening(path, e))?;
                *slot = Some(db);
                return Err(e);
            }
        };
        // The old database is closed: remove it, then the marker.
        if let Err(e) = clean_up(path) {
            tracing::warn!(error = %e, "cannot remove the store's old copy; the next start removes it");
        }
        let after = db.size_on_disk()?;
        *slot = Some(db);
        drop(slot);
        let hint = Hint {
            live: Some(live),
            left: after,
        };
        *self.shared.compaction.hint() = hint;
        if let Err(e) = hint.write(path) {
            tracing::debug!(error = %e, "cannot write the store's live-bytes hint");
        }
        let done = Compacted {
            keys,
            live_bytes: live,
            before,
            after,
            took: start.elapsed(),
        };
        tracing::info!(
            keys,
            live_bytes = live,
            before,
            after,
            took_ms = done.took.as_millis() as u64,
            "store compacted"
        );
        Ok(done)
    }
}

fn write_marker(path: &Path) -> io::Result<()> {
    let done = marker(path);
    let mut f = fs::File::create(&done)?;
    f.write_all(b"complete\n")?;
    f.sync_all()?;
    sync_parent(&done)
}

/// The renames of the swap: the store aside, the copy in.
fn rename_in(path: &Path) -> io::Result<()> {
    let old = old_dir(path);
    remove_dir_if_there(&old)?;
    fs::rename(path, &old)?;
    fs::rename(copy_dir(path), path)?;
    sync_parent(path)
}

/// After the swap: the old store goes, then the marker.
fn clean_up(path: &Path) -> io::Result<()> {
    remove_dir_if_there(&old_dir(path))?;
    fs::remove_file(marker(path))?;
    sync_parent(path)
}

/// How the store's database is opened, at start, after a recovery and after a compaction:
/// a page cache of `cache_bytes`, and sled flushing its log every 500 ms by itself (its
/// default, which the commit relies on).
pub(super) fn sled_config(path: &Path, cache_bytes: u64) -> sled::Config {
    sled::Config::new()
        .path(path)
        .cache_capacity(cache_bytes)
        .flush_every_ms(Some(500))
}

mod timer;

#[cfg(test)]
mod tests;
