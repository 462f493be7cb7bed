use super::*;
use proptest::prelude::*;

const PAGE: &str = "https://example.com/news/list/index.html";

fn page_url() -> Url {
    Url::parse(PAGE).unwrap()
}

fn ex(html: &str) -> ExtractedPage {
    extract(html, &page_url(), None).unwrap()
}

fn ex_sel(html: &str, sel: &str) -> Vec<(String, String)> {
    let sel = Selector::parse(sel).unwrap();
    pairs(&extract(html, &page_url(), Some(&sel)).unwrap())
}

fn pairs(p: &ExtractedPage) -> Vec<(String, String)> {
    p.links
        .iter()
        .map(|l| (l.text.clone(), l.url.clone()))
        .collect()
}

fn links(html: &str) -> Vec<(String, String)> {
    pairs(&ex(html))
}

fn one(text: &str, url: &str) -> Vec<(String, String)> {
    vec![(text.to_owned(), url.to_owned())]
}

#[test]
fn basic_and_nested_text() {
    assert_eq!(
        links(
            "<p><a href='a.html'>  Hello\n\t <b>big</b>   <i>wide <span>world</span></i> </a></p>"
        ),
        one(
            "Hello big wide world",
            "https://example.com/news/list/a.html"
        )
    );
    // inline elements do not separate words
    assert_eq!(
        links("<a href=/x><span>fo</span>o<em>bar</em></a>")[0].0,
        "foobar"
    );
    // <br> and block elements do
    assert_eq!(links("<a href=/x>New<br>Title</a>")[0].0, "New Title");
    assert_eq!(
        links("<a href=/x><div>Title</div><div>2024-01-02</div></a>")[0].0,
        "Title 2024-01-02"
    );
    assert_eq!(links("<a href=/x><p>A</p>B</a>")[0].0, "A B");
}

#[test]
fn entities_in_text_and_href() {
    assert_eq!(
        links("<a href='/s?a=1&amp;b=2'>Tom &amp; Jerry &lt;3 &#x4e2d;&#25991; x&nbsp;y &copy 2024</a>"),
        one("Tom & Jerry <3 中文 x y © 2024", "https://example.com/s?a=1&b=2")
    );
    assert_eq!(
        links("<a href=/x>&bogus; &amp &#0; AT&T</a>")[0].0,
        "&bogus; & \u{fffd} AT&T"
    );
    assert_eq!(
        links("<a href=/x>&nbsp;&nbsp;Lead&#12288;ing&nbsp;</a>")[0].0,
        "Lead ing"
    );
    // an attribute value keeps `&lang=` (legacy-entity rule)
    assert_eq!(
        links("<a href='/s?x=1&lang=en'>x</a>")[0].1,
        "https://example.com/s?x=1&lang=en"
    );
}

#[test]
fn relative_urls_and_base() {
    let l = links(
        "<a href='../up.html'>up</a><a href='./same'>same</a><a href='//cdn.example.org/x'>proto</a>\
         <a href='/root?q#frag'>root</a><a href='?page=2'>q</a><a href='HTTP://Other.COM:80'>abs</a>",
    );
    let urls: Vec<_> = l.iter().map(|(_, u)| u.as_str()).collect();
    assert_eq!(
        urls,
        [
            "https://example.com/news/up.html",
            "https://example.com/news/list/same",
            "https://cdn.example.org/x",
            "https://example.com/root?q",
            "https://example.com/news/list/index.html?page=2",
            "http://other.com/",
        ]
    );
    // <base href>, itself relative to the page, applies to links before it too
    let l = links(
        "<a href='a'>before</a><head><base href='/other/dir/'><base href='http://ignored/'></head>\
         <a href='../b'>after</a>",
    );
    assert_eq!(
        l,
        [
            ("before".into(), "https://example.com/other/dir/a".into()),
            ("after".into(), "https://example.com/other/b".into()),
        ]
    );
    // a base that is not http(s) is ignored
    assert_eq!(
        links("<base href='javascript:x'><a href='a'>x</a>")[0].1,
        "https://example.com/news/list/a"
    );
}

#[test]
fn skipped_hrefs() {
    let l = links(
        "<a href=''>empty</a><a href='  '>blank</a><a href='#top'>frag</a><a href=' #x'>frag2</a>\
         <a href='javascript:void(0)'>js</a><a href='JavaScript:go()'>js2</a>\
         <a href='mailto:a@b.c'>mail</a><a href='tel:123'>tel</a><a href='data:text/html,x'>data</a>\
         <a href='ftp://x.org/'>ftp</a><a href='http://[bad'>bad</a><a>no href</a>\
         <a href='ok'>ok</a>",
    );
    assert_eq!(l, one("ok", "https://example.com/news/list/ok"));
    // a fragment on a real link is dropped, the link stays
    assert_eq!(
        links("<a href='/p#c3'>p</a>"),
        one("p", "https://example.com/p")
    );
}

#[test]
fn script_style_template_noscript_are_not_text() {
    let l = links(
        "<a href=/x>A<script>var s = '<b>no</b>';</script>B<style>.c{}</style>C\
         <template>T</template><noscript>N</noscript>D</a>",
    );
    assert_eq!(l[0].0, "ABCD");
    // links inside template or noscript are not links
    assert_eq!(
        links("<template><a href=/t>t</a></template><noscript><a href=/n>n</a></noscript><a href=/y>y</a>"),
        one("y", "https://example.com/y")
    );
    // `<a>` inside a script string is not a link
    assert!(links("<script>document.write('<a href=/s>s</a>')</script>").is_empty());
}

#[test]
fn hidden_elements() {
    let l = links(
        "<a href=/1>one<span hidden>HID</span> two<span aria-hidden=true>★</span>\
         <span style='display: none !important'>X</span><span style='visibility:hidden'>Y</span>\
         <span aria-hidden=false>!</span><span style='color:red'>?</span></a>",
    );
    assert_eq!(l[0].0, "one two!?");
    let l = links(
        "<div hidden><a href=/h1>h1</a><p><a href=/h2>h2</a></p></div>\
         <ul style='DISPLAY:NONE'><li><a href=/h3>h3</a></ul>\
         <a hidden href=/h5>h5</a><a style='display:none' href=/h6>h6</a>\
         <a href=/v>visible</a>",
    );
    assert_eq!(l, one("visible", "https://example.com/v"));
    // aria-hidden hides nothing from the screen: links inside it stay, and its text
    // is used when there is no other
    let l = links(
        "<div aria-hidden='TRUE'><a href=/a1>a1</a></div>\
         <a href=/a2 aria-label='Label'><div aria-hidden=true><div>June 1</div><div>Headline</div></div></a>\
         <a href=/a3 aria-label='Only label'><svg><path/></svg></a>\
         <a href=/a4 aria-label='Label'><span aria-hidden=true>★</span> Starred</a>",
    );
    let texts: Vec<_> = l.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(texts, ["a1", "June 1 Headline", "Only label", "Starred"]);
    // an unclosed hidden element is closed by its parent's end tag
    let l = links("<ul><li><span hidden>x<a href=/h>h</a></ul><a href=/v>v</a>");
    assert_eq!(l, one("v", "https://example.com/v"));
    // void hidden elements hide nothing after them
    let l = links("<input hidden><img style='display:none' src=x><a href=/v>v</a>");
    assert_eq!(l, one("v", "https://example.com/v"));
    assert!(links("<map><area hidden href=/a alt=A></map>").is_empty());
}

#[test]
fn nested_anchors() {
    let l = links("<a href=/1>one<a href=/2>two</a>three</a><a href=/4>four</a>");
    assert_eq!(
        l,
        [
            ("one".into(), "https://example.com/1".into()),
            ("two".into(), "https://example.com/2".into()),
            ("four".into(), "https://example.com/4".into()),
        ]
    );
    // an <a> without href still closes the open one
    let l = links("<a href=/1>one<a name=x>anchor</a> tail");
    assert_eq!(l, one("one", "https://example.com/1"));
    // an unclosed <a> ends at its parent's end tag
    let l = links("<ul><li><a href=/1>one</li><li>two</li></ul>");
    assert_eq!(l, one("one", "https://example.com/1"));
}

/// A link's role hashes the elements around it. When a link opens inside an open one,
/// the open one leaves from under the elements opened inside it, and a link there has
/// the role it would have had without it.
#[test]
fn a_link_closed_from_inside_leaves_the_roles_of_what_stays_open() {
    let role = |html: &str, path: &str| {
        let p = parse(html, &page_url(), None, Gather::Content).expect("parses");
        let i = p
            .page
            .links
            .iter()
            .position(|l| l.url.ends_with(path))
            .expect("the link");
        p.structure.ctx[i].as_ref().expect("a context").role
    };
    let inside = role(
        "<body><p><a href=/1>one<span class=x><b><a href=/2>two</a></b></span></p>",
        "/2",
    );
    let alone = role(
        "<body><p><span class=x><b><a href=/2>two</a></b></span></p>",
        "/2",
    );
    let other = role(
        "<body><p><span class=y><b><a href=/2>two</a></b></span></p>",
        "/2",
    );
    assert_eq!(inside, alone);
    assert_ne!(
        alone, other,
        "the role tells the elements around a link apart"
    );
}

#[test]
fn empty_text_and_img_alt() {
    let l = links(
        "<a href=/e></a><a href=/i><img src=p.jpg alt='Blue  shoes &amp; socks'></a>\
         <a href=/t><img alt='ignored'> Text</a><a href=/n><img src=x></a>\
         <a href=/two><img alt=A><img alt=''><img alt=B></a>",
    );
    assert_eq!(
        l,
        [
            (String::new(), "https://example.com/e".into()),
            ("Blue shoes & socks".into(), "https://example.com/i".into()),
            ("Text".into(), "https://example.com/t".into()),
            (String::new(), "https://example.com/n".into()),
            ("A B".into(), "https://example.com/two".into()),
        ]
    );
}

#[test]
fn area_links() {
    let l =
        links("<map><area href=/a alt='Area A'><area nohref alt=x><area href='#x' alt=f></map>");
    assert_eq!(l, one("Area A", "https://example.com/a"));
}

#[test]
fn select_narrows() {
    let html = "<nav><a href=/home>Home</a></nav>\
                <ul class=news><li><a href=/n1>N1</a></li><li><a class=x href=/n2>N2</a></li></ul>\
                <div id=side><a href=/s1>S1</a></div><footer><a href=/f>F</a></footer>";
    let urls = |v: Vec<(String, String)>| v.into_iter().map(|(t, _)| t).collect::<Vec<_>>();
    assert_eq!(urls(ex_sel(html, "ul.news")), ["N1", "N2"]);
    assert_eq!(urls(ex_sel(html, "  ul.news , #side ")), ["N1", "N2", "S1"]);
    assert_eq!(urls(ex_sel(html, "ul.news a.x")), ["N2"]);
    assert_eq!(urls(ex_sel(html, "li > a")), ["N1", "N2"]);
    assert_eq!(urls(ex_sel(html, "a[href^='/s'], footer")), ["S1", "F"]);
    assert_eq!(urls(ex_sel(html, "main")), Vec::<String>::new());
    // nested matches count once
    assert_eq!(urls(ex_sel(html, "ul, li")), ["N1", "N2"]);
    // the selector applies to <area> too
    assert_eq!(
        urls(ex_sel(
            "<map><area href=/a alt=A></map><area href=/b alt=B>",
            "map area, map"
        )),
        ["A"]
    );
}

#[test]
fn invalid_selectors() {
    for bad in [
        "",
        "   ",
        "ul >",
        "a[",
        "div:hover",
        "a + b",
        "ul ~ li",
        "::before",
        "#",
    ] {
        let e = Selector::parse(bad).unwrap_err();
        let msg = e.to_string();
        assert!(msg.starts_with("invalid CSS selector `"), "{bad}: {msg}");
        assert!(
            matches!(&e, ExtractError::InvalidSelector { selector, .. } if selector == bad.trim())
        );
    }
    let msg = Selector::parse("div:hover").unwrap_err().to_string();
    assert!(msg.contains("supported:"), "{msg}");
    assert_eq!(Selector::parse(" ul.x ").unwrap().as_str(), "ul.x");
}

#[test]
fn public_types_can_cross_threads() {
    fn check<T: Send + Sync + 'static>() {}
    check::<Selector>();
    check::<ExtractedPage>();
    check::<ExtractError>();
    check::<Decoded>();
    check::<url::UrlError>();
}

#[test]
fn site_icon_is_the_first_declared_icon() {
    let p = ex(
        "<link rel=stylesheet href=/s.css><link rel='shortcut icon' href='../img/fav.ico'>\
                <link rel=icon href=/other.png><base href='https://cdn.example.com/'>",
    );
    assert_eq!(
        p.icon.as_deref(),
        Some("https://cdn.example.com/img/fav.ico")
    );
    assert_eq!(
        ex("<link rel=Icon href='/i.png'>").icon.as_deref(),
        Some("https://example.com/i.png")
    );
    assert_eq!(
        ex("<link rel=icon href=''><link rel=apple-touch-icon href=/a.png>").icon,
        None
    );
    assert_eq!(ex("<link rel=icon href='javascript:x'>").icon, None);
    assert_eq!(ex("<a href=/x>x</a>").icon, None);
}

#[test]
fn title_and_nofollow() {
    let p = ex("<html><head><title>  My\n  &amp; Page </title><meta name=Robots content='noindex, NoFollow'>\
                </head><body><svg><title>svg</title></svg><title>second</title></body>");
    assert_eq!(p.title.as_deref(), Some("My & Page"));
    assert!(p.nofollow);
    let p = ex("<svg><title>svg title</title></svg><title>Real</title>");
    assert_eq!(p.title.as_deref(), Some("Real"));
    let p = ex("<meta name=robots content=none><title></title>");
    assert!(p.nofollow);
    assert_eq!(p.title, None);
    let p = ex("<meta name=description content=nofollow><meta name=robots content='index,follow'>");
    assert!(!p.nofollow);
    assert_eq!(
        ex("<title>unclosed <a href=x>").title.as_deref(),
        Some("unclosed <a href=x>")
    );
    // a title in a link: the title takes it, the link keeps the rest
    let p = ex("<a href=/x>A<title>T</title>B</a>");
    assert_eq!(p.title.as_deref(), Some("T"));
    assert_eq!(p.links[0].text, "AB");
}

#[test]
fn malformed_html() {
    let l = links("<a href=/1 class='unterminated>one</a><a href=/2>two");
    assert!(l.len() <= 2);
    let l = links("<a href=/x>a\0b</a><<<>>></a><a href=\"/y\"\0>y</div></span></a>");
    assert_eq!(l[0].0, "ab");
    assert_eq!(l[1].1, "https://example.com/y");
    let l = links("<table><a href=/t>in table</a><tr><td><a href=/c>cell</table><select><a href=/s>s</a></select>");
    assert_eq!(l.len(), 3);
    assert!(links("<!-- <a href=/c>c</a> -->").is_empty());
    assert_eq!(links("<a href=/a>x<!-- c -->y</a>")[0].0, "xy");
    assert_eq!(
        links("<a href=/a>x &am<!-- c -->p; y</a>")[0].0,
        "x &amp; y"
    );
}

#[test]
fn deep_and_hostile_markup() {
    // Thousands of unclosed elements (sloppy pages) are fine ...
    let html = "<li><font><a href=/x>item".repeat(5000);
    let l = links(&html);
    assert_eq!(l.len(), 5000);
    assert_eq!(l[4999].0, "item");
    // ... a pile of hundreds of thousands is refused, quickly.
    let html = "<b>".repeat(200_000) + &"</i>".repeat(1000) + "<a href=/z>z</a>";
    let e = extract(&html, &page_url(), None).unwrap_err();
    assert!(e.to_string().contains("too complex"), "{e}");
}

#[test]
fn long_texts_are_cut() {
    let html = format!("<a href=/x>{}</a>", "word ".repeat(2000));
    let t = &links(&html)[0].0;
    assert!(
        t.len() <= links::MAX_TEXT_BYTES && t.len() > 2000,
        "{}",
        t.len()
    );
    let html = format!("<a href=/x>{}</a>", "中".repeat(2000));
    let t = &links(&html)[0].0;
    assert!(t.len() <= links::MAX_TEXT_BYTES);
}

#[test]
fn split_entities_in_chunks() {
    // A long text node is handed over in several chunks; entities must survive.
    let text = "&amp;&#x4e2d;x".repeat(5000);
    let l = links(&format!("<a href=/x>{text}</a>"));
    assert!(l[0].0.starts_with("&中x&中x"), "{}", &l[0].0[..30]);
    assert!(!l[0].0.contains("&amp;"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn never_panics_on_arbitrary_strings(s in "\\PC{0,300}") {
        let p = extract(&s, &page_url(), None).unwrap();
        for l in &p.links {
            prop_assert!(l.url.starts_with("http"));
            prop_assert!(l.text.trim() == l.text);
        }
    }

    #[test]
    fn never_panics_on_tag_soup(
        parts in proptest::collection::vec(prop_oneof![
            Just("<a href=/x>".to_owned()), Just("</a>".to_owned()), Just("<a>".to_owned()),
            Just("<div hidden>".to_owned()), Just("</div>".to_owned()), Just("<ul>".to_owned()),
            Just("</ul>".to_owned()), Just("<li>".to_owned()), Just("<script>".to_owned()),
            Just("</script>".to_owned()), Just("<title>".to_owned()), Just("</title>".to_owned()),
            Just("<img alt=i>".to_owned()), Just("<br>".to_owned()), Just("&amp".to_owned()),
            Just("<base href=//b.org/>".to_owned()), Just("<svg>".to_owned()),
            Just("<template>".to_owned()), Just("<!--".to_owned()), Just("-->".to_owned()),
            Just("\0".to_owned()), "[a-z &#;<>/=\"']{0,8}",
        ], 0..60),
        sel in proptest::option::of(prop_oneof![Just("ul"), Just("li, div"), Just("a")]),
    ) {
        let html = parts.concat();
        let sel = sel.map(|s| Selector::parse(s).unwrap());
        let _ = extract(&html, &page_url(), sel.as_ref()).unwrap();
    }
}
