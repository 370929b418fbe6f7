-- Page views by route per hour.
CREATE TABLE IF NOT EXISTS pageviews_hourly (
    hour     DateTime,
    route    String,
    channel  String,
    views    UInt64
) ENGINE = SummingMergeTree(views)
PARTITION BY toYYYYMM(hour)
ORDER BY (hour, route, channel);

CREATE MATERIALIZED VIEW IF NOT EXISTS pageviews_hourly_mv TO pageviews_hourly AS
SELECT toStartOfHour(ts) AS hour, route, channel, count() AS views
FROM events
WHERE type = 'page_view'
GROUP BY hour, route, channel;

-- Per work and KST day: views, purchases, rentals, revenue (won spent on the work).
CREATE TABLE IF NOT EXISTS work_daily (
    kst_date   Date,
    pid        String,
    section    String,
    genre_id   String,
    views      UInt64,
    purchases  UInt64,
    rentals    UInt64,
    revenue    Int64
) ENGINE = SummingMergeTree((views, purchases, rentals, revenue))
PARTITION BY toYYYYMM(kst_date)
ORDER BY (kst_date, pid, section, genre_id);

CREATE MATERIALIZED VIEW IF NOT EXISTS work_daily_mv TO work_daily AS
SELECT kst_date, pid, section, genre_id,
       countIf(type = 'view_content') AS views,
       countIf(type = 'purchase') AS purchases,
       countIf(type = 'rental') AS rentals,
       sumIf(amount, type IN ('purchase', 'rental')) AS revenue
FROM events
WHERE pid != '' AND type IN ('view_content', 'purchase', 'rental')
GROUP BY kst_date, pid, section, genre_id;

-- The same per hour (UTC hour start), the source of the rankings.
CREATE TABLE IF NOT EXISTS work_hourly (
    hour       DateTime,
    pid        String,
    section    String,
    genre_id   String,
    views      UInt64,
    purchases  UInt64,
    rentals    UInt64,
    revenue    Int64
) ENGINE = SummingMergeTree((views, purchases, rentals, revenue))
PARTITION BY toYYYYMM(hour)
ORDER BY (hour, pid, section, genre_id);

CREATE MATERIALIZED VIEW IF NOT EXISTS work_hourly_mv TO work_hourly AS
SELECT toStartOfHour(ts) AS hour, pid, section, genre_id,
       countIf(type = 'view_content') AS views,
       countIf(type = 'purchase') AS purchases,
       countIf(type = 'rental') AS rentals,
       sumIf(amount, type IN ('purchase', 'rental')) AS revenue
FROM events
WHERE pid != '' AND type IN ('view_content', 'purchase', 'rental')
GROUP BY hour, pid, section, genre_id;

-- Active users per KST day by channel and member type. The actor is the member id,
-- or the session for visitors. WAU merges seven days of states.
CREATE TABLE IF NOT EXISTS active_users_daily (
    kst_date     Date,
    channel      String,
    member_type  String,
    actors       AggregateFunction(uniq, String)
) ENGINE = AggregatingMergeTree()
PARTITION BY toYYYYMM(kst_date)
ORDER BY (kst_date, channel, member_type);

CREATE MATERIALIZED VIEW IF NOT EXISTS active_users_daily_mv TO active_users_daily AS
SELECT kst_date, channel, member_type, uniqState(if(uid != '', uid, session_id)) AS actors
FROM events
WHERE uid != '' OR session_id != ''
GROUP BY kst_date, channel, member_type;

-- Funnel list -> detail -> viewer -> purchase: per KST day and actor, the bit set of
-- steps reached (1 list, 2 detail, 4 viewer, 8 purchase or rental).
CREATE TABLE IF NOT EXISTS funnel_daily (
    kst_date  Date,
    actor     String,
    steps     AggregateFunction(groupBitOr, UInt8)
) ENGINE = AggregatingMergeTree()
PARTITION BY toYYYYMM(kst_date)
ORDER BY (kst_date, actor);

CREATE MATERIALIZED VIEW IF NOT EXISTS funnel_daily_mv TO funnel_daily AS
SELECT kst_date, if(uid != '', uid, session_id) AS actor,
       groupBitOrState(toUInt8(multiIf(
           type IN ('purchase', 'rental'), 8,
           type = 'page_view' AND route LIKE '/viewer%', 4,
           type = 'view_content', 2,
           type = 'page_view' AND route LIKE '%/detail/%', 2,
           type = 'page_view', 1,
           0))) AS steps
FROM events
WHERE (uid != '' OR session_id != '') AND type IN ('page_view', 'view_content', 'purchase', 'rental')
GROUP BY kst_date, actor;

-- Money per KST day by channel, event type (charge, purchase, rental) and wallet.
CREATE TABLE IF NOT EXISTS revenue_daily (
    kst_date  Date,
    channel   String,
    type      String,
    money     String,
    events    UInt64,
    amount    Int64
) ENGINE = SummingMergeTree((events, amount))
PARTITION BY toYYYYMM(kst_date)
ORDER BY (kst_date, channel, type, money);

CREATE MATERIALIZED VIEW IF NOT EXISTS revenue_daily_mv TO revenue_daily AS
SELECT kst_date, channel, type, money, count() AS events, sum(amount) AS amount
FROM events
WHERE type IN ('charge', 'purchase', 'rental')
GROUP BY kst_date, channel, type, money;
