//! Any bytes as a page: decoding, link extraction, the structural pass, entry grouping and
//! item selection never panic, and their outputs agree in length and range.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sitefeed::{entries, extract};

fuzz_target!(|data: &[u8]| {
    let base = url::Url::parse("https://example.com/dir/page.html").expect("base URL parses");
    let decoded = extract::charset::decode(data, None);
    let Ok(page) = extract::extract(&decoded.text, &base, None) else {
        return;
    };
    for l in &page.links {
        assert!(l.url.starts_with("http://") || l.url.starts_with("https://"));
    }
    let ctx = entries::contexts(&decoded.text, &base, &page.links);
    assert_eq!(ctx.len(), page.links.len());
    let e = entries::group(&page.links, &ctx);
    assert_eq!(e.entry_of.len(), page.links.len());
    for &k in &e.entry_of {
        assert!(e.main[k] < page.links.len());
        assert_eq!(e.entry_of[e.main[k]], k, "an entry's main link belongs to it");
    }
    let all: Vec<usize> = (0..page.links.len()).collect();
    let items = entries::select(&[], &page.links, &ctx, &all);
    assert!(items.windows(2).all(|w| w[0] < w[1]));
});
