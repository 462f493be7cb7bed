//! The memory allocator: mimalloc for every binary that links sitefeed, with its
//! low-memory options as defaults.
//!
//! Measured with `bench/checkpath.rs` (1,000 watches, see `bench/README.md`): glibc
//! malloc spent 1.85 ms of CPU per check, mimalloc 1.25 ms. mimalloc's own defaults
//! commit arenas eagerly and keep freed pages a while, which raises peak RSS (about 95 MB
//! there); no eager arena commit and immediate purging bring it to about 53 MB at a small
//! CPU cost. The crate `mimalloc-defaults` (in `crates/`, the one place with `unsafe`
//! code) sets both before `main` runs, unless the environment sets them
//! (`MIMALLOC_ARENA_EAGER_COMMIT`, `MIMALLOC_PURGE_DELAY`), so the binary needs no
//! environment.
//!
//! May use: nothing.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Whether mimalloc's low-memory defaults are installed (Linux), and the options as they
/// stand: (arena eager commit, purge delay in ms). The binary calls it at start (and logs
/// it at debug level): naming the defaults crate from the program is what makes the
/// linker keep its constructor. Without a caller, the release binary lost them once and
/// its peak RSS at 1,000 watches went from 94 to 211 MB.
pub fn low_memory_defaults() -> (bool, i64, i64) {
    use mimalloc_defaults::{option, Opt};
    (
        mimalloc_defaults::installed(),
        option(Opt::ArenaEagerCommit),
        option(Opt::PurgeDelay),
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn low_memory_defaults_hold_without_the_environment() {
        let env = |v: &str| std::env::var_os(v).is_some();
        let (installed, eager, purge) = super::low_memory_defaults();
        if !installed {
            return;
        }
        if !env("MIMALLOC_ARENA_EAGER_COMMIT") {
            assert_eq!(eager, 0, "arenas are committed on demand");
        }
        if !env("MIMALLOC_PURGE_DELAY") {
            assert_eq!(purge, 0, "freed memory is purged at once");
        }
    }
}
