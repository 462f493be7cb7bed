//! Focused crawl on a generated site (`docs/design.md` §6): harvest rate and target recall
//! of BFS, OPIC, OTIE, Shark-Search and the full method of Zhu, Xu and Zhou's focused
//! crawler (OTIE cash split by Shark-Search potential, with adaptive tunnelling), at equal
//! page budgets; the full method both with `Order::Focused` (potential boosted by relative
//! cash) and with its former order (most cash first, re-implemented here as `CashFirst`).
//!
//! `cargo bench --bench focus` runs the full measure (8 topics × 4 seeds, budgets 100,
//! 250 and 500); under `cargo test --all-targets` a small smoke version runs.
//!
//! The site (~1,900 pages, deterministic from a seed): a root, a section per topic and a
//! news section, topic clusters (a hub and its items, linking mostly within the cluster),
//! "hidden" clusters reachable only through one or two off-topic pages, a menu and footer
//! on every page, vague anchors on some on-topic links and off-topic pages that mention a
//! keyword once. A page is relevant when its own topic is the target topic.
//!
//! Menu and footer links are followed on the root only (the focused crawler's algorithm
//! drops the parts common to every page; one row keeps them to show why).
//!
//! The crawl loop uses only `sitefeed::crawl::focus`'s public API: pop → fetch (look the
//! page up) → page_relevance → tunnel → if may_follow: score_links → push the links.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::time::Instant;

use sitefeed::crawl::focus::{
    may_follow, page_relevance, score_links, tunnel, Candidate, FocusParams, Frontier, LinkCue,
    Order, Parent, Topic,
};

/// Topic name (section title), keywords of a watch on it, and its vocabulary (keywords
/// included, and words that are on topic but not keywords).
const TOPICS: [(&str, &[&str], &[&str]); 8] = [
    (
        "Scholarships",
        &["scholarship", "bursary", "financial aid"],
        &[
            "scholarship",
            "bursary",
            "financial aid",
            "tuition",
            "award",
            "stipend",
            "merit",
            "fund",
            "eligibility",
            "sponsor",
        ],
    ),
    (
        "Admissions",
        &["admission", "applicant", "enrolment"],
        &[
            "admission",
            "applicant",
            "enrolment",
            "entry requirements",
            "offer",
            "interview",
            "transcript",
            "undergraduate",
            "intake",
            "prospectus",
        ],
    ),
    (
        "Sports",
        &["sport", "athletic", "stadium"],
        &[
            "sport",
            "athletic",
            "stadium",
            "football",
            "swimming",
            "team",
            "match",
            "coach",
            "gym",
            "tournament",
        ],
    ),
    (
        "Library",
        &["library", "librarian", "catalogue"],
        &[
            "library",
            "librarian",
            "catalogue",
            "books",
            "loan",
            "reading room",
            "archive",
            "journal",
            "borrow",
            "shelf",
        ],
    ),
    (
        "Canteen",
        &["canteen", "menu of the day", "cafeteria"],
        &[
            "canteen",
            "menu of the day",
            "cafeteria",
            "lunch",
            "vegetarian",
            "meal",
            "dessert",
            "coffee",
            "kitchen",
            "dining",
        ],
    ),
    (
        "Research",
        &["research", "laboratory", "publication"],
        &[
            "research",
            "laboratory",
            "publication",
            "grant",
            "project",
            "seminar",
            "thesis",
            "experiment",
            "conference",
            "findings",
        ],
    ),
    (
        "Housing",
        &["housing", "dormitory", "accommodation"],
        &[
            "housing",
            "dormitory",
            "accommodation",
            "room",
            "rent",
            "residence",
            "tenant",
            "lease",
            "flat",
            "warden",
        ],
    ),
    (
        "Careers",
        &["career", "internship", "recruitment"],
        &[
            "career",
            "internship",
            "recruitment",
            "employer",
            "job fair",
            "cv",
            "placement",
            "graduate job",
            "mentoring",
            "alumni",
        ],
    ),
];

/// Words of no topic.
const FILLER: &[&str] = &[
    "the",
    "university",
    "campus",
    "students",
    "information",
    "page",
    "update",
    "office",
    "week",
    "please",
    "note",
    "new",
    "about",
    "service",
    "time",
    "open",
    "day",
    "year",
    "contact",
    "staff",
    "events",
    "and",
    "for",
    "with",
    "our",
];

/// Anchors that say nothing about the target.
const VAGUE: &[&str] = &[
    "Read more",
    "Details",
    "More information",
    "Click here",
    "See also",
    "Continue",
    "Open",
];

/// Main and hidden clusters per topic, and items per cluster.
const MAIN_CLUSTERS: usize = 3;
const HIDDEN_CLUSTERS: usize = 2;
const ITEMS: std::ops::Range<usize> = 20..60;
const NEWS_ITEMS: usize = 150;

struct Link {
    to: usize,
    /// Menu or footer: on every page.
    template: bool,
    anchor: String,
    context: String,
}

struct Page {
    title: String,
    content: String,
    /// None: no topic (root, news, footer pages).
    topic: Option<usize>,
    /// In a cluster reachable only through off-topic pages.
    hidden: bool,
    links: Vec<Link>,
}

struct Site {
    pages: Vec<Page>,
}

fn url(id: usize) -> String {
    format!("https://uni.example/p/{id}")
}

fn id_of(u: &str) -> Option<usize> {
    u.rsplit('/').next().and_then(|s| s.parse().ok())
}

fn pick<'a>(rng: &mut fastrand::Rng, xs: &[&'a str]) -> &'a str {
    xs[rng.usize(..xs.len())]
}

/// `n` words, a share `topical` of them from the topic's vocabulary, the rest filler.
fn words(rng: &mut fastrand::Rng, topic: Option<usize>, topical: f64, n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        if i > 0 {
            s.push(' ');
        }
        let w = match topic {
            Some(t) if rng.f64() < topical => pick(rng, TOPICS[t].2),
            _ => pick(rng, FILLER),
        };
        s.push_str(w);
    }
    s
}

/// Content of a page: on-topic pages use 10–35% topic words; off-topic pages mention one
/// keyword of another topic once with probability 0.3.
fn content(rng: &mut fastrand::Rng, topic: Option<usize>) -> String {
    let n = rng.usize(60..120);
    if let Some(t) = topic {
        let share = 0.10 + 0.25 * rng.f64();
        return words(rng, Some(t), share, n);
    }
    let mut s = words(rng, None, 0.0, n);
    if rng.f64() < 0.3 {
        let t = rng.usize(..TOPICS.len());
        let _ = write!(s, " {} ", pick(rng, TOPICS[t].1));
        s.push_str(&words(rng, None, 0.0, 10));
    }
    s
}

/// A title: on-topic pages carry a topic word (a keyword with probability ~0.5).
fn title(rng: &mut fastrand::Rng, topic: Option<usize>, n: usize) -> String {
    match topic {
        Some(t) => format!("{} {} {n}", pick(rng, TOPICS[t].2), pick(rng, FILLER)),
        None => format!("{} {} {n}", pick(rng, FILLER), pick(rng, FILLER)),
    }
}

impl Site {
    #[allow(clippy::too_many_lines, reason = "one generator, read top to bottom")]
    fn generate(seed: u64) -> Self {
        let mut rng = fastrand::Rng::with_seed(seed);
        let mut pages: Vec<Page> = Vec::new();
        let new_page = |pages: &mut Vec<Page>, rng: &mut fastrand::Rng, topic, hidden| {
            let n = pages.len();
            pages.push(Page {
                title: title(rng, topic, n),
                content: content(rng, topic),
                topic,
                hidden,
                links: Vec::new(),
            });
            n
        };
        let root = new_page(&mut pages, &mut rng, None, false);
        "University home".clone_into(&mut pages[root].title);
        let sections: Vec<usize> = (0..TOPICS.len())
            .map(|t| {
                let s = new_page(&mut pages, &mut rng, Some(t), false);
                TOPICS[t].0.clone_into(&mut pages[s].title);
                s
            })
            .collect();
        let news = new_page(&mut pages, &mut rng, None, false);
        "News".clone_into(&mut pages[news].title);
        let footer: Vec<usize> = ["About us", "Contact", "Sitemap"]
            .iter()
            .map(|name| {
                let f = new_page(&mut pages, &mut rng, None, false);
                (*name).clone_into(&mut pages[f].title);
                f
            })
            .collect();

        // clusters[t] = (hub, items, hidden)
        let mut clusters: Vec<Vec<(usize, Vec<usize>, bool)>> = vec![Vec::new(); TOPICS.len()];
        for (t, cl) in clusters.iter_mut().enumerate() {
            for c in 0..MAIN_CLUSTERS + HIDDEN_CLUSTERS {
                let hidden = c >= MAIN_CLUSTERS;
                let hub = new_page(&mut pages, &mut rng, Some(t), hidden);
                let n = rng.usize(ITEMS);
                let items: Vec<usize> = (0..n)
                    .map(|_| new_page(&mut pages, &mut rng, Some(t), hidden))
                    .collect();
                cl.push((hub, items, hidden));
            }
        }
        let news_items: Vec<usize> = (0..NEWS_ITEMS)
            .map(|_| new_page(&mut pages, &mut rng, None, false))
            .collect();

        // An anchor for a link to `to`: its title, or a vague one with probability `vague`.
        let anchor = |rng: &mut fastrand::Rng, pages: &[Page], to: usize, vague: f64| {
            if rng.f64() < vague {
                pick(rng, VAGUE).to_owned()
            } else {
                pages[to].title.clone()
            }
        };
        let context = |rng: &mut fastrand::Rng, pages: &[Page], to: usize| {
            words(rng, pages[to].topic, 0.3, 8)
        };
        let add = |pages: &mut Vec<Page>, from: usize, to: usize, anchor: String, ctx: String| {
            pages[from].links.push(Link {
                to,
                template: false,
                anchor,
                context: ctx,
            });
        };

        // root: featured items of a few topics, the news
        for cl in &clusters {
            if rng.bool() {
                let (_, items, _) = &cl[rng.usize(..MAIN_CLUSTERS)];
                let to = items[rng.usize(..items.len())];
                let a = anchor(&mut rng, &pages, to, 0.3);
                let c = context(&mut rng, &pages, to);
                add(&mut pages, root, to, a, c);
            }
        }
        // sections: their main hubs
        for (t, &s) in sections.iter().enumerate() {
            for (hub, _, hidden) in &clusters[t] {
                if !hidden {
                    let a = anchor(&mut rng, &pages, *hub, 0.2);
                    let c = context(&mut rng, &pages, *hub);
                    add(&mut pages, s, *hub, a, c);
                }
            }
        }
        // clusters: hub → items, item → hub + 3–5 items of the cluster + 1 main item elsewhere
        for t in 0..TOPICS.len() {
            for (hub, items, _) in clusters[t].clone() {
                for &i in &items {
                    let a = anchor(&mut rng, &pages, i, 0.25);
                    let c = context(&mut rng, &pages, i);
                    add(&mut pages, hub, i, a, c);
                    let a = format!("Back to {}", pages[hub].title);
                    add(&mut pages, i, hub, a, String::new());
                    for _ in 0..rng.usize(3..=5) {
                        let j = items[rng.usize(..items.len())];
                        if j != i {
                            let a = anchor(&mut rng, &pages, j, 0.25);
                            let c = context(&mut rng, &pages, j);
                            add(&mut pages, i, j, a, c);
                        }
                    }
                    let u = rng.usize(..TOPICS.len());
                    let (_, other, _) = &clusters[u][rng.usize(..MAIN_CLUSTERS)];
                    let j = other[rng.usize(..other.len())];
                    let a = anchor(&mut rng, &pages, j, 0.25);
                    let c = format!("Related: {}", context(&mut rng, &pages, j));
                    add(&mut pages, i, j, a, c);
                }
            }
        }
        // hidden clusters: a main item of the topic → B1 (a main item of another topic)
        // [→ B2 (a news item)] → the hidden hub; nothing else links there.
        for t in 0..TOPICS.len() {
            for h in MAIN_CLUSTERS..MAIN_CLUSTERS + HIDDEN_CLUSTERS {
                let hub = clusters[t][h].0;
                let (_, from_items, _) = &clusters[t][rng.usize(..MAIN_CLUSTERS)];
                let from = from_items[rng.usize(..from_items.len())];
                let u = (t + 1 + rng.usize(..TOPICS.len() - 1)) % TOPICS.len();
                let (_, b_items, _) = &clusters[u][rng.usize(..MAIN_CLUSTERS)];
                let b1 = b_items[rng.usize(..b_items.len())];
                let a = anchor(&mut rng, &pages, b1, 0.25);
                let c = context(&mut rng, &pages, b1);
                add(&mut pages, from, b1, a, c);
                let last = if rng.bool() {
                    b1
                } else {
                    let b2 = news_items[rng.usize(..news_items.len())];
                    let a = anchor(&mut rng, &pages, b2, 0.25);
                    let c = context(&mut rng, &pages, b2);
                    add(&mut pages, b1, b2, a, c);
                    b2
                };
                let a = anchor(&mut rng, &pages, hub, 0.5);
                let c = context(&mut rng, &pages, hub);
                add(&mut pages, last, hub, a, c);
            }
        }
        // news: section → items; item → 2 news items + 1 main item of any topic
        for &n in &news_items {
            let a = anchor(&mut rng, &pages, n, 0.1);
            add(&mut pages, news, n, a, "News".to_owned());
            for _ in 0..2 {
                let j = news_items[rng.usize(..news_items.len())];
                let a = anchor(&mut rng, &pages, j, 0.1);
                add(&mut pages, n, j, a, "More news".to_owned());
            }
            let u = rng.usize(..TOPICS.len());
            let (_, other, _) = &clusters[u][rng.usize(..MAIN_CLUSTERS)];
            let j = other[rng.usize(..other.len())];
            let a = anchor(&mut rng, &pages, j, 0.25);
            let c = context(&mut rng, &pages, j);
            add(&mut pages, n, j, a, c);
        }
        // menu and footer on every page
        let mut menu: Vec<usize> = vec![root];
        menu.extend(&sections);
        menu.push(news);
        let template: Vec<(usize, String, String)> = menu
            .iter()
            .map(|&m| (m, pages[m].title.clone(), "Main menu".to_owned()))
            .chain(
                footer
                    .iter()
                    .map(|&f| (f, pages[f].title.clone(), "Footer".to_owned())),
            )
            .collect();
        for page in &mut pages {
            for (to, anchor, context) in &template {
                page.links.push(Link {
                    to: *to,
                    template: true,
                    anchor: anchor.clone(),
                    context: context.clone(),
                });
            }
        }
        Self { pages }
    }

    fn relevant(&self, target: usize) -> usize {
        self.pages
            .iter()
            .filter(|p| p.topic == Some(target))
            .count()
    }

    fn hidden_relevant(&self, target: usize) -> usize {
        self.pages
            .iter()
            .filter(|p| p.topic == Some(target) && p.hidden)
            .count()
    }
}

#[derive(Clone, Copy)]
enum Split {
    /// OTIE cash as `score_links` splits it (by potential).
    Potential,
    /// OPIC: the parent's cash split equally.
    Equal,
    /// No cash: the frontier orders by potential alone (Shark-Search).
    None,
}

struct Method {
    name: &'static str,
    /// Follow menu and footer links on every page, not only on the root (the paper, and
    /// the driver, drop links that stand on every page of the site).
    keep_template: bool,
    /// A relevant page hands down its relevance as fresh cash on top of what it gathered,
    /// as if it were a new seed (a driver-level variant, not in the paper).
    reseed: bool,
    order: Order,
    /// Use the former order of the full method, most cash first (ties: potential, then
    /// arrival), instead of `order`.
    cash_first: bool,
    split: Split,
    params: FocusParams,
}

#[allow(clippy::too_many_lines, reason = "the table of methods, one row each")]
fn methods() -> Vec<Method> {
    let full = FocusParams::default();
    let follow_all = FocusParams {
        tunnel_cutoff: f64::INFINITY,
        ..full
    };
    vec![
        Method {
            name: "BFS",
            keep_template: false,
            reseed: false,
            cash_first: false,
            order: Order::Breadth,
            split: Split::None,
            params: follow_all,
        },
        Method {
            name: "OPIC (equal split)",
            keep_template: false,
            reseed: false,
            cash_first: true,
            order: Order::Focused,
            split: Split::Equal,
            params: follow_all,
        },
        Method {
            name: "OTIE (cash ∝ link sim)",
            keep_template: false,
            reseed: false,
            cash_first: true,
            order: Order::Focused,
            split: Split::Potential,
            params: FocusParams {
                inherit_weight: 0.0,
                ..follow_all
            },
        },
        Method {
            name: "Shark-Search",
            keep_template: false,
            reseed: false,
            cash_first: false,
            order: Order::Focused,
            split: Split::None,
            params: follow_all,
        },
        Method {
            name: "Shark-Search + tunnelling (C = 7)",
            keep_template: false,
            reseed: false,
            cash_first: false,
            order: Order::Focused,
            split: Split::None,
            params: full,
        },
        Method {
            name: "Shark-Search, no tunnelling (C = 0)",
            keep_template: false,
            reseed: false,
            cash_first: false,
            order: Order::Focused,
            split: Split::None,
            params: FocusParams {
                tunnel_cutoff: 0.0,
                ..full
            },
        },
        Method {
            name: "full, old order (most cash first)",
            keep_template: false,
            reseed: false,
            cash_first: true,
            order: Order::Focused,
            split: Split::Potential,
            params: full,
        },
        Method {
            name: "full, old order, relevant pages re-seeded",
            keep_template: false,
            reseed: true,
            cash_first: true,
            order: Order::Focused,
            split: Split::Potential,
            params: full,
        },
        Method {
            name: "full, no tunnelling (C = 0)",
            keep_template: false,
            reseed: false,
            cash_first: false,
            order: Order::Focused,
            split: Split::Potential,
            params: FocusParams {
                tunnel_cutoff: 0.0,
                ..full
            },
        },
        Method {
            name: "full (C = 7), menu and footer links kept",
            keep_template: true,
            reseed: false,
            cash_first: false,
            order: Order::Focused,
            split: Split::Potential,
            params: full,
        },
        Method {
            name: "**full** (C = 7)",
            keep_template: false,
            reseed: false,
            cash_first: false,
            order: Order::Focused,
            split: Split::Potential,
            params: full,
        },
        Method {
            name: "full, C = 20",
            keep_template: false,
            reseed: false,
            cash_first: false,
            order: Order::Focused,
            split: Split::Potential,
            params: FocusParams {
                tunnel_cutoff: 20.0,
                ..full
            },
        },
    ]
}

/// The former order of the full method: most cash first (ties: potential, then arrival),
/// merging re-pushed URLs as `Frontier` does. A linear scan per pop (fine for a bench).
#[derive(Default)]
struct CashFirst {
    waiting: HashMap<String, (Candidate, u64)>,
    done: HashSet<String>,
    arrivals: u64,
}

impl CashFirst {
    fn push(&mut self, c: Candidate) {
        if self.done.contains(&c.url) {
            return;
        }
        self.arrivals += 1;
        let arrival = self.arrivals;
        self.waiting
            .entry(c.url.clone())
            .and_modify(|(w, _)| {
                w.cash += c.cash;
                w.potential = w.potential.max(c.potential);
                w.inherited = w.inherited.max(c.inherited);
                w.tunnel = w.tunnel.min(c.tunnel);
                w.level = w.level.min(c.level);
            })
            .or_insert((c, arrival));
    }

    fn pop(&mut self) -> Option<Candidate> {
        let best = self
            .waiting
            .iter()
            .max_by(|(_, (a, aa)), (_, (b, ba))| {
                a.cash
                    .total_cmp(&b.cash)
                    .then(a.potential.total_cmp(&b.potential))
                    .then(ba.cmp(aa))
            })
            .map(|(u, _)| u.clone())?;
        self.done.insert(best.clone());
        self.waiting.remove(&best).map(|(c, _)| c)
    }
}

/// The library's frontier or the former cash-first order.
enum Queue {
    Lib(Frontier),
    CashFirst(CashFirst),
}

impl Queue {
    fn push(&mut self, c: Candidate) {
        match self {
            Self::Lib(f) => f.push(c),
            Self::CashFirst(f) => f.push(c),
        }
    }

    fn pop(&mut self) -> Option<Candidate> {
        match self {
            Self::Lib(f) => f.pop(),
            Self::CashFirst(f) => f.pop(),
        }
    }

    fn is_done(&self, url: &str) -> bool {
        match self {
            Self::Lib(f) => f.is_done(url),
            Self::CashFirst(f) => f.done.contains(url),
        }
    }
}

/// Crawls `budget` pages from the root; returns for each fetched page (relevant, hidden).
fn crawl(
    site: &Site,
    topic: &Topic,
    target: usize,
    m: &Method,
    budget: usize,
) -> Vec<(bool, bool)> {
    let mut frontier = if m.cash_first {
        Queue::CashFirst(CashFirst::default())
    } else {
        Queue::Lib(Frontier::new(m.order))
    };
    frontier.push(Candidate {
        url: url(0),
        level: 0,
        cash: 1.0,
        potential: 1.0,
        inherited: 0.0,
        tunnel: 0.0,
    });
    let mut fetched = Vec::with_capacity(budget);
    while fetched.len() < budget {
        let Some(c) = frontier.pop() else { break };
        let Some(page) = id_of(&c.url).and_then(|id| site.pages.get(id)) else {
            continue;
        };
        fetched.push((page.topic == Some(target), page.hidden));
        let relevance = page_relevance(topic, &m.params, &page.title, &page.content);
        let d = tunnel(&m.params, c.tunnel, relevance);
        // the watched page itself is always expanded
        if c.level > 0 && !may_follow(&m.params, d) {
            continue;
        }
        let links: Vec<&Link> = page
            .links
            .iter()
            .filter(|l| m.keep_template || c.level == 0 || !l.template)
            .collect();
        let urls: Vec<String> = links.iter().map(|l| url(l.to)).collect();
        let cues: Vec<LinkCue<'_>> = links
            .iter()
            .zip(&urls)
            .map(|(l, u)| LinkCue {
                url: u,
                anchor: &l.anchor,
                context: &l.context,
            })
            .collect();
        let parent = Parent {
            relevance,
            inherited: c.inherited,
            cash: if m.reseed && relevance >= m.params.threshold {
                c.cash + relevance
            } else {
                c.cash
            },
            tunnel: d,
        };
        let scored = score_links(topic, &m.params, &parent, &cues);
        let equal = c.cash / cues.len().max(1) as f64;
        for (cue, s) in cues.iter().zip(scored) {
            if frontier.is_done(cue.url) {
                continue;
            }
            let cash = match m.split {
                Split::Potential => s.cash,
                Split::Equal => equal,
                Split::None => 0.0,
            };
            frontier.push(Candidate {
                url: cue.url.to_owned(),
                level: c.level.saturating_add(1),
                cash,
                potential: s.potential,
                inherited: s.inherited,
                tunnel: d,
            });
        }
    }
    fetched
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let (seeds, targets, budgets): (u64, usize, &[usize]) = if full {
        (4, TOPICS.len(), &[100, 250, 500])
    } else {
        (1, 2, &[50, 100])
    };
    let started = Instant::now();
    let methods = methods();
    // sums[method][budget] = (harvest, recall, hidden recall)
    let mut sums = vec![vec![(0.0f64, 0.0f64, 0.0f64); budgets.len()]; methods.len()];
    let mut pages = 0;
    let mut relevant = 0;
    let mut runs = 0u32;
    let max_budget = budgets.iter().copied().max().unwrap_or(0);
    for seed in 0..seeds {
        let site = Site::generate(0x5eed_0000 + seed);
        pages += site.pages.len();
        for (target, (_, keywords, _)) in TOPICS.iter().enumerate().take(targets) {
            let kw: Vec<String> = keywords.iter().map(|k| (*k).to_owned()).collect();
            let topic = Topic::new(&kw).expect("keywords");
            let all = site.relevant(target);
            let hidden = site.hidden_relevant(target).max(1);
            relevant += all;
            runs += 1;
            for (mi, m) in methods.iter().enumerate() {
                let got = crawl(&site, &topic, target, m, max_budget);
                for (bi, &b) in budgets.iter().enumerate() {
                    let prefix = &got[..b.min(got.len())];
                    let rel = prefix.iter().filter(|(r, _)| *r).count();
                    let hid = prefix.iter().filter(|(r, h)| *r && *h).count();
                    let s = &mut sums[mi][bi];
                    s.0 += rel as f64 / b as f64;
                    s.1 += rel as f64 / all as f64;
                    s.2 += hid as f64 / hidden as f64;
                }
            }
        }
    }
    println!(
        "focused crawl: {} seeds × {} target topics, {:.0} pages per site, {:.0} relevant pages per topic",
        seeds,
        targets,
        pages as f64 / seeds as f64,
        relevant as f64 / f64::from(runs)
    );
    println!(
        "harvest rate / target recall / recall of hidden clusters, averaged over {runs} crawls\n"
    );
    let mut head = String::from("| method |");
    let mut rule = String::from("|---|");
    for b in budgets {
        let _ = write!(head, " {b} pages: harvest | recall | hidden |");
        rule.push_str("---|---|---|");
    }
    println!("{head}\n{rule}");
    for (m, row) in methods.iter().zip(&sums) {
        let mut line = format!("| {} |", m.name);
        for s in row {
            let n = f64::from(runs);
            let _ = write!(line, " {:.3} | {:.3} | {:.3} |", s.0 / n, s.1 / n, s.2 / n);
        }
        println!("{line}");
    }
    println!("\n({:.2} s)", started.elapsed().as_secs_f64());
}
