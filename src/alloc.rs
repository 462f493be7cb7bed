//! The memory allocator: mimalloc for every binary that links sitefeed.
//!
//! Measured with `bench/checkpath.rs` (1,000 watches, see `bench/README.md`): glibc
//! malloc spent 1.85 ms of CPU per check, mimalloc 1.25 ms. mimalloc's defaults commit
//! arenas eagerly and keep freed pages a while, which raises peak RSS (about 95 MB
//! there); `MIMALLOC_ARENA_EAGER_COMMIT=0 MIMALLOC_PURGE_DELAY=0` in the environment
//! (set in the Dockerfile) brings it to about 53 MB at a small CPU cost. mimalloc reads
//! these before `main` runs, so they cannot be set from the program itself.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
