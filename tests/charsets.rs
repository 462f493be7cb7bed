//! Legacy charsets through the real fetch path: a local server sends pages encoded in
//! GBK, GB18030, Big5, Shift_JIS, EUC-KR and windows-1251, declared in the header, in
//! `<meta>` only, or not at all, and the stored link texts must be the right Unicode.

mod common;

use std::fmt::Write;

use common::{watch, Canned, Site};
use sitefeed::model::Status;

/// (encoding label, link texts in a language that encoding is for).
const CASES: &[(&str, [&str; 3])] = &[
    (
        "gbk",
        [
            "关于做好2024年寒假学生离校工作的通知",
            "研究生院招生简章发布",
            "图书馆开放时间调整公告",
        ],
    ),
    (
        "gb18030",
        [
            "学术报告：量子计算的最新进展",
            "教务处关于期末考试安排的通知",
            "校园网络维护公告𠀀",
        ],
    ),
    (
        "big5",
        ["國立大學招生公告", "圖書館開放時間調整", "學生宿舍維修通知"],
    ),
    (
        "shift_jis",
        [
            "お知らせ：年末年始の休業について",
            "新製品発表会のご案内",
            "採用情報を更新しました",
        ],
    ),
    (
        "euc-kr",
        [
            "공지사항: 겨울방학 안내",
            "대학원 신입생 모집 요강",
            "도서관 이용 시간 변경",
        ],
    ),
    (
        "windows-1251",
        [
            "Новости университета",
            "Расписание экзаменов на зимнюю сессию",
            "Объявление о приёме",
        ],
    ),
];

#[derive(Debug, Clone, Copy)]
enum Declared {
    Header,
    Meta,
    Nothing,
}

fn page(texts: &[&str], meta: Option<&str>) -> String {
    let mut s = String::from("<!doctype html><html><head>");
    if let Some(label) = meta {
        let _ = write!(
            s,
            "<meta http-equiv=\"Content-Type\" content=\"text/html; charset={label}\">"
        );
    }
    s.push_str("<title>Notices</title></head><body><ul>");
    for (i, t) in texts.iter().enumerate() {
        let _ = write!(s, "<li><a href=\"/n/{i}\">{t}</a></li>");
    }
    s.push_str("</ul></body></html>");
    s
}

#[tokio::test]
async fn legacy_charsets_give_correct_link_texts() {
    let site = Site::empty().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, _) = common::app(dir.path());
    for &(label, texts) in CASES {
        let enc = encoding_rs::Encoding::for_label(label.as_bytes()).expect("known label");
        for declared in [Declared::Header, Declared::Meta, Declared::Nothing] {
            let meta = matches!(declared, Declared::Meta).then_some(label);
            let html = page(&texts, meta);
            let (bytes, _, unmappable) = enc.encode(&html);
            assert!(!unmappable, "{label}: test text must be encodable");
            let ct = match declared {
                Declared::Header => format!("text/html; charset={label}"),
                _ => "text/html".to_owned(),
            };
            let path = format!("/{label}/{declared:?}");
            site.route(&path, vec![Canned::new(200, &ct, bytes.into_owned())]);
            let id = watch(&app, &site.url_of(&path));
            let w = app.store().watch(&id).expect("read").expect("watch");
            let report = app.check(&w, false).await.expect("check");
            assert!(
                report.error.is_none(),
                "{label} {declared:?}: {:?}",
                report.error
            );
            let got: Vec<String> = app
                .store()
                .links(&id)
                .expect("links")
                .into_iter()
                .map(|l| l.text)
                .collect();
            assert_eq!(got, texts, "{label}, declared in {declared:?}");
            let st = app.store().state(&id).expect("state").expect("present");
            assert_eq!(st.status, Status::Ok);
            assert_eq!(
                st.page_title.as_deref(),
                Some("Notices"),
                "{label} {declared:?}"
            );
        }
    }
}

#[tokio::test]
async fn invalid_utf8_keeps_the_good_links() {
    let site = Site::empty().await;
    let mut body = b"<html><body><a href=\"/1\">Caf\xc3\xa9 ok</a><a href=\"/2\">bro\xffken</a>\
        <a href=\"/3\">\xe6\x96\xb0\xe9\x97\xbb</a></body></html>"
        .to_vec();
    body.extend_from_slice(b"\n");
    site.route(
        "/",
        vec![Canned::new(200, "text/html; charset=utf-8", body)],
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, _) = common::app(dir.path());
    let id = watch(&app, &site.url_of("/"));
    let w = app.store().watch(&id).expect("read").expect("watch");
    let report = app.check(&w, false).await.expect("check");
    assert!(report.error.is_none(), "{:?}", report.error);
    let got: Vec<String> = app
        .store()
        .links(&id)
        .expect("links")
        .into_iter()
        .map(|l| l.text)
        .collect();
    assert_eq!(got, ["Café ok", "bro\u{fffd}ken", "新闻"]);
}
