import * as s from "./analytics.css";
import { Chart } from "./Chart";
import { CsvLink } from "./CsvLink";
import { pngName } from "./exportFiles";
import { ReportTable } from "./ReportTable";
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
