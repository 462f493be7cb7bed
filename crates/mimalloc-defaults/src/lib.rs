//! mimalloc's low-memory options as the program's defaults.
//!
//! mimalloc commits its arenas eagerly on Linux and keeps freed pages for a while before
//! it returns them (`purge_delay`, 10 ms, times 10 for arenas), which raises the resident
//! memory of a busy multi-threaded service well above what it uses. The environment
//! variables `MIMALLOC_ARENA_EAGER_COMMIT=0` and `MIMALLOC_PURGE_DELAY=0` turn both off.
//! A thread also gives back the pages it emptied only when it collects, every 10,000
//! allocations that miss its free lists (`generic_collect`); `MIMALLOC_GENERIC_COLLECT=1000`
//! makes that every 1,000, as often as mimalloc looks at all (a lower number acts the
//! same). This crate makes those values the defaults, so the binary needs no environment: a
//! constructor in `.init_array` runs before `main` (and before Rust's runtime
//! allocates) and sets each option that its environment variable does not set.
//!
//! This is the one place with `unsafe` code, kept out of the main crate (which forbids
//! it): three calls into the C library and one `getenv` that does not allocate.

use std::ffi::{c_char, c_int, c_long};

/// `mi_option_arena_eager_commit` and `mi_option_purge_delay` (`mimalloc.h`, enum
/// `mi_option_e`: the same numbers in mimalloc v2 and v3).
const ARENA_EAGER_COMMIT: c_int = 4;
const PURGE_DELAY: c_int = 15;

/// `mi_option_generic_collect`: 34 in mimalloc v3, 36 in v2 (which has two more options
/// before it).
fn generic_collect() -> c_int {
    // SAFETY: `mi_version` reads a constant.
    if unsafe { mi_version() } >= 30_000 {
        34
    } else {
        36
    }
}

extern "C" {
    fn mi_option_set(option: c_int, value: c_long);
    fn mi_option_get(option: c_int) -> c_long;
    fn mi_version() -> c_int;
    fn getenv(name: *const c_char) -> *mut c_char;
}

/// Whether the environment variable `name` (NUL-terminated) is set.
fn is_set(name: &[u8]) -> bool {
    debug_assert_eq!(name.last(), Some(&0));
    // SAFETY: `name` is NUL-terminated; getenv only reads the environment, which no
    // other thread changes before `main`.
    unsafe { !getenv(name.as_ptr().cast()).is_null() }
}

extern "C" fn set_defaults() {
    for (var, option, value) in [
        (&b"MIMALLOC_ARENA_EAGER_COMMIT\0"[..], ARENA_EAGER_COMMIT, 0),
        (&b"MIMALLOC_PURGE_DELAY\0"[..], PURGE_DELAY, 0),
        (&b"MIMALLOC_GENERIC_COLLECT\0"[..], generic_collect(), 1000),
    ] {
        if !is_set(var) {
            // SAFETY: setting an option is allowed at any time; its value is a plain
            // number mimalloc reads when it needs it.
            unsafe { mi_option_set(option, value) };
        }
    }
}

#[cfg(target_os = "linux")]
#[used]
#[link_section = ".init_array"]
static SET_DEFAULTS: extern "C" fn() = set_defaults;

/// Whether the defaults were installed on this platform (only Linux has them). Naming
/// this from the program also makes sure the linker keeps the constructor.
pub fn installed() -> bool {
    cfg!(target_os = "linux")
}

/// Reads back one of mimalloc's options (for tests and diagnostics).
pub fn option(option: Opt) -> i64 {
    let n = match option {
        Opt::ArenaEagerCommit => ARENA_EAGER_COMMIT,
        Opt::PurgeDelay => PURGE_DELAY,
        Opt::GenericCollect => generic_collect(),
    };
    // SAFETY: reading an option has no preconditions.
    i64::from(unsafe { mi_option_get(n) })
}

/// The options this crate sets.
#[derive(Debug, Clone, Copy)]
pub enum Opt {
    ArenaEagerCommit,
    PurgeDelay,
    GenericCollect,
}
