//! Differ benchmarks (filled in below).
fn main() {}
