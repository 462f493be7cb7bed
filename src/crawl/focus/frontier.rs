//! The crawl frontier of a focused crawl: the waiting candidates in best-first order
//! ([`Order`]), each URL once, with the OPIC cash they gathered. Pure, like the rest of
//! [`super`].

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::hash::{HashMap, HashSet};

pub use crate::model::crawl::Candidate;

/// λ of [`Order::Focused`]: the most a candidate's cash can raise its potential (+10%).
pub const CASH_WEIGHT: f64 = 0.1;

/// κ of [`Order::Focused`]: cash equal to κ × the mean cash of the waiting candidates gets
/// half of the boost [`CASH_WEIGHT`].
pub const CASH_SCALE: f64 = 10.0;

/// The frontier's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// level, then arrival
    Breadth,
    /// Best-first by `potential · (1 + λ·cash / (cash + κ·m))`, `m` the mean cash of the
    /// waiting candidates when the candidate was (last) pushed or the heap rebuilt, λ
    /// [`CASH_WEIGHT`], κ [`CASH_SCALE`] (ties: cash, then arrival). The cash boost is
    /// below λ, so a candidate is never popped before one with more than (1 + λ) times its
    /// potential.
    Focused,
}

/// A heap key: the greatest is popped first.
#[derive(Debug)]
struct Key {
    primary: f64,
    secondary: f64,
    arrival: u64,
    /// Matches the waiting entry's stamp while the key is current (lazy deletion).
    stamp: u64,
    url: String,
}

impl PartialEq for Key {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Key {}
impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Key {
    fn cmp(&self, other: &Self) -> Ordering {
        self.primary
            .total_cmp(&other.primary)
            .then(self.secondary.total_cmp(&other.secondary))
            .then(other.arrival.cmp(&self.arrival))
            .then(other.stamp.cmp(&self.stamp))
    }
}

#[derive(Debug)]
struct Waiting {
    cand: Candidate,
    arrival: u64,
    stamp: u64,
}

/// The crawl frontier. A URL is waiting at most once: pushing it again adds the new cash to its
/// cash (OPIC: a page linked from several pages gathers cash from each) and keeps the higher
/// potential and inherited, the lower tunnel and level. A URL once popped is never returned again
/// (it is remembered as done) unless `forget` is called.
///
/// `push` and `pop` are O(log n) amortised: a re-push adds a new heap key and leaves the old
/// one to be skipped when it surfaces; the heap is rebuilt when stale keys outnumber the
/// waiting entries three to one. The mean cash of [`Order::Focused`] is kept as a running
/// sum; a key uses the mean of its push (all keys take the current mean when the heap is
/// rebuilt), which only moves the bounded cash boost.
#[derive(Debug)]
pub struct Frontier {
    order: Order,
    heap: BinaryHeap<Key>,
    waiting: HashMap<String, Waiting>,
    done: HashSet<String>,
    counter: u64,
    /// Σ cash of the waiting candidates (for their mean, in [`Order::Focused`]).
    cash_sum: f64,
}

impl Frontier {
    /// An empty frontier.
    pub fn new(order: Order) -> Self {
        Self {
            order,
            heap: BinaryHeap::new(),
            waiting: HashMap::default(),
            done: HashSet::default(),
            counter: 0,
            cash_sum: 0.0,
        }
    }

    /// Mean cash of the waiting candidates.
    fn mean_cash(&self) -> f64 {
        if self.waiting.is_empty() {
            0.0
        } else {
            self.cash_sum.max(0.0) / self.waiting.len() as f64
        }
    }

    fn key(&self, w: &Waiting) -> Key {
        key_of(self.order, self.mean_cash(), w, w.cand.url.clone())
    }

    /// Adds a candidate, or merges it into the waiting one with the same URL; a URL that
    /// is done is ignored. Non-finite or negative scores count as 0 (tunnel: +∞ stays).
    pub fn push(&mut self, mut c: Candidate) {
        if self.done.contains(&c.url) {
            return;
        }
        c.cash = nonneg(c.cash);
        c.potential = nonneg(c.potential);
        c.inherited = nonneg(c.inherited);
        c.tunnel = if c.tunnel.is_nan() || c.tunnel < 0.0 {
            0.0
        } else {
            c.tunnel
        };
        self.counter += 1;
        let stamp = self.counter;
        self.cash_sum += c.cash;
        let w = if let Some(mut w) = self.waiting.remove(&c.url) {
            w.cand.cash += c.cash;
            w.cand.potential = w.cand.potential.max(c.potential);
            w.cand.inherited = w.cand.inherited.max(c.inherited);
            w.cand.tunnel = w.cand.tunnel.min(c.tunnel);
            w.cand.level = w.cand.level.min(c.level);
            w.stamp = stamp;
            w
        } else {
            Waiting {
                cand: c,
                arrival: stamp,
                stamp,
            }
        };
        let url = w.cand.url.clone();
        self.waiting.insert(url.clone(), w);
        let key = key_of(self.order, self.mean_cash(), &self.waiting[&url], url);
        self.heap.push(key);
        if self.heap.len() > 4 * self.waiting.len() + 64 {
            self.rebuild();
        }
    }

    fn rebuild(&mut self) {
        let keys: Vec<Key> = self.waiting.values().map(|w| self.key(w)).collect();
        self.heap = BinaryHeap::from(keys);
    }

    /// Takes the best waiting candidate and remembers its URL as done.
    pub fn pop(&mut self) -> Option<Candidate> {
        while let Some(k) = self.heap.pop() {
            let current = self.waiting.get(&k.url).is_some_and(|w| w.stamp == k.stamp);
            if current {
                if let Some(w) = self.waiting.remove(&k.url) {
                    self.take_cash(w.cand.cash);
                    self.done.insert(k.url);
                    return Some(w.cand);
                }
            }
        }
        None
    }

    /// Removes a leaving candidate's cash from the running sum (exactly 0 when nothing waits,
    /// so rounding errors do not accumulate).
    fn take_cash(&mut self, cash: f64) {
        self.cash_sum = if self.waiting.is_empty() {
            0.0
        } else {
            (self.cash_sum - cash).max(0.0)
        };
    }

    /// Entries in the heap, stale ones included (the tests bound it).
    #[cfg(test)]
    pub(super) fn heap_len(&self) -> usize {
        self.heap.len()
    }

    /// Whether the URL was popped or marked done.
    pub fn is_done(&self, url: &str) -> bool {
        self.done.contains(url)
    }

    /// Forgets that the URL was done, so it may be pushed and popped again.
    pub fn forget(&mut self, url: &str) {
        self.done.remove(url);
    }

    /// Number of waiting candidates.
    pub fn len(&self) -> usize {
        self.waiting.len()
    }

    /// Whether nothing is waiting.
    pub fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }

    /// What is still waiting, best first (to persist between checks).
    pub(crate) fn into_waiting(self) -> Vec<Candidate> {
        let order = self.order;
        let mean = self.mean_cash();
        let mut keyed: Vec<(Key, Candidate)> = self
            .waiting
            .into_values()
            .map(|w| (key_of(order, mean, &w, String::new()), w.cand))
            .collect();
        keyed.sort_by(|a, b| b.0.cmp(&a.0));
        keyed.into_iter().map(|(_, c)| c).collect()
    }
}

/// The heap key of a waiting entry in the given order; `mean` is the mean cash of the
/// waiting candidates.
fn key_of(order: Order, mean: f64, w: &Waiting, url: String) -> Key {
    let (primary, secondary) = match order {
        Order::Breadth => (-f64::from(w.cand.level), 0.0),
        Order::Focused => (
            focused_priority(w.cand.potential, w.cand.cash, mean),
            w.cand.cash,
        ),
    };
    Key {
        primary,
        secondary,
        arrival: w.arrival,
        stamp: w.stamp,
        url,
    }
}

/// The priority of [`Order::Focused`]: `potential · (1 + λ·cash / (cash + κ·mean))`, with
/// the boost 0 when there is no cash at all (and λ when only this candidate has cash).
pub fn focused_priority(potential: f64, cash: f64, mean: f64) -> f64 {
    let (p, c, m) = (nonneg(potential), nonneg(cash), nonneg(mean));
    let denom = c + CASH_SCALE * m;
    let boost = if denom > 0.0 { c / denom } else { 0.0 };
    p * (1.0 + CASH_WEIGHT * boost)
}

/// `x` if finite and positive, else 0.
fn nonneg(x: f64) -> f64 {
    if x.is_finite() && x > 0.0 {
        x
    } else {
        0.0
    }
}
