-- +goose Up
-- One job for many volumes given the same files (issue 35: the demo gives
-- 9 sets of pages to 100,016 volumes). The job names its first volume in
-- media_jobs; the others are listed here, one narrow row each, and the job
-- points them all at the version it makes in the transaction that finishes
-- it. Before, each volume had a media_jobs row of its own, claimed and
-- finished 500 at a time: 97 MB of rows, each written three times.
CREATE TABLE media_job_volumes (
    job_id bigint NOT NULL REFERENCES media_jobs (id) ON DELETE CASCADE,
    pid    text NOT NULL,
    no     int NOT NULL,
    PRIMARY KEY (job_id, pid, no),
    -- A volume removed before the job runs drops out of it.
    FOREIGN KEY (pid, no) REFERENCES volumes (pid, no) ON DELETE CASCADE
);
CREATE INDEX media_job_volumes_volume ON media_job_volumes (pid, no);

-- +goose Down
DROP TABLE media_job_volumes;
