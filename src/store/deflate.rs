//! Deflate for stored values, without the allocations a call of miniz_oxide's one-shot
//! functions makes. A compressor holds about 310 KB of tables (the dictionary, two hash
//! chains of 32 Ki entries, the code buffer, the output buffer), which
//! `compress_to_vec` allocates, zeroes and frees on every call; a check deflates its
//! page's link array, so that was 310 KB of fresh memory per check, faulted in and given
//! back to the system again by the allocator. Here the process keeps one compressor and
//! resets it between values: the output is the same, byte for byte, as a fresh
//! compressor's. One for the process rather than one per thread: every thread that ever
//! deflated (the CPU pool's, the compaction's, tokio's blocking threads, which come and
//! go) would keep its own 310 KB. When two threads deflate at once, the second makes a
//! fresh compressor, as before.
//! Inflating goes straight into a buffer of the length the value records, where
//! `decompress_to_vec` grows a vector by doubling and copying.
//!
//! May use: nothing.

use std::sync::{Mutex, TryLockError};

use miniz_oxide::deflate::core::{
    compress, create_comp_flags_from_zip_params, CompressorOxide, TDEFLFlush, TDEFLStatus,
};

/// The process's compressor, made on its first use.
static SHARED: Mutex<Option<Box<CompressorOxide>>> = Mutex::new(None);

/// `input` deflated (raw deflate, no zlib header) at `level` (0–10).
pub(crate) fn deflate(input: &[u8], level: u8) -> Vec<u8> {
    // A compressor left by a panic mid-value is reset before use like any other, so a
    // poisoned lock is taken as it is.
    let slot = match SHARED.try_lock() {
        Ok(slot) => Some(slot),
        Err(TryLockError::Poisoned(p)) => Some(p.into_inner()),
        Err(TryLockError::WouldBlock) => None,
    };
    slot.and_then(|mut slot| {
        let c = slot.get_or_insert_with(|| Box::new(CompressorOxide::new(flags(level))));
        deflate_with(c, input, level)
    })
    .unwrap_or_else(|| miniz_oxide::deflate::compress_to_vec(input, level))
}

fn flags(level: u8) -> u32 {
    create_comp_flags_from_zip_params(level.into(), 0, 0)
}

/// `input` deflated with `c`, reset first; `None` if `c` refuses the work (a bad
/// parameter or a failed output, which a reset compressor writing into a buffer does
/// not meet).
fn deflate_with(c: &mut CompressorOxide, input: &[u8], level: u8) -> Option<Vec<u8>> {
    c.reset();
    c.set_compression_level_raw(level);
    // Room for the input stored uncompressed plus the blocks' headers, which deflate
    // does not exceed; the loop grows the buffer should it ever need more.
    let mut out = vec![0; input.len() + input.len() / 16 + 64];
    let (mut read, mut written) = (0, 0);
    loop {
        let (status, r, w) = compress(c, &input[read..], &mut out[written..], TDEFLFlush::Finish);
        read += r;
        written += w;
        match status {
            TDEFLStatus::Done => {
                out.truncate(written);
                return Some(out);
            }
            TDEFLStatus::Okay if written == out.len() => {
                let more = out.len().max(64);
                out.resize(out.len() + more, 0);
            }
            TDEFLStatus::Okay => {}
            TDEFLStatus::BadParam | TDEFLStatus::PutBufFailed => return None,
        }
    }
}

/// Deflate's highest ratio: a run of one byte, 258 bytes per code of at most two bits,
/// comes to about 1,032 to 1.
const MAX_RATIO: usize = 1_032;

/// `packed` (raw deflate) inflated, if it inflates to exactly `len` bytes. A `len` that
/// `packed` could not inflate to is refused before anything is allocated, so a damaged
/// length cannot ask for more memory than the bytes could fill.
pub(crate) fn inflate_exact(packed: &[u8], len: usize) -> Option<Vec<u8>> {
    if len > packed.len().saturating_mul(MAX_RATIO).saturating_add(64) {
        return None;
    }
    let mut out = vec![0; len];
    let n = miniz_oxide::inflate::decompress_slice_iter_to_slice(
        &mut out,
        std::iter::once(packed),
        false,
        false,
    )
    .ok()?;
    (n == len).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Inputs of many sizes and kinds, in an order that makes each reuse of the
    /// compressor follow a different value: long after short, level 6 after level 1.
    fn inputs() -> Vec<(Vec<u8>, u8)> {
        let mut rng = fastrand::Rng::with_seed(7);
        let mut v = Vec::new();
        for (i, n) in [0usize, 1, 5, 300, 70_000, 12, 40_000, 255, 200_000, 3]
            .into_iter()
            .enumerate()
        {
            let text: Vec<u8> = (0..n)
                .map(|j| match i % 3 {
                    0 => b"<a href=\"/news/2026/11/story-"[j % 29],
                    1 => rng.u8(..),
                    _ => b'a' + (rng.u8(..4)),
                })
                .collect();
            v.push((text, [1, 6, 9, 0][i % 4]));
        }
        v
    }

    #[test]
    fn a_reused_compressor_writes_what_a_fresh_one_writes() {
        let mut one = CompressorOxide::new(flags(1));
        for (input, level) in inputs() {
            let fresh = miniz_oxide::deflate::compress_to_vec(&input, level);
            let reused = deflate_with(&mut one, &input, level);
            assert_eq!(
                reused.as_ref(),
                Some(&fresh),
                "{} bytes, level {level}",
                input.len()
            );
        }
    }

    #[test]
    fn the_shared_compressor_writes_what_a_fresh_one_writes() {
        for (input, level) in inputs() {
            let fresh = miniz_oxide::deflate::compress_to_vec(&input, level);
            assert_eq!(
                deflate(&input, level),
                fresh,
                "{} bytes, level {level}",
                input.len()
            );
        }
    }

    #[test]
    fn what_is_deflated_inflates_back_at_its_length_only() {
        for (input, level) in inputs() {
            let packed = deflate(&input, level);
            assert_eq!(
                inflate_exact(&packed, input.len()).as_deref(),
                Some(&input[..])
            );
            if !input.is_empty() {
                assert_eq!(inflate_exact(&packed, input.len() - 1), None, "too short");
            }
            assert_eq!(inflate_exact(&packed, input.len() + 1), None, "too long");
            if packed.len() > 2 {
                let cut = &packed[..packed.len() / 2];
                assert_eq!(inflate_exact(cut, input.len()), None, "truncated");
            }
        }
    }

    #[test]
    fn garbage_does_not_inflate() {
        assert_eq!(inflate_exact(&[0xff; 40], 100), None);
        assert_eq!(inflate_exact(&[], 10), None);
    }

    #[test]
    fn the_most_compressible_input_inflates_and_more_is_refused_unread() {
        let run = vec![b'x'; 1 << 20];
        let packed = deflate(&run, 9);
        assert!(
            run.len() <= packed.len() * MAX_RATIO,
            "{} bytes",
            packed.len()
        );
        assert_eq!(inflate_exact(&packed, run.len()).as_deref(), Some(&run[..]));
        // A length no deflate stream of these bytes can reach (a damaged value).
        assert_eq!(inflate_exact(&packed[..8], usize::MAX / 2), None);
    }
}
