import * as s from "./analytics.css";
import { Chart } from "./Chart";
import { CsvLink } from "./CsvLink";
import { pngName } from "./exportFiles";
import { ReportTable } from "./ReportTable";
import { count, type funnelRows } from "./reports";

type FunnelRow = ReturnType<typeof funnelRows>[number];

/** The conversion funnel: list, detail, viewer, purchase. */
export function FunnelPanel({ funnel, range }: { funnel: FunnelRow[]; range: { from: string; to: string } }) {
  return (
    <section className={s.panel} aria-labelledby="funnel-title">
      <h2 id="funnel-title" className={s.h2}>
        전환 퍼널
      </h2>
      <p className={s.note}>목록 → 상세 → 뷰어 → 구매. 통과는 앞 단계를 모두 거친 사용자(회원, 비회원은 세션) 수입니다.</p>
      <div className={s.exports}>
        <CsvLink report="funnel" params={range} label="전환 퍼널" />
      </div>
      <Chart
        type="bar"
        png={pngName("funnel", range)}
        labels={funnel.map((f) => f.label)}
        label="전환 퍼널 단계별 도달·통과 사용자 막대 그래프"
        datasets={[
          {
            label: "도달",
            data: funnel.map((f) => f.reached),
            color: "series2",
          },
          {
            label: "통과",
            data: funnel.map((f) => f.through),
            color: "series1",
          },
        ]}
      />
      <ReportTable
        testId="funnel-table"
        caption="단계별 사용자와 전환율"
        rows={funnel}
        rowKey={(f) => f.step}
        columns={[
          { label: "단계", rowHeader: true, cell: (f) => f.label },
          { label: "도달", num: true, cell: (f) => count(f.reached) },
          { label: "통과", num: true, cell: (f) => count(f.through) },
          { label: "전환율", num: true, cell: (f) => f.conversion },
          { label: "시작 대비", num: true, cell: (f) => f.ofStart },
        ]}
      />
    </section>
  );
}
