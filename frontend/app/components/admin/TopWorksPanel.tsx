import * as s from "./analytics.css";
import { Chart } from "./Chart";
import { CsvLink } from "./CsvLink";
import { pngName, type ReportParams } from "./exportFiles";
import { ReportTable } from "./ReportTable";
import { count, won, type topWorkRows } from "./reports";

type TopWorkRow = ReturnType<typeof topWorkRows>[number];

/** The top works of the range by the chosen metric. */
export function TopWorksPanel({ works, metric, topParams }: { works: TopWorkRow[]; metric: string; topParams: ReportParams }) {
  return (
    <section className={s.panel} aria-labelledby="top-title">
      <h2 id="top-title" className={s.h2}>
        인기 작품 ({metric})
      </h2>
      {works.length === 0 ? (
        <p className={s.muted}>기간 안에 조회나 구매가 있는 작품이 없습니다.</p>
      ) : (
        <>
          <div className={s.exports}>
            <CsvLink report="top-works" params={topParams} label="인기 작품" />
          </div>
          <Chart
            type="bar"
            horizontal
            png={pngName("top-works", topParams)}
            labels={works.map((w) => w.pid)}
            label={`${metric} 기준 상위 ${works.length}개 작품 막대 그래프`}
            datasets={[
              {
                label: metric,
                data: works.map((w) => w.value),
                color: "series1",
              },
            ]}
          />
          <ReportTable
            testId="top-works-table"
            caption={`${metric} 기준 상위 작품`}
            rows={works}
            rowKey={(w) => w.pid}
            columns={[
              { label: "순위", cell: (w) => w.rank },
              {
                label: "작품",
                rowHeader: true,
                cell: (w) => (
                  <a className={s.link} href={w.href}>
                    {w.pid}
                  </a>
                ),
              },
              { label: "구분", cell: (w) => `${w.section} · ${w.genre}` },
              { label: "조회", num: true, cell: (w) => count(w.views) },
              {
                label: "구매·대여",
                num: true,
                cell: (w) => count(w.sales),
              },
              { label: "매출", num: true, cell: (w) => won(w.revenue) },
            ]}
          />
        </>
      )}
    </section>
  );
}
