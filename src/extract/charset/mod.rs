//! Turning a fetched body into text (`docs/design.md` §7): many of the pages sitefeed is
//! for are GBK, GB2312, Big5, Shift_JIS or EUC-KR.
//!
//! The order of evidence:
//!
//! 1. a byte order mark (UTF-8, UTF-16LE, UTF-16BE). As in browsers (WHATWG "encoding
//!    sniffing"), a BOM beats a header: it is part of the bytes themselves and cannot be
//!    stale, while headers often carry a server-wide default;
//! 2. the `charset` parameter of the `Content-Type` header;
//! 3. a `<meta charset>` or `<meta http-equiv="content-type" content="...charset=...">` in
//!    the first 4 KiB, found with the browsers' prescan (comments and the attributes of
//!    other tags are skipped, so a `charset=` inside a comment or an attribute value does
//!    not count). Browsers scan
//!    1024 bytes; 4 KiB also finds declarations behind long comments or inline styles;
//! 4. sniffing with `chardetng` (optionally hinted by the page's top-level domain).
//!
//! Labels are resolved with the WHATWG table (`gb2312` and `gbk` become GBK, `shift_jis`,
//! `big5`, `euc-kr`, `windows-1251`, `latin1` = windows-1252, ...).
//!
//! A declaration is not trusted blindly: some captures were transcoded to UTF-8 but kept
//! their `<meta charset=gbk>`, and some servers announce `charset=utf-8` for every page,
//! whatever its bytes. So:
//! * a declared legacy encoding is set aside when the body is valid UTF-8 and contains
//!   non-ASCII bytes (text in a legacy multi-byte encoding is practically never valid
//!   UTF-8, and GBK would otherwise "decode" UTF-8 bytes without an error into nonsense);
//! * a declaration whose decoding hits malformed bytes is set aside for the other
//!   declaration (meta after header) when that one decodes cleanly, else for UTF-8 when
//!   the bytes are valid UTF-8, else for the sniffed encoding when it decodes cleanly;
//!   failing all of that the declared encoding is used with U+FFFD replacements.
//!
//! Never panics; always yields a `String`.
//!
//! Beside this file: the `<meta>` prescan ([`meta`]). Uses `encoding_rs`, `chardetng`
//! and the `url` crate.

use std::borrow::Cow;

use encoding_rs::{Encoding, REPLACEMENT, UTF_8};
use url::Url;

mod meta;

use meta::prescan;

/// How many bytes the `<meta>` prescan looks at.
const PRESCAN_BYTES: usize = 4096;
/// How many bytes are fed to the sniffer at most (it is accurate long before that).
const SNIFF_BYTES: usize = 256 * 1024;

/// Where the encoding of a [`Decoded`] body came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CharsetSource {
    /// The `charset` parameter of the `Content-Type` header.
    Header,
    /// A byte order mark.
    Bom,
    /// A `<meta>` declaration in the first bytes of the page.
    Meta,
    /// Nothing declared (or every declaration failed and the sniffer's guess decoded
    /// cleanly): the bytes were valid UTF-8, or `chardetng` guessed.
    Sniffed,
    /// A legacy encoding was declared, but the body is valid UTF-8 and was decoded as such.
    Utf8Fallback,
}

/// A decoded body: borrowed from the body when its bytes are already the text (UTF-8,
/// or ASCII under an ASCII-compatible encoding).
#[derive(Debug, Clone)]
pub struct Decoded<'b> {
    pub text: Cow<'b, str>,
    pub encoding: &'static Encoding,
    pub source: CharsetSource,
}

/// Decodes `body` given the `Content-Type` header it came with (if any).
pub fn decode<'b>(body: &'b [u8], content_type: Option<&str>) -> Decoded<'b> {
    decode_with_hint(body, content_type, None)
}

/// [`decode`], with the page's URL as a hint for the sniffer (its top-level domain: a
/// `.jp` page that declares nothing is more likely Shift_JIS than GBK).
pub fn decode_for_url<'b>(
    body: &'b [u8],
    content_type: Option<&str>,
    page_url: &Url,
) -> Decoded<'b> {
    let tld = page_url
        .host_str()
        .and_then(|h| h.rsplit('.').next())
        .filter(|t| !t.is_empty() && t.bytes().all(|b| b.is_ascii_alphabetic()));
    decode_with_hint(body, content_type, tld)
}

/// [`decode`] with an optional top-level-domain hint (`"jp"`, `"cn"`, `"tw"`, ...).
pub(crate) fn decode_with_hint<'b>(
    body: &'b [u8],
    content_type: Option<&str>,
    tld: Option<&str>,
) -> Decoded<'b> {
    if let Some((enc, bom_len)) = Encoding::for_bom(body) {
        let (text, _) = enc.decode_without_bom_handling(&body[bom_len..]);
        return done(text, enc, CharsetSource::Bom);
    }

    let header = content_type
        .and_then(charset_param)
        .and_then(|label| Encoding::for_label(label.as_bytes()))
        .filter(|&enc| enc != REPLACEMENT)
        .map(|enc| (enc, CharsetSource::Header));
    let meta =
        prescan(&body[..body.len().min(PRESCAN_BYTES)]).map(|enc| (enc, CharsetSource::Meta));

    let utf8 = std::str::from_utf8(body).ok();
    let declared: Vec<(&'static Encoding, CharsetSource)> =
        header.into_iter().chain(meta).collect();

    if declared.is_empty() {
        if let Some(s) = utf8 {
            return done(Cow::Borrowed(s), UTF_8, CharsetSource::Sniffed);
        }
        let enc = sniff(body, tld);
        return done(decode_lossy(body, enc), enc, CharsetSource::Sniffed);
    }

    // A declared legacy encoding over bytes that are valid, non-ASCII UTF-8: a transcoded
    // capture. (Pure ASCII decodes the same either way; keep the declaration then.)
    if let Some(s) = utf8 {
        let (first, _) = declared[0];
        if first != UTF_8 && !s.is_ascii() {
            return done(Cow::Borrowed(s), UTF_8, CharsetSource::Utf8Fallback);
        }
    }

    for &(enc, source) in &declared {
        if enc == UTF_8 {
            if let Some(s) = utf8 {
                return done(Cow::Borrowed(s), UTF_8, source);
            }
            // UTF-8 with a few damaged bytes (a truncated upload, one pasted Latin-1
            // string) is still UTF-8: replace the damage rather than sniff a single-byte
            // encoding that would turn every other non-ASCII character into mojibake.
            if mostly_utf8(body) {
                return done(decode_lossy(body, UTF_8), UTF_8, source);
            }
        } else if let Some(text) = enc.decode_without_bom_handling_and_without_replacement(body) {
            return done(text, enc, source);
        }
    }
    if let Some(s) = utf8 {
        return done(Cow::Borrowed(s), UTF_8, CharsetSource::Utf8Fallback);
    }
    let sniffed = sniff(body, tld);
    if !declared.iter().any(|&(enc, _)| enc == sniffed) {
        if let Some(text) = sniffed.decode_without_bom_handling_and_without_replacement(body) {
            return done(text, sniffed, CharsetSource::Sniffed);
        }
    }
    let (enc, source) = declared[0];
    done(decode_lossy(body, enc), enc, source)
}

/// Whether `body` has at least twice as many well-formed multi-byte UTF-8 sequences as
/// malformed ones. Text in a legacy CJK encoding read as UTF-8 is mostly malformed
/// (about one pair in ten happens to be well-formed), so it fails this test.
fn mostly_utf8(body: &[u8]) -> bool {
    let (mut good, mut bad) = (0usize, 0usize);
    let mut rest = body;
    loop {
        match std::str::from_utf8(rest) {
            Ok(s) => {
                good += s.bytes().filter(|&b| b >= 0xc0).count();
                break;
            }
            Err(e) => {
                let (valid, after) = rest.split_at(e.valid_up_to());
                good += valid.iter().filter(|&&b| b >= 0xc0).count();
                bad += 1;
                rest = &after[e.error_len().unwrap_or(after.len()).max(1).min(after.len())..];
            }
        }
    }
    bad > 0 && good >= 2 * bad
}

fn done<'b>(text: Cow<'b, str>, encoding: &'static Encoding, source: CharsetSource) -> Decoded<'b> {
    Decoded {
        text,
        encoding,
        source,
    }
}

fn decode_lossy<'b>(body: &'b [u8], enc: &'static Encoding) -> Cow<'b, str> {
    enc.decode_without_bom_handling(body).0
}

fn sniff(body: &[u8], tld: Option<&str>) -> &'static Encoding {
    let mut det = chardetng::EncodingDetector::new();
    let n = body.len().min(SNIFF_BYTES);
    det.feed(&body[..n], true);
    det.guess(tld.map(str::as_bytes), true)
}

/// The value of the `charset` parameter of a `Content-Type` value, unquoted.
fn charset_param(content_type: &str) -> Option<&str> {
    content_type.split(';').skip(1).find_map(|param| {
        let (name, value) = param.split_once('=')?;
        if !name.trim().eq_ignore_ascii_case("charset") {
            return None;
        }
        let value = value.trim();
        let value = value
            .strip_prefix('"')
            .map_or(value, |v| v.split('"').next().unwrap_or(v))
            .trim();
        (!value.is_empty()).then_some(value)
    })
}

#[cfg(test)]
mod tests;
