//! The building blocks of the synthetic sites: a seeded generator ([`Rng`]), words in
//! three languages, and a page builder that records every link it writes (the truth).

use std::fmt::Write as _;

/// A small deterministic generator (SplitMix64): the corpus depends on the seed only.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    pub fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }
}

pub(super) const WORDS: &[&str] = &[
    "market",
    "river",
    "council",
    "budget",
    "school",
    "storm",
    "festival",
    "report",
    "bridge",
    "library",
    "election",
    "harvest",
    "museum",
    "station",
    "garden",
    "vaccine",
    "court",
    "airport",
    "concert",
    "forest",
    "energy",
    "housing",
    "railway",
    "summit",
    "hospital",
    "science",
    "football",
    "startup",
    "climate",
    "archive",
    "network",
    "satellite",
    "island",
];
pub(super) const ZH: &[&str] = &[
    "程序员",
    "求助",
    "分享",
    "发现",
    "问题",
    "服务器",
    "手机",
    "工作",
    "城市",
    "生活",
    "推荐",
    "讨论",
    "数据库",
    "键盘",
    "显示器",
    "旅行",
    "租房",
    "面试",
    "开源",
    "经验",
];
pub(super) const JA: &[&str] = &[
    "お知らせ",
    "研修",
    "募集",
    "開催",
    "報告",
    "更新",
    "大会",
    "資料",
    "活動",
    "案内",
    "申込",
    "変更",
    "結果",
    "講座",
    "支援",
];

/// A title of `lo..=hi` words.
pub(super) fn title(rng: &mut Rng, words: &[&str], lo: usize, hi: usize, sep: &str) -> String {
    let n = rng.range(lo, hi);
    (0..n)
        .map(|_| *rng.pick(words))
        .collect::<Vec<_>>()
        .join(sep)
}

/// One version of a page: its HTML and its links `(path, text)` in page order.
pub(super) struct Version {
    pub(super) html: String,
    pub(super) links: Vec<(String, String)>,
}

/// Collects the links of a page while its HTML is written.
#[derive(Default)]
pub(super) struct Page {
    pub(super) html: String,
    pub(super) links: Vec<(String, String)>,
}

impl Page {
    pub(super) fn raw(&mut self, s: &str) {
        self.html.push_str(s);
    }

    /// `<a href=path class=class>text</a>`; `text` is plain (no markup) unless `inner`.
    pub(super) fn a(&mut self, path: &str, class: &str, text: &str) {
        self.a_inner(path, class, &escape(text), text);
    }

    pub(super) fn a_inner(&mut self, path: &str, class: &str, inner: &str, text: &str) {
        let class = if class.is_empty() {
            String::new()
        } else {
            format!(" class=\"{class}\"")
        };
        let _ = write!(self.html, "<a href=\"{}\"{class}>{inner}</a>", escape(path));
        self.links.push((path.to_owned(), text.to_owned()));
    }

    pub(super) fn done(self) -> Version {
        Version {
            html: self.html,
            links: self.links,
        }
    }
}

pub(super) fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

pub(super) fn head(p: &mut Page, charset: &str, title: &str, nav: &[(&str, &str)]) {
    let _ = write!(
        p.html,
        "<!doctype html><html><head><meta charset=\"{charset}\"><title>{title}</title>\
         <style>.x{{color:red}}</style><script>var t = '<a href=\"/js\">js</a>';</script></head><body>\
         <header><nav class=\"menu\"><ul>"
    );
    for (path, text) in nav {
        p.raw("<li>");
        p.a(path, "", text);
        p.raw("</li>");
    }
    p.raw("</ul></nav></header>");
}

pub(super) fn foot(p: &mut Page, rng: &mut Rng, version: usize) {
    p.raw("<footer><ul class=\"links\">");
    for (path, text) in [
        ("/about", "About"),
        ("/contact", "Contact"),
        ("/privacy", "Privacy"),
    ] {
        p.raw("<li>");
        p.a(path, "", text);
        p.raw("</li>");
    }
    // counters and clocks: change every version, never links of their own
    let _ = write!(
        p.html,
        "</ul><p>Visitors online: {} · generated at 2026-01-{:02} {:02}:{:02}</p></footer></body></html>",
        rng.range(100, 9999),
        version % 28 + 1,
        rng.below(24),
        rng.below(60)
    );
}

/// Pagination that shifts with the list: "Next" points past the last entry shown.
pub(super) fn pagination(p: &mut Page, last_id: usize) {
    p.raw("<div class=\"pager\">");
    for page in 2..=4 {
        p.a(
            &format!("/?page={page}&before={last_id}"),
            "page",
            &page.to_string(),
        );
        p.raw(" ");
    }
    p.a(&format!("/?page=2&before={last_id}"), "next", "Next »");
    p.raw("</div>");
}
