-- +goose Up
-- Issue 32: early access (미리보기). The first early_count volumes of a work
-- still to be released are sold at early_price each before their release;
-- zero sells none. Bounds are the admin API's (writer/catalog.Normalize),
-- kept here too so that no other path stores a negative price.
ALTER TABLE works
    ADD COLUMN early_count int NOT NULL DEFAULT 0 CHECK (early_count BETWEEN 0 AND 50),
    ADD COLUMN early_price int NOT NULL DEFAULT 0 CHECK (early_price BETWEEN 0 AND 1000000);

-- +goose Down
ALTER TABLE works DROP COLUMN early_count, DROP COLUMN early_price;
