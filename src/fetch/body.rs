//! Reading a body under the limits: at most `fetch.max_body_bytes` after decompression,
//! at least [`STALL_MIN_BYTES`] per stall window; and whether a body is HTML.

use tokio::time::Instant;

use super::{FetchError, Fetcher};

/// A body must deliver at least this many bytes per stall window.
pub const STALL_MIN_BYTES: usize = 1024;

/// At most this much room is taken for a body before it arrives.
const PREALLOC_MAX: u64 = 256 * 1024;

impl Fetcher {
    /// Reads a body: at most `cap` bytes after decompression (more is an error, or with
    /// `truncate` is dropped), and at least [`STALL_MIN_BYTES`] per stall window.
    pub(super) async fn read_body(
        &self,
        mut resp: reqwest::Response,
        cap: u64,
        truncate: bool,
    ) -> Result<Vec<u8>, FetchError> {
        if !truncate && resp.content_length().is_some_and(|n| n > cap) {
            return Err(FetchError::TooLarge(cap));
        }
        let stall = self.cfg().stall_timeout;
        let cap = usize::try_from(cap).unwrap_or(usize::MAX);
        // Room for the body the server announces (up to a bound, as the announcement
        // may be false), so a page is not copied again each time the vector grows.
        let announced = resp.content_length().unwrap_or(0).min(PREALLOC_MAX);
        let mut body = Vec::with_capacity(usize::try_from(announced).unwrap_or(0).min(cap));
        let mut window = Instant::now() + stall;
        let mut window_bytes = 0;
        loop {
            let chunk = tokio::time::timeout_at(window, resp.chunk())
                .await
                .map_err(|_| FetchError::Stalled(stall))?
                .map_err(|e| self.classify(&e))?;
            let Some(chunk) = chunk else { break };
            if body.len() + chunk.len() > cap {
                if truncate {
                    body.extend_from_slice(&chunk[..cap - body.len()]);
                    break;
                }
                return Err(FetchError::TooLarge(cap as u64));
            }
            body.extend_from_slice(&chunk);
            window_bytes += chunk.len();
            if window_bytes >= STALL_MIN_BYTES {
                window = Instant::now() + stall;
                window_bytes = 0;
            }
        }
        Ok(body)
    }
}

/// HTML and XHTML media types.
pub fn is_html_type(content_type: &str) -> bool {
    let mime = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    matches!(mime.as_str(), "text/html" | "application/xhtml+xml" | "")
}

/// Whether an untyped body starts like markup.
pub(super) fn looks_like_html(body: &[u8]) -> bool {
    let body = body.strip_prefix(b"\xef\xbb\xbf").unwrap_or(body);
    body.iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|&b| b == b'<')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_types() {
        assert!(is_html_type("text/html"));
        assert!(is_html_type("text/html; charset=GBK"));
        assert!(is_html_type("Application/XHTML+XML"));
        assert!(!is_html_type("application/pdf"));
        assert!(!is_html_type("text/plain; charset=utf-8"));
        assert!(looks_like_html(b"\xef\xbb\xbf  <!doctype html>"));
        assert!(!looks_like_html(b"%PDF-1.4"));
    }
}
