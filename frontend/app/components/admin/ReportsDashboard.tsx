import * as s from "./analytics.css";
import { CsvLink } from "./CsvLink";
import { FunnelPanel } from "./FunnelPanel";
import { RevenuePanel } from "./RevenuePanel";
import { TopWorksPanel } from "./TopWorksPanel";
import { TrafficPanel } from "./TrafficPanel";
import { count, funnelRows, kstToRFC3339, METRICS, revenueRows, topWorkRows, trafficSeries, won, type ReportQuery, type Reports } from "./reports";

/** The five reports of the range: KPIs, traffic around the release instant, top works, funnel, revenue by channel. */
export function ReportsDashboard({ q, r }: { q: ReportQuery; r: Reports }) {
  const traffic = trafficSeries(r.traffic);
  const works = topWorkRows(r.top, q.by);
  const funnel = funnelRows(r.funnel);
  const revenue = revenueRows(r.revenue);
  const metric = METRICS.find((m) => m.v === q.by)?.l ?? "";
  const fmt = (v: number) => (q.by === "revenue" ? won(v) : count(v));
  const range = { from: q.from, to: q.to };
  const trafficParams = {
    at: kstToRFC3339(q.at) ?? "",
    before: `${q.before}m`,
    after: `${q.after}m`,
    step: `${q.step}m`,
    pid: q.pid,
  };
  const topParams = { ...range, by: q.by, limit: 10 };
  return (
    <>
      <p className={s.lead}>
        기간 {r.top.from} ~ {r.top.to} (KST) <CsvLink report="active-users" params={range} label="활성 사용자" />
      </p>
      <div className={s.kpis}>
        <Kpi label="기간 활성 사용자" value={count(r.active.rangeTotal)} testId="kpi-active" />
        <Kpi label="기간 결제 금액" value={won(revenue.total.salesAmount)} testId="kpi-sales" />
        <Kpi label="기간 충전 금액" value={won(revenue.total.chargeAmount)} testId="kpi-charges" />
        <Kpi label="기준 시각 전후 페이지뷰" value={count(traffic.totals.pageViews)} testId="kpi-pageviews" />
      </div>
      <div className={s.grid}>
        <TrafficPanel q={q} traffic={traffic} trafficParams={trafficParams} />
        <TopWorksPanel works={works} metric={metric} topParams={topParams} />
        <FunnelPanel funnel={funnel} range={range} />
        <RevenuePanel revenue={revenue} range={range} />
      </div>
      <p className={s.muted}>전환율은 앞 단계 통과자 대비, 금액은 원 단위입니다. 모든 시각은 한국 표준시(KST)입니다.</p>
    </>
  );
}

function Kpi({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <div className={s.kpi}>
      <div className={s.muted}>{label}</div>
      <div className={s.kpiValue} data-testid={testId}>
        {value}
      </div>
    </div>
  );
}
