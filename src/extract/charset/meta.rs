//! The browsers' prescan for a `<meta charset>` or `<meta http-equiv="content-type">` in
//! the first bytes of a page (WHATWG "prescan a byte stream to determine its encoding"):
//! comments and the attributes of other tags are skipped, so a `charset=` inside them
//! does not count.
//!
//! Uses `encoding_rs` only.

use encoding_rs::{Encoding, REPLACEMENT, UTF_16BE, UTF_16LE, UTF_8, WINDOWS_1252, X_USER_DEFINED};

/// The encoding that a `<meta>` in `head` declares, per the WHATWG prescan.
pub(super) fn prescan(head: &[u8]) -> Option<&'static Encoding> {
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
