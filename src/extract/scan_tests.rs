//! The page's own scanner ([`super::scan`]) against lol_html ([`super::lol`]): the two
//! drivers must give the collectors the same page, so a pass gives the same result
//! whichever reads it. Checked on tricky markup written here, and on every snapshot of
//! the corpus (which is not part of the repository: see [`super::corpus_tests`]).

use std::path::PathBuf;

use url::Url;

use super::page::{finish, Gather, Parsed, Pass};
use super::{charset, lol, scan, Selector};

const GATHERS: [Gather; 2] = [Gather::Links, Gather::ContentAndText];

fn by_scanner(html: &str, url: &Url, gather: Gather) -> Result<Parsed, String> {
    let mut pass = Pass::new(html, false, gather);
    scan::scan(html, &mut pass).map_err(|e| e.to_string())?;
    Ok(finish(pass, url))
}

fn by_lol_html(html: &str, url: &Url, gather: Gather) -> Result<Parsed, String> {
    let pass = Pass::new(html, false, gather);
    let pass = lol::run(pass, html, None, gather == Gather::Links).map_err(|e| e.to_string())?;
    Ok(finish(pass, url))
}

/// lol_html's reading of `html` with a user's selector (`light`: skipping the text outside
/// links, as [`super::parse`] lets it for links alone).
fn by_lol_selecting(html: &str, sel: &Selector, gather: Gather, light: bool) -> Parsed {
    let pass = Pass::new(html, true, gather);
    let pass = lol::run(pass, html, Some(sel), light).expect("the soup parses");
    finish(pass, &url())
}

/// The first line where the two results differ (pretty-printed), with some context.
fn difference(html_name: &str, gather: Gather, a: &Parsed, b: &Parsed) -> Option<String> {
    let (a, b) = (format!("{a:#?}"), format!("{b:#?}"));
    if a == b {
        return None;
    }
    let (la, lb): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    let at = la
        .iter()
        .zip(&lb)
        .position(|(x, y)| x != y)
        .unwrap_or(la.len().min(lb.len()));
    let from = at.saturating_sub(8);
    Some(format!(
        "{html_name} ({gather:?}) differs at line {at}:\n--- scanner\n{}\n--- lol_html\n{}",
        la[from..(at + 3).min(la.len())].join("\n"),
        lb[from..(at + 3).min(lb.len())].join("\n"),
    ))
}

/// Fails with the first `show` of `failures`, if there are any.
fn assert_none(failures: &[String], show: usize) {
    assert!(
        failures.is_empty(),
        "{} differences:\n{}",
        failures.len(),
        failures[..show.min(failures.len())].join("\n\n")
    );
}

fn url() -> Url {
    Url::parse("https://example.com/news/").expect("a valid URL")
}

/// Markup that trips tokenizers: every case must read the same in both drivers.
const TRICKY: &[&str] = &[
    "<a href=/1>one</a><A HREF='/2'>Two</A><a href=\"/3\" title='x>y'>three</a>",
    "<p>a &amp; b<!-- <a href=/c>c</a> -->x</p><!--><a href=/d>d</a><!---><a href=/e>e</a>",
    "<a href=/x>x<!-- c --!>y</a><!-- a -- b --><a href=/y>y</a>",
    "<script>var s = '</a><a href=/s>';</script><a href=/after>after</a>",
    "<script><!-- <script> </script> <a href=/in>in</a> --></script><a href=/out>out</a>",
    "<script><!-- x --></script><a href=/k>k</a><script><!--></script><a href=/l>l</a>",
    "<SCRIPT>if (a</b) {}</SCRIPT ><a href=/m>m</a><style>a{}</style/><a href=/n>n</a>",
    "<title>A <b>bold</b> &amp; title</title><textarea><a href=/t>t</a></textarea>",
    "<noscript><a href=/ns>ns</a></noscript><iframe><a href=/if>if</a></iframe><xmp><a href=/x>x</a></xmp>",
    "<svg><title>icon</title><a href=/svg>svg</a><![CDATA[<a href=/cd>cd</a>]]></svg><a href=/h>h</a>",
    "<svg><foreignObject><p><a href=/fo>fo</a></p></foreignObject><rect/></svg><style>x</style>",
    "<svg><desc/><style><a href=/st>st</a></style><div><a href=/div>div</a></div></svg>",
    "<svg><font color=red><a href=/f>f</a></font></svg><math><mi><a href=/mi>mi</a></mi></math>",
    "<math><annotation-xml encoding='text/html'><style>a</style><a href=/ax>ax</a></annotation-xml></math>",
    "<![CDATA[<a href=/notcdata>n</a>]]><?php echo 1 ?><!doctype html><a href=/p>p</a>",
    "<div><span><a href=/u>unclosed</div><a href=/v>v</a></b></p></br><a href=/w>w",
    "<ul><li><a href=/1>1<li><a href=/2>2</ul><table><tr><td><a href=/3>3</table>",
    "<a href=/x>x</><a href=/y>y</ a><a href=/z>z</%>z2</a>",
    "<a href=/q\"uote>q</a><a href = /sp >sp</a><a href=/sl/>sl</a><a/href=/odd>odd</a>",
    "<div hidden><a href=/h>h</a></div><p style='display:none'><a href=/n>n</a></p><a href=/ok>ok</a>",
    "<plaintext><a href=/pt>pt</a></plaintext>",
    "<a href=/eof>text ending in a tag <b class=\"x",
    "<a href=/eof2>text</a><!-- unterminated comment <a href=/c>c</a>",
    "<a href=/e>&amp</a><a href=/f>&#x4e2d;&#20013;</a><a href=/g>caf&eacute; &copy 2024</a>",
    "<html><head><base href=/base/><link rel=icon href=/i.png><meta name=robots content=nofollow></head><a href=rel>r</a>",
    "<article><h2><a href=/2024/05/a>Headline</a></h2><time datetime=2024-05-01>May</time><p>Summary text here.</p><img src=/a.jpg width=300></article>",
    "<a href=/x>\u{4e2d}\u{6587}<br>\u{65b0}\u{95fb}</a><div>\u{3000}text</div>",
    "<table><a href=/t>in table</a><tr><td><a href=/c>cell</table><select><a href=/s>s</a></select>",
    "<a href=/x>a\0b</a><<<>>></a><a href=\"/y\"\0>y</div></span></a>",
    "<textarea></textarea ><title></title><a href=/after>after</a><title>second</title>",
    "<script></script\n><script>x</script\t/><a href=/z>z</a><script>never closed <a href=/no>no</a>",
];

#[test]
fn tricky_markup_reads_the_same_in_both_drivers() {
    let mut failures = Vec::new();
    for (i, html) in TRICKY.iter().enumerate() {
        for gather in GATHERS {
            let a = by_scanner(html, &url(), gather);
            let b = by_lol_html(html, &url(), gather);
            match (&a, &b) {
                (Ok(a), Ok(b)) => failures.extend(difference(&format!("case {i}"), gather, a, b)),
                _ => failures.push(format!("case {i}: {a:?} / {b:?}")),
            }
        }
    }
    assert_none(&failures, failures.len());
}

/// Sanity of the comparison itself: the cases hold links, and a difference is seen.
#[test]
fn the_comparison_sees_a_difference() {
    let a = by_scanner(TRICKY[0], &url(), Gather::Links).expect("parses");
    assert_eq!(a.page.links.len(), 3);
    let b = by_scanner(TRICKY[1], &url(), Gather::Links).expect("parses");
    assert!(difference("x", Gather::Links, &a, &b).is_some());
}

#[test]
fn every_corpus_snapshot_reads_the_same_in_both_drivers() {
    let Some(dir) = super::corpus_tests::corpus_dir() else {
        return;
    };
    let mut sites: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the corpus folder reads")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("meta.json").is_file())
        .collect();
    sites.sort();
    let mut pages = 0;
    let mut failures = Vec::new();
    for site in &sites {
        let meta: serde_json::Value = serde_json::from_slice(
            &std::fs::read(site.join("meta.json")).expect("meta.json reads"),
        )
        .expect("meta.json parses");
        let url = meta["url"]
            .as_str()
            .and_then(|u| Url::parse(u).ok())
            .expect("meta.json has the page's URL");
        let content_type = meta["declared_charset"]
            .as_str()
            .map(|c| format!("text/html; charset={c}"));
        let mut files: Vec<PathBuf> = std::fs::read_dir(site)
            .expect("the site's folder reads")
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "html"))
            .collect();
        files.sort();
        for file in files {
            let body = std::fs::read(&file).expect("the snapshot reads");
            let text = charset::decode(&body, content_type.as_deref()).text;
            pages += 1;
            let name = file.display().to_string();
            let mut pages_read = Vec::new();
            for gather in GATHERS {
                match (
                    by_scanner(&text, &url, gather),
                    by_lol_html(&text, &url, gather),
                ) {
                    (Ok(a), Ok(b)) => {
                        failures.extend(difference(&name, gather, &a, &b));
                        pages_read.push(a.page);
                    }
                    (a, b) => failures.push(format!("{name}: {:?} / {:?}", a.err(), b.err())),
                }
            }
            // A check may read the links alone first: they must be the whole pass's.
            if pages_read.len() == 2 && pages_read[0] != pages_read[1] {
                failures.push(format!(
                    "{name}: the links alone differ from the whole pass's"
                ));
            }
        }
    }
    println!("{pages} snapshots compared");
    assert!(pages > 100, "only {pages} snapshots in {}", dir.display());
    assert_none(&failures, 5);
}

/// Markup soup from fragments that switch the tokenizer's states, cut anywhere: both
/// drivers agree, and neither panics. Compared with lol_html reading every text chunk
/// (as a pass with the structure has it): when it captures text only inside links and
/// titles it skips ahead with a lighter tag scanner, which in rare foreign-content soup
/// (`<svg><title></style><a href>`, 6 of 30,000 soups) drops a start tag that its full
/// lexer sees; the scanner agrees with the full lexer.
#[test]
fn random_markup_soup_reads_the_same_in_both_drivers() {
    const PARTS: &[&str] = &[
        "<a href=/x>",
        "<a href='/y'>",
        "</a>",
        "<",
        ">",
        "</",
        "/>",
        "<!--",
        "-->",
        "--!>",
        "<!-->",
        "-",
        "<script>",
        "</script>",
        "<script",
        "<style>",
        "</style>",
        "<title>",
        "</title>",
        "<textarea>",
        "<svg>",
        "</svg>",
        "<math>",
        "<mi>",
        "</mi>",
        "<p>",
        "</p>",
        "<br>",
        "<![CDATA[",
        "]]>",
        "<!doctype html>",
        "<?x?>",
        "</>",
        "'",
        "\"",
        "=",
        " ",
        "\n",
        "text",
        "&amp;",
        "&am",
        "\u{4e2d}",
        "<div hidden>",
        "</div>",
        "<li>",
        "<font color=red>",
        "<foreignObject>",
        "<noscript>",
        "<plaintext>",
        "\0",
    ];
    let mut rng = fastrand::Rng::with_seed(11);
    let mut failures = Vec::new();
    let selector = Selector::parse("div, li, svg").expect("the selector parses");
    // Soups where lol_html's lighter reading for links alone sees other links than its
    // full lexer (see above): why a check's first reading uses the full one.
    let mut light_differs = 0;
    for case in 0..3000 {
        let n = rng.usize(1..40);
        let html: String = (0..n).map(|_| PARTS[rng.usize(..PARTS.len())]).collect();
        for gather in [Gather::ContentAndText] {
            match (
                by_scanner(&html, &url(), gather),
                by_lol_html(&html, &url(), gather),
            ) {
                (Ok(a), Ok(b)) => {
                    if let Some(d) = difference(&format!("case {case}"), gather, &a, &b) {
                        failures.push(format!("{html:?}\n{d}"));
                    }
                    // A check may read the links alone first: the scanner gives the
                    // same links, title and flags either way, and so does lol_html
                    // matching a selector with its full lexer.
                    match by_scanner(&html, &url(), Gather::Links) {
                        Ok(alone) if alone.page == a.page => {}
                        alone => failures.push(format!("{html:?}: links alone {alone:?}")),
                    }
                    let whole = by_lol_selecting(&html, &selector, gather, false).page;
                    let alone = by_lol_selecting(&html, &selector, Gather::Links, false).page;
                    if alone != whole {
                        failures.push(format!("{html:?}: selected links alone {alone:?}"));
                    }
                    light_differs += usize::from(
                        by_lol_selecting(&html, &selector, Gather::Links, true).page != whole,
                    );
                }
                (a, b) => failures.push(format!("{html:?}: {:?} / {:?}", a.err(), b.err())),
            }
        }
    }
    assert_none(&failures, 3);
    println!("{light_differs} soups read otherwise by the lighter reading");
}
