//! The cost of entry content per check: the one pass over a real page (links and
//! structure) and the entry decision alone, beside the same pass noting where each
//! element's markup stands plus the content (summary, date, picture, author) of every
//! entry of the page, each read from its block's markup (a check reads only its new
//! entries'); and the date parser on its own.
//! Pages from the snapshot corpus (`$SITEFEED_CORPUS`, else `../shared/corpus`); without
//! it the page benchmarks are skipped.
//!
//! Run: `cargo bench --bench content` (numbers in `bench/README.md`).

use std::path::PathBuf;

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use sitefeed::entries::{self, content, decide};
use sitefeed::extract;
use url::Url;

const PAGES: &[(&str, &str, &str)] = &[
    (
        "zeit",
        "zeit-wirtschaft/0030.html",
        "https://www.zeit.de/wirtschaft/index",
    ),
    ("v2ex", "v2ex-frontpage/0030.html", "https://v2ex.com/"),
    (
        "scout",
        "scout-or-jp-member/0030.html",
        "https://www.scout.or.jp/member",
    ),
    (
        "apple",
        "apple-newsroom/0030.html",
        "https://www.apple.com/newsroom/",
    ),
];

fn corpus() -> Option<PathBuf> {
    let dir = std::env::var_os("SITEFEED_CORPUS").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"),
        PathBuf::from,
    );
    dir.join("README.md").is_file().then_some(dir)
}

fn decision(links: &[sitefeed::model::Link], st: &entries::Structure) -> decide::Decision {
    decide::decide(
        &decide::Prior::default(),
        links,
        st,
        true,
        &decide::Params::default(),
        &mut |_: &str| Ok::<bool, std::convert::Infallible>(false),
    )
    .unwrap_or_else(|e| match e {})
}

#[allow(clippy::many_single_char_names, reason = "criterion's usual names")]
fn pages(c: &mut Criterion) {
    let Some(dir) = corpus() else {
        eprintln!("SKIPPED: no snapshot corpus");
        return;
    };
    let mut g = c.benchmark_group("content");
    g.sample_size(20);
    for (name, file, url) in PAGES {
        let Ok(body) = std::fs::read(dir.join(file)) else {
            continue;
        };
        let page = Url::parse(url).expect("url");
        let html = extract::charset::decode_for_url(&body, None, &page).text;
        g.bench_function(format!("{name}/pass+decide"), |b| {
            b.iter(|| {
                let p = extract::parse(black_box(&html), &page, None, extract::Gather::Structure)
                    .expect("parse");
                black_box(decision(&p.page.links, &p.structure).items.len())
            });
        });
        g.bench_function(format!("{name}/pass+decide+content of every entry"), |b| {
            b.iter(|| {
                let p = extract::parse(black_box(&html), &page, None, extract::Gather::Content)
                    .expect("parse");
                let (links, st) = (&p.page.links, &p.structure);
                let d = decision(links, st);
                let mut n = 0;
                for &main in &d.entries {
                    let e = content::EntryRef {
                        main,
                        block: d.block_of.get(main).copied().flatten(),
                        links,
                        ctx: &st.ctx,
                        page: &page,
                    };
                    let Some(facts) = content::element(&e).and_then(|id| st.facts_for(&html, id))
                    else {
                        continue;
                    };
                    let got = content::content(&facts, &e, 1_800_000_000, chrono_tz::Tz::UTC);
                    n += usize::from(got.summary.is_some());
                }
                black_box(n)
            });
        });
    }
    g.finish();
}

fn dates(c: &mut Criterion) {
    let texts = [
        "Posted 2024-05-01 10:30 by Jane",
        "1. Mai 2024, 14:05 Uhr",
        "1 小时 13 分钟前 • 最后回复来自",
        "Read more about the council's budget for next year and the new libraries",
    ];
    c.bench_function("date/find (4 texts)", |b| {
        b.iter(|| {
            for t in &texts {
                black_box(entries::date::find(
                    black_box(t),
                    1_714_737_600,
                    chrono_tz::Tz::UTC,
                ));
            }
        });
    });
}

criterion_group!(benches, pages, dates);
criterion_main!(benches);
