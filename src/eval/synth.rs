//! The synthetic evolution generator (`docs/design.md` §8): seeded, reproducible list pages
//! that evolve over many versions with known truth, written in the corpus format that
//! [`super::run`] reads (`<site>/NNNN.html`, `meta.json`, `truth.json`, and a `labels.json`
//! for the whole corpus).
//!
//! Six sites, each a different kind of list page, together covering the hard cases of list
//! pages: insertions at the top and in the middle, removals from the bottom, threads bumped
//! to the top by a reply, small title edits, repeated texts ("Read more", "More", dates)
//! with different hrefs, navigation and footer links that never change, counters and
//! clocks, pagination links that shift, pages in GBK and Shift_JIS, 50 to 5,000 links, and
//! one redesign, and one half-loaded page.
//!
//! | site | page | links | charset |
//! |---|---|---|---|
//! | `forum-gbk` | topic rows: title, avatar, author, node, last replier, reply count; node directory; hot topics | ~450 | GBK |
//! | `news` | articles: heading, "Read more" (same href), "N comments" (own href); pagination | ~170 | UTF-8 |
//! | `shop` | offer cards with generic texts: "Details >" and "Order now >" | ~70 | UTF-8 |
//! | `board-sjis` | dated notices; version 15 is cut at 40% of its bytes | ~60 | Shift_JIS |
//! | `biglist` | 2,500 headlines each with a "More" link of its own | ~5,000 | UTF-8 |
//! | `redesign` | a blog index whose layout and URLs change at version 10 | ~40 | UTF-8 |
//!
//! The truth of a step is computed exactly as the real corpus's reference script does (the
//! links of the newer page whose URL no earlier version had, with text), from the link
//! lists the generator wrote, and `labels.json` marks the secondary links (authors,
//! nodes, comments, order buttons, "More", pagination) and the redesign step.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::Path;

use serde_json::json;

use super::synth_kinds as kinds;
use crate::error::Error;

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
const ZH: &[&str] = &[
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
const JA: &[&str] = &[
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
    html: String,
    links: Vec<(String, String)>,
}

/// Collects the links of a page while its HTML is written.
#[derive(Default)]
pub(super) struct Page {
    html: String,
    links: Vec<(String, String)>,
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

fn escape(s: &str) -> String {
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
fn pagination(p: &mut Page, last_id: usize) {
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

// ---------------------------------------------------------------------------------------
// The sites.

struct Topic {
    id: usize,
    title: String,
    author: usize,
    node: usize,
    replier: usize,
    replies: usize,
}

fn forum(rng: &mut Rng, versions: usize) -> Vec<Version> {
    let nodes: Vec<String> = (0..40)
        .map(|i| format!("{}{i}", ZH[i % ZH.len()]))
        .collect();
    let mut next_id = 1000;
    let mut next_user = 0;
    let mut new_topic = |rng: &mut Rng, next_user: &mut usize| {
        next_id += 1;
        *next_user += 1;
        Topic {
            id: next_id,
            title: format!("{} {}", title(rng, ZH, 3, 6, ""), next_id),
            author: *next_user,
            node: rng.below(nodes.len()),
            replier: rng.below(*next_user + 1),
            replies: rng.below(50),
        }
    };
    let mut topics: Vec<Topic> = (0..60).map(|_| new_topic(rng, &mut next_user)).collect();
    let mut out = Vec::new();
    for v in 0..versions {
        if v > 0 {
            // bumps: an existing topic moves to the top with a new last replier
            for _ in 0..rng.range(3, 10) {
                let i = rng.range(1, topics.len() - 1);
                let mut t = topics.remove(i);
                next_user += 1;
                t.replier = next_user;
                t.replies += 1;
                topics.insert(0, t);
            }
            // new topics at the top, and one now and then in the middle
            for _ in 0..rng.range(0, 6) {
                let t = new_topic(rng, &mut next_user);
                topics.insert(0, t);
            }
            if rng.chance(30) {
                let t = new_topic(rng, &mut next_user);
                let at = rng.range(5, 30);
                topics.insert(at, t);
            }
            // a small title edit
            if rng.chance(40) {
                let i = rng.below(topics.len());
                topics[i].title.push_str(" [已解决]");
            }
            // removals from the bottom
            topics.truncate(60);
        }
        let mut p = Page::default();
        head(
            &mut p,
            "gbk",
            "论坛",
            &[("/", "首页"), ("/recent", "最近"), ("/nodes", "节点")],
        );
        p.raw("<div id=\"Main\"><div class=\"box\">");
        for t in &topics {
            p.raw("<div class=\"cell item\"><table><tr><td>");
            p.a_inner(
                &format!("/member/u{}", t.author),
                "",
                &format!("<img src=\"/a/{}.png\" alt=\"u{}\">", t.author, t.author),
                &format!("u{}", t.author),
            );
            p.raw("</td><td><span class=\"item_title\">");
            p.a(&format!("/t/{}", t.id), "topic-link", &t.title);
            p.raw("</span><span class=\"topic_info\">");
            p.a(&format!("/go/n{}", t.node), "node", &nodes[t.node]);
            p.raw(" • <strong>");
            p.a(
                &format!("/member/u{}", t.author),
                "",
                &format!("u{}", t.author),
            );
            p.raw("</strong> • 最后回复来自 <strong>");
            p.a(
                &format!("/member/u{}", t.replier),
                "",
                &format!("u{}", t.replier),
            );
            p.raw("</strong></span></td><td>");
            p.a(&format!("/t/{}", t.id), "count", &t.replies.to_string());
            p.raw("</td></tr></table></div>");
        }
        p.raw("</div></div><div id=\"Rightbar\"><div class=\"box\"><div class=\"cell\">热议主题</div>");
        for t in topics.iter().take(3) {
            p.raw("<div class=\"cell hot\">");
            p.a(&format!("/t/{}", t.id), "", &t.title);
            p.raw("</div>");
        }
        p.raw("</div><div class=\"box\"><div class=\"cell\">节点导航</div><div class=\"cell\">");
        for (i, n) in nodes.iter().enumerate() {
            p.a(&format!("/go/n{i}"), "", n);
            p.raw(" &nbsp; ");
        }
        p.raw("</div></div></div>");
        foot(&mut p, rng, v);
        out.push(p.done());
    }
    out
}

fn news(rng: &mut Rng, versions: usize) -> Vec<Version> {
    let mut next_id = 5000;
    let mut item = |rng: &mut Rng| {
        next_id += 1;
        let mut t = title(rng, WORDS, 4, 8, " ");
        if let Some(f) = t.get_mut(..1) {
            f.make_ascii_uppercase();
        }
        (next_id, t, rng.below(40))
    };
    let mut items: Vec<(usize, String, usize)> = (0..40).map(|_| item(rng)).collect();
    let mut out = Vec::new();
    for v in 0..versions {
        if v > 0 {
            for _ in 0..rng.range(0, 4) {
                let it = item(rng);
                items.insert(0, it);
            }
            if rng.chance(25) {
                let it = item(rng);
                let at = rng.range(3, 20);
                items.insert(at, it);
            }
            if rng.chance(40) {
                let i = rng.below(items.len());
                items[i].1.push_str(" (updated)");
            }
            for it in &mut items {
                if rng.chance(20) {
                    it.2 += 1;
                }
            }
            items.truncate(40);
        }
        let mut p = Page::default();
        head(
            &mut p,
            "utf-8",
            "Daily News",
            &[("/", "Home"), ("/world", "World"), ("/sport", "Sport")],
        );
        p.raw("<main><section class=\"stories\">");
        for (id, t, comments) in &items {
            p.raw("<article class=\"story\"><p class=\"date\">2026-01-01</p><h2>");
            p.a(&format!("/n/{id}"), "", t);
            p.raw("</h2><p>A summary of the story.</p>");
            p.a(&format!("/n/{id}"), "more", "Read more");
            p.raw(" ");
            p.a(
                &format!("/n/{id}/comments"),
                "comments",
                &format!("{comments} comments"),
            );
            p.raw("</article>");
        }
        p.raw("</section>");
        pagination(&mut p, items.last().map_or(0, |i| i.0));
        p.raw("</main>");
        foot(&mut p, rng, v);
        out.push(p.done());
    }
    out
}

fn shop(rng: &mut Rng, versions: usize) -> Vec<Version> {
    let mut next = 300;
    let mut card = |rng: &mut Rng| {
        next += 1;
        (next, rng.range(2, 90))
    };
    let mut cards: Vec<(usize, usize)> = (0..30).map(|_| card(rng)).collect();
    let mut out = Vec::new();
    for v in 0..versions {
        if v > 0 {
            for _ in 0..rng.range(0, 3) {
                let c = card(rng);
                let at = rng.below(cards.len());
                cards.insert(at, c);
            }
            while cards.len() > 30 {
                let at = rng.below(cards.len());
                cards.remove(at);
            }
        }
        let mut p = Page::default();
        head(
            &mut p,
            "utf-8",
            "Offers",
            &[("/", "Shop"), ("/cart", "Cart")],
        );
        p.raw("<div class=\"cards\">");
        for (id, price) in &cards {
            let variant = if id % 3 == 0 { " card--hot" } else { "" };
            let _ = write!(
                p.html,
                "<div class=\"card{variant}\"><div class=\"card--title\">Server {id}<br><span>{price},99 € / month</span></div>\
                 <ul><li>{} vCore</li><li>{} GB RAM</li></ul><div class=\"card--push\">",
                id % 8 + 1,
                id % 16 + 2
            );
            p.a(&format!("/offer/server-{id}/"), "details", "Details >");
            p.raw("</div><div class=\"card--footer\">");
            p.a(
                &format!("/order?product={}", id * 7),
                "button",
                "Order now >",
            );
            p.raw("</div></div>");
        }
        p.raw("</div>");
        foot(&mut p, rng, v);
        out.push(p.done());
    }
    out
}

fn board(rng: &mut Rng, versions: usize) -> Vec<Version> {
    let mut next = 100;
    let mut notice = |rng: &mut Rng| {
        next += 1;
        (next, format!("{}{}", title(rng, JA, 2, 5, ""), next))
    };
    let mut notices: Vec<(usize, String)> = (0..50).map(|_| notice(rng)).collect();
    let mut out = Vec::new();
    for v in 0..versions {
        if v > 0 {
            for _ in 0..rng.range(0, 3) {
                let n = notice(rng);
                notices.insert(0, n);
            }
            if rng.chance(20) {
                let i = rng.below(notices.len());
                notices[i].1.push_str("（更新）");
            }
            notices.truncate(50);
        }
        let mut p = Page::default();
        head(
            &mut p,
            "shift_jis",
            "お知らせ",
            &[("/", "トップ"), ("/about", "概要")],
        );
        p.raw("<div class=\"notices\"><ul>");
        for (id, t) in &notices {
            let _ = write!(
                p.html,
                "<li><span class=\"date\">2026/01/{:02}</span> ",
                id % 28 + 1
            );
            p.a(&format!("/notice/{id}"), "", t);
            p.raw("</li>");
        }
        p.raw("</ul></div>");
        foot(&mut p, rng, v);
        let mut version = p.done();
        if v == TRUNCATED_AT {
            // a half-loaded page: cut at 40% (at a char boundary), its links cut too
            let mut cut = version.html.len() * 2 / 5;
            while !version.html.is_char_boundary(cut) {
                cut -= 1;
            }
            version.html.truncate(cut);
            let shown = version.html.matches("<a ").count();
            version.links.truncate(shown.saturating_sub(1));
        }
        out.push(version);
    }
    out
}

/// The version of `board-sjis` that comes back half-loaded.
pub const TRUNCATED_AT: usize = 15;

fn biglist(rng: &mut Rng, versions: usize) -> Vec<Version> {
    let mut next = 0;
    let mut story = |rng: &mut Rng| {
        next += 1;
        (next, format!("{} {next}", title(rng, WORDS, 3, 7, " ")))
    };
    let mut stories: Vec<(usize, String)> = (0..2500).map(|_| story(rng)).collect();
    let mut out = Vec::new();
    for v in 0..versions {
        if v > 0 {
            for _ in 0..rng.range(10, 50) {
                let s = story(rng);
                stories.insert(0, s);
            }
            for _ in 0..rng.range(0, 20) {
                let s = story(rng);
                let at = rng.below(stories.len());
                stories.insert(at, s);
            }
            for _ in 0..rng.range(0, 10) {
                let i = rng.below(stories.len());
                stories[i].1.push('!');
            }
            stories.truncate(2500);
        }
        let mut p = Page::default();
        head(&mut p, "utf-8", "All the headlines", &[("/", "Front")]);
        p.raw("<table><tr><td class=\"col\">");
        for (id, t) in &stories {
            p.a(&format!("/story/{id}"), "", t);
            p.raw(" ");
            p.a(&format!("/story/{id}/full"), "more", "More");
            p.raw("<br>");
        }
        p.raw("</td></tr></table>");
        foot(&mut p, rng, v);
        out.push(p.done());
    }
    out
}

/// The version at which `redesign` changes its layout and URLs.
pub const REDESIGN_AT: usize = 10;

fn redesign(rng: &mut Rng, versions: usize) -> Vec<Version> {
    let mut next = 0;
    let mut post = |rng: &mut Rng| {
        next += 1;
        (next, title(rng, WORDS, 2, 6, " "))
    };
    let mut posts: Vec<(usize, String)> = (0..30).map(|_| post(rng)).collect();
    let mut out = Vec::new();
    for v in 0..versions {
        if v > 0 {
            if rng.chance(60) {
                let p = post(rng);
                posts.insert(0, p);
            }
            posts.truncate(30);
        }
        let mut p = Page::default();
        if v < REDESIGN_AT {
            head(&mut p, "utf-8", "Blog", &[("/", "Home"), ("/tags", "Tags")]);
            p.raw("<ul class=\"posts\">");
            for (id, t) in &posts {
                p.raw("<li>");
                p.a(&format!("/post/{id}"), "", t);
                p.raw("</li>");
            }
            p.raw("</ul>");
        } else {
            p.raw("<!doctype html><html><head><meta charset=\"utf-8\"><title>Blog</title></head><body>\
                   <div class=\"topbar\"><div class=\"brand\">");
            p.a("/v2/", "", "My Blog");
            p.raw("</div><div class=\"tabs\">");
            for (path, text) in [
                ("/v2/archive", "Archive"),
                ("/v2/topics", "Topics"),
                ("/v2/feed", "Feed"),
            ] {
                p.raw("<span class=\"tab\">");
                p.a(path, "", text);
                p.raw("</span>");
            }
            p.raw("</div></div><div class=\"grid\">");
            for (id, t) in &posts {
                p.raw("<div class=\"tile\"><div class=\"tile-title\">");
                p.a(&format!("/v2/{id}-{}", t.replace(' ', "-")), "", t);
                p.raw("</div></div>");
            }
            p.raw("</div>");
        }
        foot(&mut p, rng, v);
        out.push(p.done());
    }
    out
}

// ---------------------------------------------------------------------------------------

/// The sites: name, page URL, charset, generator.
type Generator = fn(&mut Rng, usize) -> Vec<Version>;
const SITES: &[(&str, &str, &str, Generator)] = &[
    ("forum-gbk", "https://forum.example/", "gbk", forum),
    ("news", "https://news.example/", "utf-8", news),
    ("shop", "https://shop.example/", "utf-8", shop),
    ("board-sjis", "https://board.example/", "shift_jis", board),
    ("biglist", "https://big.example/", "utf-8", biglist),
    ("redesign", "https://blog.example/", "utf-8", redesign),
    (
        "turnover",
        "https://paper.example/economy/",
        "utf-8",
        kinds::turnover,
    ),
    ("ticker", "https://school.example/", "utf-8", kinds::ticker),
    (
        "stats-office",
        "https://stats.example/",
        "utf-8",
        kinds::stats_office,
    ),
    (
        "theme-upgrade",
        "https://notes.example/",
        "utf-8",
        kinds::theme_upgrade,
    ),
    (
        "releases",
        "https://tool.example/releases/",
        "utf-8",
        kinds::releases,
    ),
];

fn io(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Failed(format!("cannot write {}: {e}", path.display()))
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    std::fs::write(path, bytes).map_err(|e| io(path, e))
}

/// Writes the synthetic corpus under `dir` (created if needed): `versions` versions of
/// each site, from `seed`. The same seed always writes the same bytes.
pub fn generate(dir: &Path, seed: u64, versions: usize) -> Result<(), Error> {
    if versions < 2 {
        return Err(Error::Usage("--versions must be at least 2".into()));
    }
    std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    for (k, &(name, url, charset, gen)) in SITES.iter().enumerate() {
        let mut rng = Rng::new(seed.wrapping_mul(1_000_003).wrapping_add(k as u64));
        let site_dir = dir.join(name);
        std::fs::create_dir_all(&site_dir).map_err(|e| io(&site_dir, e))?;
        let encoding = encoding_rs::Encoding::for_label(charset.as_bytes())
            .expect("invariant: the built-in charsets are known");
        let base = url::Url::parse(url).expect("invariant: the built-in URLs parse");
        let abs = |path: &str| base.join(path).map(String::from).unwrap_or_default();
        let mut known_urls: HashSet<String> = HashSet::new();
        let mut pairs = Vec::new();
        let mut snapshots = Vec::new();
        let mut prev = String::new();
        for (v, version) in gen(&mut rng, versions).into_iter().enumerate() {
            let file = format!("{v:04}.html");
            let (bytes, _, _) = encoding.encode(&version.html);
            write(&site_dir.join(&file), &bytes)?;
            snapshots.push(json!({"file": file}));
            let links: Vec<(String, String)> = version
                .links
                .iter()
                .map(|(p, t)| (abs(p), t.clone()))
                .collect();
            if v > 0 {
                let mut reported = HashSet::new();
                let new: Vec<_> = links
                    .iter()
                    .filter(|(h, t)| {
                        !known_urls.contains(h) && !t.is_empty() && reported.insert(h.clone())
                    })
                    .map(|(h, t)| json!({"href": h, "text": t}))
                    .collect();
                pairs.push(json!({"prev": prev, "cur": file, "new": new}));
            }
            known_urls.extend(links.into_iter().map(|(h, _)| h));
            prev = file;
        }
        let meta = json!({"slug": name, "url": url, "declared_charset": charset,
                          "capture_method": "sitefeed synthetic generator", "seed": seed,
                          "snapshots": snapshots});
        let truth = json!({"method": "make_truth.py's definition, from the generated link lists",
                           "pairs": pairs});
        write(&site_dir.join("meta.json"), meta.to_string().as_bytes())?;
        write(&site_dir.join("truth.json"), truth.to_string().as_bytes())?;
    }
    let mut labels = json!({
        "_doc": "Secondary links of the synthetic sites and the redesign step (see src/eval/synth.rs).",
        "forum-gbk": {"not_entries": ["/member/", "/go/"]},
        "news": {"not_entries": ["/comments$", "[?&]page="]},
        "shop": {"not_entries": ["/order\\?"]},
        "board-sjis": {"not_entries": []},
        "biglist": {"not_entries": ["/full$"]},
        "redesign": {"not_entries": [], "chrome_steps": [REDESIGN_AT - 1]},
    });
    if let (Some(all), serde_json::Value::Object(more)) = (labels.as_object_mut(), kinds::labels())
    {
        all.extend(more);
    }
    write(&dir.join("labels.json"), labels.to_string().as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_writes_the_same_corpus() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        generate(a.path(), 7, 3).unwrap();
        generate(b.path(), 7, 3).unwrap();
        for site in ["forum-gbk", "news", "biglist"] {
            for f in ["0000.html", "0002.html", "truth.json"] {
                let x = std::fs::read(a.path().join(site).join(f)).unwrap();
                let y = std::fs::read(b.path().join(site).join(f)).unwrap();
                assert_eq!(x, y, "{site}/{f}");
            }
        }
        // the GBK page is GBK
        let gbk = std::fs::read(a.path().join("forum-gbk/0000.html")).unwrap();
        assert!(std::str::from_utf8(&gbk).is_err());
    }
}
