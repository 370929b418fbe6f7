-- +goose Up
-- Following an author (issue 34 item 3) is the author zzim members already
-- make on the detail page (zzims, zzim_type 'author'): no second concept.
-- The push worker finds an author's followers by the author id at each
-- release, so the follow rows are indexed by their target.
CREATE INDEX zzims_author_target ON zzims (target) WHERE zzim_type = 'author';

-- The schedule carries a release's authors and whether it is the work's
-- first volume (a new work rather than a new episode), kept by the catalog's
-- writes like the title and the adult flag: the worker's timer still reads
-- push tables (and member tables) only. push_releases keeps them as the
-- record of what was announced.
ALTER TABLE push_schedule ADD COLUMN authors bigint[] NOT NULL DEFAULT '{}',
    ADD COLUMN first boolean NOT NULL DEFAULT false;
UPDATE push_schedule s SET
    authors = ARRAY(SELECT wa.author_id FROM work_authors wa WHERE wa.pid = s.pid ORDER BY wa.ord),
    first = s.no = (SELECT min(v.no) FROM volumes v WHERE v.pid = s.pid);
ALTER TABLE push_releases ADD COLUMN authors bigint[] NOT NULL DEFAULT '{}',
    ADD COLUMN first boolean NOT NULL DEFAULT false;

-- A member's notification inbox: one row per member per announced volume,
-- written by the push worker in the transaction that fans the release out
-- (the unique key makes it once however often a release is looked at).
-- title and adult are the release's, so the inbox never reads the catalog;
-- adult rows are still filtered by the reader's level when listed.
CREATE TABLE inbox (
    id         bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY,
    uid        bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
    pid        text NOT NULL,
    no         int NOT NULL,
    kind       text NOT NULL CHECK (kind IN ('work', 'episode')),
    title      text NOT NULL,
    adult      boolean NOT NULL DEFAULT false,
    release_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL,
    read_at    timestamptz,
    UNIQUE (uid, pid, no)
);
CREATE INDEX inbox_uid ON inbox (uid, id DESC);
CREATE INDEX inbox_unread ON inbox (uid) WHERE read_at IS NULL;

-- +goose Down
DROP TABLE inbox;
ALTER TABLE push_releases DROP COLUMN first, DROP COLUMN authors;
ALTER TABLE push_schedule DROP COLUMN first, DROP COLUMN authors;
DROP INDEX zzims_author_target;
