//! Feeds whose items carry every content field (summary, stated date, edit date, picture,
//! author, a full text with script and handlers in it), read by feed readers nobody here
//! wrote: python `feedparser` (RSS and Atom, `bozo == 0`, every field read back), `sfeed`
//! (RSS and Atom: the stated date, the author, the sanitized content) and `newsboat`
//! (RSS and Atom from `file://` URLs: every item once, with its author).
//!
//! A missing tool skips its part with a printed reason; in CI (`CI=true`) it fails.

use std::io::Write;
use std::process::{Command, Stdio};

use sitefeed::model::{Item, Render, Watch, WatchId, WatchOptions};
use sitefeed::render::{atom, json_feed, rss, FeedView};

fn have(program: &str, args: &[&str]) -> bool {
    let ok = Command::new(program)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        let msg = format!(
            "compat_content: `{program} {}` does not run",
            args.join(" ")
        );
        assert!(std::env::var("CI").as_deref() != Ok("true"), "{msg}");
        eprintln!("SKIPPED: {msg}");
    }
    ok
}

fn items() -> Vec<Item> {
    vec![
        Item {
            id: Item::id_for("https://example.org/news/2"),
            title: "Harbour bridge reopens & traffic returns".into(),
            link: "https://example.org/news/2".into(),
            first_seen: 1_714_737_600,
            summary: Some("Traffic <returns> to the bridge on Monday, the city says.".into()),
            published: Some(1_714_730_400),
            updated: Some(1_714_741_200),
            image: Some("https://img.example.org/bridge.jpg?w=640&h=360".into()),
            author: Some("Jane Roe".into()),
            content: Some(
                "<p onclick=\"steal()\">The <b>bridge</b> reopens.<script>alert(1)</script>\
                 <img src=\"/img/b.jpg\" onerror=\"x()\"> <a href=\"javascript:alert(2)\">js</a></p>"
                    .into(),
            ),
        },
        Item {
            id: Item::id_for("https://example.org/news/1"),
            title: "Council approves the budget".into(),
            link: "https://example.org/news/1".into(),
            first_seen: 1_714_700_000,
            summary: Some("Der Rat stimmte mit sieben zu zwei Stimmen zu. 市议会批准了预算。".into()),
            published: Some(1_714_690_000),
            author: Some("Kim Lee".into()),
            ..Item::default()
        },
    ]
}

const FEEDPARSER: &str = r"
import json, sys, feedparser
out = []
for path in sys.argv[1:]:
    d = feedparser.parse(path)
    out.append({'bozo': int(bool(d.bozo)), 'error': str(d.get('bozo_exception', '')),
                'entries': [{'title': e.get('title'), 'summary': e.get('summary'),
                             'published': e.get('published_parsed') and list(e.published_parsed)[:6],
                             'author': e.get('author'),
                             'thumbs': [t.get('url') for t in e.get('media_thumbnail', [])],
                             'content': [c.get('value') for c in e.get('content', [])]}
                            for e in d.entries]})
print(json.dumps(out))
";

#[test]
#[allow(clippy::too_many_lines, reason = "one feed, reader by reader")]
fn readers_read_every_content_field() {
    let url = "https://example.org/news/";
    let watch = Watch {
        id: WatchId::for_url(url),
        url: url.into(),
        title: None,
        depth: 1,
        select: None,
        keywords: Vec::new(),
        created: 1_700_000_000,
        strategy: None,
        render: Render::Plain,
        options: WatchOptions::default(),
    };
    let items = items();
    let view = FeedView {
        self_path: None,
        watch: &watch,
        title: "News",
        items: &items,
        base_url: "http://127.0.0.1:8080",
        key_query: "",
        updated: 1_714_741_200,
        ttl_minutes: Some(60),
        icon: None,
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let rss_path = dir.path().join("feed.xml");
    let atom_path = dir.path().join("feed.atom");
    std::fs::write(&rss_path, rss(&view)).expect("write");
    std::fs::write(&atom_path, atom(&view)).expect("write");
    for path in [&rss_path, &atom_path] {
        let body = std::fs::read_to_string(path).expect("read");
        for bad in ["<script", "onclick", "onerror", "javascript:", "alert("] {
            assert!(!body.contains(bad), "{bad} in {body}");
        }
    }
    let json: serde_json::Value = serde_json::from_str(&json_feed(&view)).expect("json");
    assert_eq!(json["items"][0]["date_published"], "2024-05-03T10:00:00Z");
    assert_eq!(json["items"][0]["authors"][0]["name"], "Jane Roe");

    if have("python3", &["-c", "import feedparser"]) {
        let out = Command::new("python3")
            .args(["-c", FEEDPARSER])
            .arg(&rss_path)
            .arg(&atom_path)
            .output()
            .expect("python3");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let res: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).expect("json");
        for (f, name) in res.iter().zip(["rss", "atom"]) {
            assert_eq!(f["bozo"], 0, "{name}: {f}");
            let e = &f["entries"][0];
            assert_eq!(
                e["title"], "Harbour bridge reopens & traffic returns",
                "{name}"
            );
            // the entry's own date, 2024-05-03 10:00 UTC, not when it was first seen
            assert_eq!(
                e["published"],
                serde_json::json!([2024, 5, 3, 10, 0, 0]),
                "{name}: {e}"
            );
            assert!(
                e["summary"]
                    .as_str()
                    .is_some_and(|s| s.contains("to the bridge on Monday")),
                "{name}: {e}"
            );
            assert_eq!(e["author"], "Jane Roe", "{name}: {e}");
            assert_eq!(
                e["thumbs"][0], "https://img.example.org/bridge.jpg?w=640&h=360",
                "{name}: {e}"
            );
            let content = e["content"][0].as_str().unwrap_or("");
            assert!(content.contains("<b>bridge</b>"), "{name}: {e}");
            assert!(
                content.contains("https://example.org/img/b.jpg"),
                "{name}: {e}"
            );
            assert!(
                !content.contains("script") && !content.contains("onerror"),
                "{name}"
            );
            let second = &f["entries"][1];
            assert!(
                second["summary"]
                    .as_str()
                    .is_some_and(|s| s.contains("市议会批准了预算")),
                "{name}: {second}"
            );
        }
    }

    if have("sh", &["-c", "command -v sfeed"]) {
        for path in [&rss_path, &atom_path] {
            let mut child = Command::new("sfeed")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .expect("sfeed");
            child
                .stdin
                .take()
                .expect("stdin")
                .write_all(&std::fs::read(path).expect("read"))
                .expect("write");
            let out = child.wait_with_output().expect("sfeed");
            assert!(out.status.success());
            let text = String::from_utf8(out.stdout).expect("utf-8");
            let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split('\t').collect()).collect();
            assert_eq!(rows.len(), 2, "{text}");
            // fields: timestamp, title, link, content, content type, id, author
            assert_eq!(rows[0][0], "1714730400", "{}: {text}", path.display());
            assert_eq!(rows[0][6], "Jane Roe", "{text}");
            assert!(
                rows[0][3].contains("bridge") && !rows[0][3].contains("script"),
                "{text}"
            );
            assert_eq!(rows[1][0], "1714690000", "{text}");
        }
    }

    if have("newsboat", &["-v"]) && have("python3", &["-c", "import sqlite3"]) {
        let home = dir.path().join("nb");
        std::fs::create_dir_all(&home).expect("mkdir");
        let urls = home.join("urls");
        let feeds = [
            format!("file://{}", rss_path.display()),
            format!("file://{}", atom_path.display()),
        ];
        std::fs::write(&urls, format!("{}\n{}\n", feeds[0], feeds[1])).expect("urls");
        std::fs::write(home.join("config"), "").expect("config");
        let cache = home.join("cache.db");
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
        let q = "import json, sqlite3, sys\ndb = sqlite3.connect(sys.argv[1])\n\
                 print(json.dumps(db.execute('select feedurl, title, author from rss_item order by id').fetchall()))";
        let out = Command::new("python3")
            .args(["-c", q])
            .arg(&cache)
            .output()
            .expect("python3");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let rows: Vec<(String, String, String)> =
            serde_json::from_slice(&out.stdout).expect("json");
        for feed in &feeds {
            let mut got: Vec<(&str, &str)> = rows
                .iter()
                .filter(|r| &r.0 == feed)
                .map(|r| (r.1.as_str(), r.2.as_str()))
                .collect();
            got.sort_unstable();
            assert_eq!(
                got,
                [
                    ("Council approves the budget", "Kim Lee"),
                    ("Harbour bridge reopens & traffic returns", "Jane Roe")
                ],
                "newsboat {feed}"
            );
        }
    }
}
