//! Compatibility with feed readers nobody here wrote: a running `sitefeed serve` watches a
//! local evolving site whose entries have adversarial titles, and python `feedparser`
//! (every format, `bozo == 0`), `newsboat` (reloads RSS and Atom from a url file) and
//! `sfeed` (RSS and Atom) must read exactly the items sitefeed found.
//!
//! A missing tool skips its part with a printed reason; in CI (`CI=true`) it fails, since
//! `.ci/run` installs them all.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::Site;

/// Whether `program` runs; prints why not, and fails in CI.
fn have(program: &str, args: &[&str]) -> bool {
    let ok = Command::new(program)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        let msg = format!(
            "compat: `{program} {}` does not run; `.ci/run` installs it",
            args.join(" ")
        );
        assert!(std::env::var("CI").as_deref() != Ok("true"), "{msg}");
        eprintln!("SKIPPED: {msg}");
    }
    ok
}

/// Titles as a reader shows them: whitespace runs collapsed, trimmed.
fn norm(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn adversarial() -> Vec<(String, String)> {
    vec![
        ("Ends CDATA ]]> here".into(), "/x/cdata".into()),
        ("Already escaped &amp; once".into(), "/x/amp".into()),
        (
            "<script>alert(1)</script> & <b>bold</b>".into(),
            "/x/script".into(),
        ),
        (
            "NUL\u{0}and\u{1}control\u{1b}chars\u{7f}".into(),
            "/x/ctl".into(),
        ),
        ("Emoji 🎉🚀 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢".into(), "/x/emoji".into()),
        ("שלום עולם مرحبا بالعالم".into(), "/x/rtl".into()),
        (
            "Long ".to_owned() + &"0123456789".repeat(500),
            "/x/long".into(),
        ),
        ("Quotes \"double\" and 'single'".into(), "/x/quotes".into()),
    ]
}

fn refs(v: &[(String, String)]) -> Vec<(&str, &str)> {
    v.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect()
}

async fn check(c: &reqwest::Client, base: &str, id: &str) -> serde_json::Value {
    let r = c
        .post(format!("{base}/api/watches/{id}/check"))
        .send()
        .await
        .expect("check");
    assert_eq!(r.status(), 200);
    r.json().await.expect("json")
}

async fn body(c: &reqwest::Client, url: &str) -> Vec<u8> {
    let r = c.get(url).send().await.expect("get");
    assert_eq!(r.status(), 200, "{url}");
    r.bytes().await.expect("bytes").to_vec()
}

/// feedparser 6.0 (the PyPI release) reads RSS and Atom but not JSON Feed; the JSON Feed
/// is read with python's own `json` against the JSON Feed 1.1 required fields instead.
const FEEDPARSER: &str = r"
import json, sys, urllib.request, feedparser
out = []
for url in sys.argv[1:]:
    if url.endswith('.json'):
        d = json.load(urllib.request.urlopen(url))
        ok = (d.get('version') == 'https://jsonfeed.org/version/1.1' and isinstance(d.get('title'), str)
              and all(isinstance(i.get('id'), str) and ('content_text' in i or 'content_html' in i)
                      for i in d['items']))
        out.append({'url': url, 'bozo': 0 if ok else 1, 'error': '' if ok else 'JSON Feed 1.1 fields',
                    'version': 'json11', 'title': d.get('title'),
                    'titles': [i.get('title') for i in d['items']],
                    'links': [i.get('url') for i in d['items']],
                    'ids': [i.get('id') for i in d['items']]})
        continue
    d = feedparser.parse(url)
    out.append({'url': url, 'bozo': int(bool(d.bozo)), 'error': str(d.get('bozo_exception', '')),
                'version': d.version, 'title': d.feed.get('title'),
                'titles': [e.get('title') for e in d.entries],
                'links': [e.get('link') for e in d.entries],
                'ids': [e.get('id') for e in d.entries]})
print(json.dumps(out))
";

const NEWSBOAT_CACHE: &str = r"
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute('select feedurl, title, url from rss_item order by id').fetchall()
print(json.dumps(rows))
";

#[tokio::test]
#[allow(
    clippy::too_many_lines,
    clippy::many_single_char_names,
    reason = "one scenario, tool by tool"
)]
async fn feedparser_newsboat_and_sfeed_read_exactly_our_items() {
    let start_entries: Vec<(String, String)> = (1..=5)
        .rev()
        .map(|i| (format!("Plain {i}"), format!("/p/{i}")))
        .collect();
    let site = Site::start(&refs(&start_entries)).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let server = common::start_serve(dir.path()).await;
    let base = server.base.clone();
    let c = reqwest::Client::new();
    let id = common::add_watch(&c, &base, &site.url()).await;
    // The scheduler checks a new watch at once: that check sets the baseline.
    let mut checked = false;
    for _ in 0..200 {
        let w: serde_json::Value = c
            .get(format!("{base}/api/watches/{id}"))
            .send()
            .await
            .expect("show")
            .json()
            .await
            .expect("json");
        if w["checks"].as_u64() >= Some(1) {
            checked = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(checked, "the scheduler never checked the new watch");

    // v2: the adversarial entries arrive on top.
    let mut v2 = adversarial();
    v2.extend(start_entries.iter().cloned());
    site.set(&refs(&v2));
    let r = check(&c, &base, &id).await;
    assert_eq!(r["new_items"], adversarial().len(), "{r}");

    let items: Vec<serde_json::Value> = c
        .get(format!("{base}/api/watches/{id}/items"))
        .send()
        .await
        .expect("items")
        .json()
        .await
        .expect("json");
    let want: Vec<String> = items
        .iter()
        .map(|i| {
            norm(&sitefeed::render::sanitize(
                i["title"].as_str().expect("title"),
            ))
        })
        .collect();
    let want_links: Vec<String> = items
        .iter()
        .map(|i| i["link"].as_str().expect("link").to_owned())
        .collect();
    // What sitefeed itself made of the titles: readable, control characters gone.
    assert_eq!(want[0], "Ends CDATA ]]> here");
    assert_eq!(want[1], "Already escaped &amp; once");
    assert_eq!(want[2], "<script>alert(1)</script> & <b>bold</b>");
    assert!(
        want[3].starts_with("NUL") && want[3].contains("control") && !want[3].contains('\u{0}')
    );
    assert_eq!(want[4], "Emoji 🎉🚀 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢");
    assert_eq!(want[5], "שלום עולם مرحبا بالعالم");
    assert!(want[6].starts_with("Long 0123456789") && want[6].len() >= 2000);

    let feed = |ext: &str| format!("{base}/feed/{id}.{ext}");

    // Well-formed XML, checked here, whatever tools are present.
    for ext in ["xml", "atom"] {
        let b = body(&c, &feed(ext)).await;
        let mut reader = quick_xml::Reader::from_reader(b.as_slice());
        let mut buf = Vec::new();
        loop {
            match reader.read_event_into(&mut buf) {
                Ok(quick_xml::events::Event::Eof) => break,
                Ok(_) => {}
                Err(e) => panic!("{ext} is not well-formed: {e}"),
            }
            buf.clear();
        }
    }

    // feedparser: every format, bozo 0, exact titles, links and stable ids.
    if have("python3", &["-c", "import feedparser"]) {
        let out = Command::new("python3")
            .args(["-c", FEEDPARSER, &feed("xml"), &feed("atom"), &feed("json")])
            .output()
            .expect("python3");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let res: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).expect("json");
        for (f, version) in res.iter().zip(["rss20", "atom10", "json1"]) {
            assert_eq!(f["bozo"], 0, "{f}");
            assert!(
                f["version"]
                    .as_str()
                    .expect("version")
                    .starts_with(&version[..4]),
                "{f}"
            );
            let titles: Vec<String> = f["titles"]
                .as_array()
                .expect("titles")
                .iter()
                .map(|t| norm(t.as_str().unwrap_or("")))
                .collect();
            assert_eq!(titles, want, "feedparser {}", f["url"]);
            let links: Vec<&str> = f["links"]
                .as_array()
                .expect("links")
                .iter()
                .map(|l| l.as_str().unwrap_or(""))
                .collect();
            assert_eq!(links, want_links, "feedparser {}", f["url"]);
        }
    }

    // sfeed: RSS and Atom to TSV (title is field 2, link field 3; \t \n \\ escaped).
    if have("sh", &["-c", "command -v sfeed"]) {
        for ext in ["xml", "atom"] {
            let b = body(&c, &feed(ext)).await;
            let mut child = Command::new("sfeed")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .expect("sfeed");
            child
                .stdin
                .take()
                .expect("stdin")
                .write_all(&b)
                .expect("write");
            let out = child.wait_with_output().expect("sfeed output");
            assert!(out.status.success());
            let text = String::from_utf8(out.stdout).expect("sfeed writes UTF-8");
            let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split('\t').collect()).collect();
            let titles: Vec<String> = rows
                .iter()
                .map(|r| {
                    norm(
                        &r[1]
                            .replace("\\n", "\n")
                            .replace("\\t", "\t")
                            .replace("\\\\", "\\"),
                    )
                })
                .collect();
            let links: Vec<&str> = rows.iter().map(|r| r[2]).collect();
            assert_eq!(titles, want, "sfeed {ext}");
            assert_eq!(links, want_links, "sfeed {ext}");
            assert!(
                rows.iter()
                    .all(|r| r[0].parse::<i64>().is_ok_and(|t| t > 0)),
                "dates parse: {text}"
            );
        }
    }

    // newsboat: reload from a url file, twice across a change; every item exactly once.
    if have("newsboat", &["-v"]) && have("python3", &["-c", "import sqlite3"]) {
        let home = dir.path().join("nb");
        std::fs::create_dir_all(&home).expect("mkdir");
        let urls = home.join("urls");
        std::fs::write(&urls, format!("{}\n{}\n", feed("xml"), feed("atom"))).expect("urls");
        std::fs::write(home.join("config"), "").expect("config");
        let cache = home.join("cache.db");
        let reload = || {
            let out = Command::new("newsboat")
                .arg("-u")
                .arg(&urls)
                .arg("-c")
                .arg(&cache)
                .arg("-C")
                .arg(home.join("config"))
                .args(["-x", "reload"])
                .env("HOME", &home)
                .env("XDG_CONFIG_HOME", &home)
                .env("XDG_DATA_HOME", &home)
                .output()
                .expect("newsboat");
            assert!(
                out.status.success(),
                "newsboat: {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        };
        let read_cache = || -> Vec<(String, String, String)> {
            let out = Command::new("python3")
                .args(["-c", NEWSBOAT_CACHE])
                .arg(&cache)
                .output()
                .expect("python3");
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            serde_json::from_slice(&out.stdout).expect("json")
        };
        reload();
        // v3: one more entry; reload again.
        let mut v3 = v2.clone();
        v3.insert(0, ("Later one".into(), "/x/later".into()));
        site.set(&refs(&v3));
        assert_eq!(check(&c, &base, &id).await["new_items"], 1);
        reload();
        let rows = read_cache();
        for ext in ["xml", "atom"] {
            let mut titles: Vec<String> = rows
                .iter()
                .filter(|r| r.0 == feed(ext))
                .map(|r| norm(&r.1))
                .collect();
            let mut expected = want.clone();
            expected.push("Later one".into());
            titles.sort();
            expected.sort();
            assert_eq!(titles, expected, "newsboat {ext}");
        }
    }
    drop(server);
}

/// The feed of a tag and the feed of a failing watch (with its error item at the top),
/// read by feedparser, sfeed and newsboat: every item, its title intact.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[allow(
    clippy::too_many_lines,
    clippy::many_single_char_names,
    reason = "one scenario, tool by tool"
)]
async fn tag_feeds_and_error_items_read_in_feedparser_newsboat_and_sfeed() {
    let first: Vec<(String, String)> = (1..=3)
        .rev()
        .map(|i| (format!("Plain {i}"), format!("/p/{i}")))
        .collect();
    let site = Site::start(&refs(&first)).await;
    let broken = Site::start(&refs(&first)).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, clock) = common::app(dir.path());
    let base = common::serve(app.clone()).await;
    let add = |url: String, tags: &[&str]| {
        app.add_watch(&sitefeed::app::NewWatch {
            url,
            tags: tags.iter().map(|t| (*t).to_owned()).collect(),
            ..Default::default()
        })
        .expect("add")
        .0
    };
    let a = add(format!("{}?a", site.url()), &["news"]);
    let b = add(broken.url(), &["news"]);
    for w in [&a, &b] {
        app.check(w, false).await.expect("baseline");
    }
    let mut v2 = adversarial();
    v2.extend(first.iter().cloned());
    site.set(&refs(&v2));
    clock.advance(600);
    let r = app.check(&a, false).await.expect("check");
    assert_eq!(r.new_items.len(), adversarial().len());
    // The second site breaks, and stays broken for more than a day.
    broken.set_raw("application/pdf", b"%PDF-1.4".to_vec());
    clock.advance(600);
    assert!(app.check(&b, false).await.expect("check").error.is_some());
    clock.advance(86_400 + 60);
    assert!(app.check(&b, false).await.expect("check").error.is_some());

    let c = reqwest::Client::new();
    let tag = |ext: &str| format!("{base}/feed/tag/news.{ext}");
    let errfeed = |ext: &str| format!("{base}/feed/{}.{ext}", b.id);
    let titles_of = |want: &mut Vec<String>, items: &[serde_json::Value]| {
        want.extend(items.iter().map(|i| {
            norm(&sitefeed::render::sanitize(
                i["title"].as_str().expect("title"),
            ))
        }));
    };
    // What each feed should hold, newest first, as the JSON Feed says (checked against
    // the API's items).
    let json_titles = |url: String| {
        let c = c.clone();
        async move {
            let v: serde_json::Value = serde_json::from_slice(&body(&c, &url).await).expect("json");
            let mut out = Vec::new();
            titles_of(&mut out, v["items"].as_array().expect("items"));
            out
        }
    };
    let want_tag = json_titles(tag("json")).await;
    let want_err = json_titles(errfeed("json")).await;
    assert_eq!(want_tag.len(), adversarial().len() + 1, "{want_tag:?}");
    assert!(
        want_err[0].starts_with("sitefeed cannot read this page since"),
        "{want_err:?}"
    );
    assert!(want_err[0].contains("not an HTML page"));
    assert!(
        want_tag
            .iter()
            .any(|t| t.starts_with("sitefeed cannot read")),
        "the tag's feed carries its watches' error items"
    );

    if have("python3", &["-c", "import feedparser"]) {
        let urls = [tag("xml"), tag("atom"), errfeed("xml"), errfeed("atom")];
        let out = tokio::task::spawn_blocking(move || {
            Command::new("python3")
                .args(["-c", FEEDPARSER])
                .args(&urls)
                .output()
                .expect("python3")
        })
        .await
        .expect("join");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let res: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).expect("json");
        for (f, want) in res.iter().zip([&want_tag, &want_tag, &want_err, &want_err]) {
            assert_eq!(f["bozo"], 0, "{f}");
            let titles: Vec<String> = f["titles"]
                .as_array()
                .expect("titles")
                .iter()
                .map(|t| norm(t.as_str().unwrap_or("")))
                .collect();
            assert_eq!(&titles, want, "feedparser {}", f["url"]);
            let ids: Vec<&str> = f["ids"]
                .as_array()
                .expect("ids")
                .iter()
                .map(|i| i.as_str().unwrap_or(""))
                .collect();
            let mut distinct = ids.clone();
            distinct.sort_unstable();
            distinct.dedup();
            assert_eq!(distinct.len(), ids.len(), "distinct ids: {ids:?}");
        }
    }

    if have("sh", &["-c", "command -v sfeed"]) {
        for (url, want) in [
            (tag("xml"), &want_tag),
            (tag("atom"), &want_tag),
            (errfeed("xml"), &want_err),
            (errfeed("atom"), &want_err),
        ] {
            let b = body(&c, &url).await;
            let out = tokio::task::spawn_blocking(move || {
                let mut child = Command::new("sfeed")
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .spawn()
                    .expect("sfeed");
                child
                    .stdin
                    .take()
                    .expect("stdin")
                    .write_all(&b)
                    .expect("write");
                child.wait_with_output().expect("sfeed output")
            })
            .await
            .expect("join");
            assert!(out.status.success());
            let text = String::from_utf8(out.stdout).expect("UTF-8");
            let titles: Vec<String> = text
                .lines()
                .map(|l| {
                    norm(
                        &l.split('\t')
                            .nth(1)
                            .unwrap_or("")
                            .replace("\\n", "\n")
                            .replace("\\t", "\t")
                            .replace("\\\\", "\\"),
                    )
                })
                .collect();
            assert_eq!(&titles, want, "sfeed {url}");
        }
    }

    if have("newsboat", &["-v"]) && have("python3", &["-c", "import sqlite3"]) {
        let home = dir.path().join("nb");
        std::fs::create_dir_all(&home).expect("mkdir");
        let urls = home.join("urls");
        std::fs::write(&urls, format!("{}\n{}\n", tag("xml"), errfeed("atom"))).expect("urls");
        std::fs::write(home.join("config"), "").expect("config");
        let cache = home.join("cache.db");
        let (h, u, ca) = (home.clone(), urls.clone(), cache.clone());
        let out = tokio::task::spawn_blocking(move || {
            Command::new("newsboat")
                .arg("-u")
                .arg(&u)
                .arg("-c")
                .arg(&ca)
                .arg("-C")
                .arg(h.join("config"))
                .args(["-x", "reload"])
                .env("HOME", &h)
                .env("XDG_CONFIG_HOME", &h)
                .env("XDG_DATA_HOME", &h)
                .output()
                .expect("newsboat")
        })
        .await
        .expect("join");
        assert!(
            out.status.success(),
            "newsboat: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let out = Command::new("python3")
            .args(["-c", NEWSBOAT_CACHE])
            .arg(&cache)
            .output()
            .expect("python3");
        let rows: Vec<(String, String, String)> =
            serde_json::from_slice(&out.stdout).expect("json");
        for (url, want) in [(tag("xml"), &want_tag), (errfeed("atom"), &want_err)] {
            let mut titles: Vec<String> = rows
                .iter()
                .filter(|r| r.0 == url)
                .map(|r| norm(&r.1))
                .collect();
            let mut expected = want.clone();
            titles.sort();
            expected.sort();
            assert_eq!(titles, expected, "newsboat {url}");
        }
    }
}
