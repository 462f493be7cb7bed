use super::*;
use crate::extract::extract;
use encoding_rs::{BIG5, EUC_KR, GBK, SHIFT_JIS, UTF_16BE, UTF_16LE, WINDOWS_1251};
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
    let ascii = page("<meta charset=gbk>", "news");
    let d = decode(ascii.as_bytes(), None);
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
