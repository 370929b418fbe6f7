-- The live release view (reports/live): what the last minutes hold, read
-- from these two small rollups instead of scanning raw events while a
-- release spike is being ingested. Filled at insert like every rollup, so
-- their delay is the ingestion's.

-- Per second: page views, detail views, viewer opens, purchases and rentals.
CREATE TABLE IF NOT EXISTS live_seconds (
    second         DateTime,
    page_views     UInt64,
    content_views  UInt64,
    opens          UInt64,
    purchases      UInt64,
    revenue        Int64
) ENGINE = SummingMergeTree((page_views, content_views, opens, purchases, revenue))
PARTITION BY toYYYYMM(second)
ORDER BY second;

CREATE MATERIALIZED VIEW IF NOT EXISTS live_seconds_mv TO live_seconds AS
SELECT ts AS second,
       countIf(type = 'page_view') AS page_views,
       countIf(type = 'view_content') AS content_views,
       countIf(type = 'page_view' AND route LIKE '/viewer%') AS opens,
       countIf(type IN ('purchase', 'rental')) AS purchases,
       sumIf(amount, type IN ('purchase', 'rental')) AS revenue
FROM events
WHERE type IN ('page_view', 'view_content', 'purchase', 'rental')
GROUP BY second;

-- Per minute, work and volume: detail views, viewer opens (the viewer's page
-- views name the work and volume in their URL: /viewer?pid=..&no=..),
-- purchases and rentals (volume 0: a detail view, or several volumes).
CREATE TABLE IF NOT EXISTS live_volume_minute (
    minute     DateTime,
    work       String,
    volume     Int32,
    views      UInt64,
    opens      UInt64,
    purchases  UInt64,
    revenue    Int64
) ENGINE = SummingMergeTree((views, opens, purchases, revenue))
PARTITION BY toYYYYMM(minute)
ORDER BY (minute, work, volume);

CREATE MATERIALIZED VIEW IF NOT EXISTS live_volume_minute_mv TO live_volume_minute AS
SELECT toStartOfMinute(ts) AS minute,
       if(pid != '', pid, extractURLParameter(url, 'pid')) AS work,
       if(vol != 0, vol, toInt32OrZero(extractURLParameter(url, 'no'))) AS volume,
       countIf(type = 'view_content') AS views,
       countIf(type = 'page_view' AND route LIKE '/viewer%') AS opens,
       countIf(type IN ('purchase', 'rental')) AS purchases,
       sumIf(amount, type IN ('purchase', 'rental')) AS revenue
FROM events
WHERE type IN ('view_content', 'purchase', 'rental') OR (type = 'page_view' AND route LIKE '/viewer%')
GROUP BY minute, work, volume
HAVING work != '';
