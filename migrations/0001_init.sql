-- sitefeed's schema on PostgreSQL, version 1. Run once, in a transaction, by the
-- migrator (src/store/pg/migrate.rs); never edited after release: a change is a new file.

-- Feed stamps: store-wide increasing, so a watch removed and added again never repeats
-- an ETag.
CREATE SEQUENCE feed_seq;

-- One row per watch: its settings and its check state (JSON, the same values the sled
-- backend keeps), the columns the scheduler and the feeds query, and the last link array.
CREATE TABLE watches (
    id          text PRIMARY KEY,
    -- The lease key: host and non-default port of the watch's URL, lower case.
    host        text NOT NULL,
    watch       jsonb NOT NULL,
    state       jsonb NOT NULL,
    -- Copies of state.next_check and watch.options.paused, for the due index.
    next_check  bigint NOT NULL,
    paused      boolean NOT NULL,
    -- Bumped by every write that can change the watch's feeds: the feeds' ETag.
    change_seq  bigint NOT NULL DEFAULT nextval('feed_seq'),
    -- The link array of the last successful check (the store's binary link codec).
    links       bytea,
    -- A deep watch's crawl state.
    crawl       jsonb
);
CREATE INDEX watches_due ON watches (next_check) WHERE NOT paused;
CREATE INDEX watches_host_due ON watches (host, next_check) WHERE NOT paused;

-- Items: one entry is stored once per watch, whatever retries or nodes do.
CREATE TABLE items (
    watch_id  text NOT NULL REFERENCES watches (id) ON DELETE CASCADE,
    item_id   text NOT NULL,
    seq       bigint NOT NULL,
    item      jsonb NOT NULL,
    PRIMARY KEY (watch_id, item_id)
);
CREATE INDEX items_newest ON items (watch_id, seq DESC);

-- URLs each watch has seen on its page, as the first 8 bytes of their MD5 (the sled
-- backend's key: a store moves between backends without the URLs).
CREATE TABLE seen (
    watch_id  text NOT NULL REFERENCES watches (id) ON DELETE CASCADE,
    url_md5   bytea NOT NULL,
    PRIMARY KEY (watch_id, url_md5)
);

-- Link arrays of the pages of a deep watch's site.
CREATE TABLE pages (
    watch_id  text NOT NULL REFERENCES watches (id) ON DELETE CASCADE,
    url_md5   bytea NOT NULL,
    links     bytea NOT NULL,
    PRIMARY KEY (watch_id, url_md5)
);

-- Who checks a host: one node at a time, until expires_at (database time). epoch grows
-- with every new holder and fences commits (a node whose lease moved on cannot commit).
-- not_before carries the per-host delay across a hand-over.
CREATE TABLE host_leases (
    host        text PRIMARY KEY,
    holder      text,
    epoch       bigint NOT NULL DEFAULT 0,
    expires_at  timestamptz NOT NULL DEFAULT '-infinity',
    not_before  timestamptz NOT NULL DEFAULT '-infinity'
);
