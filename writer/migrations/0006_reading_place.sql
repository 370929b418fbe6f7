-- +goose Up
-- The reader's exact place inside a volume, one row per member and work, so
-- another device resumes where the reader stopped (the viewer saves it while
-- reading and when the page is hidden). What the numbers mean depends on the
-- viewer's mode: page is the 0-based page (webtoon strip image or comic page)
-- at the top of the screen, ratio how far into it (0..1), char_offset the
-- character at the top of a novel's text.
CREATE TABLE reading_places (
    uid         bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
    pid         text NOT NULL REFERENCES works (pid) ON DELETE CASCADE,
    vol         int NOT NULL CHECK (vol > 0),
    page        int NOT NULL DEFAULT 0 CHECK (page >= 0),
    ratio       double precision NOT NULL DEFAULT 0 CHECK (ratio >= 0 AND ratio <= 1),
    char_offset int NOT NULL DEFAULT 0 CHECK (char_offset >= 0),
    updated_at  timestamptz NOT NULL,
    PRIMARY KEY (uid, pid)
);

-- +goose Down
DROP TABLE reading_places;
