-- +goose Up
-- Issue 31 item 4: a moderator decides reported reviews. A decision marks
-- the review's open reports decided (they leave the queue) and sets report_cnt
-- back to 0: report_cnt counts the undecided reports, so HideReports new
-- ones after a dismissal hide the review again and ask again. hidden is a
-- moderator's hide, which no count undoes (only a restore).
ALTER TABLE review_reports ADD COLUMN decided_at timestamptz;
ALTER TABLE reviews ADD COLUMN hidden boolean NOT NULL DEFAULT false;
-- The queue: open reports, oldest first.
CREATE INDEX review_reports_open ON review_reports (created_at) WHERE decided_at IS NULL;
-- The hidden list (restores): few rows, so a partial index.
CREATE INDEX reviews_hidden ON reviews (id) WHERE hidden;

-- +goose Down
DROP INDEX reviews_hidden;
DROP INDEX review_reports_open;
ALTER TABLE reviews DROP COLUMN hidden;
ALTER TABLE review_reports DROP COLUMN decided_at;
