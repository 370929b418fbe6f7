-- +goose Up
-- Issue 36: episode comments, their likes and reports, episode hearts, the
-- creator's note and pinned comment. Published as heads and pages of
-- catalog-cmts (contract/comments.go).

-- rev orders changes of comments: a page's version is the largest rev of its
-- top-level comments, and any change of a reply bumps its parent's rev too.
CREATE SEQUENCE comment_rev;

CREATE TABLE episode_comments (
    id         bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY,
    pid        text NOT NULL REFERENCES works (pid) ON DELETE CASCADE,
    vol        int NOT NULL CHECK (vol > 0),
    uid        bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
    -- One level of replies: a reply's parent is a top-level comment.
    parent_id  bigint REFERENCES episode_comments (id) ON DELETE CASCADE,
    -- The top-level comment's number in its episode (1, 2, ...); its page is
    -- (seq - 1) / CommentPageSize. 0 for replies.
    seq        int NOT NULL DEFAULT 0,
    body       text NOT NULL,
    is_spoiler boolean NOT NULL DEFAULT false,
    is_buyer   boolean NOT NULL DEFAULT false,
    like_cnt   int NOT NULL DEFAULT 0 CHECK (like_cnt >= 0),
    reply_cnt  int NOT NULL DEFAULT 0 CHECK (reply_cnt >= 0),
    report_cnt int NOT NULL DEFAULT 0 CHECK (report_cnt >= 0),
    deleted    boolean NOT NULL DEFAULT false,
    -- Hidden by a moderator: gone for every reader.
    hidden     boolean NOT NULL DEFAULT false,
    -- The member's Idempotency-Key of the post: a retry finds its comment.
    idem_key   text NOT NULL,
    rev        bigint NOT NULL DEFAULT nextval('comment_rev'),
    created_at timestamptz NOT NULL,
    UNIQUE (uid, idem_key)
);
CREATE UNIQUE INDEX episode_comments_seq ON episode_comments (pid, vol, seq) WHERE parent_id IS NULL;
CREATE INDEX episode_comments_parent ON episode_comments (parent_id, id) WHERE parent_id IS NOT NULL;
CREATE INDEX episode_comments_uid ON episode_comments (uid, created_at DESC);

CREATE TABLE episode_comment_likes (
    comment_id bigint NOT NULL REFERENCES episode_comments (id) ON DELETE CASCADE,
    uid        bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
    PRIMARY KEY (comment_id, uid)
);

CREATE TABLE episode_comment_reports (
    comment_id bigint NOT NULL REFERENCES episode_comments (id) ON DELETE CASCADE,
    uid        bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
    reason     text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL,
    -- Set when a moderator decided (hid the comment or kept it).
    decided_at timestamptz,
    PRIMARY KEY (comment_id, uid)
);
CREATE INDEX episode_comment_reports_open ON episode_comment_reports (created_at) WHERE decided_at IS NULL;

-- One row per episode that has comments, hearts, a note or a pin: the
-- sequence of its top-level comments and its counters.
CREATE TABLE episode_comment_meta (
    pid         text NOT NULL REFERENCES works (pid) ON DELETE CASCADE,
    vol         int NOT NULL CHECK (vol > 0),
    next_seq    int NOT NULL DEFAULT 1,
    comment_cnt int NOT NULL DEFAULT 0 CHECK (comment_cnt >= 0),
    heart_cnt   int NOT NULL DEFAULT 0 CHECK (heart_cnt >= 0),
    note        text NOT NULL DEFAULT '',
    pinned_id   bigint REFERENCES episode_comments (id) ON DELETE SET NULL,
    PRIMARY KEY (pid, vol)
);

CREATE TABLE episode_hearts (
    pid        text NOT NULL REFERENCES works (pid) ON DELETE CASCADE,
    vol        int NOT NULL,
    uid        bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (pid, vol, uid)
);

-- +goose Down
DROP TABLE episode_hearts, episode_comment_meta, episode_comment_reports, episode_comment_likes, episode_comments;
DROP SEQUENCE comment_rev;
