-- +goose Up
-- Issue 34: a work's alternative titles (an original title, a translation,
-- a short name), published in its head so the edge's search matches them.
ALTER TABLE works ADD COLUMN alt_titles text[] NOT NULL DEFAULT '{}';

-- +goose Down
ALTER TABLE works DROP COLUMN alt_titles;
