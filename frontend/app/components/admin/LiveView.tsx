import { useEffect } from "react";
import { useRevalidator } from "react-router";
import * as s from "./analytics.css";
import { Chart } from "./Chart";
import { CsvLink } from "./CsvLink";
import { pngName } from "./exportFiles";
import { ReportTable } from "./ReportTable";
import { LIVE_REFRESH_MS, liveSeries, readersPerSecond, type Live } from "./live";
import { count, won } from "./reports";

/** The live release view: refreshed every few seconds while shown. */
export function LiveView({ live }: { live: Live }) {
  const { revalidate, state } = useRevalidator();
  useEffect(() => {
    const t = setInterval(() => {
      if (document.visibilityState === "visible" && state === "idle") void revalidate();
    }, LIVE_REFRESH_MS);
    return () => clearInterval(t);
  }, [revalidate, state]);
  const series = liveSeries(live);
  const params = { minutes: live.minutes };
  return (
    <>
      <p className={s.lead} aria-live="polite">
        최근 {live.minutes}분, {new Date(new Date(live.now).getTime() + 9 * 3600 * 1000).toISOString().slice(11, 19)} KST 기준 ({LIVE_REFRESH_MS / 1000}초마다
        갱신)
      </p>
      <div className={s.kpis}>
        <LiveKpi label="초당 독자 (최근 10초)" value={readersPerSecond(live).toFixed(1)} testId="live-rate" />
        <LiveKpi label="페이지뷰 + 상세 조회" value={count(live.totals.pageViews + live.totals.contentViews)} testId="live-readers" />
        <LiveKpi label="신규 회차 열람" value={count(live.newVolumeOpens)} testId="live-new-opens" />
        <LiveKpi label="구매·대여" value={`${count(live.totals.purchases)} (${won(live.totals.revenue)})`} testId="live-purchases" />
      </div>
      <div className={s.grid}>
        <section className={s.panel} aria-labelledby="live-traffic-title">
          <h2 id="live-traffic-title" className={s.h2}>
            초당 독자와 열람·구매
          </h2>
          <div className={s.exports}>
            <CsvLink report="live" params={params} label="실시간 초별 수치" />
          </div>
          <Chart
            type="line"
            labels={series.labels}
            label={`최근 ${live.minutes}분 10초 간격 초당 독자, 회차 열람, 구매 그래프`}
            png={pngName("live", params)}
            datasets={[
              { label: "초당 독자", data: series.readers, color: "series1" },
              {
                label: "회차 열람",
                data: series.opens,
                color: "series2",
                right: true,
              },
              {
                label: "구매·대여",
                data: series.purchases,
                color: "series3",
                right: true,
              },
            ]}
          />
        </section>
        <section className={s.panel} aria-labelledby="live-works-title">
          <h2 id="live-works-title" className={s.h2}>
            지금 많이 보는 작품
          </h2>
          <ReportTable
            testId="live-works-table"
            caption={`최근 ${live.minutes}분 상세 조회 + 회차 열람 순`}
            rows={live.topWorks}
            rowKey={(w) => w.pid}
            columns={[
              { label: "작품", rowHeader: true, cell: (w) => w.pid },
              { label: "상세 조회", num: true, cell: (w) => count(w.views) },
              { label: "회차 열람", num: true, cell: (w) => count(w.opens) },
              {
                label: "구매·대여",
                num: true,
                cell: (w) => count(w.purchases),
              },
            ]}
          />
        </section>
        <section className={s.panel} aria-labelledby="live-volumes-title">
          <h2 id="live-volumes-title" className={s.h2}>
            회차별 열람
          </h2>
          <ReportTable
            testId="live-volumes-table"
            caption="신규는 24시간 안에 공개된 회차입니다."
            rows={live.topVolumes.slice(0, 10)}
            rowKey={(v) => `${v.pid}/${v.no}`}
            columns={[
              {
                label: "작품 · 회차",
                rowHeader: true,
                cell: (v) => (
                  <>
                    {v.pid} · {v.no}화{v.new && <span className={s.badgeNew}>신규</span>}
                  </>
                ),
              },
              { label: "열람", num: true, cell: (v) => count(v.opens) },
            ]}
          />
        </section>
      </div>
    </>
  );
}

function LiveKpi({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <div className={s.kpi}>
      <div className={s.muted}>{label}</div>
      <div className={s.kpiLive} data-testid={testId}>
        {value}
      </div>
    </div>
  );
}
