//! Server-side state of the web page's protection: the server secret, the sessions and
//! the login throttle. Everything is in memory: a restart logs everyone out, which is the
//! safe side.
//!
//! - **Sessions**: a session id is 256 random bits from the operating system, kept here
//!   with its creation and last-use times; the browser holds only the id. A session
//!   ends after [`SESSION_IDLE`] unused, [`SESSION_MAX_AGE`] after login at the latest, or
//!   at logout.
//! - **CSRF tokens** (synchronizer tokens without server storage): HMAC-SHA256 under the
//!   server secret of what the request is bound to, the session id when there is one,
//!   else a random per-browser id. A page on another port or a sibling host can set
//!   cookies for this host, but it cannot compute a token for a session it does not know.
//! - **Login throttle**: per client address, the first [`FREE_FAILURES`] wrong tokens cost
//!   nothing; each further one doubles the time the address must wait before it may try
//!   again (from 1 s up to [`MAX_LOCKOUT`]). A success clears it.
//!
//! The [`crate::app::App`] holds one [`Security`] (it lives as long as the service); the
//! server's authentication uses it. Uses nothing else of the crate.
//!
//! May use: model.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;

use hmac::{Hmac, Mac};
use sha2::Sha256;
use subtle::ConstantTimeEq;

/// A session unused this long (seconds) has ended.
pub const SESSION_IDLE: i64 = 12 * 3600;
/// A session ends this long (seconds) after login, used or not.
pub const SESSION_MAX_AGE: i64 = 7 * 86_400;
/// Sessions kept at most; the least recently used goes first.
const MAX_SESSIONS: usize = 1000;
/// Wrong tokens an address may send before it has to wait.
pub const FREE_FAILURES: u32 = 5;
/// Longest wait imposed on an address (seconds).
pub const MAX_LOCKOUT: i64 = 15 * 60;
/// Addresses remembered by the throttle before the quiet ones are forgotten.
const MAX_CLIENTS: usize = 10_000;

type HmacSha256 = Hmac<Sha256>;

#[derive(Debug, Clone, Copy)]
struct Session {
    created: i64,
    last_seen: i64,
}

#[derive(Debug, Clone, Copy)]
struct Failures {
    count: u32,
    /// No attempt is looked at before this time.
    locked_until: i64,
    last: i64,
}

/// The secret, the sessions and the throttle of one running server.
pub struct Security {
    secret: [u8; 32],
    sessions: Mutex<HashMap<String, Session>>,
    failures: Mutex<HashMap<IpAddr, Failures>>,
}

impl std::fmt::Debug for Security {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Security").finish_non_exhaustive()
    }
}

impl Default for Security {
    fn default() -> Self {
        Self::new()
    }
}

/// `n` random bytes from the operating system, as lower-case hex.
pub fn random_hex(n: usize) -> String {
    let mut b = vec![0u8; n];
    getrandom::getrandom(&mut b).expect("invariant: the operating system provides randomness");
    crate::model::hex(&b)
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Security {
    pub fn new() -> Self {
        let mut secret = [0u8; 32];
        getrandom::getrandom(&mut secret)
            .expect("invariant: the operating system provides randomness");
        Self {
            secret,
            sessions: Mutex::new(HashMap::new()),
            failures: Mutex::new(HashMap::new()),
        }
    }

    fn mac(&self, parts: &[&[u8]]) -> [u8; 32] {
        let mut m =
            HmacSha256::new_from_slice(&self.secret).expect("invariant: HMAC takes any key");
        for p in parts {
            m.update(&(p.len() as u64).to_be_bytes());
            m.update(p);
        }
        m.finalize().into_bytes().into()
    }

    /// Whether `given` equals `expected`, in time that depends on neither (both are
    /// MAC'd first, so even their lengths do not show).
    pub fn same_secret(&self, given: &str, expected: &str) -> bool {
        let a = self.mac(&[b"compare", given.as_bytes()]);
        let b = self.mac(&[b"compare", expected.as_bytes()]);
        bool::from(a.ct_eq(&b))
    }

    /// The CSRF token for forms of a request bound to `binding` (a session id, or the
    /// browser's anonymous id): 128 bits of HMAC, hex.
    pub fn csrf_token(&self, binding: &str) -> String {
        crate::model::hex(&self.mac(&[b"csrf", binding.as_bytes()])[..16])
    }

    /// Whether `given` is the CSRF token of `binding`.
    pub fn csrf_ok(&self, binding: &str, given: &str) -> bool {
        !binding.is_empty()
            && bool::from(
                self.csrf_token(binding)
                    .as_bytes()
                    .ct_eq(given.trim().as_bytes()),
            )
    }

    /// Starts a session at `now`; returns its id.
    pub fn create_session(&self, now: i64) -> String {
        let id = random_hex(32);
        let mut s = lock(&self.sessions);
        s.retain(|_, v| alive(v, now));
        if s.len() >= MAX_SESSIONS {
            if let Some(oldest) = s
                .iter()
                .min_by_key(|(_, v)| v.last_seen)
                .map(|(k, _)| k.clone())
            {
                s.remove(&oldest);
            }
        }
        s.insert(
            id.clone(),
            Session {
                created: now,
                last_seen: now,
            },
        );
        id
    }

    /// Whether session `id` is live at `now`; a live one counts as used now.
    pub fn session_live(&self, id: &str, now: i64) -> bool {
        let mut s = lock(&self.sessions);
        match s.get_mut(id) {
            Some(v) if alive(v, now) => {
                v.last_seen = v.last_seen.max(now);
                true
            }
            Some(_) => {
                s.remove(id);
                false
            }
            None => false,
        }
    }

    /// Ends session `id`.
    pub fn end_session(&self, id: &str) {
        lock(&self.sessions).remove(id);
    }

    /// `Err(seconds)` while `ip` must wait before its next login attempt.
    pub fn throttle_check(&self, ip: IpAddr, now: i64) -> Result<(), i64> {
        match lock(&self.failures).get(&ip) {
            Some(f) if f.locked_until > now => Err(f.locked_until - now),
            _ => Ok(()),
        }
    }

    /// Records a wrong token from `ip` at `now`.
    pub fn throttle_failed(&self, ip: IpAddr, now: i64) {
        let mut all = lock(&self.failures);
        if all.len() >= MAX_CLIENTS && !all.contains_key(&ip) {
            all.retain(|_, f| f.locked_until > now || now - f.last < MAX_LOCKOUT);
        }
        let f = all.entry(ip).or_insert(Failures {
            count: 0,
            locked_until: 0,
            last: now,
        });
        // A quiet address starts over.
        if now - f.last > MAX_LOCKOUT && f.locked_until <= now {
            f.count = 0;
        }
        f.count += 1;
        f.last = now;
        if f.count >= FREE_FAILURES {
            let doublings = (f.count - FREE_FAILURES).min(20);
            f.locked_until = now + (1i64 << doublings).min(MAX_LOCKOUT);
        }
    }

    /// A right token from `ip`: its failures are forgotten.
    pub fn throttle_succeeded(&self, ip: IpAddr) {
        lock(&self.failures).remove(&ip);
    }
}

fn alive(s: &Session, now: i64) -> bool {
    now - s.last_seen < SESSION_IDLE && now - s.created < SESSION_MAX_AGE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_bound_to_their_binding_and_secret() {
        let a = Security::new();
        let b = Security::new();
        let t = a.csrf_token("session-1");
        assert_eq!(t.len(), 32);
        assert!(a.csrf_ok("session-1", &t));
        assert!(!a.csrf_ok("session-2", &t));
        assert!(!b.csrf_ok("session-1", &t), "another secret, another token");
        assert!(!a.csrf_ok("", &a.csrf_token("")));
    }

    #[test]
    fn sessions_end_when_idle_old_or_ended() {
        let s = Security::new();
        let id = s.create_session(0);
        assert_eq!(id.len(), 64);
        assert!(s.session_live(&id, SESSION_IDLE - 1));
        assert!(s.session_live(&id, 2 * SESSION_IDLE - 2), "use extends it");
        assert!(!s.session_live(&id, 4 * SESSION_IDLE), "idle too long");
        let id = s.create_session(0);
        let mut t = 0;
        while t + SESSION_IDLE / 2 < SESSION_MAX_AGE {
            t += SESSION_IDLE / 2;
            assert!(s.session_live(&id, t));
        }
        assert!(!s.session_live(&id, SESSION_MAX_AGE));
        let id = s.create_session(0);
        s.end_session(&id);
        assert!(!s.session_live(&id, 1));
        assert!(!s.session_live("guess", 1));
    }

    #[test]
    fn throttle_doubles_the_wait_after_the_free_failures() {
        let s = Security::new();
        let ip: IpAddr = [10, 0, 0, 1].into();
        let other: IpAddr = [10, 0, 0, 2].into();
        for _ in 0..FREE_FAILURES - 1 {
            s.throttle_failed(ip, 100);
            assert!(s.throttle_check(ip, 100).is_ok());
        }
        s.throttle_failed(ip, 100);
        assert_eq!(s.throttle_check(ip, 100), Err(1));
        s.throttle_failed(ip, 101);
        assert_eq!(s.throttle_check(ip, 101), Err(2));
        assert!(s.throttle_check(other, 101).is_ok(), "per address");
        for _ in 0..40 {
            s.throttle_failed(ip, 103);
        }
        assert_eq!(s.throttle_check(ip, 103), Err(MAX_LOCKOUT));
        s.throttle_succeeded(ip);
        assert!(s.throttle_check(ip, 103).is_ok());
    }

    #[test]
    fn comparison_ignores_nothing() {
        let s = Security::new();
        assert!(s.same_secret("tok", "tok"));
        assert!(!s.same_secret("tok", "tok "));
        assert!(!s.same_secret("", "tok"));
    }
}
