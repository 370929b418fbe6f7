import * as s from "./analytics.css";
import { Chart } from "./Chart";
import { CsvLink } from "./CsvLink";
import { pngName } from "./exportFiles";
import { ReportTable } from "./ReportTable";
import { BREAKDOWNS, breakdownKey, exploreParams, kindLabel, type Explore, type ExploreQuery } from "./explore";
import { count, percent, won } from "./reports";

/** Retention by cohort week: members, then the share who read again in weeks 1..8. */
export function RetentionPanel({ q, r }: { q: ExploreQuery; r: Explore["retention"] }) {
  const p = exploreParams(q).retention;
  const rows = q.channel ? r.rows : [...r.totals.map((t) => ({ ...t, channel: "전체" })), ...r.rows];
  return (
    <section className={s.panel} aria-labelledby="retention-title">
      <h2 id="retention-title" className={s.h2}>
        리텐션 ({r.cohort === "signup" ? "가입 주" : "첫 열람 주"} 코호트)
      </h2>
      <div className={s.exports}>
        <CsvLink report="retention" params={p} label="리텐션" />
      </div>
      {rows.length === 0 ? (
        <p className={s.muted}>기간 안에 코호트가 없습니다.</p>
      ) : (
        <ReportTable
          testId="retention-table"
          caption="주(월요일 시작, KST)별 회원 수와 n주 뒤 다시 읽은 비율"
          rows={rows}
          rowKey={(c) => c.week + c.channel}
          columns={[
            { label: "주", rowHeader: true, cell: (c) => c.week },
            { label: "채널", cell: (c) => c.channel },
            { label: "회원", num: true, cell: (c) => count(c.members) },
            ...Array.from({ length: 8 }, (_, k) => ({
              label: `${k + 1}주`,
              num: true,
              cell: (c: (typeof rows)[number]) => (k < c.elapsedWeeks ? percent(c.members ? c.retained[k] / c.members : 0) : "–"),
            })),
          ]}
        />
      )}
    </section>
  );
}

/** The analyst's funnel: every step's visits, all channels and each. */
export function FunnelPanel({ q, f }: { q: ExploreQuery; f: Explore["funnel"] }) {
  const p = exploreParams(q).funnels;
  const all = f.channels[0];
  return (
    <section className={s.panel} aria-labelledby="custom-funnel-title">
      <h2 id="custom-funnel-title" className={s.h2}>
        퍼널: {f.steps.map(kindLabel).join(" → ")} ({q.window} 안)
      </h2>
      <div className={s.exports}>
        <CsvLink report="funnels" params={p} label="퍼널" />
      </div>
      <Chart
        type="bar"
        labels={f.steps.map(kindLabel)}
        label="퍼널 단계별 도달 방문 막대 그래프"
        png={pngName("funnels", p)}
        datasets={[{ label: "도달", data: all.reached, color: "series1" }]}
      />
      <ReportTable
        testId="custom-funnel-table"
        caption="채널별 단계 도달 방문 (앞 단계 대비 전환율)"
        rows={f.channels}
        rowKey={(c) => c.channel}
        columns={[
          { label: "채널", rowHeader: true, cell: (c) => c.channel || "전체" },
          ...f.steps.map((k, i) => ({
            label: kindLabel(k),
            num: true,
            cell: (c: (typeof f.channels)[number]) => `${count(c.reached[i])}${i > 0 ? ` (${percent(c.conversion[i])})` : ""}`,
          })),
        ]}
      />
    </section>
  );
}

/** Visits by their first touch: channel, referrer host or UTM value. */
export function BreakdownPanel({ q, b }: { q: ExploreQuery; b: Explore["breakdown"] }) {
  const p = exploreParams(q).breakdown;
  const label = BREAKDOWNS.find((x) => x.v === b.by)?.l ?? b.by;
  return (
    <section className={s.panel} aria-labelledby="breakdown-title">
      <h2 id="breakdown-title" className={s.h2}>
        유입: {label}별
      </h2>
      <div className={s.exports}>
        <CsvLink report="breakdown" params={p} label="유입" />
      </div>
      <ReportTable
        testId="breakdown-table"
        caption="방문의 첫 페이지 기준, 구매는 같은 방문의 것"
        rows={b.rows}
        rowKey={(r) => r.key}
        columns={[
          { label, rowHeader: true, cell: (r) => breakdownKey(r.key) },
          { label: "방문", num: true, cell: (r) => count(r.visits) },
          { label: "페이지뷰", num: true, cell: (r) => count(r.pageViews) },
          { label: "상세 조회", num: true, cell: (r) => count(r.contentViews) },
          { label: "구매·대여", num: true, cell: (r) => count(r.purchases) },
          { label: "매출", num: true, cell: (r) => won(r.revenue) },
        ]}
      />
    </section>
  );
}
