-- +goose Up
-- Media derived, not enumerated (issue 35 item 1). A volume's content is a
-- version whose objects have keys derived from it (contract/media.go), with
-- one manifest object per version: no KV document per volume, no media_refs
-- row per page x width x format.
--
-- media_versions: one row per version (shared by every volume given the
-- same files under the same recipe), its manifest as stored in the object
-- store, so the sweeper knows every key to delete when no volume uses it.
CREATE TABLE media_versions (
    ver        text PRIMARY KEY,
    kind       text NOT NULL CHECK (kind IN ('images', 'text')),
    manifest   jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- volume_media keeps one row per volume version (current, retiring). Its
-- doc is the schema-1 document of a volume not converted yet; the writer's
-- conversion (writer/media/legacy.go) records the version in media_versions
-- and sets legacy_until; after it the sweeper removes the old document,
-- its media.vol.* key and the objects only it used.
ALTER TABLE volume_media ALTER COLUMN doc DROP NOT NULL;
ALTER TABLE volume_media ADD COLUMN legacy_until timestamptz;
UPDATE volume_media SET doc = NULL WHERE removed;
CREATE INDEX volume_media_legacy ON volume_media (legacy_until) WHERE doc IS NOT NULL;
CREATE INDEX volume_media_ver ON volume_media (ver) WHERE NOT removed;

-- Originals were referenced once per job; one reference per original is
-- enough (they are never removed).
INSERT INTO media_refs (owner, key) SELECT DISTINCT 'orig', key FROM media_refs WHERE owner LIKE 'orig:%' ON CONFLICT DO NOTHING;
DELETE FROM media_refs WHERE owner LIKE 'orig:%';

-- +goose Down
DROP INDEX volume_media_ver;
DROP INDEX volume_media_legacy;
ALTER TABLE volume_media DROP COLUMN legacy_until;
DELETE FROM volume_media WHERE doc IS NULL;
ALTER TABLE volume_media ALTER COLUMN doc SET NOT NULL;
DROP TABLE media_versions;
