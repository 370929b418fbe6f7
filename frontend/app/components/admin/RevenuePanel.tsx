import * as s from "./analytics.css";
import { Chart } from "./Chart";
import { CsvLink } from "./CsvLink";
import { pngName } from "./exportFiles";
import { ReportTable } from "./ReportTable";
import { count, won, type revenueRows } from "./reports";

type RevenueRows = ReturnType<typeof revenueRows>;

/** Charges and work payments by channel. */
export function RevenuePanel({ revenue, range }: { revenue: RevenueRows; range: { from: string; to: string } }) {
  return (
    <section className={s.panel} aria-labelledby="revenue-title">
      <h2 id="revenue-title" className={s.h2}>
        채널별 매출
      </h2>
      {revenue.rows.length === 0 ? (
        <p className={s.muted}>기간 안에 충전이나 결제가 없습니다.</p>
      ) : (
        <>
          <div className={s.exports}>
            <CsvLink report="revenue" params={range} label="채널별 매출" />
          </div>
          <Chart
            type="bar"
            png={pngName("revenue", range)}
            labels={revenue.rows.map((x) => x.label)}
            label="채널별 충전 금액과 작품 결제 금액 막대 그래프"
            datasets={[
              {
                label: "작품 결제",
                data: revenue.rows.map((x) => x.salesAmount),
                color: "series3",
              },
              {
                label: "충전",
                data: revenue.rows.map((x) => x.chargeAmount),
                color: "series4",
              },
            ]}
          />
          <ReportTable
            testId="revenue-table"
            caption="채널별 충전과 작품 결제 (구매 + 대여)"
            rows={[...revenue.rows, revenue.total]}
            rowKey={(x) => x.label}
            marked={(x) => x === revenue.total}
            columns={[
              { label: "채널", rowHeader: true, cell: (x) => x.label },
              {
                label: "결제 건수",
                num: true,
                cell: (x) => count(x.sales),
              },
              {
                label: "결제 금액",
                num: true,
                cell: (x) => won(x.salesAmount),
              },
              {
                label: "충전 건수",
                num: true,
                cell: (x) => count(x.charges),
              },
              {
                label: "충전 금액",
                num: true,
                cell: (x) => won(x.chargeAmount),
              },
            ]}
          />
        </>
      )}
    </section>
  );
}
