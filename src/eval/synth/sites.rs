//! The six sites of the synthetic corpus (the table in [`super`]): each a generator of
//! versions of one list page.

use std::fmt::Write as _;

use super::page::{foot, head, pagination, title, Page, Rng, Version, JA, WORDS, ZH};

struct Topic {
    id: usize,
    title: String,
    author: usize,
    node: usize,
    replier: usize,
    replies: usize,
}

pub(super) fn forum(rng: &mut Rng, versions: usize) -> Vec<Version> {
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

pub(super) fn news(rng: &mut Rng, versions: usize) -> Vec<Version> {
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

pub(super) fn shop(rng: &mut Rng, versions: usize) -> Vec<Version> {
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

pub(super) fn board(rng: &mut Rng, versions: usize) -> Vec<Version> {
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
pub(crate) const TRUNCATED_AT: usize = 15;

pub(super) fn biglist(rng: &mut Rng, versions: usize) -> Vec<Version> {
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
pub(crate) const REDESIGN_AT: usize = 10;

pub(super) fn redesign(rng: &mut Rng, versions: usize) -> Vec<Version> {
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
