-- +goose Up
-- One person is one adult identity (issue 30). ci_hash is an HMAC of the CI
-- (연계정보, the person's key across Korean services) that the identity
-- provider reports: the raw CI is never stored, and no two members may hold
-- the same one. identity_verifications are the provider verifications a
-- member started (POST /home/api/v1/auth/adult/start): a verification id is
-- accepted only from the member it was issued to, and only once.
ALTER TABLE users ADD COLUMN ci_hash text;
CREATE UNIQUE INDEX users_ci_hash ON users (ci_hash) WHERE ci_hash IS NOT NULL;

CREATE TABLE identity_verifications (
    id          text PRIMARY KEY,
    uid         bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
    created_at  timestamptz NOT NULL,
    used_at     timestamptz
);
CREATE INDEX identity_verifications_uid ON identity_verifications (uid, created_at);

-- +goose Down
DROP TABLE identity_verifications;
DROP INDEX users_ci_hash;
ALTER TABLE users DROP COLUMN ci_hash;
