-- +goose Up
-- Issue 31 item 3: the partner portal. A provider's contract limits what its
-- accounts may set on its works (writer/admin refuses a provider's change
-- outside them, 400); NULL is no limit. Content managers are not bound by
-- them: the store may price a work as it decides.
ALTER TABLE providers
    ADD COLUMN min_price int CHECK (min_price >= 0),
    ADD COLUMN max_price int CHECK (max_price >= 0),
    ADD COLUMN max_free  int CHECK (max_free >= 0),
    ADD CONSTRAINT providers_price_range CHECK (min_price IS NULL OR max_price IS NULL OR min_price <= max_price);

-- Who started an upload, when a provider did: a provider uses and sees only
-- its own uploads (writer/media). NULL: store staff or the machine token.
ALTER TABLE media_uploads ADD COLUMN provider_id text;

-- The portal's daily view counts the distinct readers who bought or rented a
-- provider's work per day.
CREATE INDEX purchases_pid_created ON purchases (pid, created_at);

-- +goose Down
DROP INDEX purchases_pid_created;
ALTER TABLE media_uploads DROP COLUMN provider_id;
ALTER TABLE providers DROP CONSTRAINT providers_price_range,
    DROP COLUMN max_free, DROP COLUMN max_price, DROP COLUMN min_price;
