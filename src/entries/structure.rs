//! The structure of a page as the entry decision reads it: the contexts of its links
//! ([`Context`]), what its elements hold besides links ([`Blocks`]) and its visible text
//! ([`PageText`]). They are gathered in the one pass over the page, with the links
//! ([`crate::extract::parse`], [`crate::extract::structure`]); this module names them
//! for the entry decision and reads the text around a link ([`anchor_context`]).

pub use crate::extract::structure::{Blocks, Context, PageText, Structure, MAX_TEXT_BYTES};

/// Up to `chars` characters of text on each side of link `link`'s own text (the "anchor
/// context" of Shark-Search), the link text itself left out, the two sides joined by a
/// space. Empty when the link is unpaired (or out of range).
pub fn anchor_context(text: &PageText, link: usize, chars: usize) -> String {
    let Some(Some(r)) = text.anchors.get(link) else {
        return String::new();
    };
    let (Some(before), Some(after)) = (text.text.get(..r.start), text.text.get(r.end..)) else {
        return String::new();
    };
    let from = before
        .char_indices()
        .rev()
        .take(chars)
        .last()
        .map_or(before.len(), |(i, _)| i);
    let to = after
        .char_indices()
        .nth(chars)
        .map_or(after.len(), |(i, _)| i);
    let (left, right) = (before[from..].trim(), after[..to].trim());
    match (left.is_empty(), right.is_empty()) {
        (false, false) => format!("{left} {right}"),
        (false, true) => left.to_owned(),
        _ => right.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::{self, Gather, Parsed};
    use crate::model::Link;
    use url::Url;

    fn parse(html: &str, gather: Gather) -> Parsed {
        let base = Url::parse("https://example.com/").unwrap();
        extract::parse(html, &base, None, gather).unwrap()
    }

    fn ctx(html: &str) -> (Vec<Link>, Vec<Option<Context>>) {
        let p = parse(html, Gather::Structure);
        assert_eq!(p.structure.ctx.len(), p.page.links.len());
        (p.page.links, p.structure.ctx)
    }

    #[test]
    fn roles_paths_and_regions() {
        let (links, c) = ctx(
            "<nav><a href=/home>Home</a></nav><ul><li><a href=/1 class=t>One</a><li><a href=/2 class=t>Two</a></ul>\
             <h2><a href=/h>Head</a></h2><a href=/img><img alt=pic></a><a href='/q?a=1&amp;b=2'>q</a>",
        );
        assert_eq!(links.len(), 6);
        let c: Vec<Context> = c.into_iter().map(Option::unwrap).collect();
        assert!(c[0].chrome && !c[1].chrome);
        // the two list items are siblings with the same role
        assert_eq!(c[1].role, c[2].role);
        assert_eq!(c[1].path.len(), c[2].path.len());
        assert_ne!(
            c[1].path[c[1].path.len() - 2],
            c[2].path[c[2].path.len() - 2]
        );
        assert!(c[3].heading && !c[1].heading);
        assert!(!c[4].has_text && c[3].has_text);
        assert!(c[5].has_text);
    }

    use std::fmt::Write;

    fn with_text(html: &str) -> (Vec<Link>, Vec<Option<Context>>, PageText) {
        let p = parse(html, Gather::Text);
        let without = parse(html, Gather::Structure);
        assert_eq!(
            p.structure.ctx, without.structure.ctx,
            "same contexts as without text"
        );
        assert_eq!(p.structure.blocks, without.structure.blocks);
        assert_eq!(p.page, without.page, "same links as without text");
        assert_eq!(
            p.page,
            parse(html, Gather::Links).page,
            "same links as without the structure"
        );
        let t = p.text.unwrap();
        assert_eq!(t.anchors.len(), p.page.links.len());
        (p.page.links, p.structure.ctx, t)
    }

    fn anchor(t: &PageText, i: usize) -> &str {
        &t.text[t.anchors[i].clone().unwrap()]
    }

    #[test]
    fn text_with_link_ranges() {
        let (links, c, t) = with_text(
            "<html><head><title>Page</title><style>p{color:red}</style></head><body>\
             <nav><a href=/home>Home</a> | <a href=/about>About us</a></nav>\
             <h1>News &amp; notes</h1><ul><li><a href=/1>First <b>story</b></a> today</li>\
             <li><a href=/2>Second</a></li></ul><p>See <a href=/3>the&nbsp;archive</a>.</p>\
             <a href=/img><img src=x.png alt=pic></a><script>var x = '<a href=/s>no</a>';</script>\
             <footer>© 2024 <a href=/legal>Legal</a></footer></body></html>",
        );
        assert_eq!(links.len(), 7);
        assert!(c.iter().all(Option::is_some));
        assert_eq!(
            t.text,
            "Home | About us News & notes First story today Second See the archive. © 2024 Legal"
        );
        assert_eq!(
            t.content,
            "News & notes First story today Second See the archive."
        );
        let texts: Vec<&str> = (0..links.len()).map(|i| anchor(&t, i)).collect();
        assert_eq!(
            texts,
            [
                "Home",
                "About us",
                "First story",
                "Second",
                "the archive",
                "",
                "Legal"
            ]
        );
        // the image link stands between the archive link and the footer
        let img = t.anchors[5].clone().unwrap();
        assert!(img.start >= t.anchors[4].clone().unwrap().end);
        assert!(img.start <= t.anchors[6].clone().unwrap().start);
        assert_eq!(anchor_context(&t, 2, 13), "News & notes today Second");
        assert_eq!(anchor_context(&t, 0, 4), "| A");
        assert_eq!(anchor_context(&t, 6, 7), "© 2024");
        assert_eq!(anchor_context(&t, 99, 10), "");
    }

    #[test]
    fn blocks_are_separated_and_inline_elements_are_not() {
        let (_, _, t) = with_text(
            "<ul><li>a</li><li>b</li></ul><div>c</div><div>d<br>e</div><p>f<span>g</span>h</p>\
             <table><tr><td>1</td><td>2</td></tr></table>x&amp;y &lt;z&gt; <em>w</em>",
        );
        assert_eq!(t.text, "a b c d e fgh 1 2 x&y <z> w");
        assert_eq!(t.content, t.text);
    }

    #[test]
    fn hidden_text_is_left_out() {
        let (links, _, t) = with_text(
            "<p>shown</p><div hidden>secret <a href=/h>hidden link</a></div>\
             <span style='display: none'>none</span><span style=\"visibility:hidden\">inv</span>\
             <span aria-hidden=true>icon</span><template><p>tpl</p></template>\
             <noscript>enable js</noscript><script>var s = 1;</script><style>.a{}</style>\
             <svg><title>tip</title><desc>d</desc><text>svgtext</text></svg>\
             <p>after <a href=/v>visible</a></p>",
        );
        assert_eq!(links.len(), 1);
        assert_eq!(t.text, "shown svgtext after visible");
        assert_eq!(anchor(&t, 0), "visible");
    }

    #[test]
    fn chrome_landmarks_are_not_content() {
        let (_, c, t) = with_text(
            "<header>Site name</header><div role=navigation><a href=/a>Menu</a></div>\
             <main><p>Body text <a href=/b>item</a></p></main><aside>Side</aside>\
             <div role=contentinfo>Contact</div><p>end</p>",
        );
        assert!(c[0].as_ref().unwrap().chrome && !c[1].as_ref().unwrap().chrome);
        assert_eq!(t.text, "Site name Menu Body text item Side Contact end");
        assert_eq!(t.content, "Body text item end");
        assert_eq!(anchor(&t, 0), "Menu");
        assert_eq!(anchor(&t, 1), "item");
    }

    #[test]
    fn cjk_text() {
        let (_, _, t) = with_text(
            "<nav><a href=/>首页</a></nav><ul><li><a href=/n/1>关于举办2024年运动会的通知</a> \
             <span>2024-05-03</span></li><li><a href=/n/2>图书馆开放时间调整</a></li></ul>",
        );
        assert_eq!(
            t.text,
            "首页 关于举办2024年运动会的通知 2024-05-03 图书馆开放时间调整"
        );
        assert_eq!(anchor(&t, 1), "关于举办2024年运动会的通知");
        assert_eq!(anchor(&t, 2), "图书馆开放时间调整");
        assert_eq!(anchor_context(&t, 2, 11), "2024-05-03");
        assert_eq!(anchor_context(&t, 1, 2), "页 2");
        assert_eq!(
            t.content,
            "关于举办2024年运动会的通知 2024-05-03 图书馆开放时间调整"
        );
    }

    #[test]
    fn text_is_capped_on_a_huge_page() {
        let mut html = String::from("<nav>menu</nav>");
        // About 80 bytes of text per link: 1,500 links overflow the cap twice. (A page
        // of few but long paragraphs: a debug build under load is slow enough to near
        // the pass's time budget on pages with many thousands of elements.)
        let filler = "说明文字".repeat(5);
        for i in 0..1_500 {
            write!(html, "<p>段落 {i} {filler} <a href=/p/{i}>link {i}</a></p>").unwrap();
        }
        let (links, _, t) = with_text(&html);
        assert_eq!(links.len(), 1_500);
        assert!(t.text.len() <= MAX_TEXT_BYTES && t.text.len() > MAX_TEXT_BYTES - 16);
        assert!(t.content.len() <= MAX_TEXT_BYTES && t.content.len() > MAX_TEXT_BYTES - 16);
        assert!(t
            .text
            .starts_with(&format!("menu 段落 0 {filler} link 0 段落 1")));
        assert!(t.content.starts_with(&format!("段落 0 {filler} link 0")));
        let paired = t.anchors.iter().filter(|a| a.is_some()).count();
        assert!(paired > 500 && paired < 1_500, "{paired}");
        assert!(t.anchors.last().unwrap().is_none());
        for r in t.anchors.iter().flatten() {
            assert!(r.end <= t.text.len());
            assert!(
                t.text[r.clone()].starts_with("link") || "link".starts_with(&t.text[r.clone()])
            );
        }
    }

    #[test]
    fn links_without_an_element_of_their_own_have_no_context() {
        // An SVG link by `xlink:href` is a link, but not an anchor of the structure.
        let (links, c, t) =
            with_text("<p>x <svg><a xlink:href=/s><text>S</text></a></svg> <a href=/a>A</a></p>");
        assert_eq!(links.len(), 2);
        assert_eq!(links[0].url, "https://example.com/s");
        assert!(c[0].is_none() && t.anchors[0].is_none());
        assert!(c[1].is_some());
        assert_eq!(anchor(&t, 1), "A");
        assert_eq!(anchor_context(&t, 0, 10), "");
    }

    #[test]
    fn same_url_links_keep_their_own_contexts() {
        // A hidden link and a visible one to the same URL: the visible one's context is
        // its own (in the list, not the hidden menu).
        let (links, c) = ctx(
            "<nav hidden><a href=/x>X</a></nav><ul><li><a href=/x>X</a></li>\
             <li><a href=/y>Y</a></li></ul>",
        );
        assert_eq!(links.len(), 2);
        let c: Vec<Context> = c.into_iter().map(Option::unwrap).collect();
        assert!(!c[0].chrome);
        assert_eq!(c[0].role, c[1].role);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

        /// On any soup of these fragments: the text is collapsed, and every range is on
        /// char boundaries inside it and holds no more than its link's own text.
        #[test]
        fn ranges_are_sound(parts in proptest::collection::vec(0usize..FRAGMENTS.len(), 0..60)) {
            let html: String = parts.iter().map(|&i| FRAGMENTS[i]).collect();
            let p = parse(&html, Gather::Text);
            let (links, t) = (p.page.links, p.text.unwrap());
            // The same soup with nothing hidden: each link's text with all its words.
            let shown = parse(
                &html.replace(" aria-hidden=true", "").replace(" hidden", ""),
                Gather::Links,
            )
            .page
            .links;
            proptest::prop_assert_eq!(t.anchors.len(), links.len());
            for s in [&t.text, &t.content] {
                proptest::prop_assert!(!s.starts_with(' ') && !s.ends_with(' ') && !s.contains("  "));
            }
            for (l, r) in links.iter().zip(&t.anchors) {
                if let Some(r) = r {
                    let own = t.text.get(r.clone());
                    proptest::prop_assert!(own.is_some());
                    let own = own.unwrap();
                    // the extractor's text may add alt texts and aria-hidden text, and a
                    // space where a stray end tag (`</li>` with no `<li>` open) stands
                    // (and text once where a stray tag split it twice): every word of the
                    // range is a word of the link's text. Or of its text with what it
                    // left out as hidden: the link collector lets a hiding element never
                    // closed run to the end of the document, while the structure closes
                    // it where an implied end closes its parent, as a browser does
                    // (`<p><span aria-hidden=true><div>`: the `<div>` ends the `<p>` and
                    // the `<span>` with it; `<li><div hidden><li>` likewise)
                    let squeezed = l.text.split_whitespace().collect::<String>();
                    let all: String = shown
                        .iter()
                        .filter(|x| x.url == l.url)
                        .flat_map(|x| x.text.split_whitespace())
                        .collect();
                    proptest::prop_assert!(
                        own.split_whitespace().all(|w| squeezed.contains(w) || all.contains(w)),
                        "{:?} {:?}", own, l.text
                    );
                }
            }
        }
    }

    const FRAGMENTS: &[&str] = &[
        "<a href=/a>alpha</a>",
        "<a href=/b>bé <b>ta</b></a>",
        "<a href=/c><img alt=c></a>",
        "<a href=/d>",
        "</a>",
        "<li>",
        "</li>",
        "<ul>",
        "</ul>",
        "<nav>",
        "</nav>",
        "<div hidden>",
        "</div>",
        "<div>",
        " text ",
        "文字",
        "&amp;",
        "<span aria-hidden=true>",
        "</span>",
        "<script>x</script>",
        "<p>",
        "<br>",
    ];
}
