//! The months' names of the dates people write, and whether a text holds one.
//!
//! Uses `regex-syntax` (the word table of the date patterns) only.

use std::collections::HashSet;
use std::sync::LazyLock;

/// Whether a word of `text` (lower case) is a month's name, as [`month`] reads it: else
/// neither named form can read a date in it, and neither is run (a search with Unicode
/// word boundaries in a text that is not all ASCII is a backtracking one, tens of
/// thousands of instructions on an entry's text; this test is a few per byte).
///
/// Exact: the name a named form captures (`\w+`) has before it a character that is not a
/// word character, or the start of the text, and after it a dot, a comma or whitespace,
/// so it is a whole run of word characters, split here by the same table the patterns
/// use.
pub(super) fn has_month_name(text: &str) -> bool {
    static NAMES: LazyLock<HashSet<&'static str>> = LazyLock::new(|| {
        MONTHS
            .iter()
            .flat_map(|names| names.iter().copied())
            .collect()
    });
    let mut start = None;
    for (i, c) in text.char_indices().chain([(text.len(), ' ')]) {
        match regex_syntax::try_is_word_character(c) {
            Ok(true) => {
                start.get_or_insert(i);
            }
            Ok(false) => {
                if let Some(s) = start.take() {
                    if NAMES.contains(&text[s..i]) {
                        return true;
                    }
                }
            }
            // No word table compiled in: the test cannot say, so the forms are run.
            Err(_) => return true,
        }
    }
    false
}

/// The month a (lower-case) name or abbreviation stands for, in English, German,
/// French, Spanish, Italian, Portuguese, Dutch, Polish and Russian.
pub(super) fn month(name: &str) -> Option<i64> {
    let name = name.trim_end_matches('.');
    MONTHS
        .iter()
        .position(|names| names.contains(&name))
        .and_then(|i| i64::try_from(i + 1).ok())
}

pub(super) const MONTHS: [&[&str]; 12] = [
    &[
        "january",
        "jan",
        "januar",
        "jänner",
        "janvier",
        "janv",
        "enero",
        "ene",
        "gennaio",
        "gen",
        "janeiro",
        "januari",
        "stycznia",
        "styczeń",
        "sty",
        "января",
        "янв",
    ],
    &[
        "february",
        "feb",
        "februar",
        "février",
        "fevrier",
        "févr",
        "fév",
        "febrero",
        "febbraio",
        "fevereiro",
        "fev",
        "februari",
        "lutego",
        "luty",
        "lut",
        "февраля",
        "фев",
    ],
    &[
        "march",
        "mar",
        "märz",
        "maerz",
        "mär",
        "mars",
        "marzo",
        "março",
        "marco",
        "maart",
        "mrt",
        "marca",
        "marzec",
        "марта",
        "мар",
    ],
    &[
        "april",
        "apr",
        "avril",
        "avr",
        "abril",
        "abr",
        "aprile",
        "kwietnia",
        "kwiecień",
        "kwi",
        "апреля",
        "апр",
    ],
    &[
        "may", "mai", "mayo", "may", "maggio", "mag", "maio", "mei", "maja", "maj", "мая",
    ],
    &[
        "june", "jun", "juni", "juin", "junio", "giugno", "giu", "junho", "czerwca", "czerwiec",
        "cze", "июня", "июн",
    ],
    &[
        "july", "jul", "juli", "juillet", "juil", "julio", "luglio", "lug", "julho", "lipca",
        "lipiec", "lip", "июля", "июл",
    ],
    &[
        "august",
        "aug",
        "août",
        "aout",
        "agosto",
        "ago",
        "augustus",
        "sierpnia",
        "sierpień",
        "sie",
        "августа",
        "авг",
    ],
    &[
        "september",
        "sep",
        "sept",
        "septembre",
        "septiembre",
        "setiembre",
        "settembre",
        "set",
        "setembro",
        "września",
        "wrzesień",
        "wrz",
        "сентября",
        "сен",
    ],
    &[
        "october",
        "oct",
        "oktober",
        "okt",
        "octobre",
        "octubre",
        "ottobre",
        "ott",
        "outubro",
        "out",
        "października",
        "październik",
        "paź",
        "октября",
        "окт",
    ],
    &[
        "november",
        "nov",
        "novembre",
        "noviembre",
        "novembro",
        "listopada",
        "listopad",
        "lis",
        "ноября",
        "ноя",
    ],
    &[
        "december",
        "dec",
        "dezember",
        "dez",
        "décembre",
        "decembre",
        "déc",
        "diciembre",
        "dic",
        "dicembre",
        "dezembro",
        "grudnia",
        "grudzień",
        "gru",
        "декабря",
        "дек",
    ],
];
