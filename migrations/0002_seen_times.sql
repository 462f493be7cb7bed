-- Seen URLs keep when they last left the page (unix seconds) and the watch's check count
-- then, as the sled backend does, so a commit can forget the URLs gone long enough
-- (src/store/seen.rs). Rows written before have neither: the next sweep of their watch
-- stamps them (their time starts then). Never edited after release: a change is a new file.
ALTER TABLE seen ADD COLUMN left_at bigint, ADD COLUMN left_checks bigint;
