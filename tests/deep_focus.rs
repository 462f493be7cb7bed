//! A focused deep watch reads the text around each link (Shark-Search's anchor context):
//! with a budget of one page per check, the page it fetches first is the one whose link
//! stands beside the watch's keyword, though neither link's own text nor its URL names it.

mod common;

use std::sync::{Arc, Mutex};

use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Router;

use sitefeed::app::NewWatch;

/// A front page of two sections, the keyword beside the link to section `on_topic`
/// (1 or 2), and the paths requested.
struct Site {
    on_topic: u8,
    log: Mutex<Vec<String>>,
}

async fn serve_page(State(site): State<Arc<Site>>, req: Request) -> Response {
    let path = req.uri().path().to_owned();
    site.log.lock().expect("lock").push(path.clone());
    let about = |n: u8| {
        if n == site.on_topic {
            "notices on scholarship applications and grants for students"
        } else {
            "notices on bus timetables and parking for visitors"
        }
    };
    let html = match path.as_str() {
        "/robots.txt" => return (StatusCode::NOT_FOUND, "").into_response(),
        "/" => format!(
            "<!doctype html><html><head><title>Office</title></head><body><ul>\
             <li><a href=\"/one/\">Section one</a> <p>{}</p></li>\
             <li><a href=\"/two/\">Section two</a> <p>{}</p></li></ul></body></html>",
            about(1),
            about(2)
        ),
        _ => format!(
            "<!doctype html><html><head><title>{path}</title></head><body><ul>\
             <li><a href=\"{path}1\">First notice of this section</a></li>\
             <li><a href=\"{path}2\">Second notice of this section</a></li></ul></body></html>"
        ),
    };
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], html).into_response()
}

/// The sections a deep watch with the keyword fetched in its first check.
async fn first_fetched(on_topic: u8) -> Vec<String> {
    let site = Arc::new(Site {
        on_topic,
        log: Mutex::new(Vec::new()),
    });
    let router = Router::new()
        .fallback(serve_page)
        .with_state(Arc::clone(&site));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move { axum::serve(listener, router).await.expect("serve") });
    let dir = tempfile::tempdir().expect("tmp");
    let (app, _clock) = common::app_with(dir.path(), |c| {
        c.deep.max_pages_per_check = 1;
    });
    let (watch, _) = app
        .add_watch(&NewWatch {
            url: format!("http://{addr}/"),
            depth: Some(2),
            keywords: vec!["scholarship".to_owned()],
            ..NewWatch::default()
        })
        .expect("add");
    let report = app.check(&watch, false).await.expect("check");
    assert!(report.error.is_none(), "{:?}", report.error);
    let log = site.log.lock().expect("lock");
    log.iter()
        .filter(|p| *p == "/one/" || *p == "/two/")
        .cloned()
        .collect()
}

#[tokio::test]
async fn the_first_page_fetched_is_the_one_whose_link_stands_beside_the_keyword() {
    // Both orders on the page: a crawl blind to the context could pass one of them by
    // the order it breaks ties in, not both.
    assert_eq!(first_fetched(2).await, ["/two/"]);
    assert_eq!(first_fetched(1).await, ["/one/"]);
}
