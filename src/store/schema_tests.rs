//! Stores written by an earlier schema open and read as they were.

use super::pg::tests::{state, watch};
use super::suite::check_at;
use super::*;
use crate::model::Link;
use crate::state::CheckLog;

/// A schema-4 store holds states whose logged checks have named fields: it opens as the
/// newest schema, those checks read as they were, and the next check writes the state
/// with its checks in the short form, the older ones kept.
#[test]
fn a_schema_4_state_keeps_its_logged_checks() {
    let dir = tempfile::tempdir().expect("tempdir");
    let w = watch("http://a.example/");
    let mut st = state(10);
    st.recent_checks.push_front(CheckLog {
        at: 9,
        duration_ms: 120,
        new_items: 4,
        changed: true,
        error: None,
    });
    st.recent_checks.push_front(CheckLog {
        at: 10,
        duration_ms: 30_000,
        new_items: 0,
        changed: false,
        error: Some("timed out".into()),
    });
    // The state as schema 4 wrote it: each logged check an object with named fields.
    let mut json = serde_json::to_value(&st).expect("state to JSON");
    json["recent_checks"] = serde_json::json!([
        {"at": 10, "duration_ms": 30_000, "new_items": 0, "changed": false, "error": "timed out"},
        {"at": 9, "duration_ms": 120, "new_items": 4, "changed": true, "error": null},
    ]);
    {
        let db = sled::Config::new().path(dir.path()).open().expect("sled");
        db.insert(keys::SCHEMA, &4u32.to_be_bytes()).expect("v");
        db.insert(keys::watch_key(keys::WATCH, &w.id), encode(&w))
            .expect("w");
        db.insert(keys::watch_key(keys::STATE, &w.id), encode(&json))
            .expect("s");
        db.insert(keys::due(st.next_check, &w.id), &[]).expect("d");
        db.flush().expect("flush");
    }
    let s = super::suite::open_when_free(dir.path());
    assert_eq!(
        s.db()
            .expect("db")
            .get(keys::SCHEMA)
            .expect("get")
            .as_deref(),
        Some(SCHEMA_VERSION.to_be_bytes().as_slice())
    );
    let read = s.state(&w.id).expect("read").expect("present");
    assert_eq!(read.recent_checks, st.recent_checks);

    check_at(
        &s,
        &w,
        20,
        vec![Link::new("x", "http://a.example/x")],
        &[],
        Vec::new(),
    );
    let after = s.state(&w.id).expect("read").expect("present");
    assert_eq!(after.recent_checks.len(), 3);
    assert_eq!(after.recent_checks[0].at, 20);
    assert_eq!(
        after.recent_checks.range(1..).collect::<Vec<_>>(),
        st.recent_checks.iter().collect::<Vec<_>>()
    );
    let raw = s
        .db()
        .expect("db")
        .get(keys::watch_key(keys::STATE, &w.id))
        .expect("get")
        .expect("present");
    let stored: serde_json::Value = decode(b"state", &raw).expect("JSON");
    assert_eq!(
        stored["recent_checks"][2],
        serde_json::json!([9, 120, 4, 1]),
        "{stored}"
    );
}
