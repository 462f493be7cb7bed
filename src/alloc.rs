//! The memory allocator: mimalloc for every binary that links sitefeed, with its
//! low-memory options as defaults.
//!
//! Measured with `bench/checkpath.rs` (1,000 watches, see `bench/README.md`): glibc
//! malloc spent 1.85 ms of CPU per check, mimalloc 1.25 ms. mimalloc's own defaults
//! commit arenas eagerly and keep freed pages a while, which raises peak RSS (about 95 MB
//! there); no eager arena commit and immediate purging bring it to about 53 MB at a small
//! CPU cost. A thread's emptied pages are given back when it collects; collecting every
//! 1,000 slow allocations instead of 10,000 took another 3–5 MB off the peak at 1,000
//! watches (from 66 to 61–63 MB, `bench/README.md`). The crate `mimalloc-defaults` (in `crates/`, the one place with
//! `unsafe` code) sets all three before `main` runs, unless the environment sets them
//! (`MIMALLOC_ARENA_EAGER_COMMIT`, `MIMALLOC_PURGE_DELAY`, `MIMALLOC_GENERIC_COLLECT`), so
//! the binary needs no environment.
//!
//! May use: nothing.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's low-memory options as they stand (see [`low_memory_defaults`]).
#[derive(Debug, Clone, Copy)]
pub struct LowMemory {
    /// Whether the defaults are installed (Linux only).
    pub installed: bool,
    /// Arenas committed eagerly (1) or on demand (0).
    pub eager_commit: i64,
    /// How long freed memory is kept before it goes back to the system, in ms.
    pub purge_delay_ms: i64,
    /// Every how many allocations that miss a thread's free lists the thread gives back
    /// the pages it emptied.
    pub generic_collect: i64,
}

/// Whether mimalloc's low-memory defaults are installed (Linux), and the options as they
/// stand. The binary calls it at start (and logs it at debug level): naming the defaults
/// crate from the program is what makes the linker keep its constructor. Without a
/// caller, the release binary lost them once and its peak RSS at 1,000 watches went from
/// 94 to 211 MB.
pub fn low_memory_defaults() -> LowMemory {
    use mimalloc_defaults::{option, Opt};
    LowMemory {
        installed: mimalloc_defaults::installed(),
        eager_commit: option(Opt::ArenaEagerCommit),
        purge_delay_ms: option(Opt::PurgeDelay),
        generic_collect: option(Opt::GenericCollect),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn low_memory_defaults_hold_without_the_environment() {
        let env = |v: &str| std::env::var_os(v).is_some();
        let now = super::low_memory_defaults();
        if !now.installed {
            return;
        }
        if !env("MIMALLOC_ARENA_EAGER_COMMIT") {
            assert_eq!(now.eager_commit, 0, "arenas are committed on demand");
        }
        if !env("MIMALLOC_PURGE_DELAY") {
            assert_eq!(now.purge_delay_ms, 0, "freed memory is purged at once");
        }
        if !env("MIMALLOC_GENERIC_COLLECT") {
            assert_eq!(
                now.generic_collect, 1000,
                "emptied pages go back ten times as often"
            );
        }
    }
}
