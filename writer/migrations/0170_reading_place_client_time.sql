-- +goose Up
-- The device's own time of a reading place (issue 34). A save made offline
-- reaches the writer late, after a newer save from another device; ordering
-- by arrival would move the reader backwards. The writer keeps the save with
-- the newest client_at instead. Rows saved before this column existed take
-- their arrival time, the best guess there is.
ALTER TABLE reading_places ADD COLUMN client_at timestamptz;
UPDATE reading_places SET client_at = updated_at;
ALTER TABLE reading_places ALTER COLUMN client_at SET NOT NULL;
-- The 이어보기 shelf and the library's "last read" order: a member's places, newest first.
CREATE INDEX reading_places_uid_client_at ON reading_places (uid, client_at DESC);

-- +goose Down
DROP INDEX reading_places_uid_client_at;
ALTER TABLE reading_places DROP COLUMN client_at;
