-- Every report an analyst ran: who (the member id of the writer's signed
-- analyst cookie), which report with which parameters, the answer's status
-- and how long it took. Written before the answer leaves (a report whose
-- audit row cannot be written is refused), kept for ever: a few bytes a query.
CREATE TABLE IF NOT EXISTS report_audit (
    asked_at    DateTime,
    uid         String,
    report      String,
    params      String,
    format      String,
    status      UInt16,
    elapsed_ms  UInt32
) ENGINE = MergeTree()
PARTITION BY toYYYYMM(asked_at)
ORDER BY (asked_at, uid);
