//! A small DNS cache in front of the system resolver, with the address guard applied to
//! every answer it hands out (cached or not).
//!
//! The system resolver (`getaddrinfo`, run by tokio on its blocking pool) does not tell
//! record TTLs, so answers are kept for a fixed [`TTL`]; failures are not cached. Keeping
//! an answer also pins it: a name that flips to a private address after the first lookup
//! (DNS rebinding) is not even asked again for a while, and when it is, the guard filters
//! the new answer.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;

use super::guard::{self, RefusedAddresses};

/// How long an answer is used.
pub(crate) const TTL: Duration = Duration::from_secs(300);
/// Names remembered before the cache is pruned.
const MAX_NAMES: usize = 10_000;

/// A test-only fixed answer for a name; `trusted` answers skip the guard, so a test can
/// reach its local server with the guard on and see what the guard does to the *next*
/// hop. Compiled into test builds only.
#[cfg(test)]
#[derive(Debug, Clone)]
pub(crate) struct TestHost {
    pub addrs: Vec<IpAddr>,
    pub trusted: bool,
}

/// Answers by lower-case name, with when they were got.
type Cache = HashMap<String, (Arc<[IpAddr]>, Instant)>;

#[derive(Debug, Default)]
struct Inner {
    allow_private: bool,
    cache: Mutex<Cache>,
    #[cfg(test)]
    test_hosts: HashMap<String, TestHost>,
}

/// The fetcher's resolver: cached, and guarded unless private addresses are allowed.
#[derive(Debug, Clone, Default)]
pub(crate) struct CachingResolver(Arc<Inner>);

impl CachingResolver {
    pub fn new(allow_private: bool) -> Self {
        Self(Arc::new(Inner {
            allow_private,
            ..Inner::default()
        }))
    }

    #[cfg(test)]
    pub(crate) fn with_test_hosts(
        allow_private: bool,
        test_hosts: HashMap<String, TestHost>,
    ) -> Self {
        Self(Arc::new(Inner {
            allow_private,
            test_hosts,
            ..Inner::default()
        }))
    }

    /// The addresses `host` may be connected to.
    pub(crate) async fn resolve_host(
        &self,
        host: &str,
    ) -> Result<Vec<IpAddr>, Box<dyn std::error::Error + Send + Sync>> {
        let host = host.to_ascii_lowercase();
        #[cfg(test)]
        if let Some(t) = self.0.test_hosts.get(&host) {
            if t.trusted {
                return Ok(t.addrs.clone());
            }
            return self.permitted(&host, &t.addrs);
        }
        let cached = {
            let cache = self.lock();
            cache
                .get(&host)
                .filter(|(_, at)| at.elapsed() < TTL)
                .map(|(a, _)| a.clone())
        };
        let addrs = if let Some(a) = cached {
            a
        } else {
            let found: Arc<[IpAddr]> = tokio::net::lookup_host((host.as_str(), 0))
                .await
                .map_err(|e| NameNotResolved {
                    host: host.clone(),
                    reason: e.to_string(),
                })?
                .map(|a| a.ip())
                .collect();
            if found.is_empty() {
                return Err(Box::new(NameNotResolved {
                    host,
                    reason: "no addresses".into(),
                }));
            }
            let mut cache = self.lock();
            if cache.len() >= MAX_NAMES {
                cache.retain(|_, (_, at)| at.elapsed() < TTL);
                if cache.len() >= MAX_NAMES {
                    cache.clear();
                }
            }
            cache.insert(host.clone(), (found.clone(), Instant::now()));
            found
        };
        self.permitted(&host, &addrs)
    }

    fn permitted(
        &self,
        host: &str,
        all: &[IpAddr],
    ) -> Result<Vec<IpAddr>, Box<dyn std::error::Error + Send + Sync>> {
        let ok: Vec<IpAddr> = all
            .iter()
            .copied()
            .filter(|&ip| self.0.allow_private || guard::is_public(ip))
            // Test safety net: a unit test never connects beyond loopback, even if the
            // guard were broken.
            .filter(|ip| !cfg!(test) || ip.is_loopback())
            .collect();
        if ok.is_empty() {
            let addrs = all
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ");
            return Err(Box::new(RefusedAddresses {
                host: host.to_owned(),
                addrs,
            }));
        }
        Ok(ok)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Cache> {
        self.0
            .cache
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The error a resolver gives when a name has no address (DNS).
#[derive(Debug, thiserror::Error)]
#[error("the name {host} does not resolve (DNS: {reason}); is the address spelt right?")]
pub(crate) struct NameNotResolved {
    pub host: String,
    pub reason: String,
}

impl reqwest::dns::Resolve for CachingResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let this = self.clone();
        Box::pin(async move {
            let addrs = this.resolve_host(name.as_str()).await?;
            Ok(Box::new(addrs.into_iter().map(|ip| SocketAddr::new(ip, 0))) as reqwest::dns::Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn guard_filters_answers() {
        let v4 = |s: &str| -> IpAddr { s.parse().expect("ip") };
        let hosts = HashMap::from([
            (
                "mixed.test".to_owned(),
                TestHost {
                    addrs: vec![v4("10.0.0.1"), v4("127.0.0.1")],
                    trusted: false,
                },
            ),
            (
                "rebind.test".to_owned(),
                TestHost {
                    addrs: vec![v4("169.254.169.254")],
                    trusted: false,
                },
            ),
        ]);
        let guarded = CachingResolver::with_test_hosts(false, hosts.clone());
        let e = guarded
            .resolve_host("rebind.test")
            .await
            .expect_err("refused");
        assert!(e.to_string().contains("169.254.169.254"), "{e}");
        assert!(guarded.resolve_host("MIXED.test").await.is_err());
        let open = CachingResolver::with_test_hosts(true, hosts);
        assert_eq!(
            open.resolve_host("mixed.test").await.expect("allowed"),
            vec![v4("127.0.0.1")],
            "allowed, but the test safety net keeps unit tests on loopback"
        );
    }

    #[tokio::test]
    async fn caches_system_answers() {
        let r = CachingResolver::new(true);
        let a = r
            .resolve_host("localhost")
            .await
            .expect("localhost resolves");
        assert!(a.iter().all(IpAddr::is_loopback));
        assert!(r.lock().contains_key("localhost"));
        assert!(CachingResolver::new(false)
            .resolve_host("localhost")
            .await
            .is_err());
    }
}
