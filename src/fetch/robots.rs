//! robots.txt, per origin (scheme, host, port, as RFC 9309 scopes it), cached in memory.
//!
//! This module interprets and caches; the [`Fetcher`](super::Fetcher) does the fetching
//! (through the same host gate and address guard as pages). How a response is read,
//! after RFC 9309 section 2.3.1:
//!
//! * 2xx: the rules are parsed (`texting_robots`, first 512 KiB) for our product token
//!   (`sitefeed`), falling back to the `*` group; kept for [`TTL`].
//! * 4xx other than 429 ("unavailable"): everything is allowed; kept for [`TTL`].
//! * 5xx, 429, or no answer at all ("unreachable"): everything is disallowed, but only
//!   for [`UNREACHABLE_TTL`], and rules still remembered from an earlier fetch are used
//!   instead when there are some.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;
use url::Url;

/// How long fetched rules (or a 4xx) are trusted.
pub(crate) const TTL: Duration = Duration::from_secs(24 * 3600);
/// How long an unreachable robots.txt disallows before it is asked for again.
pub(crate) const UNREACHABLE_TTL: Duration = Duration::from_secs(600);
/// Bytes of a robots.txt that are read (RFC 9309 asks for at least 500 KiB).
pub(crate) const MAX_BYTES: u64 = 512 * 1024;
/// Origins remembered.
const MAX_ORIGINS: usize = 10_000;

/// The rules of one origin.
#[derive(Debug, Clone)]
pub enum Rules {
    AllowAll,
    /// robots.txt could not be fetched; the words say why.
    Unreachable(String),
    Parsed(Arc<texting_robots::Robot>),
}

impl Rules {
    /// Interprets a robots.txt response.
    pub(crate) fn from_response(agent: &str, status: u16, body: &[u8]) -> Self {
        match status {
            200..=299 => match texting_robots::Robot::new(agent, body) {
                Ok(r) => Self::Parsed(Arc::new(r)),
                // The parser is forgiving; a file it cannot read has no usable rules.
                Err(_) => Self::AllowAll,
            },
            429 => Self::Unreachable("robots.txt answered 429 Too Many Requests".into()),
            400..=499 => Self::AllowAll,
            _ => Self::Unreachable(format!("robots.txt answered {status}")),
        }
    }

    /// Whether `url` may be fetched.
    pub fn allows(&self, url: &Url) -> bool {
        match self {
            Self::AllowAll => true,
            Self::Unreachable(_) => false,
            Self::Parsed(r) => {
                let mut path = url.path().to_owned();
                if let Some(q) = url.query() {
                    path.push('?');
                    path.push_str(q);
                }
                r.allowed(&path)
            }
        }
    }

    /// The `Crawl-delay` for our agent, if any.
    pub(crate) fn crawl_delay(&self) -> Option<Duration> {
        match self {
            Self::Parsed(r) => r
                .delay
                .filter(|d| d.is_finite() && *d > 0.0)
                .map(|d| Duration::from_secs_f32(d.min(3600.0))),
            _ => None,
        }
    }

    fn ttl(&self) -> Duration {
        match self {
            Self::Unreachable(_) => UNREACHABLE_TTL,
            _ => TTL,
        }
    }
}

#[derive(Debug)]
struct Entry {
    rules: Rules,
    expires: Instant,
}

/// A held origin slot (locked while its robots.txt is being fetched, so concurrent
/// checks of one site fetch it once): read the fresh rules, or fetch and [`store`](SlotGuard::store) new ones.
#[derive(Debug)]
pub(crate) struct SlotGuard(tokio::sync::OwnedMutexGuard<Option<Entry>>);

impl SlotGuard {
    /// The cached rules, if not expired.
    pub fn fresh(&self) -> Option<Rules> {
        self.0
            .as_ref()
            .filter(|e| e.expires > Instant::now())
            .map(|e| e.rules.clone())
    }

    /// Stores newly fetched rules; an unreachable robots.txt keeps earlier real rules
    /// (and returns those).
    pub fn store(&mut self, rules: Rules) -> Rules {
        let rules = match (&rules, self.0.as_ref().map(|e| &e.rules)) {
            (Rules::Unreachable(_), Some(old @ Rules::Parsed(_))) => old.clone(),
            _ => rules,
        };
        let expires = Instant::now() + rules.ttl();
        *self.0 = Some(Entry {
            rules: rules.clone(),
            expires,
        });
        rules
    }
}

/// The robots.txt cache.
#[derive(Debug, Default)]
pub(crate) struct RobotsCache {
    slots: Mutex<HashMap<String, Arc<tokio::sync::Mutex<Option<Entry>>>>>,
}

/// The slot of an origin whose robots.txt another check is fetching right now.
#[derive(Debug)]
pub(crate) struct BusySlot(Arc<tokio::sync::Mutex<Option<Entry>>>);

impl BusySlot {
    /// Waits for the other check to finish, then holds the slot.
    pub async fn lock(self) -> SlotGuard {
        SlotGuard(self.0.lock_owned().await)
    }
}

impl RobotsCache {
    fn entry(&self, url: &Url) -> Arc<tokio::sync::Mutex<Option<Entry>>> {
        let origin = url.origin().ascii_serialization();
        let mut slots = self
            .slots
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if slots.len() >= MAX_ORIGINS && !slots.contains_key(&origin) {
            let now = Instant::now();
            slots.retain(|_, s| {
                Arc::strong_count(s) > 1
                    || s.try_lock()
                        .map_or(true, |e| e.as_ref().is_some_and(|e| e.expires > now))
            });
        }
        slots.entry(origin).or_default().clone()
    }

    #[cfg(test)]
    /// Locks the slot of `url`'s origin.
    pub async fn slot(&self, url: &Url) -> SlotGuard {
        SlotGuard(self.entry(url).lock_owned().await)
    }

    /// The slot of `url`'s origin if it is free now; else a handle to wait for it (the
    /// caller decides how long it may wait).
    pub(crate) fn try_slot(&self, url: &Url) -> Result<SlotGuard, BusySlot> {
        let entry = self.entry(url);
        match entry.clone().try_lock_owned() {
            Ok(g) => Ok(SlotGuard(g)),
            Err(_) => Err(BusySlot(entry)),
        }
    }
}

/// The robots.txt URL of `url`'s origin.
pub(crate) fn robots_url(url: &Url) -> Option<Url> {
    let mut u = url.join("/robots.txt").ok()?;
    u.set_query(None);
    u.set_fragment(None);
    let _ = u.set_username("");
    let _ = u.set_password(None);
    Some(u)
}

/// The product token robots.txt groups are matched against: the User-Agent up to its
/// first `/` or space (`sitefeed`).
pub(crate) fn product_token(user_agent: &str) -> &str {
    user_agent
        .split(['/', ' '])
        .next()
        .filter(|t| !t.is_empty())
        .unwrap_or("sitefeed")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(s: &str) -> Url {
        Url::parse(s).expect("test url")
    }

    const TXT: &[u8] = b"User-agent: *\nDisallow: /private/\n\nUser-agent: sitefeed\nDisallow: /no-feeds\nAllow: /no-feeds/ok\nCrawl-delay: 3\n";

    #[test]
    fn parses_our_group_over_the_star_group() {
        let r = Rules::from_response("sitefeed", 200, TXT);
        assert!(!r.allows(&u("http://h/no-feeds?x=1")));
        assert!(r.allows(&u("http://h/no-feeds/ok")));
        // Our group replaces `*` entirely (RFC 9309 2.2.1).
        assert!(r.allows(&u("http://h/private/x")));
        assert_eq!(r.crawl_delay(), Some(Duration::from_secs(3)));
        let other = Rules::from_response("otherbot", 200, TXT);
        assert!(!other.allows(&u("http://h/private/x")));
        assert!(other.allows(&u("http://h/no-feeds")));
    }

    #[test]
    fn statuses_after_rfc_9309() {
        let any = u("http://h/anything");
        assert!(Rules::from_response("sitefeed", 404, b"").allows(&any));
        assert!(Rules::from_response("sitefeed", 403, b"").allows(&any));
        assert!(!Rules::from_response("sitefeed", 503, b"").allows(&any));
        assert!(!Rules::from_response("sitefeed", 429, b"").allows(&any));
        // An HTML error page served with 200 has no rules.
        assert!(Rules::from_response("sitefeed", 200, b"<html>oops</html>").allows(&any));
    }

    #[test]
    fn token_and_url() {
        assert_eq!(product_token("sitefeed/0.1.0 (+https://x)"), "sitefeed");
        assert_eq!(product_token("MyBot"), "MyBot");
        assert_eq!(
            robots_url(&u("https://a:b@h.example:8443/x/y?q#f")).map(String::from),
            Some("https://h.example:8443/robots.txt".to_owned())
        );
    }

    #[tokio::test(start_paused = true)]
    async fn cache_expires_and_unreachable_keeps_old_rules() {
        let cache = RobotsCache::default();
        let page = u("http://h.example/no-feeds");
        {
            let mut s = cache.slot(&page).await;
            assert!(s.fresh().is_none());
            s.store(Rules::from_response("sitefeed", 200, TXT));
        }
        assert!(cache.slot(&page).await.fresh().is_some());
        tokio::time::advance(TTL + Duration::from_secs(1)).await;
        let mut s = cache.slot(&page).await;
        assert!(s.fresh().is_none(), "expired after a day");
        let kept = s.store(Rules::Unreachable("down".into()));
        assert!(matches!(kept, Rules::Parsed(_)), "old rules beat an outage");
    }
}
