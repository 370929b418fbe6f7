-- Raw events: one row per contract.TrackedEvent. ReplacingMergeTree with the
-- event id last in the sorting key: every column of the key is a function of
-- the event itself, so two copies of one event share a key and a partition and
-- merges keep one. Queries that must be exact read it with FINAL.
CREATE TABLE IF NOT EXISTS events (
    id            String,
    v             UInt8,
    type          String,
    ts            DateTime,
    ts_ms         UInt16,
    kst_date      Date,
    channel       String,
    app_version   String,
    ip_hash       String,
    ua_class      String,
    session_id    String,
    uid           String,
    member_type   String,
    url           String,
    route         String,
    referrer      String,
    pid           String,
    section       String,
    genre_id      String,
    vol           Int32,
    amount        Int64,
    money         String,
    props_keys    Array(String),
    props_values  Array(String),
    subject       String,
    stream_seq    UInt64,
    ingested_at   DateTime
) ENGINE = ReplacingMergeTree(ingested_at)
PARTITION BY toYYYYMM(kst_date)
ORDER BY (type, kst_date, pid, id);

-- Poison messages: unparseable or invalid events, kept for inspection and never retried.
CREATE TABLE IF NOT EXISTS events_dead (
    received_at  DateTime,
    subject      String,
    stream_seq   UInt64,
    deliveries   UInt64,
    error        String,
    payload      String
) ENGINE = MergeTree()
PARTITION BY toYYYYMM(received_at)
ORDER BY (received_at, stream_seq);
