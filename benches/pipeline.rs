//! Extract + fingerprint + diff of a ~100 KB page with ~500 links against its previous
//! version with 5 new items (the check pipeline's benchmark), plus the diff alone at
//! larger n.

use std::fmt::Write;

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use sitefeed::extract::{self, fingerprint};
use sitefeed::model::Link;

/// A list page of `n` entries starting at entry `first`, padded to look like a real page.
fn page(first: usize, n: usize) -> String {
    let mut s = String::from("<!doctype html><html><head><meta charset=utf-8><title>Board</title><style>li{margin:0}</style></head><body><nav>");
    for i in 0..20 {
        let _ = write!(s, "<a href=\"/section/{i}\">Section {i}</a> ");
    }
    s.push_str("</nav><ul class=\"list\">");
    for i in (first..first + n).rev() {
        let _ = write!(
            s,
            "<li class=\"entry\"><span class=\"date\">2026-11-{:02}</span> <a href=\"/notice/{i}.html\" title=\"Notice {i}\">Notice number {i} about the weekly meeting schedule</a> <a href=\"/notice/{i}.html#more\">Read more</a> <p>A short summary of notice {i} so that the page weighs what real pages weigh, with a second sentence that carries on for a while longer. Dates, places and whom to ask are on the notice.</p></li>",
            i % 28 + 1
        );
    }
    s.push_str(
        "</ul><footer><a href=\"/contact\">Contact</a> Visits: 12345</footer></body></html>",
    );
    s
}

fn links_of(html: &str, base: &url::Url) -> Vec<Link> {
    extract::extract(html, base, None)
        .expect("bench page extracts")
        .links
}

fn bench(c: &mut Criterion) {
    let base = url::Url::parse("https://board.example/list/").expect("url");
    let old_html = page(0, 240);
    let new_html = page(5, 240);
    eprintln!("page size {} bytes", new_html.len());
    let old = links_of(&old_html, &base);
    eprintln!("links per page {}", old.len());

    c.bench_function("check_pipeline_100kb_500_links_5_new", |b| {
        b.iter(|| {
            let body = black_box(new_html.as_bytes());
            let raw = fingerprint::raw(body);
            let decoded = extract::charset::decode(body, Some("text/html; charset=utf-8"));
            let page = extract::extract(&decoded.text, &base, None).expect("extracts");
            let fp = fingerprint::links(&page.links);
            let new = sitefeed::diff::new_links(&old, &page.links, &|_| false);
            assert_eq!(new.len(), 5);
            black_box((raw, fp, new))
        });
    });

    let mut g = c.benchmark_group("diff_only");
    for n in [100usize, 1000, 10_000] {
        for pct in [1usize, 10] {
            let k = (n * pct / 100).max(1);
            // Newest first, as on a list page: k new entries at the top, k dropped at the bottom.
            let old: Vec<Link> = (0..n)
                .rev()
                .map(|i| Link::new(format!("Item {i}"), format!("https://x.example/{i}")))
                .collect();
            let new: Vec<Link> = (k..n + k)
                .rev()
                .map(|i| Link::new(format!("Item {i}"), format!("https://x.example/{i}")))
                .collect();
            g.bench_with_input(
                BenchmarkId::new(format!("{pct}pct"), n),
                &(old, new),
                |b, (old, new)| {
                    b.iter(|| {
                        sitefeed::diff::new_links(black_box(old), black_box(new), &|_| false)
                    });
                },
            );
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
