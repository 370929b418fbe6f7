-- +goose Up
-- The releases the push worker is still to announce. The catalog's writes
-- keep it (catalog.SaveProducts, in the transaction that writes the volumes
-- and the work's hidden flag and title), so the worker's timer reads push
-- tables only: under a release spike every read of the catalog tables counts
-- as a reader reaching the origin, and the worker looks every second.
-- A row is a volume of a visible work that releases from a day ago on and has
-- not been announced; the worker deletes it when it fans it out (or finds it
-- older than PUSH_WINDOW), a hidden work or a removed volume loses it, a moved
-- release_at moves it.
CREATE TABLE push_schedule (
    pid        text NOT NULL,
    no         int NOT NULL,
    release_at timestamptz NOT NULL,
    title      text NOT NULL,
    PRIMARY KEY (pid, no)
);
CREATE INDEX push_schedule_release_at ON push_schedule (release_at);

INSERT INTO push_schedule (pid, no, release_at, title)
SELECT v.pid, v.no, v.release_at, w.title FROM volumes v JOIN works w ON w.pid = v.pid AND NOT w.hidden
WHERE v.release_at > now() - interval '1 day'
  AND NOT EXISTS (SELECT 1 FROM push_releases r WHERE r.pid = v.pid AND r.no = v.no);

-- The notification's title, taken from the schedule at the fan-out, so
-- sending does not read works either.
ALTER TABLE push_releases ADD COLUMN title text NOT NULL DEFAULT '';

-- Only the worker's scan of volumes used it.
DROP INDEX volumes_release_at;

-- +goose Down
CREATE INDEX volumes_release_at ON volumes (release_at);
ALTER TABLE push_releases DROP COLUMN title;
DROP TABLE push_schedule;
