import { Form } from "react-router";
import * as s from "./analytics.css";
import { METRICS, STEPS, WINDOWS, type ReportQuery } from "./reports";

const minutesLabel = (m: number) => (m % 60 === 0 ? `${m / 60}시간` : `${m}분`);

/** The query form of the reports screen (GET: every choice in the address). */
export function ReportFilters({ q, busy }: { q: ReportQuery; busy: boolean }) {
  return (
    <section className={s.panel} aria-labelledby="filters-title">
      <h2 id="filters-title" className={s.h2}>
        조회 조건
      </h2>
      {/* key: a new answer resets the uncontrolled fields to what was asked */}
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
          기준 시각 (공개 시각, KST)
          <input className={s.input} type="datetime-local" name="at" defaultValue={q.at} required />
        </label>
        <label className={s.field}>
          이전
          <select className={s.input} name="before" defaultValue={q.before}>
            {WINDOWS.map((m) => (
              <option key={m} value={m}>
                {minutesLabel(m)}
              </option>
            ))}
          </select>
        </label>
        <label className={s.field}>
          이후
          <select className={s.input} name="after" defaultValue={q.after}>
            {WINDOWS.map((m) => (
              <option key={m} value={m}>
                {minutesLabel(m)}
              </option>
            ))}
          </select>
        </label>
        <label className={s.field}>
          간격
          <select className={s.input} name="step" defaultValue={q.step}>
            {STEPS.map((m) => (
              <option key={m} value={m}>
                {minutesLabel(m)}
              </option>
            ))}
          </select>
        </label>
        <label className={s.field}>
          작품 ID (트래픽, 선택)
          <input className={s.input} type="text" name="pid" defaultValue={q.pid} pattern="[A-Za-z0-9_\-]{1,64}" size={12} />
        </label>
        <label className={s.field}>
          인기 작품 기준
          <select className={s.input} name="by" defaultValue={q.by}>
            {METRICS.map((m) => (
              <option key={m.v} value={m.v}>
                {m.l}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" className={s.button} disabled={busy}>
          {busy ? "조회 중…" : "조회"}
        </button>
      </Form>
    </section>
  );
}

