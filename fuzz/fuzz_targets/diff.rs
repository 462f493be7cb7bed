//! Any two arrays of keys: the improved LCS never panics, stays within its limits, and
//! keeps its guarantees (inserted = keys absent from old; inserted and moved disjoint and
//! increasing; the LCS length is a common subsequence length).
#![no_main]

use std::collections::HashSet;

use libfuzzer_sys::fuzz_target;
use sitefeed::diff::{baseline, diff_keys};

fuzz_target!(|data: &[u8]| {
    // First byte: where old ends; keys from a small alphabet so that repeats are common.
    let Some((&split, rest)) = data.split_first() else {
        return;
    };
    let split = (split as usize * rest.len()) / 256;
    let old: Vec<u32> = rest[..split].iter().map(|&b| u32::from(b % 16)).collect();
    let new: Vec<u32> = rest[split..].iter().map(|&b| u32::from(b % 16)).collect();
    let out = diff_keys(&old, &new, 64);
    let in_old: HashSet<u32> = old.iter().copied().collect();
    let expect: Vec<usize> = (0..new.len()).filter(|&j| !in_old.contains(&new[j])).collect();
    assert_eq!(out.inserted, expect);
    assert_eq!(out.inserted, baseline::set_difference(&old, &new));
    assert!(out.moved.windows(2).all(|w| w[0] < w[1]));
    assert!(out.moved.iter().all(|j| !out.inserted.contains(j)));
    assert!(out.lcs_len <= old.len().min(new.len()));
    if !out.fallback {
        assert_eq!(out.lcs_len + out.inserted.len() + out.moved.len(), new.len());
        let myers = baseline::myers(&old, &new);
        assert_eq!(new.len() - myers.len(), out.lcs_len, "both find an LCS");
    }
});
