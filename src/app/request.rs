//! What users ask of the service, and its checks: a new watch ([`NewWatch`], from the
//! CLI, the API, the config or OPML) and a change to one ([`WatchEdit`]); the rules a
//! URL, title, keyword, tag, time zone or webhook must follow. Uses the config (a
//! watch's strategy), the model and the API's request body.

use super::AppError;
use crate::config::RawWatch;
use crate::model::Watch;

/// A watch as requested by a user (CLI, API, config, OPML).
#[derive(Debug, Clone, Default)]
pub struct NewWatch {
    pub url: String,
    pub depth: Option<u8>,
    pub title: Option<String>,
    pub select: Option<String>,
    pub keywords: Vec<String>,
    /// Scheduling strategy; `None`: the config's default.
    pub strategy: Option<crate::config::Strategy>,
    /// How the page is read; `None`: plain.
    pub render: Option<crate::model::Render>,
    /// Show up to this many of the page's current entries as items after the first check
    /// (instead of one "now watched" item). At most [`MAX_BACKFILL`].
    pub backfill: Option<u32>,
    /// Tags, as users write them ([`validate_tags`]).
    pub tags: Vec<String>,
    /// What items carry; `None`: the summary.
    pub content: Option<crate::model::Content>,
}

/// A `content` setting as users write it; anything else is bad input.
pub fn parse_content(name: &str) -> Result<crate::model::Content, AppError> {
    crate::model::Content::parse(name).ok_or_else(|| {
        AppError::BadInput(format!(
            "content `{name}` is not one of {}",
            crate::model::Content::NAMES
        ))
    })
}

/// A scheduling strategy as users write it; anything else is bad input.
fn parse_strategy(name: &str) -> Result<crate::config::Strategy, AppError> {
    crate::config::Strategy::parse(name).ok_or_else(|| {
        AppError::BadInput(format!(
            "strategy `{name}` is not one of {}",
            crate::config::Strategy::NAMES
        ))
    })
}

/// A duration as users write it (`90`, `10m`, `1h30m`, `2d`), for field `field`.
fn parse_duration(field: &str, v: &str) -> Result<std::time::Duration, AppError> {
    crate::config::parse_duration(v)
        .filter(|d| !d.is_zero())
        .ok_or_else(|| {
            AppError::BadInput(format!(
                "{field} `{v}` is not a duration such as 10m, 1h or 1d"
            ))
        })
}

/// The watch a `POST /api/watches` body (or `sitefeed add`) asks for; an unknown
/// strategy or render mode is bad input.
impl TryFrom<crate::dto::NewWatchBody> for NewWatch {
    type Error = AppError;

    fn try_from(b: crate::dto::NewWatchBody) -> Result<Self, AppError> {
        let strategy = b.strategy.as_deref().map(parse_strategy).transpose()?;
        let render = match b.render.as_deref() {
            None => None,
            Some(name) => Some(crate::model::Render::parse(name).ok_or_else(|| {
                AppError::BadInput(format!(
                    "render `{name}` is not one of {}",
                    crate::model::Render::NAMES
                ))
            })?),
        };
        Ok(Self {
            url: b.url,
            depth: b.depth,
            title: b.title,
            select: b.select,
            keywords: b.keywords.unwrap_or_default(),
            strategy,
            render,
            backfill: b.backfill,
            tags: b.tags.unwrap_or_default(),
            content: b.content.as_deref().map(parse_content).transpose()?,
        })
    }
}

/// Largest backfill a user may ask for.
pub const MAX_BACKFILL: u32 = 100;

impl From<RawWatch> for NewWatch {
    fn from(w: RawWatch) -> Self {
        Self {
            url: w.url,
            depth: w.depth,
            title: w.title,
            select: w.select,
            keywords: w.keywords.unwrap_or_default(),
            strategy: w
                .strategy
                .as_deref()
                .and_then(crate::config::Strategy::parse),
            render: w.render.as_deref().and_then(crate::model::Render::parse),
            backfill: None,
            tags: w.tags.unwrap_or_default(),
            content: w.content.as_deref().and_then(crate::model::Content::parse),
        }
    }
}

/// An IANA time zone name, as chrono-tz spells it.
pub fn validate_timezone(name: &str) -> Result<String, AppError> {
    name.parse::<chrono_tz::Tz>()
        .map(|tz| tz.name().to_owned())
        .map_err(|_| {
            AppError::BadInput(format!(
                "time zone `{name}` is not an IANA name such as UTC, Europe/Berlin or America/New_York"
            ))
        })
}

/// A webhook URL: http(s), one line.
pub(super) fn validate_webhook(u: &str) -> Result<String, AppError> {
    match url::Url::parse(u) {
        Ok(p) if matches!(p.scheme(), "http" | "https") && p.host().is_some() => Ok(p.to_string()),
        _ => Err(AppError::BadInput(format!(
            "webhook `{u}` is not an http(s) URL"
        ))),
    }
}

/// Keywords a watch may have, and the longest keyword.
const MAX_KEYWORDS: usize = 20;
const MAX_KEYWORD_CHARS: usize = 100;

/// Trimmed, non-empty, distinct keywords; an error names the one that is wrong.
pub(super) fn validate_keywords(raw: &[String]) -> Result<Vec<String>, AppError> {
    let mut out: Vec<String> = Vec::new();
    // "a, b" given as one keyword (a form field) is two.
    for k in raw.iter().flat_map(|k| k.split(',')) {
        let k = k.trim();
        if k.is_empty() || out.iter().any(|o| o.to_lowercase() == k.to_lowercase()) {
            continue;
        }
        if k.chars().count() > MAX_KEYWORD_CHARS || k.chars().any(char::is_control) {
            return Err(AppError::BadInput(format!(
                "keyword `{}` is not a short line of text (at most {MAX_KEYWORD_CHARS} characters)",
                k.chars().take(40).collect::<String>()
            )));
        }
        out.push(k.to_owned());
    }
    if out.len() > MAX_KEYWORDS {
        return Err(AppError::BadInput(format!(
            "{} keywords is more than {MAX_KEYWORDS}; keep the few that name the topic",
            out.len()
        )));
    }
    Ok(out)
}

/// Longest URL accepted for a watch, in bytes (what browsers and servers reliably take).
pub const MAX_URL_BYTES: usize = 2048;

/// Longest user title kept.
const MAX_TITLE_CHARS: usize = 300;

/// A user's title, trimmed, without control characters; `None` when blank.
pub(super) fn clean_title(t: &str) -> Option<String> {
    let t = t.trim();
    (!t.is_empty()).then(|| {
        t.chars()
            .filter(|c| !c.is_control())
            .take(MAX_TITLE_CHARS)
            .collect()
    })
}

/// Tags a watch may have, and the longest tag.
const MAX_TAGS: usize = 20;
const MAX_TAG_CHARS: usize = 40;

/// Tags as users write them ("News, research" or a list): trimmed, lower case, sorted,
/// distinct. A tag names a feed URL (`/feed/tag/<tag>.xml`), so it is letters, digits,
/// spaces, `-`, `_` and `.` only.
pub fn validate_tags(raw: &[String]) -> Result<Vec<String>, AppError> {
    let mut out: Vec<String> = Vec::new();
    for t in raw.iter().flat_map(|t| t.split(',')) {
        let t = t.trim().to_lowercase();
        if t.is_empty() {
            continue;
        }
        let ok = t.chars().count() <= MAX_TAG_CHARS
            && !t.starts_with('.')
            && t.chars()
                .all(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_' | '.'));
        if !ok {
            return Err(AppError::BadInput(format!(
                "tag `{}` is not a short name (letters, digits, spaces, - _ . and at most {MAX_TAG_CHARS} characters)",
                t.chars().take(40).collect::<String>()
            )));
        }
        if !out.contains(&t) {
            out.push(t);
        }
    }
    if out.len() > MAX_TAGS {
        return Err(AppError::BadInput(format!(
            "{} tags is more than {MAX_TAGS}",
            out.len()
        )));
    }
    out.sort();
    Ok(out)
}

/// A reader's folder name as a tag: lower case, what a tag may not hold turned into
/// spaces, at most the length of a tag; `None` when nothing is left.
pub fn tag_from_folder(name: &str) -> Option<String> {
    let kept: String = name
        .to_lowercase()
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                ' '
            }
        })
        .collect();
    let t = kept
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .trim_start_matches('.')
        .chars()
        .take(MAX_TAG_CHARS)
        .collect::<String>();
    let t = t.trim().to_owned();
    (!t.is_empty()).then_some(t)
}

/// A change to a watch (`PATCH /api/watches/<id>`, `sitefeed edit`, the edit form).
/// `None`: leave as is; `Some(None)`: clear.
#[allow(
    clippy::option_option,
    reason = "absent: leave it; null: clear it; a value: set it"
)]
#[derive(Debug, Clone, Default)]
pub struct WatchEdit {
    pub title: Option<Option<String>>,
    pub select: Option<Option<String>>,
    pub depth: Option<u8>,
    pub keywords: Option<Vec<String>>,
    pub strategy: Option<Option<crate::config::Strategy>>,
    pub tags: Option<Vec<String>>,
    pub paused: Option<bool>,
    pub min_interval: Option<Option<std::time::Duration>>,
    pub max_interval: Option<Option<std::time::Duration>>,
    pub error_item: Option<bool>,
    pub webhook: Option<Option<String>>,
    /// An IANA time zone name (`Europe/Berlin`) for the times shown of this watch.
    pub timezone: Option<Option<String>>,
    /// What items carry from now on (items already stored keep what they have).
    pub content: Option<crate::model::Content>,
}

/// The edit a `PATCH /api/watches/{id}` body asks for (also `sitefeed edit` and the web
/// page's edit form); a bad duration, strategy or content setting is bad input.
impl TryFrom<crate::dto::EditBody> for WatchEdit {
    type Error = AppError;

    fn try_from(b: crate::dto::EditBody) -> Result<Self, AppError> {
        let dur = |field: &str, v: Option<Option<String>>| {
            v.map(|o| o.map(|s| parse_duration(field, &s)).transpose())
                .transpose()
        };
        let mut min_interval = dur("min_interval", b.min_interval)?;
        let mut max_interval = dur("max_interval", b.max_interval)?;
        if let Some(i) = b.interval {
            let d = parse_duration("interval", &i)?;
            min_interval = Some(Some(d));
            max_interval = Some(Some(d));
        }
        let strategy = match b.strategy {
            None => None,
            Some(None) => Some(None),
            Some(Some(name)) => Some(Some(parse_strategy(&name)?)),
        };
        Ok(Self {
            title: b.title,
            select: b.select,
            depth: b.depth,
            keywords: b.keywords,
            strategy,
            tags: b.tags,
            paused: b.paused,
            min_interval,
            max_interval,
            error_item: b.error_item,
            webhook: b.webhook,
            timezone: b.timezone,
            content: b.content.as_deref().map(parse_content).transpose()?,
        })
    }
}

/// What an edit did.
#[derive(Debug, Clone)]
pub struct Edited {
    pub watch: Watch,
    /// The selector or the depth changed: the next check records the page afresh.
    pub rebaselined: bool,
}
