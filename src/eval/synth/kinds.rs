//! Synthetic sites for the kinds of page change that are common on the web and that a
//! detector tuned on a few sites gets wrong (see `docs/design.md`, "Entries"): each is
//! seeded, with truth computed like the other synthetic sites and labels that say which
//! new links are not entries.
//!
//! | site | what happens |
//! |---|---|
//! | `turnover` | a news section checked monthly: most teasers replaced at every step, teasers of three kinds (different class names), once the list grows threefold |
//! | `ticker` | a notice board whose new notices also show in a ticker above the page and a "latest" box below it |
//! | `stats-office` | a statistics page with few list links; a redesign brings new menus, footer badges and unrendered template links, and a real new publication in the same step |
//! | `theme-upgrade` | a blog whose theme upgrade changes every permalink (titles kept); the next post comes one step later |
//! | `releases` | a release list: each release links its notes and its tarball in four formats |

use super::page::{foot, head, title, Page, Rng, Version, WORDS};

/// The step at which `stats-office` and `theme-upgrade` change their layout.
pub(super) const CHANGE_AT: usize = 12;

fn teaser(p: &mut Page, class: &str, id: usize, t: &str) {
    p.raw(&format!(
        "<div class=\"{class}\"><img src=\"/img/{id}.jpg\" alt=\"\"><span class=\"kicker\">Economy</span>"
    ));
    p.a(
        &format!("/economy/2024-{:02}/{}", id % 12 + 1, slug(t, id)),
        "",
        t,
    );
    p.raw("<p>What happened, and what follows from it.</p></div>");
}

fn slug(t: &str, id: usize) -> String {
    format!("{}-{id}", t.to_ascii_lowercase().replace(' ', "-"))
}

pub(super) fn turnover(rng: &mut Rng, versions: usize) -> Vec<Version> {
    let mut next = 100;
    let mut article = |rng: &mut Rng| {
        next += 1;
        (next, title(rng, WORDS, 4, 9, " "))
    };
    let mut list: Vec<(usize, String)> = (0..24).map(|_| article(rng)).collect();
    let grow_at = versions / 2;
    let mut out = Vec::new();
    for v in 0..versions {
        if v > 0 {
            let keep = if v == grow_at { 24 } else { rng.range(0, 8) };
            let fresh = if v == grow_at { 48 } else { 24 - keep };
            list.truncate(keep.min(list.len()));
            for _ in 0..fresh {
                let a = article(rng);
                list.insert(0, a);
            }
            if v != grow_at {
                list.truncate(24);
            }
        }
        let mut p = Page::default();
        head(
            &mut p,
            "utf-8",
            "Economy",
            &[
                ("/", "Home"),
                ("/economy/", "Economy"),
                ("/politics/", "Politics"),
            ],
        );
        p.raw("<main><div class=\"section\"><h1>Economy</h1>");
        for (k, (id, t)) in list.iter().enumerate() {
            let class = ["teaser teaser--wide", "teaser-small", "opinion-box"][k % 3];
            teaser(&mut p, class, *id, t);
        }
        p.raw("</div></main>");
        foot(&mut p, rng, v);
        out.push(p.done());
    }
    out
}

pub(super) fn ticker(rng: &mut Rng, versions: usize) -> Vec<Version> {
    let mut next = 700;
    let mut notice = |rng: &mut Rng| {
        next += 1;
        (next, title(rng, WORDS, 4, 8, " "))
    };
    let mut list: Vec<(usize, String)> = (0..20).map(|_| notice(rng)).collect();
    let mut out = Vec::new();
    for v in 0..versions {
        if v > 0 && rng.chance(70) {
            let n = notice(rng);
            list.insert(0, n);
            list.truncate(20);
        }
        let mut p = Page::default();
        head(
            &mut p,
            "utf-8",
            "Notices",
            &[("/", "Home"), ("/notices/", "Notices")],
        );
        p.raw("<div class=\"ticker\"><b>New:</b> ");
        let (id, t) = &list[0];
        p.a(&format!("/notice/{id}.html"), "", t);
        p.raw("</div><div class=\"board\"><ul class=\"notices\">");
        for (id, t) in &list {
            p.raw("<li><span class=\"date\">2024-05-01</span> ");
            p.a(&format!("/notice/{id}.html"), "", t);
            p.raw("</li>");
        }
        p.raw("</ul></div><div class=\"latest\"><h3>Latest</h3>");
        for (id, t) in list.iter().take(3) {
            p.raw("<p>");
            p.a(&format!("/notice/{id}.html"), "", t);
            p.raw("</p>");
        }
        p.raw("</div>");
        foot(&mut p, rng, v);
        out.push(p.done());
    }
    out
}

pub(super) fn stats_office(rng: &mut Rng, versions: usize) -> Vec<Version> {
    let mut next = 40;
    let mut publication = |rng: &mut Rng| {
        next += 1;
        (
            next,
            format!("Statistical report: {}", title(rng, WORDS, 3, 6, " ")),
        )
    };
    let mut list: Vec<(usize, String)> = (0..5).map(|_| publication(rng)).collect();
    let mut out = Vec::new();
    for v in 0..versions {
        if v > 0 && (v == CHANGE_AT || rng.chance(15)) {
            let n = publication(rng);
            list.insert(0, n);
            list.truncate(5);
        }
        let mut p = Page::default();
        if v < CHANGE_AT {
            head(
                &mut p,
                "utf-8",
                "Statistics",
                &[("/", "Home"), ("/data/", "Data")],
            );
            p.raw("<div class=\"menu\">");
            for (path, text) in [
                ("/data/population", "Population"),
                ("/data/prices", "Prices"),
            ] {
                p.a(path, "", text);
                p.raw(" ");
            }
            p.raw("</div>");
        } else {
            // The redesign: a new top bar, a big menu outside any nav element, template
            // links the CMS forgot to render, badges in the footer.
            p.raw("<!doctype html><html><head><meta charset=\"utf-8\"><title>Statistics</title></head><body><div class=\"topbar\">");
            for (path, text) in [
                ("/v2/home", "Home"),
                ("/v2/topics", "Topics"),
                ("/v2/press", "Press"),
                ("/v2/open-data", "Open data"),
                ("/v2/about", "About us"),
                ("/v2/contact", "Contact"),
                ("/$helper.path('search')", "Search"),
                ("/$helper.path('login')", "Log in"),
            ] {
                p.raw("<div class=\"topbar-item\">");
                p.a(path, "", text);
                p.raw("</div>");
            }
            p.raw("</div>");
        }
        p.raw("<div class=\"content\"><h1>Publications</h1><ul class=\"publications\">");
        for (id, t) in &list {
            p.raw("<li><span class=\"date\">2024-03-01</span> ");
            p.a(&format!("/publications/report-{id}.pdf"), "", t);
            p.raw("</li>");
        }
        p.raw("</ul></div>");
        if v >= CHANGE_AT {
            p.raw("<div class=\"badges\">");
            for b in ["/badge/a11y", "/badge/valid"] {
                p.a_inner(b, "", "<img src=\"/b.png\" alt=\"\">", "");
            }
            p.raw("</div>");
        }
        foot(&mut p, rng, v);
        out.push(p.done());
    }
    out
}

pub(super) fn theme_upgrade(rng: &mut Rng, versions: usize) -> Vec<Version> {
    let mut next = 0;
    let mut post = |rng: &mut Rng| {
        next += 1;
        (next, title(rng, WORDS, 3, 7, " "))
    };
    let mut list: Vec<(usize, String)> = (0..15).map(|_| post(rng)).collect();
    let mut out = Vec::new();
    for v in 0..versions {
        if v > 0 && v != CHANGE_AT && rng.chance(40) {
            let n = post(rng);
            list.insert(0, n);
            list.truncate(15);
        }
        let mut p = Page::default();
        head(
            &mut p,
            "utf-8",
            "A blog",
            &[("/", "Home"), ("/about", "About")],
        );
        p.raw("<main>");
        for (id, t) in &list {
            let url = if v < CHANGE_AT {
                format!("/?p={id}")
            } else {
                format!("/{}/{:02}/{}/", 2020 + id / 12, id % 12 + 1, slug(t, *id))
            };
            p.raw("<article class=\"post\"><h2>");
            p.a(&url, "", t);
            p.raw("</h2><p class=\"meta\">Posted in ");
            p.a("/category/notes", "", "Notes");
            p.raw("</p><p>The first lines of the post.</p></article>");
        }
        p.raw("</main>");
        foot(&mut p, rng, v);
        out.push(p.done());
    }
    out
}

pub(super) fn releases(rng: &mut Rng, versions: usize) -> Vec<Version> {
    let mut minor = 0;
    let mut list: Vec<(String, String)> = Vec::new();
    let mut release = |rng: &mut Rng| {
        minor += 1;
        (format!("1.{minor}.0"), title(rng, WORDS, 2, 4, " "))
    };
    for _ in 0..8 {
        let r = release(rng);
        list.insert(0, r);
    }
    let mut out = Vec::new();
    for v in 0..versions {
        if v > 0 && rng.chance(35) {
            let r = release(rng);
            list.insert(0, r);
            list.truncate(8);
        }
        let mut p = Page::default();
        head(
            &mut p,
            "utf-8",
            "Releases",
            &[("/", "Home"), ("/docs/", "Docs")],
        );
        p.raw("<main>");
        for (version, name) in &list {
            p.raw("<section class=\"release\"><h2>");
            p.a(
                &format!("/releases/{version}/"),
                "",
                &format!("Version {version} “{name}”"),
            );
            p.raw("</h2><p>Released 2024-05-01.</p><ul>");
            for ext in ["tar.gz", "tar.xz", "zip", "tar.gz.sig"] {
                p.raw("<li>");
                p.a(
                    &format!("/dl/tool-{version}.{ext}"),
                    "",
                    &format!("tool-{version}.{ext}"),
                );
                p.raw("</li>");
            }
            p.raw("</ul>");
            p.a(&format!("/releases/{version}/notes"), "", "Release notes");
            p.raw("</section>");
        }
        p.raw("</main>");
        foot(&mut p, rng, v);
        out.push(p.done());
    }
    out
}

/// The labels of these sites, for `labels.json`.
pub(super) fn labels() -> serde_json::Value {
    serde_json::json!({
        "turnover": {"not_entries": []},
        "ticker": {"not_entries": []},
        "stats-office": {"not_entries": ["/v2/", "%24helper", "\\$helper", "/badge/"]},
        "theme-upgrade": {"not_entries": ["/category/"], "chrome_steps": [CHANGE_AT - 1]},
        "releases": {"not_entries": ["/dl/", "/notes$"]},
    })
}
