use super::*;

/// The check time of the table: 2024-05-03 12:00:00 UTC (a Friday).
const NOW: i64 = 1_714_737_600;

fn utc(s: &str) -> i64 {
    DateTime::parse_from_rfc3339(s).unwrap().timestamp()
}

fn berlin() -> Tz {
    "Europe/Berlin".parse().unwrap()
}

fn shanghai() -> Tz {
    "Asia/Shanghai".parse().unwrap()
}

#[test]
fn forms_in_many_languages() {
    let table: &[(&str, Tz, &str)] = &[
        // ISO and numeric forms
        ("2024-05-01", Tz::UTC, "2024-05-01T00:00:00Z"),
        ("Posted 2024-05-01 10:30", Tz::UTC, "2024-05-01T10:30:00Z"),
        (
            "2024-05-01 10:30:15 +08:00",
            Tz::UTC,
            "2024-05-01T02:30:15Z",
        ),
        ("2024/5/1", Tz::UTC, "2024-05-01T00:00:00Z"),
        ("2024.05.01", Tz::UTC, "2024-05-01T00:00:00Z"),
        // Chinese and Japanese
        ("2024年5月1日", shanghai(), "2024-04-30T16:00:00Z"),
        (
            "发布于 2024年5月1日 08:15",
            shanghai(),
            "2024-05-01T00:15:00Z",
        ),
        ("5月1日", shanghai(), "2024-04-30T16:00:00Z"),
        ("3小时前", Tz::UTC, "2024-05-03T09:00:00Z"),
        ("1 小时 13 分钟前", Tz::UTC, "2024-05-03T10:47:00Z"),
        ("3時間前", Tz::UTC, "2024-05-03T09:00:00Z"),
        ("昨日", Tz::UTC, "2024-05-02T00:00:00Z"),
        ("昨天 14:30", shanghai(), "2024-05-02T06:30:00Z"),
        // German
        ("01.05.2024", berlin(), "2024-04-30T22:00:00Z"),
        ("1. Mai 2024, 14:05 Uhr", berlin(), "2024-05-01T12:05:00Z"),
        ("vor 3 Stunden", Tz::UTC, "2024-05-03T09:00:00Z"),
        ("vor einer Stunde", Tz::UTC, "2024-05-03T11:00:00Z"),
        ("gestern", berlin(), "2024-05-01T22:00:00Z"),
        // English
        ("1 May 2024", Tz::UTC, "2024-05-01T00:00:00Z"),
        ("May 1, 2024", Tz::UTC, "2024-05-01T00:00:00Z"),
        ("June 7th, 2023 at 3:15 pm", Tz::UTC, "2023-06-07T15:15:00Z"),
        ("3 hours ago", Tz::UTC, "2024-05-03T09:00:00Z"),
        ("an hour ago", Tz::UTC, "2024-05-03T11:00:00Z"),
        ("2 days ago", Tz::UTC, "2024-05-01T12:00:00Z"),
        ("yesterday", Tz::UTC, "2024-05-02T00:00:00Z"),
        ("today 09:10", Tz::UTC, "2024-05-03T09:10:00Z"),
        // French, Spanish, Polish, Korean, Russian, Dutch, Italian
        ("1 mai 2024", Tz::UTC, "2024-05-01T00:00:00Z"),
        ("il y a 2 heures", Tz::UTC, "2024-05-03T10:00:00Z"),
        ("1 de mayo de 2024", Tz::UTC, "2024-05-01T00:00:00Z"),
        ("hace 5 minutos", Tz::UTC, "2024-05-03T11:55:00Z"),
        ("ayer", Tz::UTC, "2024-05-02T00:00:00Z"),
        ("1 maja 2024", Tz::UTC, "2024-05-01T00:00:00Z"),
        ("3 godziny temu", Tz::UTC, "2024-05-03T09:00:00Z"),
        ("3시간 전", Tz::UTC, "2024-05-03T09:00:00Z"),
        ("1 мая 2024", Tz::UTC, "2024-05-01T00:00:00Z"),
        ("2 uur geleden", Tz::UTC, "2024-05-03T10:00:00Z"),
        ("2 ore fa", Tz::UTC, "2024-05-03T10:00:00Z"),
        // only one reading of a slashed date with the year last
        ("25/4/2024", Tz::UTC, "2024-04-25T00:00:00Z"),
        ("4/25/2024", Tz::UTC, "2024-04-25T00:00:00Z"),
    ];
    let mut wrong = Vec::new();
    for (text, tz, want) in table {
        let got = find(text, NOW, *tz);
        if got != Some(utc(want)) {
            wrong.push(format!(
                "{text:?}: got {:?}, want {want}",
                got.map(crate::model::rfc3339)
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The calendar forms run only on a text with four ASCII digits in a row (their year).
#[test]
fn a_year_is_four_ascii_digits_in_a_row() {
    for yes in ["2024", "on 2024-05-01", "x1999y", "12 2024"] {
        assert!(has_year(yes), "{yes}");
    }
    for no in [
        "",
        "12 34",
        "123",
        "a123",
        "12 345",
        "1 2 3 4",
        "12a34",
        "٢٠٢٤",
        "２０２４",
    ] {
        assert!(!has_year(no), "{no}");
    }
}

#[test]
fn no_date_rather_than_a_guess() {
    for text in [
        "",
        "Read more",
        "12 comments",
        "5/1/2024",
        "Version 2.4.1",
        "2024 was a good year",
        "Call 0171 2345678",
        "32.13.2024",
        "2024-02-30",
        "heute",
        "months ago: 3 months ago",
        "Die Regierung hat gestern beschlossen",
    ] {
        let got = find_forms(text, NOW, Tz::UTC, Forms::Absolute);
        assert_eq!(got, None, "{text:?}");
    }
    assert_eq!(find("5/1/2024", NOW, Tz::UTC), None);
    assert_eq!(find("3 months ago", NOW, Tz::UTC), None);
    // a relative date is not read from running prose when only calendar dates are asked
    assert_eq!(
        find_forms("3 hours ago", NOW, Tz::UTC, Forms::Absolute),
        None
    );
}

#[test]
fn the_first_date_of_a_text_wins() {
    assert_eq!(
        find(
            "Updated 2 May 2024, first published 2024-04-01",
            NOW,
            Tz::UTC
        ),
        Some(utc("2024-05-02T00:00:00Z"))
    );
}

#[test]
fn month_day_without_year_is_the_latest_past_one() {
    // 12月31日 read on 3 May 2024 is last December's
    assert_eq!(
        find("12月31日", NOW, Tz::UTC),
        Some(utc("2023-12-31T00:00:00Z"))
    );
}

#[test]
fn machine_dates() {
    let tz = berlin();
    assert_eq!(
        parse_machine("2024-05-01T10:00:00+02:00", tz),
        Some(utc("2024-05-01T08:00:00Z"))
    );
    assert_eq!(
        parse_machine("2024-05-01T10:00:00.250Z", tz),
        Some(utc("2024-05-01T10:00:00Z"))
    );
    assert_eq!(
        parse_machine("2024-05-01T10:00", tz),
        Some(utc("2024-05-01T08:00:00Z"))
    );
    assert_eq!(
        parse_machine("2024-05-01", tz),
        Some(utc("2024-04-30T22:00:00Z"))
    );
    assert_eq!(
        parse_machine("Wed, 01 May 2024 10:00:00 +0000", tz),
        Some(utc("2024-05-01T10:00:00Z"))
    );
    assert_eq!(parse_machine("2024-05-01 release notes", tz), None);
    assert_eq!(parse_machine("yesterday", tz), None);
    assert_eq!(parse_machine("", tz), None);
}

#[test]
fn plausibility() {
    assert!(plausible(NOW, NOW));
    assert!(plausible(NOW - 86_400 * 30, NOW));
    assert!(!plausible(NOW + 1, NOW));
    assert!(!plausible(NOW - MAX_AGE_SECS - 1, NOW));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

    /// Whatever the text, a date that passes [`plausible`] is never after the check;
    /// and the relative and named-day forms never give one.
    #[test]
    fn never_a_date_in_the_future(
        text in "[0-9a-zA-Z年月日前小时分钟 .:/,+-]{0,40}",
        now in 1_000_000_000i64..2_000_000_000,
    ) {
        for tz in [Tz::UTC, berlin(), shanghai()] {
            if let Some(t) = find(&text, now, tz) {
                if plausible(t, now) {
                    proptest::prop_assert!(t <= now);
                }
            }
        }
        if let Some((_, t)) = relative(&text.to_lowercase(), now) {
            proptest::prop_assert!(t <= now);
        }
    }

    /// Relative forms in several languages are before the check by the stated span.
    #[test]
    fn relative_spans(n in 1i64..500, now in 1_000_000_000i64..2_000_000_000) {
        for (text, unit) in [
            (format!("{n} hours ago"), 3600),
            (format!("vor {n} Minuten"), 60),
            (format!("{n}天前"), 86_400),
            (format!("hace {n} horas"), 3600),
        ] {
            proptest::prop_assert_eq!(find(&text, now, Tz::UTC), Some(now - n * unit));
        }
    }
}

/// The text of an entry as the mock news site and many lists write it: a date, but no
/// month's name; the named forms are not run on it.
#[test]
fn month_names_are_whole_words() {
    assert!(!has_month_name(
        "by harvest factory · 2026-11-28 14:52 · 34 comments · read more"
    ));
    assert!(has_month_name("posted 1 мая 2024"));
    assert!(has_month_name("le 3 février, 2024"));
    assert!(has_month_name("(may 1, 2024)"));
    // Inside a longer word a name is not a name ("mayor" is not "may"), nor one with a
    // letter glued on.
    assert!(!has_month_name("the mayor of marseille, 2024"));
    assert!(!has_month_name("décembrex 2024"));
    // Any text still reads the named forms it holds.
    assert_eq!(
        find("1 мая 2024", NOW, Tz::UTC),
        Some(utc("2024-05-01T00:00:00Z"))
    );
}

/// Text around a named date (`1 May 2024`, `May 1, 2024`): month names in several
/// scripts, with characters glued to the name that are word characters to the patterns
/// but not letters (a combining accent, `_`, a digit of another script), ones that are
/// neither (`²`, `·`), and free pieces before and after.
fn named_date_text() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let piece = prop::sample::select(vec![
        "may", "мая", "1", "2024", " ", ",", ".", "de ", "x", "é", "²", "·", "年", "10:30",
    ]);
    let junk = prop::collection::vec(piece, 0..4).prop_map(|v| v.concat());
    let name = prop::sample::select(vec![
        "may", "mai", "мая", "février", "dec", "déc", "märz", "jan", "mayor",
    ]);
    let edge = prop::sample::select(vec![
        "", "", "", "²", "_", "é", "\u{301}", "·", "٣", "x", ".",
    ]);
    let sep = prop::sample::select(vec![" ", "  ", ", ", ". ", " de ", "st ", ""]);
    (
        junk.clone(),
        edge.clone(),
        name,
        edge,
        sep.clone(),
        sep,
        any::<bool>(),
        junk,
    )
        .prop_map(|(before, left, name, right, s1, s2, day_first, after)| {
            let name = format!("{left}{name}{right}");
            let date = if day_first {
                format!("1{s1}{name}{s2}2024")
            } else {
                format!("{name}{s1}1{s2}2024")
            };
            format!("{before}{date}{after}")
        })
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2048))]

    /// Where [`has_month_name`] finds no name, neither named form reads a date: the test
    /// that keeps them from running loses none.
    #[test]
    fn no_month_name_no_named_date(text in named_date_text()) {
        let text = text.to_lowercase();
        if !has_month_name(&text) {
            for (re, order) in [
                (&DAY_MONTH_YEAR, Order::DayNameYear),
                (&MONTH_DAY_YEAR, Order::NameDayYear),
            ] {
                let read = re.captures_iter(&text).find_map(|c| read(&c, order, Tz::UTC));
                proptest::prop_assert_eq!(read, None, "{:?}", text);
            }
        }
    }
}
