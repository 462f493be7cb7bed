//! Dates an entry states: machine-readable ones (`<time datetime>`, `itemprop=
//! datePublished`, a `title` attribute holding a timestamp) and the forms people write
//! (`2024-05-01`, `2024/5/1`, `2024年5月1日`, `01.05.2024`, `1 May 2024`, `May 1, 2024`,
//! `5月1日` with the year inferred, "3 hours ago", "3小时前", "vor 3 Stunden",
//! "yesterday", "昨日"), in several languages.
//!
//! A date is resolved against the check time and a zone: the date's own offset when it
//! states one, else the zone given (the watch's), else UTC. A date without a time is the
//! start of that day. No date is better than a wrong one: [`plausible`] drops a date in
//! the future or far before the check, and forms that cannot be read one way only
//! (`5/1/2024`) are not read at all.
//!
//! Pure: text in, Unix seconds out. Uses `regex` (with `regex-syntax` for its word
//! table), `chrono` and `chrono-tz` only.

#![allow(
    clippy::many_single_char_names,
    reason = "y, m, d, h, s: the parts of a date"
)]

use std::sync::LazyLock;

use chrono::{DateTime, Duration, NaiveDate, NaiveDateTime, NaiveTime, TimeZone};
use chrono_tz::Tz;
use regex::Regex;

#[path = "date_months.rs"]
mod months;
use months::{has_month_name, month};

/// How far before the check a stated date may lie: older dates on a new entry are an
/// event, a reference or a misreading, not when it was published.
pub(crate) const MAX_AGE_SECS: i64 = 366 * 24 * 3600;

/// Whether `t` can be the publication date of an entry checked at `now`: not in the
/// future, and not more than [`MAX_AGE_SECS`] before.
pub(crate) fn plausible(t: i64, now: i64) -> bool {
    t <= now && now - t <= MAX_AGE_SECS
}

/// A machine-readable date (`datetime`, `content` or `title` attribute): ISO 8601 /
/// RFC 3339 with or without a time and an offset (`2024-05-01`, `2024-05-01T10:00`,
/// `2024-05-01 10:00:00 +08:00`, `2024-05-01T10:00:00.123Z`), or RFC 2822. `tz` resolves
/// a date without an offset.
pub(crate) fn parse_machine(s: &str, tz: Tz) -> Option<i64> {
    let s = s.trim();
    if s.is_empty() || !s.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        return None;
    }
    if let Ok(d) = DateTime::parse_from_rfc3339(s) {
        return Some(d.timestamp());
    }
    if let Ok(d) = DateTime::parse_from_rfc2822(s) {
        return Some(d.timestamp());
    }
    let lower = s.to_ascii_lowercase();
    let s = lower.as_str();
    let c = ISO.captures(s)?;
    // The whole attribute must be the date (a title such as "2024-05-01 release notes"
    // is text, read by [`find`] where it is shown).
    if c.get(0)?.end() < s.trim_end().len() {
        return None;
    }
    let (y, m, d) = (num(&c, 1)?, num(&c, 2)?, num(&c, 3)?);
    build(y, m, d, time_of(&c, 4), offset_of(&c, 8), tz)
}

/// The first date stated in human text, resolved against `now` (Unix seconds) and `tz`.
/// `None` when the text states none that reads one way only.
pub fn find(text: &str, now: i64, tz: Tz) -> Option<i64> {
    find_forms(text, now, tz, Forms::All)
}

/// Which forms [`find_forms`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Forms {
    /// Every form.
    All,
    /// Calendar dates only, not "3 hours ago" or "yesterday" (which in running prose
    /// tell of an event, not of the entry).
    Absolute,
}

/// [`find`], reading only `forms`.
pub(crate) fn find_forms(text: &str, now: i64, tz: Tz, forms: Forms) -> Option<i64> {
    let lower = text.to_lowercase();
    let text = lower.as_str();
    let mut best: Option<(usize, i64)> = None;
    let mut offer = |at: usize, t: i64| {
        if best.is_none_or(|(b, _)| at < b) {
            best = Some((at, t));
        }
    };
    // Each calendar form holds a year of four ASCII digits, and most a separator of
    // their own: a form whose characters the text lacks cannot match, and is not run
    // (a search costs far more than looking for a character), nor a named form in a
    // text none of whose words is a month's name; a pattern is compiled when first run.
    if has_year(text) {
        let names = has_month_name(text);
        let calendar: [(&LazyLock<Regex>, Order, bool); 7] = [
            (&ISO_IN_TEXT, Order::Ymd, text.contains('-')),
            (&YMD_SLASH, Order::Ymd, text.contains(['/', '.'])),
            (&CJK_YMD, Order::Ymd, text.contains('年')),
            (&DMY_DOT, Order::Dmy, text.contains('.')),
            (&SLASH_YEAR_LAST, Order::Unambiguous, text.contains('/')),
            (&DAY_MONTH_YEAR, Order::DayNameYear, names),
            (&MONTH_DAY_YEAR, Order::NameDayYear, names),
        ];
        for (re, order, possible) in calendar {
            if !possible {
                continue;
            }
            // The first match of each form that reads as a date.
            if let Some((at, t)) = re
                .captures_iter(text)
                .find_map(|c| Some((c.get(0)?.start(), read(&c, order, tz)?)))
            {
                offer(at, t);
            }
        }
    }
    if let Some((at, t)) = month_day(text, now, tz) {
        offer(at, t);
    }
    if forms == Forms::All {
        if let Some((at, t)) = relative(text, now) {
            offer(at, t);
        }
        if let Some((at, t)) = named_day(text, now, tz) {
            offer(at, t);
        }
    }
    best.map(|(_, t)| t)
}

/// Whether `text` holds four ASCII digits in a row, as every calendar form's year.
fn has_year(text: &str) -> bool {
    let mut run = 0;
    for b in text.bytes() {
        if b.is_ascii_digit() {
            run += 1;
            if run == 4 {
                return true;
            }
        } else {
            run = 0;
        }
    }
    false
}

/// Which groups of a calendar form hold the year, month and day.
#[derive(Debug, Clone, Copy)]
enum Order {
    Ymd,
    Dmy,
    /// `d/m/yyyy` or `m/d/yyyy`, read only when one part is above 12 (one reading).
    Unambiguous,
    /// `1 May 2024`
    DayNameYear,
    /// `May 1, 2024`
    NameDayYear,
}

/// The date of one match of a calendar form.
fn read(c: &regex::Captures<'_>, order: Order, tz: Tz) -> Option<i64> {
    let (y, m, d) = match order {
        Order::Ymd => (num(c, 1)?, num(c, 2)?, num(c, 3)?),
        Order::Dmy => (num(c, 3)?, num(c, 2)?, num(c, 1)?),
        Order::Unambiguous => {
            let (a, b) = (num(c, 1)?, num(c, 2)?);
            match (a > 12, b > 12) {
                (true, false) => (num(c, 3)?, b, a),
                (false, true) => (num(c, 3)?, a, b),
                _ => return None,
            }
        }
        Order::DayNameYear => (num(c, 3)?, month(c.get(2)?.as_str())?, num(c, 1)?),
        Order::NameDayYear => (num(c, 3)?, month(c.get(1)?.as_str())?, num(c, 2)?),
    };
    build(y, m, d, time_of(c, 4), offset_of(c, 8), tz)
}

/// `5月1日` without a year: the latest such day not after the check.
fn month_day(text: &str, now: i64, tz: Tz) -> Option<(usize, i64)> {
    if !text.contains('月') {
        return None;
    }
    CJK_MD.captures_iter(text).find_map(|c| {
        let start = c.get(0)?.start();
        // Part of a full date (2024年5月1日), read as one.
        if text[..start].trim_end().ends_with('年') {
            return None;
        }
        let (m, d) = (num(&c, 1)?, num(&c, 2)?);
        let year = i64::from(local(now, tz)?.year());
        [year, year - 1]
            .into_iter()
            .filter_map(|y| build(y, m, d, time_of(&c, 3), None, tz))
            .find(|&t| t <= now)
            .map(|t| (start, t))
    })
}

use chrono::Datelike;

fn num(c: &regex::Captures<'_>, i: usize) -> Option<i64> {
    c.get(i)?.as_str().parse().ok()
}

/// `HH:MM[:SS]` with an optional am/pm from groups `i`, `i+1`, `i+2`, `i+3`.
fn time_of(c: &regex::Captures<'_>, i: usize) -> Option<NaiveTime> {
    let mut h = num(c, i)?;
    let m = num(c, i + 1)?;
    let s = num(c, i + 2).unwrap_or(0);
    match c.get(i + 3).map(|x| x.as_str()) {
        Some("pm" | "p.m.") if h < 12 => h += 12,
        Some("am" | "a.m.") if h == 12 => h = 0,
        _ => {}
    }
    NaiveTime::from_hms_opt(
        u32::try_from(h).ok()?,
        u32::try_from(m).ok()?,
        u32::try_from(s).ok()?,
    )
}

/// A stated offset (`z`, `utc`, `gmt`, `+08:00`, `+0800`) in seconds east of UTC.
fn offset_of(c: &regex::Captures<'_>, i: usize) -> Option<i32> {
    let o = c.get(i)?.as_str();
    if matches!(o, "z" | "utc" | "gmt") {
        return Some(0);
    }
    let sign = if o.starts_with('-') { -1 } else { 1 };
    let digits: String = o.chars().filter(char::is_ascii_digit).collect();
    if digits.len() != 4 {
        return None;
    }
    let h: i32 = digits[..2].parse().ok()?;
    let m: i32 = digits[2..].parse().ok()?;
    (h <= 14 && m < 60).then_some(sign * (h * 3600 + m * 60))
}

/// Unix seconds of a calendar date and optional time, in the stated offset, else `tz`.
fn build(y: i64, m: i64, d: i64, t: Option<NaiveTime>, off: Option<i32>, tz: Tz) -> Option<i64> {
    if !(1970..=9999).contains(&y) {
        return None;
    }
    let date = NaiveDate::from_ymd_opt(
        i32::try_from(y).ok()?,
        u32::try_from(m).ok()?,
        u32::try_from(d).ok()?,
    )?;
    let naive = NaiveDateTime::new(date, t.unwrap_or(NaiveTime::MIN));
    match off {
        Some(o) => Some(naive.and_utc().timestamp() - i64::from(o)),
        // A time that a clock change skips or repeats: its earliest reading.
        None => tz
            .from_local_datetime(&naive)
            .earliest()
            .map(|d| d.timestamp()),
    }
}

fn local(now: i64, tz: Tz) -> Option<DateTime<Tz>> {
    DateTime::from_timestamp(now, 0).map(|d| d.with_timezone(&tz))
}

/// An optional time after a date: groups hour, minute, second, am/pm, offset (numbered
/// after the date's three groups: 4 to 8).
const TIME: &str = r"(?:(?:t|\s*,?\s*(?:um|at|à|a las|alle|às|om|o|в)?\s*)([0-2]?[0-9])(?::|h|時|时|点)([0-5][0-9])(?::([0-5][0-9])(?:\.[0-9]+)?)?\s*(am|pm|a\.m\.|p\.m\.)?\s*(z|utc|gmt|[+-][0-9]{2}:?[0-9]{2})?)?";

fn with_time(date: &str) -> Regex {
    // The pattern is a constant: it compiles (the table test runs every form).
    Regex::new(&format!("{date}{TIME}")).unwrap_or_else(|e| unreachable!("{e}"))
}

static ISO: LazyLock<Regex> = LazyLock::new(|| with_time(r"^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})"));
static ISO_IN_TEXT: LazyLock<Regex> =
    LazyLock::new(|| with_time(r"\b([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})\b"));
static YMD_SLASH: LazyLock<Regex> =
    LazyLock::new(|| with_time(r"\b([0-9]{4})[/.]([0-9]{1,2})[/.]([0-9]{1,2})\b"));
static CJK_YMD: LazyLock<Regex> =
    LazyLock::new(|| with_time(r"([0-9]{4})\s*年\s*([0-9]{1,2})\s*月\s*([0-9]{1,2})\s*[日号]?"));
static DMY_DOT: LazyLock<Regex> =
    LazyLock::new(|| with_time(r"\b([0-9]{1,2})\.\s?([0-9]{1,2})\.\s?([0-9]{4})\b"));
static SLASH_YEAR_LAST: LazyLock<Regex> =
    LazyLock::new(|| with_time(r"\b([0-9]{1,2})/([0-9]{1,2})/([0-9]{4})\b"));
static DAY_MONTH_YEAR: LazyLock<Regex> = LazyLock::new(|| {
    with_time(r"\b([0-9]{1,2})(?:st|nd|rd|th)?\.?\s+(?:de\s+)?(\w+)\.?,?\s+(?:de\s+)?([0-9]{4})\b")
});
static MONTH_DAY_YEAR: LazyLock<Regex> =
    LazyLock::new(|| with_time(r"\b(\w+)\.?\s+([0-9]{1,2})(?:st|nd|rd|th)?,?\s+([0-9]{4})\b"));
static CJK_MD: LazyLock<Regex> =
    LazyLock::new(|| with_time(r"([0-9]{1,2})\s*月\s*([0-9]{1,2})\s*[日号]"));

/// "3 hours ago", "vor 3 Stunden", "il y a 3 heures", "hace 3 horas", "3 godziny temu",
/// "3小时前", "1 小时 13 分钟前", "3時間前", "3시간 전": `now` minus the stated span.
/// Months and years are not exact spans and are not read.
fn relative(text: &str, now: i64) -> Option<(usize, i64)> {
    static PATTERNS: LazyLock<[Regex; 3]> = LazyLock::new(|| {
        let r = |s: &str| Regex::new(s).unwrap_or_else(|e| unreachable!("{e}"));
        [
            // number before unit, then a word for "ago" (en, pl, CJK, ko)
            r(
                r"((?:(?:[0-9]+|\ban?\b|\bone\b)\s*(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|sekund[ay]?|minut[ay]?|godzin[ay]?|godzinę|dni|dzień|tygodni[e]?|tydzień|秒钟|秒鐘|秒|分钟|分鐘|分|小时|小時|时|時間|天|日|周|週間|週|초|분|시간|일|주|secondi|minuti|ore|ora|giorni|giorno|settimane)\s*,?\s*(?:and\s+|e\s+)?)+)(?:\bago\b|\btemu\b|\bfa\b|前|전)",
            ),
            // a word for "ago" before the number (de, fr, es, pt, it, nl)
            r(
                r"(?:\bvor|\bil y a|\bhace|\bhá)\s+((?:(?:[0-9]+|einer|einem|einen|une|un|una|um|uma)\s+(?:sekunden?|minuten?|stunden?|tag(?:en)?|wochen?|secondes?|minutes?|heures?|jours?|semaines?|segundos?|minutos?|horas?|días?|dias?|semanas?)\b\s*(?:,|und|et|y|e)?\s*)+)",
            ),
            r(r"((?:[0-9]+\s+(?:seconden|minuten|uur|uren|dagen|dag|weken|week)\s*)+)geleden"),
        ]
    });
    static PART: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"([0-9]+|\b(?:an?|one|einer|einem|einen|une|un|una|um|uma)\b)\s*([^\s0-9,]+)")
            .unwrap_or_else(|e| unreachable!("{e}"))
    });
    let mut best: Option<(usize, i64)> = None;
    for re in PATTERNS.iter() {
        let Some(c) = re.captures(text) else { continue };
        let Some(span) = c.get(1) else { continue };
        let secs = PART.captures_iter(span.as_str()).try_fold(0i64, |acc, p| {
            let n: i64 = match p.get(1).map_or("", |m| m.as_str()) {
                d if d.starts_with(|c: char| c.is_ascii_digit()) => d.parse().ok()?,
                _ => 1,
            };
            let unit = p.get(2).map_or("", |m| m.as_str());
            acc.checked_add(n.checked_mul(unit_secs(unit)?)?)
        });
        let Some(secs) = secs else { continue };
        let at = c.get(0).map_or(0, |m| m.start());
        if best.is_none_or(|(b, _)| at < b) {
            best = Some((at, now - secs));
        }
    }
    best
}

/// Seconds in a unit of [`relative`].
fn unit_secs(unit: &str) -> Option<i64> {
    const MIN: i64 = 60;
    const HOUR: i64 = 3600;
    const DAY: i64 = 86_400;
    let u = unit.trim_end_matches(['s', ',']);
    Some(match u {
        "second" | "sec" | "sekund" | "sekunda" | "sekundy" | "秒" | "秒钟" | "秒鐘" | "초"
        | "sekunde" | "sekunden" | "seconde" | "segundo" | "secondi" | "seconden" => 1,
        "minute" | "min" | "minut" | "minuta" | "minuty" | "分" | "分钟" | "分鐘" | "분"
        | "minuten" | "minuto" | "minuti" => MIN,
        "hour" | "hr" | "godzin" | "godzina" | "godziny" | "godzinę" | "小时" | "小時" | "时"
        | "時間" | "시간" | "stunde" | "stunden" | "heure" | "hora" | "ore" | "ora" | "uur"
        | "uren" => HOUR,
        "day" | "dni" | "dzień" | "天" | "日" | "일" | "tag" | "tagen" | "jour" | "día" | "dia"
        | "giorni" | "giorno" | "dag" | "dagen" => DAY,
        "week" | "tygodni" | "tygodnie" | "tydzień" | "周" | "週" | "週間" | "주" | "woche"
        | "wochen" | "semaine" | "semana" | "settimane" | "weken" => 7 * DAY,
        _ => return None,
    })
}

/// "yesterday", "gestern", "ayer", "wczoraj", "昨天", "昨日", "어제" (the start of the
/// day before the check's day in `tz`, or the time stated after it), and "today 14:30",
/// "heute, 14:30", "今天 14:30" (only with a time: "today" alone says too little).
fn named_day(text: &str, now: i64, tz: Tz) -> Option<(usize, i64)> {
    static DAY: LazyLock<Regex> = LazyLock::new(|| {
        with_time(
            r"(\byesterday\b|\bgestern\b|\bayer\b|\bwczoraj\b|\bieri\b|\bontem\b|\bgisteren\b|\bвчера\b|昨天|昨日|어제|\btoday\b|\bheute\b|\bhoy\b|\bdzisiaj\b|\bdziś\b|\boggi\b|\bhoje\b|\bvandaag\b|\bсегодня\b|今天|今日|오늘)()()",
        )
    });
    let c = DAY.captures(text)?;
    let word = c.get(1)?.as_str();
    let yesterday = matches!(
        word,
        "yesterday"
            | "gestern"
            | "ayer"
            | "wczoraj"
            | "ieri"
            | "ontem"
            | "gisteren"
            | "вчера"
            | "昨天"
            | "昨日"
            | "어제"
    );
    let time = time_of(&c, 4);
    if !yesterday && time.is_none() {
        return None;
    }
    let today = local(now, tz)?.date_naive();
    let day = if yesterday {
        today.checked_sub_signed(Duration::days(1))?
    } else {
        today
    };
    let t = build(
        i64::from(day.year()),
        i64::from(day.month()),
        i64::from(day.day()),
        time,
        None,
        tz,
    )?;
    Some((c.get(0)?.start(), t))
}

#[cfg(test)]
#[path = "date_tests.rs"]
mod tests;
