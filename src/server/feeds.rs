//! `GET /feed/<id>.{xml,atom,json}` and `GET /opml`, with ETag / Last-Modified and 304.
//!
//! A watch's feed is answered from its feed stamp (`state::FeedStamp`, one small read):
//! the ETag is made of the stamp's change sequence, whether the error item is due, the
//! format, the base URL the feed is rendered for and the service's configuration and
//! version, so a matching conditional GET is a 304 without reading the watch or its
//! items, and a rendered feed is kept in a bounded in-memory cache ([`FeedCache`]) until
//! the stamp changes. Tag feeds and the OPML are rendered on each request (their ETag is
//! a hash of the body). Every one is also sent in gzip to a client that accepts it
//! ([`encoding`]). What a feed reads of the store, its render and its compression run on
//! the CPU pool: a feed of long articles takes no thread that answers requests.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Extension;
use axum::Router;

use super::encoding;
use super::error::ApiError;
use crate::app::App;
use crate::model::{Item, Watch, WatchId};
use crate::render::{self, FeedView};
use crate::state::WatchState;

pub fn router() -> Router<Arc<App>> {
    Router::new()
        .route("/feed/{file}", get(feed))
        .route("/feed/tag/{file}", get(tag_feed))
        .route("/opml", get(opml))
        .layer(Extension(Arc::new(FeedCache::new(FEED_CACHE_BYTES))))
}

/// Bytes of rendered feeds kept in memory.
pub(crate) const FEED_CACHE_BYTES: usize = 32 << 20;

/// Rendered watch feeds by watch, format and base URL, each with the stamp it was
/// rendered at; bounded by bytes (the least recently rendered go first).
#[derive(Debug)]
pub(crate) struct FeedCache {
    budget: usize,
    inner: Mutex<CacheInner>,
    /// Hash of the configuration and version (a feed rendered by another configuration
    /// or release has another ETag), computed once.
    epoch: OnceLock<String>,
}

#[derive(Debug, Default)]
struct CacheInner {
    map: HashMap<(WatchId, Format, String), Cached>,
    bytes: usize,
    tick: u64,
}

#[derive(Debug, Clone)]
struct Cached {
    seq: u64,
    error_due: bool,
    tick: u64,
    feed: Rendered,
}

/// A rendered feed: its body, the same in gzip when it was asked for, and when it last
/// changed.
#[derive(Debug, Clone)]
struct Rendered {
    body: Bytes,
    gzip: Option<Bytes>,
    updated: i64,
}

impl Rendered {
    /// `body`, with its gzip form when `gzip` (on the CPU pool).
    fn new(body: String, updated: i64, gzip: bool) -> Result<Self, ApiError> {
        let gzip = gzip
            .then(|| encoding::gzip(body.as_bytes()))
            .transpose()
            .map_err(|e| ApiError::Internal(e.to_string()))?;
        Ok(Self {
            body: Bytes::from(body),
            gzip: gzip.map(Bytes::from),
            updated,
        })
    }

    /// Bytes it takes in memory.
    fn size(&self) -> usize {
        self.body.len() + self.gzip.as_ref().map_or(0, Bytes::len)
    }
}

impl FeedCache {
    pub fn new(budget: usize) -> Self {
        Self {
            budget,
            inner: Mutex::new(CacheInner::default()),
            epoch: OnceLock::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, CacheInner> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn get(&self, key: &(WatchId, Format, String), seq: u64, error_due: bool) -> Option<Cached> {
        let inner = self.lock();
        inner
            .map
            .get(key)
            .filter(|c| c.seq == seq && c.error_due == error_due)
            .cloned()
    }

    fn put(&self, key: &(WatchId, Format, String), entry: Cached) {
        let size = entry.feed.size() + key.2.len() + 64;
        if size > self.budget / 8 {
            return;
        }
        let mut inner = self.lock();
        inner.tick += 1;
        let tick = inner.tick;
        if let Some(old) = inner.map.insert(key.clone(), Cached { tick, ..entry }) {
            inner.bytes -= old.feed.size() + key.2.len() + 64;
        }
        inner.bytes += size;
        if inner.bytes > self.budget {
            // Evict the oldest down to three quarters of the budget.
            let mut ticks: Vec<(u64, (WatchId, Format, String))> =
                inner.map.iter().map(|(k, c)| (c.tick, k.clone())).collect();
            ticks.sort_unstable_by_key(|t| t.0);
            for (_, k) in ticks {
                if inner.bytes <= self.budget / 4 * 3 {
                    break;
                }
                if let Some(c) = inner.map.remove(&k) {
                    inner.bytes -= c.feed.size() + k.2.len() + 64;
                }
            }
        }
    }
}

/// The formats of a watch feed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Format {
    Rss,
    Atom,
    Json,
}

impl Format {
    fn from_ext(ext: &str) -> Option<Self> {
        match ext {
            "xml" | "rss" => Some(Self::Rss),
            "atom" => Some(Self::Atom),
            "json" => Some(Self::Json),
            _ => None,
        }
    }

    fn render(self, view: &FeedView<'_>) -> String {
        match self {
            Self::Rss => render::rss(view),
            Self::Atom => render::atom(view),
            Self::Json => render::json_feed(view),
        }
    }

    fn content_type(self) -> &'static str {
        match self {
            Self::Rss => "application/rss+xml; charset=utf-8",
            Self::Atom => "application/atom+xml; charset=utf-8",
            Self::Json => "application/feed+json",
        }
    }
}

/// Whether the watch's error item is due at `now` (it shows a configured time after the
/// failures began).
fn error_due(app: &App, stamp: crate::state::FeedStamp) -> bool {
    match (stamp.error_since, app.config().feed.error_item_after) {
        (Some(since), Some(after)) => {
            let after = i64::try_from(after.as_secs()).unwrap_or(i64::MAX / 4);
            app.now() >= since.saturating_add(after)
        }
        _ => false,
    }
}

/// The ETag of a watch feed: a function of the stamp, the format, the encoding, the base
/// URL and the configuration, never of the body (so it is known without rendering).
fn stamp_etag(
    cache: &FeedCache,
    app: &App,
    stamp: crate::state::FeedStamp,
    error_due: bool,
    (format, gzip): (Format, bool),
    base: &str,
) -> String {
    use md5::{Digest, Md5};
    let epoch = cache.epoch.get_or_init(|| {
        let config = format!("{}|{:?}", env!("CARGO_PKG_VERSION"), app.config());
        crate::model::hex(&Md5::digest(config.as_bytes())[..8])
    });
    let mut h = Md5::new();
    h.update(epoch.as_bytes());
    h.update([format as u8, u8::from(error_due), u8::from(gzip)]);
    h.update(base.as_bytes());
    format!(
        "\"{:x}-{}\"",
        stamp.seq,
        crate::model::hex(&h.finalize()[..6])
    )
}

/// Whether `If-None-Match` names `etag` (weakly, or `*`).
fn none_match(headers: &HeaderMap, etag: &str) -> Option<bool> {
    let inm = headers.get(header::IF_NONE_MATCH)?.to_str().ok()?;
    Some(inm.split(',').any(|t| {
        let t = t.trim();
        t == "*" || t.trim_start_matches("W/") == etag
    }))
}

/// A feed's response from its ETag and, unless it is a 304, its body (in gzip when
/// `gzip`).
fn stamped_response(
    headers: &HeaderMap,
    etag: &str,
    (content_type, gzip): (&'static str, bool),
    feed: &Rendered,
) -> Response {
    let fresh = match none_match(headers, etag) {
        Some(m) => m,
        None => headers
            .get(header::IF_MODIFIED_SINCE)
            .and_then(|v| v.to_str().ok())
            .and_then(|s| chrono::DateTime::parse_from_rfc2822(s).ok())
            .is_some_and(|since| since.timestamp() >= feed.updated),
    };
    let mut h = validators(etag);
    if let Ok(v) = HeaderValue::from_str(&httpdate(feed.updated)) {
        h.insert(header::LAST_MODIFIED, v);
    }
    if fresh {
        return (StatusCode::NOT_MODIFIED, h).into_response();
    }
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    let body = match (&feed.gzip, gzip) {
        (Some(packed), true) => {
            h.insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
            packed.clone()
        }
        _ => feed.body.clone(),
    };
    (StatusCode::OK, h, body).into_response()
}

/// The headers every feed answer carries, a 304 too: its ETag, how long it may be kept,
/// and that it depends on `Accept-Encoding`.
fn validators(etag: &str) -> HeaderMap {
    let mut h = HeaderMap::new();
    encoding::vary(&mut h);
    if let Ok(v) = HeaderValue::from_str(etag) {
        h.insert(header::ETAG, v);
    }
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("max-age=60"),
    );
    h
}

async fn feed(
    State(app): State<Arc<App>>,
    Path(file): Path<String>,
    Extension(base): Extension<super::base::PublicBase>,
    Extension(cache): Extension<Arc<FeedCache>>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let not_found = || ApiError::NotFound(format!("feed {file}"));
    let (id, ext) = file.rsplit_once('.').ok_or_else(not_found)?;
    let id = WatchId::parse(id).ok_or_else(not_found)?;
    let format = Format::from_ext(ext).ok_or_else(not_found)?;
    // Before the stamp: the ETag it gives is served with the items, settled together.
    let reading = app.reading();
    let stamp = app.feed_stamp(&id)?.ok_or_else(not_found)?;
    let due = error_due(&app, stamp);
    let gzip = encoding::accepts_gzip(&headers);
    let etag = stamp_etag(&cache, &app, stamp, due, (format, gzip), &base.0);
    if none_match(&headers, &etag) == Some(true) {
        // The stamp says the feed is the one the client has: no item is read.
        return Ok((StatusCode::NOT_MODIFIED, validators(&etag)).into_response());
    }
    let key = (id, format, base.0);
    if let Some(c) = cache.get(&key, stamp.seq, due) {
        return Ok(stamped_response(
            &headers,
            &etag,
            (format.content_type(), gzip),
            &c.feed,
        ));
    }
    // Reading the items (unpacking them), rendering and compressing: on the CPU pool.
    let feed = {
        let (app, key) = (app.clone(), key.clone());
        crate::cpu::run_first(move || render_feed(&app, &key)).await?
    };
    app.settle(reading).await?;
    // Rendered after the stamp was read: a commit in between makes it newer than its
    // stamp, never older, and the next request renders again.
    cache.put(
        &key,
        Cached {
            seq: stamp.seq,
            error_due: due,
            tick: 0,
            feed: feed.clone(),
        },
    );
    Ok(stamped_response(
        &headers,
        &etag,
        (format.content_type(), gzip),
        &feed,
    ))
}

/// Watch `id`'s feed in `format` for `base`, rendered from the store: on the CPU pool, its
/// reads settled by the caller before it is served.
fn render_feed(
    app: &App,
    (id, format, base): &(WatchId, Format, String),
) -> Result<Rendered, ApiError> {
    let not_found = || ApiError::NotFound(format!("feed {id}"));
    let watch = app.watch(id)?.ok_or_else(not_found)?;
    let state = app.state(id)?;
    let mut items = app.items_unsettled(id, app.config().feed.max_items)?;
    // One item per id (= per link), whatever the store holds: a feed never repeats one.
    let mut once = std::collections::HashSet::new();
    items.retain(|i| once.insert(i.id.clone()));
    if items.is_empty() {
        if let Some(s) = &state {
            items = first_items(app, &watch, s);
        }
    }
    if let Some(e) = state
        .as_ref()
        .and_then(|s| error_item(app, base, &watch, s))
    {
        items.insert(0, e);
    }
    let title = app.display_title(&watch, state.as_ref());
    let updated = items.first().map_or(watch.created, |i| i.first_seen);
    let key_query = app.key_query();
    let view = FeedView {
        watch: &watch,
        title: &title,
        items: &items,
        base_url: base,
        key_query: &key_query,
        updated,
        ttl_minutes: state.as_ref().map(WatchState::feed_ttl_minutes),
        icon: state.as_ref().and_then(|s| s.icon.as_deref()),
        self_path: None,
    };
    // Both forms: the cache serves readers that take gzip and those that do not.
    Rendered::new(format.render(&view), updated, true)
}

/// What a watch's feed shows before its first new item, so that a new watch does not
/// stay empty: nothing before the first check; after it (the baseline), one item saying
/// the page is now watched, linking to it. It is derived, not stored, with an id of its
/// own; once a check finds new items (or the baseline stored a backfill) the feed shows
/// those instead.
fn first_items(app: &App, watch: &Watch, state: &WatchState) -> Vec<Item> {
    let Some(at) = state
        .baseline_at
        .or(state.link_fingerprint.as_ref().and(state.last_check))
    else {
        return Vec::new();
    };
    let title = app.display_title(watch, Some(state));
    vec![Item {
        id: format!("watching-{}", watch.id),
        title: format!("sitefeed now watches {title}"),
        link: watch.url.clone(),
        first_seen: at,
        ..Item::default()
    }]
}

/// The item a watch's feed carries while the watch has been failing for longer than
/// `feed.error_item_after` (unless the watch turned it off): what is wrong and since
/// when, linking to the watch's page here. Its id is the same for the whole run of
/// failures (a reader shows it once) and new for the next one; it goes away with the
/// first successful check.
pub fn error_item(app: &App, base: &str, watch: &Watch, state: &WatchState) -> Option<Item> {
    let after = app.config().feed.error_item_after?;
    if watch.options.no_error_item || state.status != crate::model::Status::Error {
        return None;
    }
    let since = state.error_since?;
    let shown = since.saturating_add(i64::try_from(after.as_secs()).unwrap_or(i64::MAX / 4));
    if app.now() < shown {
        return None;
    }
    let when = chrono::DateTime::from_timestamp(since, 0)
        .unwrap_or_default()
        .format("%Y-%m-%d %H:%M UTC");
    let error = state.error.as_deref().unwrap_or("unknown error");
    Some(Item {
        id: format!("error-{}-{since}", watch.id),
        title: format!(
            "sitefeed cannot read this page since {when} ({} failed checks): {error}",
            state.consecutive_errors
        ),
        link: format!("{base}/watches/{}", watch.id),
        first_seen: shown,
        ..Item::default()
    })
}

/// `GET /feed/tag/<tag>.{xml,atom,json}`: the items of every watch with this tag, newest
/// first (an item two watches found is in it once), with their error items.
async fn tag_feed(
    State(app): State<Arc<App>>,
    Path(file): Path<String>,
    Extension(base): Extension<super::base::PublicBase>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let not_found = || ApiError::NotFound(format!("tag feed {file}"));
    let (name, ext) = file.rsplit_once('.').ok_or_else(not_found)?;
    let tag = crate::app::validate_tags(&[name.to_owned()])
        .ok()
        .and_then(|t| t.into_iter().next())
        .ok_or_else(not_found)?;
    let format = Format::from_ext(ext).ok_or_else(not_found)?;
    let gzip = encoding::accepts_gzip(&headers);
    let reading = app.reading();
    let feed = {
        let app = app.clone();
        crate::cpu::run_first(move || {
            render_tag_feed(&app, &tag, format, &base.0)?
                .map(|f| Hashed::new(f, gzip))
                .transpose()
        })
        .await?
        .ok_or_else(not_found)?
    };
    app.settle(reading).await?;
    Ok(stamped_response(
        &headers,
        &feed.etag(),
        (format.content_type(), gzip),
        &feed.feed,
    ))
}

/// The feed of `tag` in `format` for `base` (`None`: no watch has the tag), rendered from
/// the store: on the CPU pool, its reads settled by the caller before it is served.
fn render_tag_feed(
    app: &App,
    tag: &str,
    format: Format,
    base: &str,
) -> Result<Option<(String, i64)>, ApiError> {
    let max = app.config().feed.max_items;
    let mut items = Vec::new();
    let mut found = false;
    for w in app.watches()? {
        if !w.options.tags.iter().any(|t| t == tag) {
            continue;
        }
        found = true;
        items.extend(app.items_unsettled(&w.id, max)?);
        if let Some(s) = app.state(&w.id)? {
            items.extend(error_item(app, base, &w, &s));
        }
    }
    if !found {
        return Ok(None);
    }
    items.sort_by_key(|i| std::cmp::Reverse(i.first_seen));
    let mut once = std::collections::HashSet::new();
    items.retain(|i| once.insert(i.id.clone()));
    items.truncate(max);
    let home = format!("{base}/?tag={}", query_value(tag));
    let watch = Watch {
        id: WatchId::for_url(&format!("tag:{tag}")),
        ..Watch::of_url(&home, 0)
    };
    let title = format!("sitefeed: {tag}");
    let updated = items.first().map_or(0, |i| i.first_seen);
    let key_query = app.key_query();
    let self_path = format!("/feed/tag/{}", path_segment(tag));
    let view = FeedView {
        watch: &watch,
        title: &title,
        items: &items,
        base_url: base,
        key_query: &key_query,
        updated,
        ttl_minutes: None,
        icon: None,
        self_path: Some(&self_path),
    };
    let body = format.render(&view);
    Ok(Some((body, updated)))
}

/// `s` percent-encoded for a path segment.
pub(crate) fn path_segment(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes())
        .collect::<String>()
        .replace('+', "%20")
}

/// `s` percent-encoded for a query value.
pub(crate) fn query_value(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

#[derive(Debug, serde::Deserialize)]
struct OpmlQuery {
    /// Only the watches with this tag.
    tag: Option<String>,
}

async fn opml(
    State(app): State<Arc<App>>,
    Extension(base): Extension<super::base::PublicBase>,
    axum::extract::Query(q): axum::extract::Query<OpmlQuery>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let tag = q.tag.as_deref().map(|t| t.trim().to_lowercase());
    let gzip = encoding::accepts_gzip(&headers);
    // Every watch read and written out: on the CPU pool.
    let opml = {
        let app = app.clone();
        crate::cpu::run_first(move || Hashed::new(app.opml_export(&base.0, tag.as_deref())?, gzip))
            .await?
    };
    Ok(stamped_response(
        &headers,
        &opml.etag(),
        ("text/x-opml; charset=utf-8", gzip),
        &opml.feed,
    ))
}

/// A document rendered on each request, its ETag a hash of its body (made with it, on
/// the CPU pool).
struct Hashed {
    feed: Rendered,
    /// The body's ETag ([`render::etag`]).
    etag: String,
}

impl Hashed {
    /// `body` and, for a client that takes it (`gzip`), its gzip form: made for this
    /// answer only, so not for one that would not send it.
    fn new((body, updated): (String, i64), gzip: bool) -> Result<Self, ApiError> {
        let etag = render::etag(body.as_bytes());
        Ok(Self {
            feed: Rendered::new(body, updated, gzip)?,
            etag,
        })
    }

    /// The ETag of what is sent: the body, or its gzip form.
    fn etag(&self) -> String {
        if self.feed.gzip.is_some() {
            format!("{}-gz\"", self.etag.trim_end_matches('"'))
        } else {
            self.etag.clone()
        }
    }
}

/// An HTTP date (RFC 7231 IMF-fixdate).
fn httpdate(t: i64) -> String {
    chrono::DateTime::from_timestamp(t, 0)
        .unwrap_or_default()
        .format("%a, %d %b %Y %H:%M:%S GMT")
        .to_string()
}
