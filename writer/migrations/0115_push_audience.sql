-- +goose Up
-- Whether a release to announce is of an adult work (issue 30): the push
-- worker rings it only for members who may see adult works, at the fan-out
-- and again at each send (a level changes: a toggle turned off, a
-- verification withdrawn), without reading the catalog tables on its timer.
ALTER TABLE push_schedule ADD COLUMN adult boolean NOT NULL DEFAULT false;
UPDATE push_schedule s SET adult = true FROM works w WHERE w.pid = s.pid AND w.age >= 19;
ALTER TABLE push_releases ADD COLUMN adult boolean NOT NULL DEFAULT false;
UPDATE push_releases r SET adult = true FROM works w WHERE w.pid = r.pid AND w.age >= 19;

-- +goose Down
ALTER TABLE push_releases DROP COLUMN adult;
ALTER TABLE push_schedule DROP COLUMN adult;
