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

use encoding_rs::{Encoding, REPLACEMENT, UTF_16BE, UTF_16LE, UTF_8, WINDOWS_1252, X_USER_DEFINED};
use url::Url;

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

/// A decoded body.
#[derive(Debug, Clone)]
pub struct Decoded {
    pub text: String,
    pub encoding: &'static Encoding,
    pub source: CharsetSource,
}

/// Decodes `body` given the `Content-Type` header it came with (if any).
pub fn decode(body: &[u8], content_type: Option<&str>) -> Decoded {
    decode_with_hint(body, content_type, None)
}

/// [`decode`], with the page's URL as a hint for the sniffer (its top-level domain: a
/// `.jp` page that declares nothing is more likely Shift_JIS than GBK).
pub fn decode_for_url(body: &[u8], content_type: Option<&str>, page_url: &Url) -> Decoded {
    let tld = page_url
        .host_str()
        .and_then(|h| h.rsplit('.').next())
        .filter(|t| !t.is_empty() && t.bytes().all(|b| b.is_ascii_alphabetic()));
    decode_with_hint(body, content_type, tld)
}

/// [`decode`] with an optional top-level-domain hint (`"jp"`, `"cn"`, `"tw"`, ...).
pub fn decode_with_hint(body: &[u8], content_type: Option<&str>, tld: Option<&str>) -> Decoded {
    if let Some((enc, bom_len)) = Encoding::for_bom(body) {
        let (text, _) = enc.decode_without_bom_handling(&body[bom_len..]);
        return done(text.into_owned(), enc, CharsetSource::Bom);
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
            return done(s.to_owned(), UTF_8, CharsetSource::Sniffed);
        }
        let enc = sniff(body, tld);
        return done(decode_lossy(body, enc), enc, CharsetSource::Sniffed);
    }

    // A declared legacy encoding over bytes that are valid, non-ASCII UTF-8: a transcoded
    // capture. (Pure ASCII decodes the same either way; keep the declaration then.)
    if let Some(s) = utf8 {
        let (first, _) = declared[0];
        if first != UTF_8 && !s.is_ascii() {
            return done(s.to_owned(), UTF_8, CharsetSource::Utf8Fallback);
        }
    }

    for &(enc, source) in &declared {
        if enc == UTF_8 {
            if let Some(s) = utf8 {
                return done(s.to_owned(), UTF_8, source);
            }
            // UTF-8 with a few damaged bytes (a truncated upload, one pasted Latin-1
            // string) is still UTF-8: replace the damage rather than sniff a single-byte
            // encoding that would turn every other non-ASCII character into mojibake.
            if mostly_utf8(body) {
                return done(decode_lossy(body, UTF_8), UTF_8, source);
            }
        } else if let Some(text) = enc.decode_without_bom_handling_and_without_replacement(body) {
            return done(text.into_owned(), enc, source);
        }
    }
    if let Some(s) = utf8 {
        return done(s.to_owned(), UTF_8, CharsetSource::Utf8Fallback);
    }
    let sniffed = sniff(body, tld);
    if !declared.iter().any(|&(enc, _)| enc == sniffed) {
        if let Some(text) = sniffed.decode_without_bom_handling_and_without_replacement(body) {
            return done(text.into_owned(), sniffed, CharsetSource::Sniffed);
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

fn done(text: String, encoding: &'static Encoding, source: CharsetSource) -> Decoded {
    Decoded {
        text,
        encoding,
        source,
    }
}

fn decode_lossy(body: &[u8], enc: &'static Encoding) -> String {
    enc.decode_without_bom_handling(body).0.into_owned()
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

/// The encoding that a `<meta>` in `head` declares, per the WHATWG prescan.
fn prescan(head: &[u8]) -> Option<&'static Encoding> {
    let mut i = 0;
    while i < head.len() {
        let rest = &head[i..];
        if rest.starts_with(b"<!--") {
            // "-->" may overlap the "<!--" ("<!-->" is a complete comment).
            i += 2 + find(&rest[2..], b"-->")? + 3;
        } else if starts_with_ignore_case(rest, b"<meta")
            && rest.get(5).is_some_and(|&b| is_space(b) || b == b'/')
        {
            let mut attrs = AttrReader {
                s: head,
                pos: i + 6,
            };
            if let Some(enc) = meta_charset(&mut attrs) {
                return Some(enc);
            }
            i = attrs.pos;
        } else if rest.len() >= 2
            && rest[0] == b'<'
            && (rest[1].is_ascii_alphabetic()
                || (rest[1] == b'/' && rest.get(2).is_some_and(u8::is_ascii_alphabetic)))
        {
            // Another tag: skip its name and attributes (a `>` inside a quoted attribute
            // value does not end it).
            let mut pos = i + 1;
            while pos < head.len() && !is_space(head[pos]) && head[pos] != b'>' {
                pos += 1;
            }
            let mut attrs = AttrReader { s: head, pos };
            while attrs.next_attr().is_some() {}
            i = attrs.pos;
        } else if rest.starts_with(b"<!") || rest.starts_with(b"</") || rest.starts_with(b"<?") {
            i += find(rest, b">")? + 1;
        } else {
            i += 1;
        }
    }
    None
}

/// Reads the attributes of one `<meta>` and returns its declared encoding, if any.
fn meta_charset(attrs: &mut AttrReader<'_>) -> Option<&'static Encoding> {
    let mut got_pragma = false;
    let mut need_pragma: Option<bool> = None;
    let mut charset: Option<&'static Encoding> = None;
    let mut seen_charset_attr = false;
    let mut seen_content = false;
    let mut seen_http_equiv = false;
    while let Some((name, value)) = attrs.next_attr() {
        match name.as_slice() {
            b"http-equiv" if !seen_http_equiv => {
                seen_http_equiv = true;
                got_pragma = value.eq_ignore_ascii_case(b"content-type");
            }
            b"content" if !seen_content => {
                seen_content = true;
                if charset.is_none() {
                    if let Some(label) = charset_from_content(&value) {
                        charset = Encoding::for_label(label);
                        need_pragma = Some(true);
                    }
                }
            }
            b"charset" if !seen_charset_attr => {
                seen_charset_attr = true;
                charset = Encoding::for_label(&value);
                need_pragma = Some(false);
            }
            _ => {}
        }
    }
    match need_pragma {
        None => return None,
        Some(true) if !got_pragma => return None,
        _ => {}
    }
    let enc = charset.filter(|&enc| enc != REPLACEMENT)?;
    Some(if enc == UTF_16BE || enc == UTF_16LE {
        UTF_8
    } else if enc == X_USER_DEFINED {
        WINDOWS_1252
    } else {
        enc
    })
}

/// The WHATWG "extract a character encoding from a meta element" algorithm.
fn charset_from_content(content: &[u8]) -> Option<&[u8]> {
    let mut i = 0;
    loop {
        let at = i + find_ignore_case(&content[i..], b"charset")?;
        let mut j = at + 7;
        while j < content.len() && is_space(content[j]) {
            j += 1;
        }
        if content.get(j) != Some(&b'=') {
            i = j;
            continue;
        }
        j += 1;
        while j < content.len() && is_space(content[j]) {
            j += 1;
        }
        if let &q @ (b'"' | b'\'') = content.get(j)? {
            let end = content[j + 1..].iter().position(|&b| b == q)?;
            return Some(&content[j + 1..j + 1 + end]);
        }
        let end = content[j..]
            .iter()
            .position(|&b| is_space(b) || b == b';')
            .map_or(content.len(), |p| j + p);
        return Some(&content[j..end]);
    }
}

/// Reads attributes of a tag, per the prescan's "get an attribute" algorithm (simplified:
/// names and values are lower-cased only where compared).
struct AttrReader<'a> {
    s: &'a [u8],
    pos: usize,
}

impl AttrReader<'_> {
    /// The next `(lower-case name, value)`, or `None` at the `>` (or the end of input).
    fn next_attr(&mut self) -> Option<(Vec<u8>, Vec<u8>)> {
        let s = self.s;
        while self.pos < s.len() && (is_space(s[self.pos]) || s[self.pos] == b'/') {
            self.pos += 1;
        }
        if self.pos >= s.len() || s[self.pos] == b'>' {
            self.pos += 1;
            return None;
        }
        let mut name = Vec::new();
        while self.pos < s.len() {
            let b = s[self.pos];
            if (b == b'=' && !name.is_empty()) || is_space(b) || b == b'/' || b == b'>' {
                break;
            }
            name.push(b.to_ascii_lowercase());
            self.pos += 1;
        }
        while self.pos < s.len() && is_space(s[self.pos]) {
            self.pos += 1;
        }
        if s.get(self.pos) != Some(&b'=') {
            return Some((name, Vec::new()));
        }
        self.pos += 1;
        while self.pos < s.len() && is_space(s[self.pos]) {
            self.pos += 1;
        }
        let mut value = Vec::new();
        match s.get(self.pos) {
            Some(&q @ (b'"' | b'\'')) => {
                self.pos += 1;
                while self.pos < s.len() && s[self.pos] != q {
                    value.push(s[self.pos]);
                    self.pos += 1;
                }
                self.pos += 1;
            }
            _ => {
                while self.pos < s.len() && !is_space(s[self.pos]) && s[self.pos] != b'>' {
                    value.push(s[self.pos]);
                    self.pos += 1;
                }
            }
        }
        Some((name, value))
    }
}

const fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\x0c' | b'\r')
}

fn starts_with_ignore_case(s: &[u8], prefix: &[u8]) -> bool {
    s.len() >= prefix.len() && s[..prefix.len()].eq_ignore_ascii_case(prefix)
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn find_ignore_case(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::extract;
    use encoding_rs::{BIG5, EUC_KR, GBK, SHIFT_JIS, WINDOWS_1251};
    use proptest::prelude::*;

    fn enc(e: &'static Encoding, s: &str) -> Vec<u8> {
        let (bytes, _, unmappable) = e.encode(s);
        assert!(!unmappable, "{} cannot encode {s}", e.name());
        bytes.into_owned()
    }

    /// Long enough for the sniffer to be sure.
    const SAMPLES: &[(&str, &str)] = &[
        (
            "GBK",
            "北京大学关于二〇二四年寒假放假安排的通知。各学院、各部门：根据学校校历安排，现将寒假放假时间通知如下，请各单位做好安全检查工作。",
        ),
        (
            "Big5",
            "國立臺灣大學公告：本校圖書館於寒假期間調整開放時間，請各位同學留意相關資訊，並遵守借閱規定。學生事務處敬啟。",
        ),
        (
            "Shift_JIS",
            "日本スカウト協会からのお知らせです。年末年始の事務局の休業日について、以下のとおりご案内いたします。ご不便をおかけしますが、よろしくお願いいたします。",
        ),
        (
            "EUC-KR",
            "서울대학교 공지사항입니다. 겨울방학 기간 동안 도서관 운영 시간이 변경되오니 학생 여러분께서는 참고하시기 바랍니다. 감사합니다.",
        ),
        (
            "windows-1251",
            "Объявление для студентов университета: расписание экзаменов на зимнюю сессию опубликовано на сайте факультета. Просим ознакомиться заранее.",
        ),
    ];

    fn encoding_named(name: &str) -> &'static Encoding {
        match name {
            "GBK" => GBK,
            "Big5" => BIG5,
            "Shift_JIS" => SHIFT_JIS,
            "EUC-KR" => EUC_KR,
            "windows-1251" => WINDOWS_1251,
            _ => unreachable!(),
        }
    }

    fn page(meta: &str, link_text: &str) -> String {
        format!(
            "<!DOCTYPE html><html><head>{meta}<title>t</title></head><body>\
             <ul><li><a href=\"/n/1\">{link_text}</a></li></ul></body></html>"
        )
    }

    fn link_text_of(d: &Decoded) -> String {
        let base = Url::parse("http://example.com/").unwrap();
        let p = extract(&d.text, &base, None).unwrap();
        assert_eq!(p.links.len(), 1, "{}", d.text);
        p.links[0].text.clone()
    }

    #[test]
    fn legacy_encodings_declared_in_header() {
        for &(name, text) in SAMPLES {
            let e = encoding_named(name);
            let body = enc(e, &page("", text));
            let d = decode(&body, Some(&format!("text/html; charset={name}")));
            assert_eq!(d.encoding, e, "{name}");
            assert_eq!(d.source, CharsetSource::Header);
            assert_eq!(link_text_of(&d), text, "{name}");
        }
    }

    #[test]
    fn legacy_encodings_declared_in_meta() {
        for &(name, text) in SAMPLES {
            let e = encoding_named(name);
            for meta in [
                format!("<meta charset=\"{name}\">"),
                format!("<META HTTP-EQUIV=\"Content-Type\" CONTENT=\"text/html; charset={name}\">"),
                format!("<meta content='text/html;charset={name}' http-equiv=content-type />"),
            ] {
                let body = enc(e, &page(&meta, text));
                let d = decode(&body, Some("text/html"));
                assert_eq!((d.encoding, d.source), (e, CharsetSource::Meta), "{meta}");
                assert_eq!(link_text_of(&d), text, "{name}");
            }
        }
    }

    #[test]
    fn legacy_encodings_sniffed() {
        for &(name, text) in SAMPLES {
            let e = encoding_named(name);
            let body = enc(e, &page("", &format!("{text}{text}")));
            let d = decode(&body, None);
            assert_eq!(d.source, CharsetSource::Sniffed, "{name}");
            assert_eq!(d.encoding, e, "{name}");
            assert_eq!(link_text_of(&d), format!("{text}{text}"), "{name}");
        }
    }

    #[test]
    fn gb2312_label_means_gbk() {
        let text = SAMPLES[0].1;
        let body = enc(GBK, &page("<meta charset=gb2312>", text));
        let d = decode(&body, None);
        assert_eq!(d.encoding, GBK);
        assert_eq!(link_text_of(&d), text);
        let d = decode(&body, Some("text/html; charset=\"GB2312\""));
        assert_eq!((d.encoding, d.source), (GBK, CharsetSource::Header));
    }

    #[test]
    fn tld_hint_is_accepted() {
        let (_, text) = SAMPLES[2];
        let body = enc(SHIFT_JIS, &page("", text));
        let u = Url::parse("https://www.example.jp/news").unwrap();
        let d = decode_for_url(&body, None, &u);
        assert_eq!(d.encoding, SHIFT_JIS);
    }

    #[test]
    fn header_beats_meta() {
        let text = SAMPLES[1].1;
        let body = enc(BIG5, &page("<meta charset=gbk>", text));
        let d = decode(&body, Some("text/html;charset=big5"));
        assert_eq!((d.encoding, d.source), (BIG5, CharsetSource::Header));
        assert_eq!(link_text_of(&d), text);
    }

    #[test]
    fn boms() {
        let html = page("<meta charset=gbk>", "中文 ünïcödé");
        let mut utf8 = b"\xEF\xBB\xBF".to_vec();
        utf8.extend_from_slice(html.as_bytes());
        let d = decode(&utf8, Some("text/html; charset=gbk"));
        assert_eq!((d.encoding, d.source), (UTF_8, CharsetSource::Bom));
        assert!(d.text.starts_with("<!DOCTYPE"), "BOM stripped");
        assert_eq!(link_text_of(&d), "中文 ünïcödé");

        for (bom, e) in [(&b"\xFF\xFE"[..], UTF_16LE), (&b"\xFE\xFF"[..], UTF_16BE)] {
            let mut body = bom.to_vec();
            for u in html.encode_utf16() {
                let b = if e == UTF_16LE {
                    u.to_le_bytes()
                } else {
                    u.to_be_bytes()
                };
                body.extend_from_slice(&b);
            }
            let d = decode(&body, None);
            assert_eq!((d.encoding, d.source), (e, CharsetSource::Bom));
            assert_eq!(link_text_of(&d), "中文 ünïcödé");
        }
    }

    #[test]
    fn transcoded_capture_keeps_its_meta_but_is_utf8() {
        let text = "北京大学通知";
        let body = page(
            "<meta http-equiv=Content-Type content=\"text/html; charset=gb2312\">",
            text,
        );
        let d = decode(body.as_bytes(), None);
        assert_eq!((d.encoding, d.source), (UTF_8, CharsetSource::Utf8Fallback));
        assert_eq!(link_text_of(&d), text);
        // An ASCII-only page keeps its (harmless) declaration.
        let d = decode(page("<meta charset=gbk>", "news").as_bytes(), None);
        assert_eq!((d.encoding, d.source), (GBK, CharsetSource::Meta));
    }

    #[test]
    fn wrong_utf8_header_over_gbk_bytes() {
        // A server-wide `charset=utf-8` over a GBK page that says so in its meta.
        let text = SAMPLES[0].1;
        let body = enc(GBK, &page("<meta charset=gbk>", text));
        let d = decode(&body, Some("text/html; charset=utf-8"));
        assert_eq!((d.encoding, d.source), (GBK, CharsetSource::Meta));
        // ... and without a meta: the sniffer rescues it.
        let body = enc(GBK, &page("", text));
        let d = decode(&body, Some("text/html; charset=utf-8"));
        assert_eq!((d.encoding, d.source), (GBK, CharsetSource::Sniffed));
        assert_eq!(link_text_of(&d), text);
    }

    #[test]
    fn utf8_with_a_damaged_byte_stays_utf8() {
        let body = "<a href=/1>Café</a><a href=/2>新闻</a>".replace("新", "新\u{1}");
        let mut body = body.into_bytes();
        let at = body.iter().position(|&b| b == 1).expect("marker");
        body[at] = 0xff;
        let d = decode(&body, Some("text/html; charset=utf-8"));
        assert_eq!(d.encoding, UTF_8);
        assert!(
            d.text.contains("Café") && d.text.contains("新\u{fffd}闻"),
            "{}",
            d.text
        );
    }

    #[test]
    fn invalid_utf8_never_panics() {
        let body = b"<a href=/x>caf\xE9 \xFF\xFE\xC3</a>";
        let d = decode(body, Some("text/html; charset=utf-8"));
        assert!(!d.text.is_empty());
        let d = decode(body, None);
        assert!(d.text.contains("<a href=/x>"));
        let d = decode(b"", None);
        assert_eq!(d.text, "");
        let d = decode(b"\xEF\xBB", Some("text/html; charset=nonsense"));
        assert!(!d.text.is_empty());
    }

    #[test]
    fn prescan_rules() {
        let p = |s: &str| prescan(s.as_bytes()).map(Encoding::name);
        assert_eq!(p("<meta charset=utf-8>"), Some("UTF-8"));
        assert_eq!(p("<meta charset='Shift_JIS'>"), Some("Shift_JIS"));
        assert_eq!(p("<meta charset=utf-16le>"), Some("UTF-8"));
        assert_eq!(p("<meta charset=x-user-defined>"), Some("windows-1252"));
        assert_eq!(p("<meta charset=latin1>"), Some("windows-1252"));
        assert_eq!(
            p("<!-- <meta charset=gbk> --><meta charset=big5>"),
            Some("Big5")
        );
        assert_eq!(
            p("<script>var s='<meta charset=gbk>'</script>"),
            Some("GBK")
        );
        assert_eq!(p("<div title='<meta charset=gbk>'>"), None);
        // `content` without http-equiv does not count (v2ex uses name="Content-Type").
        assert_eq!(
            p("<meta name=Content-Type content='text/html;charset=gbk'>"),
            None
        );
        assert_eq!(
            p("<meta http-equiv=content-type content='text/html;charset = \"euc-kr\"'>"),
            Some("EUC-KR")
        );
        assert_eq!(p("<meta charset=bogus>"), None);
        assert_eq!(p("<metax charset=gbk>"), None);
        assert_eq!(p("<meta"), None);
    }

    #[test]
    fn charset_params() {
        assert_eq!(charset_param("text/html; charset=GBK"), Some("GBK"));
        assert_eq!(
            charset_param("text/html;Charset=\"big5\"; q=1"),
            Some("big5")
        );
        assert_eq!(charset_param("text/html"), None);
        assert_eq!(charset_param("text/html; charset="), None);
    }

    proptest! {
        #[test]
        fn decode_never_panics(body in proptest::collection::vec(any::<u8>(), 0..600),
                               ct in proptest::option::of("[ -~]{0,40}")) {
            let d = decode(&body, ct.as_deref());
            prop_assert!(d.text.len() <= body.len() * 3 + 3);
        }

        #[test]
        fn prescan_never_panics(s in "(<|>|meta|charset|=|'|\"| |!--|-->|[a-z0-9-]){0,60}") {
            let _ = prescan(s.as_bytes());
        }
    }
}
