-- +goose Up
-- What processing made of one source picture (an original, or a page of a
-- ZIP/EPUB) under one recipe (widths, formats, qualities): the pictures with
-- their object keys. A job that meets a source it already made uses these
-- instead of encoding again, so one original given to many volumes (the demo
-- catalog gives a few episodes to thousands) is encoded once. The row goes
-- when the sweeper removes any of its objects (keys), so nothing reuses an
-- object that is gone.
CREATE TABLE media_made (
    source text NOT NULL,
    recipe text NOT NULL,
    pics   jsonb NOT NULL,
    keys   text[] NOT NULL,
    PRIMARY KEY (source, recipe)
);
CREATE INDEX media_made_keys ON media_made USING gin (keys);

-- +goose Down
DROP TABLE media_made;
