-- +goose Up
-- Issue 34: a comic's page order. Most licensed manga read right to left;
-- the viewer turns such a work's pages that way. Only comics may set it
-- (writer/catalog.Normalize refuses it on a webtoon or a novel).
ALTER TABLE works ADD COLUMN right_to_left boolean NOT NULL DEFAULT false;

-- +goose Down
ALTER TABLE works DROP COLUMN right_to_left;
