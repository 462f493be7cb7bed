//! One logged check ([`CheckLog`]) and its stored form. Twenty of them ride in every
//! state a check writes, so they are written as arrays, `[at, duration_ms, new_items,
//! changed]` and the error, if any, fifth: about 20 bytes each where the named form took
//! about 75, a fifth of the whole state. States written before are objects with named
//! fields, and still read.

use serde::de::{self, MapAccess, SeqAccess, Visitor};
use serde::ser::SerializeTuple;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// One check as the web page shows it: when, what changed, how long it took.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckLog {
    /// Unix seconds.
    pub at: i64,
    pub duration_ms: u64,
    pub new_items: u32,
    /// The page's links changed.
    pub changed: bool,
    pub error: Option<String>,
}

impl Serialize for CheckLog {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut t = s.serialize_tuple(4 + usize::from(self.error.is_some()))?;
        t.serialize_element(&self.at)?;
        t.serialize_element(&self.duration_ms)?;
        t.serialize_element(&self.new_items)?;
        t.serialize_element(&u8::from(self.changed))?;
        if let Some(e) = &self.error {
            t.serialize_element(e)?;
        }
        t.end()
    }
}

/// The form states were written in before: an object with named fields.
#[derive(Deserialize)]
struct Named {
    at: i64,
    duration_ms: u64,
    new_items: u32,
    changed: bool,
    #[serde(default)]
    error: Option<String>,
}

impl<'de> Deserialize<'de> for CheckLog {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(LogVisitor)
    }
}

struct LogVisitor;

impl<'de> Visitor<'de> for LogVisitor {
    type Value = CheckLog;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a logged check: [at, duration_ms, new_items, changed, error?]")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<CheckLog, A::Error> {
        let missing = |i: usize| de::Error::invalid_length(i, &self);
        let at = seq.next_element::<i64>()?.ok_or_else(|| missing(0))?;
        let duration_ms = seq.next_element::<u64>()?.ok_or_else(|| missing(1))?;
        let new_items = seq.next_element::<u32>()?.ok_or_else(|| missing(2))?;
        let changed = seq.next_element::<u8>()?.ok_or_else(|| missing(3))?;
        let error = seq.next_element::<String>()?;
        // Nothing may follow: a longer array is not a logged check.
        if seq.next_element::<de::IgnoredAny>()?.is_some() {
            return Err(de::Error::invalid_length(6, &self));
        }
        Ok(CheckLog {
            at,
            duration_ms,
            new_items,
            changed: changed != 0,
            error,
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<CheckLog, A::Error> {
        let n = Named::deserialize(de::value::MapAccessDeserializer::new(map))?;
        Ok(CheckLog {
            at: n.at,
            duration_ms: n.duration_ms,
            new_items: n.new_items,
            changed: n.changed,
            error: n.error,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::CheckLog;

    fn log(at: i64, error: Option<&str>) -> CheckLog {
        CheckLog {
            at,
            duration_ms: 42,
            new_items: 3,
            changed: error.is_none(),
            error: error.map(str::to_owned),
        }
    }

    /// What is written reads back the same, with and without an error.
    #[test]
    fn a_logged_check_reads_back_as_written() {
        for l in [log(1_764_300_000, None), log(-5, Some("HTTP 503 \"busy\""))] {
            let json = serde_json::to_string(&l).expect("serializes");
            let back: CheckLog = serde_json::from_str(&json).expect("reads back");
            assert_eq!(back, l, "{json}");
        }
    }

    /// A state written before keeps its checks: the named form is read as it was.
    #[test]
    fn checks_logged_in_the_named_form_are_still_read() {
        let old = r#"[{"at":1700000000,"duration_ms":7,"new_items":2,"changed":true,"error":null},
            {"at":1699999000,"duration_ms":9000,"new_items":0,"changed":false,"error":"timed out"}]"#;
        let read: Vec<CheckLog> = serde_json::from_str(old).expect("the named form reads");
        assert_eq!(
            read,
            vec![
                CheckLog {
                    at: 1_700_000_000,
                    duration_ms: 7,
                    new_items: 2,
                    changed: true,
                    error: None,
                },
                CheckLog {
                    at: 1_699_999_000,
                    duration_ms: 9000,
                    new_items: 0,
                    changed: false,
                    error: Some("timed out".into()),
                },
            ]
        );
    }

    /// Twenty checks, as a state holds them, take well under half the bytes of the named
    /// form.
    #[test]
    fn the_stored_form_is_short() {
        let logs: Vec<CheckLog> = (0..20)
            .map(|i| log(1_764_300_000 + i * 600, None))
            .collect();
        let stored = serde_json::to_string(&logs).expect("serializes").len();
        let named: usize = logs
            .iter()
            .map(|l| {
                serde_json::json!({"at": l.at, "duration_ms": l.duration_ms,
                    "new_items": l.new_items, "changed": l.changed, "error": l.error})
                .to_string()
                .len()
                    + 1
            })
            .sum();
        assert!(stored * 3 < named, "{stored} bytes against {named}");
    }

    /// Malformed arrays are errors, not checks.
    #[test]
    fn a_malformed_log_is_an_error() {
        for bad in [
            "[1700000000,7,2]",
            "[1700000000,7,2,1,\"e\",9]",
            "[1700000000,7,99999999999,1]",
            "[1700000000,-7,2,1]",
            "\"x\"",
        ] {
            assert!(serde_json::from_str::<CheckLog>(bad).is_err(), "{bad}");
        }
    }
}
