//! The focused-crawl core of deep watches (`docs/design.md` §6): a pure, synchronous module
//! that scores pages and links against a watch's topic keywords and keeps the crawl
//! frontier in best-first order.
//!
//! The method is the focused crawler of Zhu, Xu and Zhou (`docs/design.md` §9): OTIE cash
//! (OPIC, but a fetched page hands its cash to its links in proportion to their relevance,
//! eq. 1/9), where a link's relevance is its Shark-Search potential (Hersovici et al. 1998,
//! eq. 2–6), a page's own relevance combines its title and its content (eq. 8), and
//! irrelevant pages may still be crossed ("tunnelling") until an adaptive distance exceeds
//! a cut-off (eq. 7); below the relevance threshold a page hands its links the score
//! inherited from its last relevant ancestor, decayed by δ at each step (Shark-Search), so
//! a good cluster behind one or two irrelevant pages keeps a potential worth following.
//!
//! The frontier is crawled best-first by potential boosted by relative cash
//! ([`Order::Focused`]): `potential · (1 + λ·cash / (cash + κ·mean cash))`. Raw OPIC cash
//! shrinks geometrically with depth (it is conserved and divided at every page), so it
//! cannot be the primary key without starving deep clusters (see `bench/README.md`,
//! "Focused crawl"); relative to the mean cash of the waiting candidates it marks the
//! links that gathered cash from several relevant pages and breaks near-ties of potential.
//!
//! The loop a driver runs, using only this module:
//!
//! 1. [`Frontier::pop`] the best waiting [`Candidate`] and fetch it;
//! 2. `relevance = page_relevance(topic, params, title, content)`;
//! 3. `d = tunnel(params, candidate.tunnel, relevance)`;
//! 4. if [`may_follow`]`(params, d)`: [`score_links`] with
//!    `Parent { relevance, inherited: candidate.inherited, cash: candidate.cash, tunnel: d }`
//!    and push every link as a `Candidate { level: level + 1, cash, potential, inherited,
//!    tunnel: d }`.
//!
//! This file holds the relevance side (topic, page relevance, tunnelling, link scores);
//! `frontier.rs` the best-first frontier. Pure: uses nothing else of the crate.

mod frontier;

pub use frontier::{focused_priority, Candidate, Frontier, Order, CASH_SCALE, CASH_WEIGHT};

/// Keyword density (share of the text's characters covered by keyword occurrences) at
/// which [`Topic::sim`]'s density factor reaches 1 − 1/e ≈ 0.63.
pub(crate) const DENSITY_SCALE: f64 = 0.05;

/// A topic: the watch's keywords, matched case-insensitively as substrings (so it works for
/// Chinese/Japanese text without word segmentation).
#[derive(Debug, Clone)]
pub struct Topic {
    /// Lower-cased, trimmed, non-empty, without duplicates; with their length in chars.
    keywords: Vec<(String, usize)>,
}

impl Topic {
    /// None when no keyword is non-empty after trimming.
    pub fn new(keywords: &[String]) -> Option<Self> {
        let mut out: Vec<(String, usize)> = Vec::new();
        for k in keywords {
            let k = k.trim().to_lowercase();
            if !k.is_empty() && !out.iter().any(|(o, _)| *o == k) {
                let n = k.chars().count();
                out.push((k, n));
            }
        }
        (!out.is_empty()).then_some(Self { keywords: out })
    }

    /// The normalised keywords (trimmed, lower-cased, deduplicated).
    pub fn keywords(&self) -> impl Iterator<Item = &str> {
        self.keywords.iter().map(|(k, _)| k.as_str())
    }

    /// Similarity of `text` to the topic in [0, 1].
    ///
    /// With K keywords, of which `present` occur in the lower-cased text, `n_k` the
    /// (non-overlapping) occurrences of keyword k, `|k|` and `|text|` lengths in chars:
    ///
    /// ```text
    /// share   = present / K
    /// density = min(1, Σ_k n_k·|k| / |text|)        (share of the text that is keywords)
    /// sim     = (1 + share)/2 · (1 − e^(−density / DENSITY_SCALE))
    /// ```
    ///
    /// So sim is 0 when no keyword occurs (density 0), grows with the share of keywords
    /// present (from half weight for one keyword to full weight for all) and with their
    /// density, and a long page mentioning a keyword once (density ≈ 0.01 → factor ≈ 0.18)
    /// scores lower than a short anchor text made of it (density ≥ 0.3 → factor ≈ 1).
    pub fn sim(&self, text: &str) -> f64 {
        if text.is_empty() {
            return 0.0;
        }
        let lower = text.to_lowercase();
        let len = lower.chars().count();
        let mut present = 0usize;
        let mut covered = 0usize;
        for (k, klen) in &self.keywords {
            let n = lower.matches(k.as_str()).count();
            if n > 0 {
                present += 1;
                covered += n * klen;
            }
        }
        if present == 0 || len == 0 {
            return 0.0;
        }
        let share = present as f64 / self.keywords.len() as f64;
        let density = (covered as f64 / len as f64).min(1.0);
        let s = 0.5 * (1.0 + share) * (1.0 - (-density / DENSITY_SCALE).exp());
        s.clamp(0.0, 1.0)
    }
}

/// Parameters of the focused crawl.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FocusParams {
    /// δ: decay of the relevance a link inherits from its parent (Shark-Search), in [0, 1].
    pub decay: f64,
    /// β: weight of the anchor text against its context in a link's neighbourhood score.
    pub anchor_weight: f64,
    /// γ: weight of the inherited score against the neighbourhood score in a potential.
    pub inherit_weight: f64,
    /// Weight of the title against the content in a page's relevance (eq. 8).
    pub title_weight: f64,
    /// θ: relevance at or above which a page (or item) counts as relevant.
    pub threshold: f64,
    /// C: tunnel distance above which an irrelevant page's links are no longer followed.
    pub tunnel_cutoff: f64,
}

impl Default for FocusParams {
    /// δ 0.5, β 0.8, γ 0.5, title weight 0.3, θ 0.25, C 7 (with [`tunnel`]'s formula, two
    /// consecutive irrelevant pages with relevance 0 can still be crossed, a third cannot;
    /// pages of relevance just under θ can be crossed for three steps).
    fn default() -> Self {
        Self {
            decay: 0.5,
            anchor_weight: 0.8,
            inherit_weight: 0.5,
            title_weight: 0.3,
            threshold: 0.25,
            tunnel_cutoff: 7.0,
        }
    }
}

/// What a fetched page hands down to its links.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Parent {
    /// The page's relevance ([`page_relevance`]).
    pub relevance: f64,
    /// The score the page itself inherited (its candidate's `inherited`).
    pub inherited: f64,
    /// The cash the page gathered while waiting (its candidate's `cash`).
    pub cash: f64,
    /// The page's tunnel distance ([`tunnel`]).
    pub tunnel: f64,
}

/// Relevance of a fetched page from its title and content (eq. 8):
/// `w·sim(title) + (1 − w)·sim(content)` with `w` = `title_weight` clamped to [0, 1].
pub fn page_relevance(topic: &Topic, p: &FocusParams, title: &str, content: &str) -> f64 {
    let w = unit(p.title_weight);
    (w * topic.sim(title) + (1.0 - w) * topic.sim(content)).clamp(0.0, 1.0)
}

/// Tunnel distance of a page (eq. 7) given its parent's distance and its own relevance `c`:
///
/// ```text
/// d = 0                               if c ≥ θ
/// d = (d_parent + 1)·e^(1 − c) − 1    otherwise
/// ```
///
/// Relevant pages reset the distance; along a path of irrelevant pages it grows
/// exponentially with the number of steps (`e^(n(1−c)) − 1` for a constant `c`), faster
/// for less relevant pages. The root's parent distance is 0. A negative or non-finite
/// parent distance counts as 0; a non-finite relevance as 0.
pub fn tunnel(p: &FocusParams, parent_tunnel: f64, relevance: f64) -> f64 {
    let c = if relevance.is_finite() {
        relevance
    } else {
        0.0
    };
    if c >= p.threshold {
        return 0.0;
    }
    let dp = if parent_tunnel.is_finite() && parent_tunnel > 0.0 {
        parent_tunnel
    } else if parent_tunnel == f64::INFINITY {
        return f64::INFINITY;
    } else {
        0.0
    };
    (dp + 1.0) * (1.0 - c.clamp(0.0, 1.0)).exp() - 1.0
}

/// Whether a page at this tunnel distance may still hand cash to its links (distance <= cutoff).
pub fn may_follow(p: &FocusParams, tunnel: f64) -> bool {
    tunnel <= p.tunnel_cutoff
}

/// One link as the parent page shows it.
#[derive(Debug, Clone, Copy)]
pub struct LinkCue<'a> {
    /// The link's absolute URL (not scored; for the caller's convenience).
    pub url: &'a str,
    /// The anchor text.
    pub anchor: &'a str,
    /// Text around the link (its list item, paragraph or table row, without the anchor).
    pub context: &'a str,
}

/// A link scored: Shark-Search potential and the OTIE cash it receives from its parent (eq. 9).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scored {
    /// γ·inherited + (1 − γ)·neighbourhood, in [0, 1].
    pub potential: f64,
    /// δ·parent relevance if the parent is relevant (≥ θ), else δ·max(parent relevance,
    /// parent inherited).
    pub inherited: f64,
    /// The link's share of the parent's cash, in proportion to its potential.
    pub cash: f64,
}

/// Scores all links of a fetched page; the parent's cash is split in proportion to potential
/// (equally if all potentials are 0). Cost O(links · keywords · text).
///
/// Shark-Search, per link: `inherited = δ·relevance(parent)` if the parent is relevant
/// (≥ θ), else `δ·max(relevance(parent), inherited(parent))` (so a page under the threshold,
/// e.g. an off-topic page mentioning a keyword once, passes on the decayed score of its
/// last relevant ancestor instead of its own near-zero relevance: this is what lets the
/// crawl tunnel towards a cluster behind it); `anchor = sim(anchor text)`; `context = 1` if `anchor > 0` else
/// `sim(context)`; `neighbourhood = β·anchor + (1 − β)·context`;
/// `potential = γ·inherited + (1 − γ)·neighbourhood`. OTIE (eq. 9):
/// `cash_j = potential_j / Σ_k potential_k · cash(parent)`, so the gains sum to the
/// parent's cash. A negative or non-finite parent cash hands out 0.
pub fn score_links(
    topic: &Topic,
    p: &FocusParams,
    parent: &Parent,
    links: &[LinkCue<'_>],
) -> Vec<Scored> {
    let delta = unit(p.decay);
    let beta = unit(p.anchor_weight);
    let gamma = unit(p.inherit_weight);
    let relevance = unit(parent.relevance);
    let inherited = if relevance >= p.threshold {
        delta * relevance
    } else {
        delta * relevance.max(unit(parent.inherited))
    };
    let mut out: Vec<Scored> = links
        .iter()
        .map(|l| {
            let anchor = topic.sim(l.anchor);
            let context = if anchor > 0.0 {
                1.0
            } else {
                topic.sim(l.context)
            };
            let neighbourhood = beta * anchor + (1.0 - beta) * context;
            Scored {
                potential: (gamma * inherited + (1.0 - gamma) * neighbourhood).clamp(0.0, 1.0),
                inherited,
                cash: 0.0,
            }
        })
        .collect();
    let cash = if parent.cash.is_finite() && parent.cash > 0.0 {
        parent.cash
    } else {
        0.0
    };
    let total: f64 = out.iter().map(|s| s.potential).sum();
    if total > 0.0 {
        for s in &mut out {
            s.cash = s.potential / total * cash;
        }
    } else if !out.is_empty() {
        let each = cash / out.len() as f64;
        for s in &mut out {
            s.cash = each;
        }
    }
    out
}

/// `x` clamped to [0, 1], NaN as 0.
fn unit(x: f64) -> f64 {
    if x.is_nan() {
        0.0
    } else {
        x.clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests;
