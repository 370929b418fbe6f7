-- The funnel follows a visit: the actor is the session when the event has one,
-- else the member. Page views come from the edge with the session only; a
-- business event that carries the session it happened in (the writer reads the
-- sf_sid cookie) then joins the visit that led to it, which a member id never
-- does. Days already rolled up keep the old actor (uid first).
DROP TABLE IF EXISTS funnel_daily_mv;

CREATE MATERIALIZED VIEW IF NOT EXISTS funnel_daily_mv TO funnel_daily AS
SELECT kst_date, if(session_id != '', session_id, uid) AS actor,
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
