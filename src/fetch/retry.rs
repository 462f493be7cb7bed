//! Retries: which failures are worth another attempt, the backoff between attempts, and
//! the wait a `429` or `503` asks for (`Retry-After`).

use std::time::Duration;

use reqwest::header::{self, HeaderMap};
use reqwest::StatusCode;

use super::{host, FetchError, Fetcher};

/// First retry delay; doubled per attempt, then jittered by ±50%.
const BACKOFF_BASE: Duration = Duration::from_millis(500);
/// `Retry-After` assumed for a `429` that gives none.
const DEFAULT_429_WAIT: Duration = Duration::from_secs(60);

impl Fetcher {
    /// The pause before another attempt after `err`, if another is worth it.
    pub(super) fn retry_wait(&self, err: &FetchError, attempt: u32) -> Option<Duration> {
        if attempt >= self.cfg().retries {
            return None;
        }
        let retryable = match err {
            FetchError::Timeout(_) | FetchError::Stalled(_) => true,
            FetchError::Status { code, retry_after } => {
                (code.is_server_error() || *code == StatusCode::TOO_MANY_REQUESTS)
                    // A long Retry-After is the scheduler's to honour, not a worker's.
                    && retry_after.is_none_or(|ra| ra <= self.cfg().timeout)
            }
            _ => false,
        };
        // The host gate holds the next request until any Retry-After has passed.
        retryable.then(|| backoff(attempt))
    }
}

/// Exponential backoff with ±50% jitter for retry `attempt` (0-based).
fn backoff(attempt: u32) -> Duration {
    let base = BACKOFF_BASE * 2u32.saturating_pow(attempt.min(10));
    base.mul_f64(0.5 + fastrand::f64())
}

/// The wait a `429` or `503` asks for: `Retry-After` in seconds or as an HTTP date
/// (60 s for a 429 without one), capped at [`host::MAX_RETRY_AFTER`].
pub(super) fn retry_after(status: StatusCode, headers: &HeaderMap) -> Option<Duration> {
    if status != StatusCode::TOO_MANY_REQUESTS && status != StatusCode::SERVICE_UNAVAILABLE {
        return None;
    }
    let parsed = headers
        .get(header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| parse_retry_after(v, chrono::Utc::now()));
    parsed
        .or((status == StatusCode::TOO_MANY_REQUESTS).then_some(DEFAULT_429_WAIT))
        .map(|d| d.min(host::MAX_RETRY_AFTER))
}

/// Parses a `Retry-After` value: delta-seconds or an HTTP date (a past date is 0 s).
fn parse_retry_after(v: &str, now: chrono::DateTime<chrono::Utc>) -> Option<Duration> {
    let v = v.trim();
    if let Ok(secs) = v.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let when = chrono::DateTime::parse_from_rfc2822(v).ok()?;
    let secs = (when.with_timezone(&chrono::Utc) - now)
        .num_seconds()
        .max(0);
    Some(Duration::from_secs(secs.unsigned_abs()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_values() {
        let now = chrono::DateTime::parse_from_rfc2822("Wed, 21 Oct 2015 07:28:00 GMT")
            .expect("date")
            .with_timezone(&chrono::Utc);
        assert_eq!(
            parse_retry_after("120", now),
            Some(Duration::from_secs(120))
        );
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:30:00 GMT", now),
            Some(Duration::from_secs(120))
        );
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:00:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("soon", now), None);
        let mut h = HeaderMap::new();
        assert_eq!(
            retry_after(StatusCode::TOO_MANY_REQUESTS, &h),
            Some(DEFAULT_429_WAIT)
        );
        assert_eq!(retry_after(StatusCode::SERVICE_UNAVAILABLE, &h), None);
        h.insert(header::RETRY_AFTER, "99999999".parse().expect("value"));
        assert_eq!(
            retry_after(StatusCode::SERVICE_UNAVAILABLE, &h),
            Some(host::MAX_RETRY_AFTER)
        );
        assert_eq!(retry_after(StatusCode::OK, &h), None);
    }

    #[test]
    fn backoff_grows_with_jitter() {
        for attempt in 0..4 {
            let base = BACKOFF_BASE * 2u32.pow(attempt);
            for _ in 0..50 {
                let d = backoff(attempt);
                assert!(d >= base / 2 && d <= base * 3 / 2, "{attempt}: {d:?}");
            }
        }
    }
}
