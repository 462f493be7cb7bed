-- A watch's state (watches.state) holds its last checks as arrays, [at, duration_ms,
-- new_items, changed] and the error fifth when there is one, where it held objects with
-- named fields (src/state/log.rs). Rows written before are read as they are and take the
-- short form at their watch's next check; nothing is converted here. The version tells an
-- older sitefeed, which cannot read the short form, that the database is newer than it
-- understands. Never edited after release: a change is a new file.
COMMENT ON COLUMN watches.state IS 'the watch''s check state as JSON (src/state)';
