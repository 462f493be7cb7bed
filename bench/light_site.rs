//! A light stand-in for the peer harness's mock news site: it serves pages captured from
//! that site, from memory, so that a checks/s ceiling measures sitefeed and not the site.
//! The mock site renders every page in Python (about half a millisecond of CPU a page,
//! as much as a third of the two cores at sitefeed's ceiling); this one copies bytes.
//!
//! ```sh
//! cargo run --release --example light_site -- --port 8912 --pages 3000 --dir DIR
//! ```
//!
//! `DIR` holds `B` base pages of `V` versions each, as `p<base>-v<version>.html`
//! (`bench/light_ceiling.sh` captures them from the mock site, which evolves a page at
//! every fetch). Page `k` (`/site/<k>/`) is base `k % B`; each fetch of it gets its next
//! version, so every check of every watch sees a changed page, as with the mock site.
//! Past `V` fetches a page starts again at its first version (still a changed page, but
//! an older one); `/stats` counts those fetches as `wrapped`, so a run can show it had
//! none.
//!
//! Any other path answers a small page with a few links (an entry's page, for a watch
//! that follows links: `scripts/pgo-build.sh` trains on such watches too). Pages go out
//! as `--content-type` (default `text/html; charset=utf-8`, as the mock site sends them).
//!
//! `/stats` answers as the mock site's does where the harness reads it: `page_gets`,
//! `page_304` (always 0: no validators are sent) and `cpu_s`, this process's CPU seconds;
//! with `--stats-out FILE` each answer is also written to `FILE`, so that the last one
//! outlives the site.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use axum::extract::{Path as UrlPath, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};

struct Site {
    /// `bases[b][v]`: version `v` of base page `b`.
    bases: Vec<Vec<axum::body::Bytes>>,
    /// Fetches so far of each page `k`.
    fetched: Vec<AtomicU64>,
    gets: AtomicU64,
    wrapped: AtomicU64,
    stats_out: Option<std::path::PathBuf>,
    content_type: String,
}

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
}

fn usage() -> ! {
    eprintln!(
        "usage: light_site --dir DIR [--port P] [--pages N] [--stats-out FILE] [--content-type T]"
    );
    std::process::exit(2);
}

/// The number given as `name`, `default` without it; anything else ends with exit 2.
fn number<T: std::str::FromStr>(args: &[String], name: &str, default: T) -> T {
    match arg(args, name) {
        None => default,
        Some(v) => v.parse().unwrap_or_else(|_| {
            eprintln!("light_site: {name} takes a number, not {v:?}");
            usage()
        }),
    }
}

/// The captured pages of `dir`, by base and version; an error names what is missing.
fn load(dir: &Path) -> Result<Vec<Vec<axum::body::Bytes>>, String> {
    let mut found: BTreeMap<(usize, usize), axum::body::Bytes> = BTreeMap::new();
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        let Some((b, v)) = name
            .strip_prefix('p')
            .and_then(|n| n.strip_suffix(".html"))
            .and_then(|n| n.split_once("-v"))
        else {
            continue;
        };
        let (Ok(b), Ok(v)) = (b.parse::<usize>(), v.parse::<usize>()) else {
            continue;
        };
        let body = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        found.insert((b, v), body.into());
    }
    let bases = found.keys().map(|&(b, _)| b + 1).max().unwrap_or(0);
    let versions = found.keys().map(|&(_, v)| v + 1).max().unwrap_or(0);
    if bases == 0 {
        return Err(format!("no p<base>-v<version>.html in {}", dir.display()));
    }
    let mut out = Vec::with_capacity(bases);
    for b in 0..bases {
        let mut vs = Vec::with_capacity(versions);
        for v in 0..versions {
            let page = found
                .remove(&(b, v))
                .ok_or_else(|| format!("missing p{b}-v{v}.html in {}", dir.display()))?;
            vs.push(page);
        }
        out.push(vs);
    }
    Ok(out)
}

/// This process's CPU seconds (user and system), from `/proc/self/stat`.
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // The fields after the command name, which is in parentheses and may hold spaces:
    // utime and stime are the 14th and 15th fields, in clock ticks (100 a second here).
    let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else {
        return 0.0;
    };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let tick = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok());
    match (tick(11), tick(12)) {
        (Some(u), Some(s)) => (u + s) / 100.0,
        _ => 0.0,
    }
}

async fn page(State(site): State<Arc<Site>>, UrlPath(k): UrlPath<usize>) -> Response {
    let Some(count) = site.fetched.get(k) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let n = count.fetch_add(1, Ordering::Relaxed);
    site.gets.fetch_add(1, Ordering::Relaxed);
    let versions = &site.bases[k % site.bases.len()];
    let n = usize::try_from(n).unwrap_or(usize::MAX);
    if n >= versions.len() {
        site.wrapped.fetch_add(1, Ordering::Relaxed);
    }
    let body = versions[n % versions.len()].clone();
    ([(header::CONTENT_TYPE, site.content_type.clone())], body).into_response()
}

/// An entry's page: its path as the title, some text, a link up and one across.
async fn leaf(State(site): State<Arc<Site>>, uri: axum::http::Uri) -> Response {
    let path = uri.path().replace(['<', '>', '&', '"'], "");
    let body = format!(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{path}</title></head>\
         <body><main><h1>{path}</h1><p>The page of {path}, with a paragraph of text long \
         enough to be read as one.</p><p><a href=\"../\">Up</a> \
         <a href=\"{path}more\">More</a></p></main></body></html>"
    );
    ([(header::CONTENT_TYPE, site.content_type.clone())], body).into_response()
}

async fn stats(State(site): State<Arc<Site>>) -> Json<serde_json::Value> {
    let stats = serde_json::json!({
        "page_gets": site.gets.load(Ordering::Relaxed),
        "page_304": 0,
        "wrapped": site.wrapped.load(Ordering::Relaxed),
        "cpu_s": cpu_seconds(),
    });
    if let Some(path) = &site.stats_out {
        if let Err(e) = std::fs::write(path, stats.to_string()) {
            eprintln!("light_site: {}: {e}", path.display());
        }
    }
    Json(stats)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let port: u16 = number(&args, "--port", 8912);
    let pages: usize = number(&args, "--pages", 1000);
    let Some(dir) = arg(&args, "--dir") else {
        usage()
    };
    let bases = match load(Path::new(&dir)) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("light_site: {e}");
            std::process::exit(2);
        }
    };
    let site = Arc::new(Site {
        bases,
        fetched: (0..pages).map(|_| AtomicU64::new(0)).collect(),
        gets: AtomicU64::new(0),
        wrapped: AtomicU64::new(0),
        stats_out: arg(&args, "--stats-out").map(Into::into),
        content_type: arg(&args, "--content-type")
            .unwrap_or_else(|| "text/html; charset=utf-8".into()),
    });
    let app = Router::new()
        .route("/site/{k}/", get(page))
        .route("/stats", get(stats))
        .fallback(leaf)
        .with_state(site);
    // One thread: the site should cost as little of the two cores as it can.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    rt.block_on(async move {
        let listener = match tokio::net::TcpListener::bind(("127.0.0.1", port)).await {
            Ok(l) => l,
            Err(e) => {
                eprintln!("light_site: 127.0.0.1:{port}: {e}");
                std::process::exit(1);
            }
        };
        if let Err(e) = axum::serve(listener, app).await {
            eprintln!("light_site: {e}");
            std::process::exit(1);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir_with(names: &[&str]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("tempdir");
        for name in names {
            std::fs::write(dir.path().join(name), name.as_bytes()).expect("write");
        }
        dir
    }

    #[test]
    fn pages_load_by_base_and_version() {
        let dir = dir_with(&[
            "p0-v0.html",
            "p0-v1.html",
            "p1-v0.html",
            "p1-v1.html",
            "notes.txt",
        ]);
        let bases = load(dir.path()).expect("complete");
        assert_eq!(bases.len(), 2);
        assert_eq!(&bases[1][0][..], b"p1-v0.html");
        assert_eq!(&bases[0][1][..], b"p0-v1.html");
    }

    #[test]
    fn a_missing_version_or_no_page_is_an_error_that_names_it() {
        let dir = dir_with(&["p0-v0.html", "p0-v1.html", "p1-v0.html"]);
        let e = load(dir.path()).expect_err("p1-v1 is missing");
        assert!(e.contains("p1-v1.html"), "{e}");
        let empty = dir_with(&[]);
        assert!(load(empty.path()).is_err());
    }
}
