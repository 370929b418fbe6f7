-- +goose Up
-- Dibs (zzim) of works and authors. idx is the seed's dibs id.
CREATE TABLE zzims (
    idx        bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY,
    uid        bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
    zzim_type  text NOT NULL CHECK (zzim_type IN ('prod', 'author')),
    target     text NOT NULL,
    section    text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL,
    UNIQUE (uid, zzim_type, target)
);

CREATE TABLE alarms (
    uid        bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
    pid        text NOT NULL REFERENCES works (pid) ON DELETE CASCADE,
    is_on      boolean NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (uid, pid)
);

CREATE TABLE reviews (
    id         bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY,
    pid        text NOT NULL REFERENCES works (pid) ON DELETE CASCADE,
    uid        bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
    body       text NOT NULL,
    point      int NOT NULL CHECK (point BETWEEN 1 AND 10),
    vol        int NOT NULL DEFAULT 0 CHECK (vol >= 0),
    is_spoiler boolean NOT NULL DEFAULT false,
    is_buyer   boolean NOT NULL DEFAULT false,
    like_cnt   int NOT NULL DEFAULT 0 CHECK (like_cnt >= 0),
    report_cnt int NOT NULL DEFAULT 0 CHECK (report_cnt >= 0),
    deleted    boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL
);
CREATE INDEX reviews_pid ON reviews (pid, id DESC) WHERE NOT deleted;

CREATE TABLE review_likes (
    review_id bigint NOT NULL REFERENCES reviews (id) ON DELETE CASCADE,
    uid       bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
    PRIMARY KEY (review_id, uid)
);

CREATE TABLE review_reports (
    review_id  bigint NOT NULL REFERENCES reviews (id) ON DELETE CASCADE,
    uid        bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
    reason     text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL,
    PRIMARY KEY (review_id, uid)
);

-- A reader's blocks hide a review for that reader only.
CREATE TABLE review_blocks (
    uid       bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
    review_id bigint NOT NULL REFERENCES reviews (id) ON DELETE CASCADE,
    PRIMARY KEY (uid, review_id)
);

CREATE TABLE recent_views (
    uid       bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
    pid       text NOT NULL REFERENCES works (pid) ON DELETE CASCADE,
    vol       int NOT NULL DEFAULT 0,
    viewed_at timestamptz NOT NULL,
    PRIMARY KEY (uid, pid)
);
CREATE INDEX recent_views_uid ON recent_views (uid, viewed_at DESC);

CREATE TABLE interest_genres (
    uid        bigint PRIMARY KEY REFERENCES users (uid) ON DELETE CASCADE,
    genres     text[] NOT NULL DEFAULT '{}',
    configured boolean NOT NULL DEFAULT false,
    rejected   boolean NOT NULL DEFAULT false,
    updated_at timestamptz NOT NULL
);

CREATE TABLE qna (
    id          bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY,
    uid         bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
    category    text NOT NULL,
    title       text NOT NULL,
    body        text NOT NULL,
    answer      text NOT NULL DEFAULT '',
    answered_at timestamptz,
    created_at  timestamptz NOT NULL
);
CREATE INDEX qna_uid ON qna (uid, id DESC);

-- One vote per reader, award and section.
CREATE TABLE award_votes (
    eid        bigint NOT NULL,
    key        text NOT NULL,
    uid        bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
    pid        text NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (eid, key, uid),
    FOREIGN KEY (eid, key, pid) REFERENCES award_candidates (eid, key, pid) ON DELETE CASCADE
);

-- +goose Down
DROP TABLE award_votes, qna, interest_genres, recent_views, review_blocks, review_reports, review_likes, reviews, alarms, zzims;
