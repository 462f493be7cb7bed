//! The cost of full text per item: extracting the main article (`sitefeed::fulltext::
//! extract`, Mozilla's Readability algorithm by dom_smoothie, relative URLs made
//! absolute) from a generated article page of about 75 KB (English) and about 80 KB
//! (Chinese), each with a 40-entry menu, a sidebar, comments and a footer around 250–300
//! paragraphs. What one full-text item costs the CPU pool, beside its one polite fetch.
//!
//! Run: `cargo bench --bench fulltext` (numbers in `bench/README.md`).

use std::fmt::Write as _;

use criterion::{black_box, criterion_group, criterion_main, Criterion};

/// A news article page of `paras` paragraphs in `lang` ("en" or "zh"), with its chrome.
pub fn article_page(lang: &str, paras: usize) -> String {
    let mut nav = String::new();
    for i in 0..40 {
        let _ = write!(nav, "<li><a href=\"/section/{i}\">Section {i}</a></li>");
    }
    let mut side = String::new();
    for i in 0..20 {
        let _ = write!(
            side,
            "<li><a href=\"/story/{i}\">Another headline number {i} in the sidebar</a></li>"
        );
    }
    let mut body = String::new();
    for i in 0..paras {
        let p = if lang == "zh" {
            format!("第{i}段：北京大学今天发布了新的研究成果，研究人员表示该项目在过去三年中取得了重要进展，并计划在明年继续扩大实验规模，以便更好地服务社会。")
        } else {
            format!("Paragraph {i}: the city council met on Tuesday evening to discuss the budget for the coming year, and members argued at length about the cost of repairing the old bridge over the river.")
        };
        let _ = writeln!(body, "<p>{p} <a href=\"/rel/{i}\">more</a></p>");
        if i % 10 == 5 {
            body.push_str("<figure><img src=\"img/photo.jpg\" alt=\"\"><figcaption>A photo</figcaption></figure>");
        }
    }
    format!(
        "<!doctype html><html lang=\"{lang}\"><head><meta charset=\"utf-8\"><title>Budget row | The Daily</title>\
         <script>var x = 1;</script></head><body><header><nav><ul>{nav}</ul></nav></header>\
         <div class=\"wrap\"><main><article><h1>Budget row over the old bridge</h1>\
         <p class=\"byline\">By A. Writer</p>{body}</article>\
         <section class=\"comments\"><h3>Comments</h3><p>Great article.</p></section></main>\
         <aside><h3>Most read</h3><ul>{side}</ul></aside></div>\
         <footer><p>Copyright The Daily. All rights reserved.</p><ul>{nav}</ul></footer></body></html>"
    )
}

fn bench(c: &mut Criterion) {
    let url = "https://news.example.org/2024/05/budget.html";
    for (lang, paras) in [("en", 250), ("zh", 300)] {
        let page = article_page(lang, paras);
        let article = sitefeed::fulltext::extract(&page, url).expect("an article");
        eprintln!(
            "{lang}: page {} KB, article {} KB",
            page.len() / 1024,
            article.len() / 1024
        );
        c.bench_function(
            &format!("fulltext extract {lang} {} KB", page.len() / 1024),
            |b| {
                b.iter(|| sitefeed::fulltext::extract(black_box(&page), url));
            },
        );
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30);
    targets = bench
}
criterion_main!(benches);
