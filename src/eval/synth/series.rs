//! Synthetic sites of everyday kinds whose entries repeat their shape or their title
//! (see `docs/design.md`, "Entries"): seeded, with truth computed like the other
//! synthetic sites and labels that say which new links are not entries.
//!
//! | site | what happens |
//! |---|---|
//! | `calendar` | a town's event calendar: weekly events come back every week under a new number and the same title, beside one-off events |
//! | `blog-archive` | a blog whose sidebar (plain `div`s, no `aside`) lists its archive months: each new month's link names the folder above its new posts |
//! | `downloads` | a download page: each release is a heading without a link, its files in four formats one per list item, its notes in a paragraph |
//! | `notices-table` | a notice table of one script (`show.asp?id=N`) whose rows alternate two class names |

use std::fmt::Write as _;

use super::page::{foot, head, title, Page, Rng, Version, WORDS};

const WEEKLY: &[&str] = &[
    "Yoga in the park",
    "Chess club evening",
    "Repair cafe",
    "Town council meeting",
];

pub(super) fn calendar(rng: &mut Rng, versions: usize) -> Vec<Version> {
    let mut out = Vec::new();
    for v in 0..versions {
        let mut p = Page::default();
        head(
            &mut p,
            "utf-8",
            "Events",
            &[("/", "Home"), ("/events/", "Events"), ("/visit/", "Visit")],
        );
        p.raw("<main><h1>Upcoming events</h1>");
        // This week's instance of each weekly event, then one or two one-off events.
        let mut events: Vec<(usize, String)> = WEEKLY
            .iter()
            .enumerate()
            .map(|(k, t)| (1000 + v * 10 + k, (*t).to_owned()))
            .collect();
        for k in 0..=(v % 2) {
            events.push((
                1000 + v * 10 + 5 + k,
                format!("Lecture: {}", title(rng, WORDS, 3, 6, " ")),
            ));
        }
        for (k, (id, t)) in events.iter().enumerate() {
            p.raw("<div class=\"event\"><h3>");
            p.a(&format!("/events/{id}"), "", t);
            let _ = write!(
                p.html,
                "</h3><p class=\"when\">{} May 2026, 18:00</p><p>Community hall</p></div>",
                (v * 7 + k) % 28 + 1
            );
        }
        p.raw("</main>");
        foot(&mut p, rng, v);
        out.push(p.done());
    }
    out
}

const MONTHS: &[&str] = &[
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

pub(super) fn blog_archive(rng: &mut Rng, versions: usize) -> Vec<Version> {
    // Two or three posts a month; version v shows the newest six up to month v.
    let mut posts: Vec<(usize, usize, String)> = Vec::new();
    for month in 0..=versions.min(12 * 5) {
        for _ in 0..rng.range(2, 4) {
            let t = title(rng, WORDS, 3, 7, " ");
            posts.push((month, posts.len(), t));
        }
    }
    let mut out = Vec::new();
    for v in 0..versions {
        let mut p = Page::default();
        p.raw("<!doctype html><html><head><meta charset=\"utf-8\"><title>Notes</title></head><body><div id=\"menu\"><ul><li>");
        p.a("/", "", "Home");
        p.raw("</li><li>");
        p.a("/about/", "", "About");
        p.raw("</li></ul></div><div id=\"content\">");
        let shown: Vec<_> = posts
            .iter()
            .filter(|(m, _, _)| *m <= v)
            .rev()
            .take(6)
            .collect();
        let path = |m: usize, id: usize, t: &str| {
            format!(
                "/{}/{:02}/{}-{id}/",
                2020 + m / 12,
                m % 12 + 1,
                t.to_ascii_lowercase().replace(' ', "-")
            )
        };
        for (m, id, t) in &shown {
            p.raw("<div class=\"post\"><h2 class=\"title\">");
            p.a(&path(*m, *id, t), "", t);
            let _ = write!(
                p.html,
                "</h2><div class=\"meta\">Posted in {} {}</div><p>What I saw and what I made of it.</p>",
                MONTHS[m % 12],
                2020 + m / 12
            );
            p.a(&path(*m, *id, t), "more", "Continue reading");
            p.raw("</div>");
        }
        p.raw("</div><div id=\"sidebar\"><div class=\"widget\"><h3>Archives</h3><ul>");
        for m in (0..=v).rev() {
            p.raw("<li>");
            p.a(
                &format!("/{}/{:02}/", 2020 + m / 12, m % 12 + 1),
                "",
                &format!("{} {}", MONTHS[m % 12], 2020 + m / 12),
            );
            p.raw("</li>");
        }
        p.raw("</ul></div></div><div id=\"footer\">");
        p.a("/feed-help/", "", "Help");
        p.raw("</div></body></html>");
        out.push(p.done());
    }
    out
}

pub(super) fn downloads(rng: &mut Rng, versions: usize) -> Vec<Version> {
    let mut releases: Vec<String> = vec!["1.0.0".into(), "1.1.0".into(), "1.2.0".into()];
    let mut out = Vec::new();
    for v in 0..versions {
        if v > 0 && rng.below(3) > 0 {
            let next = format!("1.{}.{}", releases.len(), rng.below(3));
            releases.push(next);
        }
        let mut p = Page::default();
        head(
            &mut p,
            "utf-8",
            "Downloads",
            &[
                ("/", "Home"),
                ("/docs/", "Docs"),
                ("/download/", "Download"),
            ],
        );
        p.raw("<h1>Downloads</h1>");
        for r in releases.iter().rev().take(8) {
            let _ = write!(
                p.html,
                "<div class=\"release\"><h2>Version {r}</h2><p>Fixes and small features.</p><ul>"
            );
            for (ext, text) in [
                ("tar.gz", format!("tool-{r}.tar.gz")),
                ("tar.xz", format!("tool-{r}.tar.xz")),
                ("zip", format!("tool-{r}.zip")),
                ("tar.gz.asc", "signature".to_owned()),
            ] {
                p.raw("<li>");
                p.a(&format!("/dl/tool-{r}.{ext}"), "", &text);
                p.raw(" (1.2 MB)</li>");
            }
            p.raw("</ul><p>");
            p.a(&format!("/notes/release-{r}.html"), "", "Release notes");
            p.raw("</p></div>");
        }
        foot(&mut p, rng, v);
        out.push(p.done());
    }
    out
}

pub(super) fn notices_table(rng: &mut Rng, versions: usize) -> Vec<Version> {
    let mut next = 500;
    let mut list: Vec<(usize, String)> = Vec::new();
    let mut out = Vec::new();
    for v in 0..versions {
        for _ in 0..if v == 0 { 15 } else { rng.range(0, 4) } {
            next += 1;
            list.insert(
                0,
                (next, format!("Notice on {}", title(rng, WORDS, 3, 6, " "))),
            );
        }
        list.truncate(15);
        let mut p = Page::default();
        p.raw("<html><head><meta charset=\"utf-8\"><title>Notices</title></head><body><table class=\"top\"><tr><td>");
        p.a("/index.asp", "", "Home");
        p.raw("</td><td>");
        p.a("/notice/list.asp", "", "Notices");
        p.raw("</td></tr></table><table class=\"list\">");
        for (k, (id, t)) in list.iter().enumerate() {
            let _ = write!(
                p.html,
                "<tr class=\"{}\"><td>",
                if k % 2 == 0 { "even" } else { "odd" }
            );
            p.a(&format!("/notice/show.asp?id={id}"), "", t);
            let _ = write!(p.html, "</td><td>2026-05-{:02}</td></tr>", id % 28 + 1);
        }
        p.raw("</table><p>");
        p.a("/notice/list.asp?page=2", "", "Next");
        p.raw("</p></body></html>");
        out.push(p.done());
    }
    out
}

/// What a person reads as no entry on these sites.
pub(super) fn labels() -> serde_json::Value {
    serde_json::json!({
        "calendar": {"not_entries": []},
        "blog-archive": {"not_entries": ["/\\d{4}/\\d{2}/$"]},
        "downloads": {"not_entries": [], "same_entry": [
            ["/dl/tool-([0-9.]+?)\\.(tar|zip).*$", "/release/$1"],
            ["/notes/release-([0-9.]+)\\.html$", "/release/$1"]
        ]},
        "notices-table": {"not_entries": []},
    })
}
