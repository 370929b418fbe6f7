-- +goose Up
-- A store purchase can be of several units (Google Play multi-quantity) and a
-- store can refund some of them (a quantity-based partial refund): the units
-- bought and the units voided so far, so each void takes back only its share
-- and a copy of the same void takes nothing more.
ALTER TABLE store_purchases ADD COLUMN quantity integer NOT NULL DEFAULT 1 CHECK (quantity > 0);
ALTER TABLE store_purchases ADD COLUMN voided_quantity integer NOT NULL DEFAULT 0;
ALTER TABLE store_purchases ADD CONSTRAINT store_purchases_voided_quantity CHECK (voided_quantity >= 0 AND voided_quantity <= quantity);

-- +goose Down
ALTER TABLE store_purchases DROP CONSTRAINT store_purchases_voided_quantity;
ALTER TABLE store_purchases DROP COLUMN voided_quantity;
ALTER TABLE store_purchases DROP COLUMN quantity;
