//! The command line: exit codes, messages and the output of the offline commands.

use assert_cmd::Command;

fn sitefeed(dir: &std::path::Path) -> Command {
    let mut c = Command::cargo_bin("sitefeed").expect("binary");
    c.env("SITEFEED_DATA", dir.join("data"))
        .env("SITEFEED_CONFIG", dir.join("none.toml"))
        .env_remove("SITEFEED_LISTEN")
        .env("RUST_LOG", "warn");
    std::fs::write(dir.join("none.toml"), "").expect("config");
    c
}

fn stdout_lines(out: &std::process::Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn add_with_an_invalid_url_exits_2_with_one_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    for bad in [
        "not a url",
        "ftp://example.org/x",
        "javascript:alert(1)",
        "http://",
    ] {
        let out = sitefeed(dir.path())
            .args(["add", bad])
            .output()
            .expect("run");
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            err.trim_end().lines().count(),
            1,
            "one line for {bad}: {err}"
        );
        assert!(err.starts_with("sitefeed: "), "{err}");
    }
}

#[test]
fn add_is_idempotent_and_list_remove_work() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = sitefeed(dir.path())
        .args([
            "add",
            "https://Example.org:443/news/#top",
            "--title",
            "News",
        ])
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let first = stdout_lines(&out)[0].clone();
    let id = first.split('\t').next().expect("id").to_owned();
    assert_eq!(id.len(), 12);
    assert!(first.contains(&format!("/feed/{id}.xml")), "{first}");
    let out = sitefeed(dir.path())
        .args(["add", "https://example.org/news/"])
        .output()
        .expect("run");
    assert!(
        stdout_lines(&out)[0].starts_with(&format!("{id}\t")),
        "same URL, same id"
    );
    let out = sitefeed(dir.path()).arg("list").output().expect("run");
    let lines = stdout_lines(&out);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(
        lines[1].starts_with(&format!("{id}\thttps://example.org/news/\tnever\tnew\t0")),
        "{lines:?}"
    );
    // Without a terminal to ask on, removing needs --yes, and keeps the watch.
    let out = sitefeed(dir.path())
        .args(["remove", &id])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--yes"));
    assert_eq!(
        stdout_lines(&sitefeed(dir.path()).arg("list").output().expect("run")).len(),
        2
    );
    let out = sitefeed(dir.path())
        .args(["remove", "--yes", &id])
        .output()
        .expect("run");
    assert!(out.status.success());
    let out = sitefeed(dir.path())
        .args(["remove", "--yes", &id])
        .output()
        .expect("run");
    assert_eq!(
        out.status.code(),
        Some(2),
        "removing an unknown id is bad input"
    );
    assert_eq!(
        stdout_lines(&sitefeed(dir.path()).arg("list").output().expect("run")).len(),
        1
    );
}

#[test]
fn invalid_config_exits_2_naming_file_and_key() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cfg = dir.path().join("bad.toml");
    std::fs::write(&cfg, "[fetch]\ntimeout_secs = \"soon\"\n").expect("write");
    let out = sitefeed(dir.path())
        .arg("--config")
        .arg(&cfg)
        .arg("list")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.toml") && err.contains("timeout_secs"),
        "{err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}

#[test]
fn diff_prints_only_the_new_entries() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = sitefeed(dir.path())
        .args([
            "diff",
            "tests/fixtures/diff/old.html",
            "tests/fixtures/diff/new.html",
            "--base-url",
            "https://board.example/list/",
        ])
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got: Vec<serde_json::Value> = stdout_lines(&out)
        .iter()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    assert_eq!(
        got,
        vec![
            serde_json::json!({"title": "Fifth & final", "link": "https://board.example/n/5?a=1&b=2"}),
            serde_json::json!({"title": "Fourth notice", "link": "https://board.example/n/4"}),
        ]
    );
}

#[test]
fn diff_and_replay_report_missing_files_as_bad_input() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = sitefeed(dir.path())
        .args(["diff", "nope.html", "tests/fixtures/diff/new.html"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nope.html"));
    let out = sitefeed(dir.path())
        .args([
            "replay",
            "tests/fixtures/diff/old.html",
            "--base-url",
            "gopher://x/",
        ])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let out = sitefeed(dir.path())
        .args([
            "diff",
            "tests/fixtures/diff/old.html",
            "tests/fixtures/diff/new.html",
            "--charset",
            "klingon",
        ])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn replay_runs_snapshots_through_the_pipeline() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = sitefeed(dir.path())
        .args([
            "replay",
            "tests/fixtures/diff/old.html",
            "tests/fixtures/diff/new.html",
            "tests/fixtures/diff/old.html",
            "--base-url",
            "https://board.example/list/",
        ])
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got: Vec<serde_json::Value> = stdout_lines(&out)
        .iter()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    // The first file is the baseline; going back to it brings "First notice" back, which
    // was seen before and so is not new.
    assert_eq!(
        got,
        vec![
            serde_json::json!({"file": "new.html", "title": "Fifth & final", "link": "https://board.example/n/5?a=1&b=2"}),
            serde_json::json!({"file": "new.html", "title": "Fourth notice", "link": "https://board.example/n/4"}),
        ]
    );
    // It says what it does, on stderr: one line per snapshot.
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("replay: 3 snapshot(s)"), "{err}");
    assert!(err.contains("old.html: baseline set"), "{err}");
    assert!(err.contains("new.html: 2 new item(s)"), "{err}");
}

#[test]
fn opml_import_and_export_via_cli() {
    let dir = tempfile::tempdir().expect("tempdir");
    let opml = dir.path().join("in.opml");
    std::fs::write(
        &opml,
        r#"<?xml version="1.0"?><opml version="2.0"><head><title>x</title></head><body>
<outline text="Folder"><outline text="A" htmlUrl="https://a.example/news/"/></outline>
<outline text="B" xmlUrl="https://b.example/feed.xml"/>
<outline text="Bad" htmlUrl="ftp://c.example/"/>
</body></opml>"#,
    )
    .expect("write");
    let out = sitefeed(dir.path())
        .arg("import-opml")
        .arg(&opml)
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("added 2, existing 0, rejected 1"),
        "{text}"
    );
    let out = sitefeed(dir.path())
        .arg("export-opml")
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("https://a.example/news/") && text.contains("https://b.example/feed.xml"),
        "{text}"
    );
    assert_eq!(text.matches("xmlUrl=").count(), 2);
    // The folder A stood in came in as a tag and goes out as a folder again.
    assert!(text.contains("<outline text=\"folder\""), "{text}");
    assert!(text.contains("category=\"/folder\""), "{text}");

    std::fs::write(&opml, "<opml><body><outline htmlUrl=\"https://d.example/\"").expect("write");
    let out = sitefeed(dir.path())
        .arg("import-opml")
        .arg(&opml)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2), "malformed OPML is bad input");
    let out = sitefeed(dir.path()).arg("list").output().expect("run");
    assert_eq!(stdout_lines(&out).len(), 3, "nothing added half-way");
}

#[test]
fn add_takes_a_backfill_within_bounds() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = sitefeed(dir.path())
        .args(["add", "https://example.org/a/", "--backfill", "5"])
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = sitefeed(dir.path())
        .args(["add", "https://example.org/b/", "--backfill", "100000"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("backfill"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn list_into_a_closed_pipe_exits_quietly() {
    let dir = tempfile::tempdir().expect("tempdir");
    {
        // More lines than a pipe buffers (64 KiB), so `list` writes into the closed pipe.
        let store = sitefeed::store::Store::open(&dir.path().join("data"), 8 << 20).expect("store");
        let cfg = sitefeed::Config::from_toml(
            &format!(
                "[storage]\npath = {:?}\n",
                dir.path().join("data").display().to_string()
            ),
            std::path::Path::new("t.toml"),
            &|_| None,
        )
        .expect("config");
        let app = sitefeed::App::new(
            cfg,
            store,
            std::sync::Arc::new(sitefeed::schedule::clock::SystemClock),
        )
        .expect("app");
        for i in 0..2000 {
            app.add_watch(&sitefeed::app::NewWatch {
                url: format!("https://example.org/a/fairly/long/path/to/a/notice/board/{i}/"),
                ..Default::default()
            })
            .expect("add");
        }
        app.store().flush().expect("flush");
    }
    std::fs::write(dir.path().join("none.toml"), "").expect("config");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_sitefeed"))
        .env("SITEFEED_DATA", dir.path().join("data"))
        .env("SITEFEED_CONFIG", dir.path().join("none.toml"))
        .env_remove("SITEFEED_LISTEN")
        .env("RUST_LOG", "warn")
        .arg("list")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    // Like `head -n 1`: read a line, then close the pipe.
    let mut first = String::new();
    let mut stdout = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    std::io::BufRead::read_line(&mut stdout, &mut first).expect("first line");
    assert!(first.starts_with("ID\t"), "{first}");
    drop(stdout);
    let out = child.wait_with_output().expect("wait");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.is_empty(), "nothing on stderr: {err}");
    assert_eq!(out.status.code(), Some(0));
}

/// The binary as built keeps mimalloc's low-memory defaults (no eager arena commit,
/// immediate purge): without them its resident memory doubles. They are installed by a
/// constructor the linker keeps only when the program names it, so this looks at the
/// real binary, not at the library under test.
#[test]
fn the_binary_runs_with_the_allocators_low_memory_defaults() {
    if !cfg!(target_os = "linux") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let out = sitefeed(dir.path())
        .env("RUST_LOG", "sitefeed=debug")
        .env_remove("MIMALLOC_ARENA_EAGER_COMMIT")
        .env_remove("MIMALLOC_PURGE_DELAY")
        .arg("list")
        .output()
        .expect("run");
    assert!(out.status.success(), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    let line = err
        .lines()
        .find(|l| l.contains("allocator: mimalloc"))
        .unwrap_or_else(|| panic!("no allocator line in: {err}"));
    for want in ["installed=true", "eager_commit=0", "purge_delay_ms=0"] {
        assert!(line.contains(want), "{want} in: {line}");
    }
}
