import { Form } from "react-router";
import * as s from "./analytics.css";
import { Chart } from "./Chart";
import { CsvLink } from "./CsvLink";
import { pngName } from "./exportFiles";
import { BREAKDOWNS, breakdownKey, CHANNELS, exploreParams, FUNNEL_KINDS, kindLabel, type Explore, type ExploreQuery } from "./explore";
import { count, percent, won } from "./reports";

/** The query form of the explore screen (GET: every choice in the address). */
export function ExploreFilters({ q }: { q: ExploreQuery }) {
  return (
    <section className={s.panel} aria-labelledby="explore-filters">
      <h2 id="explore-filters" className={s.h2}>
        조회 조건
      </h2>
      <Form method="get" className={s.form} key={JSON.stringify(q)}>
        <label className={s.field}>
          시작일 (KST)
          <input className={s.input} type="date" name="from" defaultValue={q.from} required />
        </label>
        <label className={s.field}>
          종료일 (KST)
          <input className={s.input} type="date" name="to" defaultValue={q.to} required />
        </label>
        <label className={s.field}>
          코호트
          <select className={s.input} name="cohort" defaultValue={q.cohort}>
            <option value="first-read">첫 열람 주</option>
            <option value="signup">가입 주</option>
          </select>
        </label>
        <label className={s.field}>
          채널 (리텐션)
          <select className={s.input} name="channel" defaultValue={q.channel}>
            <option value="">전체</option>
            {CHANNELS.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </label>
        <label className={s.field}>
          퍼널 단계 (쉼표로 구분)
          <input className={s.input} name="steps" defaultValue={q.steps.join(",")} list="funnel-kinds" size={28} />
          <datalist id="funnel-kinds">
            {FUNNEL_KINDS.map((k) => (
              <option key={k.v} value={k.v}>
                {k.l}
              </option>
            ))}
          </datalist>
        </label>
        <label className={s.field}>
          퍼널 기간
          <select className={s.input} name="window" defaultValue={q.window}>
            {["10m", "30m", "1h", "6h", "24h", "72h", "168h"].map((w) => (
              <option key={w} value={w}>
                {w}
              </option>
            ))}
          </select>
        </label>
        <label className={s.field}>
          유입 기준
          <select className={s.input} name="by" defaultValue={q.by}>
            {BREAKDOWNS.map((b) => (
              <option key={b.v} value={b.v}>
                {b.l}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" className={s.button}>
          조회
        </button>
      </Form>
    </section>
  );
}

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
        <table className={s.table} data-testid="retention-table">
          <caption className={s.caption}>주(월요일 시작, KST)별 회원 수와 n주 뒤 다시 읽은 비율</caption>
          <thead>
            <tr>
              <th className={s.th} scope="col">주</th>
              <th className={s.th} scope="col">채널</th>
              <th className={`${s.th} ${s.num}`} scope="col">회원</th>
              {Array.from({ length: 8 }, (_, k) => (
                <th key={k} className={`${s.th} ${s.num}`} scope="col">
                  {k + 1}주
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((c) => (
              <tr key={c.week + c.channel}>
                <th className={s.td} scope="row">{c.week}</th>
                <td className={s.td}>{c.channel}</td>
                <td className={`${s.td} ${s.num}`}>{count(c.members)}</td>
                {c.retained.map((n, k) => (
                  <td key={k} className={`${s.td} ${s.num}`}>
                    {k < c.elapsedWeeks ? percent(c.members ? n / c.members : 0) : "–"}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
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
      <table className={s.table} data-testid="custom-funnel-table">
        <caption className={s.caption}>채널별 단계 도달 방문 (앞 단계 대비 전환율)</caption>
        <thead>
          <tr>
            <th className={s.th} scope="col">채널</th>
            {f.steps.map((k, i) => (
              <th key={i} className={`${s.th} ${s.num}`} scope="col">
                {kindLabel(k)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {f.channels.map((c) => (
            <tr key={c.channel}>
              <th className={s.td} scope="row">{c.channel || "전체"}</th>
              {c.reached.map((n, i) => (
                <td key={i} className={`${s.td} ${s.num}`}>
                  {count(n)}
                  {i > 0 && ` (${percent(c.conversion[i])})`}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
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
      <table className={s.table} data-testid="breakdown-table">
        <caption className={s.caption}>방문의 첫 페이지 기준, 구매는 같은 방문의 것</caption>
        <thead>
          <tr>
            <th className={s.th} scope="col">{label}</th>
            <th className={`${s.th} ${s.num}`} scope="col">방문</th>
            <th className={`${s.th} ${s.num}`} scope="col">페이지뷰</th>
            <th className={`${s.th} ${s.num}`} scope="col">상세 조회</th>
            <th className={`${s.th} ${s.num}`} scope="col">구매·대여</th>
            <th className={`${s.th} ${s.num}`} scope="col">매출</th>
          </tr>
        </thead>
        <tbody>
          {b.rows.map((r) => (
            <tr key={r.key}>
              <th className={s.td} scope="row">{breakdownKey(r.key)}</th>
              <td className={`${s.td} ${s.num}`}>{count(r.visits)}</td>
              <td className={`${s.td} ${s.num}`}>{count(r.pageViews)}</td>
              <td className={`${s.td} ${s.num}`}>{count(r.contentViews)}</td>
              <td className={`${s.td} ${s.num}`}>{count(r.purchases)}</td>
              <td className={`${s.td} ${s.num}`}>{won(r.revenue)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
