//! Feeds sent gzip-compressed to the readers that accept it (nearly all do): a watch
//! feed is compressed once, when it is rendered, on the CPU pool, and kept with its plain
//! form, so a request costs no compression; a tag feed or the OPML, rendered for each
//! request, is compressed with its render when the client takes gzip. The gzip form is a
//! representation of its own: it has its own ETag, and every feed answer says it varies
//! with `Accept-Encoding`.

use axum::http::{header, HeaderMap, HeaderValue};

/// Whether the request's `Accept-Encoding` accepts gzip (RFC 9110, 12.5.3): `gzip` (or
/// `x-gzip`) with a weight above zero, else `*` with one. No header: no.
pub fn accepts_gzip(headers: &HeaderMap) -> bool {
    let mut named = None;
    let mut any = None;
    for value in headers.get_all(header::ACCEPT_ENCODING) {
        let Ok(value) = value.to_str() else { continue };
        for coding in value.split(',') {
            let mut parts = coding.split(';');
            let name = parts.next().unwrap_or_default().trim();
            let weight = parts
                .filter_map(|p| p.trim().strip_prefix("q=").or(p.trim().strip_prefix("Q=")))
                .next_back()
                .map_or(Some(1.0), |q| q.trim().parse::<f32>().ok());
            // A weight that does not parse leaves the coding out (as if it were absent).
            let Some(weight) = weight else { continue };
            if name.eq_ignore_ascii_case("gzip") || name.eq_ignore_ascii_case("x-gzip") {
                named = Some(named.unwrap_or(false) || weight > 0.0);
            } else if name == "*" {
                any = Some(any.unwrap_or(false) || weight > 0.0);
            }
        }
    }
    named.or(any).unwrap_or(false)
}

/// `body` in gzip (RFC 1952), at the default level.
pub fn gzip(body: &[u8]) -> std::io::Result<Vec<u8>> {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(
        Vec::with_capacity(body.len() / 3 + 64),
        flate2::Compression::default(),
    );
    e.write_all(body)?;
    e.finish()
}

/// Marks `h` as the headers of an answer whose body depends on `Accept-Encoding`.
pub fn vary(h: &mut HeaderMap) {
    h.append(header::VARY, HeaderValue::from_static("Accept-Encoding"));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accepts(values: &[&str]) -> bool {
        let mut h = HeaderMap::new();
        for v in values {
            h.append(
                header::ACCEPT_ENCODING,
                HeaderValue::from_str(v).expect("value"),
            );
        }
        accepts_gzip(&h)
    }

    #[test]
    fn gzip_is_accepted_when_named_or_covered_by_a_star_and_never_at_weight_zero() {
        assert!(!accepts(&[]));
        assert!(accepts(&["gzip"]));
        assert!(accepts(&["gzip, deflate, br"]));
        assert!(accepts(&["br;q=1.0, GZIP;q=0.5"]));
        assert!(accepts(&["x-gzip"]));
        assert!(accepts(&["deflate", "gzip"]));
        assert!(accepts(&["*"]));
        assert!(accepts(&["identity;q=1, *;q=0.1"]));
        assert!(!accepts(&["identity"]));
        assert!(!accepts(&["deflate, br"]));
        assert!(!accepts(&["gzip;q=0"]));
        assert!(!accepts(&["gzip; q=0.000"]));
        assert!(!accepts(&["*;q=0"]));
        // A coding named is weighed by its own weight, whatever `*` says.
        assert!(!accepts(&["*, gzip;q=0"]));
        assert!(accepts(&["*;q=0, gzip"]));
        // A weight that is not a number: the coding is not taken as offered.
        assert!(!accepts(&["gzip;q=high"]));
        assert!(!accepts(&["gzipped"]));
    }

    #[test]
    fn the_gzip_form_unpacks_to_the_body() {
        use std::io::Read;
        let feed = "<rss><channel><title>Feed</title></channel></rss>\n".repeat(200);
        let text = "通知公告：关于2026年寒假放假安排的通知 — Ünïcödé".repeat(50);
        for body in [feed.as_str(), text.as_str(), ""] {
            let packed = gzip(body.as_bytes()).expect("gzip");
            let mut out = String::new();
            flate2::read::GzDecoder::new(packed.as_slice())
                .read_to_string(&mut out)
                .expect("gunzip");
            assert_eq!(out, body);
        }
        assert!(gzip(feed.as_bytes()).expect("gzip").len() < feed.len() / 5);
    }
}
