import * as s from "./analytics.css";
import { Chart } from "./Chart";
import { CsvLink } from "./CsvLink";
import { pngName, type ReportParams } from "./exportFiles";
import { ReportTable } from "./ReportTable";
import { count, won, type ReportQuery, type trafficSeries } from "./reports";

type TrafficSeries = ReturnType<typeof trafficSeries>;

/** The traffic around the release instant: a line chart and its table. */
export function TrafficPanel({ q, traffic, trafficParams }: { q: ReportQuery; traffic: TrafficSeries; trafficParams: ReportParams }) {
  return (
    <section className={s.panel} aria-labelledby="traffic-title">
      <h2 id="traffic-title" className={s.h2}>
        공개 시각 전후 트래픽
      </h2>
      <p className={s.note}>
        {q.at.replace("T", " ")} KST 기준, {q.step}분 간격
        {q.pid ? `, 작품 ${q.pid}` : ""}. 페이지뷰 {count(traffic.totals.pageViews)}, 상세 조회 {count(traffic.totals.contentViews)}, 구매·대여{" "}
        {count(traffic.totals.purchases)}
        {traffic.peak ? `, 최대 ${traffic.peak.label} (${count(traffic.peak.pageViews)}회)` : ", 페이지뷰 없음"}.
      </p>
      <div className={s.exports}>
        <CsvLink report="traffic" params={trafficParams} label="공개 시각 전후 트래픽" />
      </div>
      <Chart
        type="line"
        png={pngName("traffic", trafficParams)}
        labels={traffic.labels}
        mark={traffic.atIndex}
        label={`공개 시각 전후 ${q.step}분 간격 트래픽 그래프`}
        datasets={[
          { label: "페이지뷰", data: traffic.pageViews, color: "series1" },
          {
            label: "상세 조회",
            data: traffic.contentViews,
            color: "series2",
          },
          { label: "구매·대여", data: traffic.purchases, color: "series3" },
        ]}
      />
      <details className={s.details}>
        <summary className={s.summary}>표로 보기</summary>
        <ReportTable
          testId="traffic-table"
          caption="시간대별 트래픽 (KST, 강조된 행이 기준 시각)"
          rows={traffic.labels.map((label, i) => ({ label, i }))}
          rowKey={(x) => x.label}
          marked={(x) => x.i === traffic.atIndex}
          columns={[
            { label: "시각", rowHeader: true, cell: (x) => x.label },
            {
              label: "페이지뷰",
              num: true,
              cell: (x) => count(traffic.pageViews[x.i]),
            },
            {
              label: "상세 조회",
              num: true,
              cell: (x) => count(traffic.contentViews[x.i]),
            },
            {
              label: "구매·대여",
              num: true,
              cell: (x) => count(traffic.purchases[x.i]),
            },
            {
              label: "매출",
              num: true,
              cell: (x) => won(traffic.revenue[x.i]),
            },
          ]}
        />
      </details>
    </section>
  );
}
