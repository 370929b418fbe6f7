import { DateRange, FilterPanel, InputField, SelectField } from "./Filters";
import { METRICS, STEPS, WINDOWS, type ReportQuery } from "./reports";

const minutes = (ms: readonly number[]) => ms.map((m) => ({ v: m, l: m % 60 === 0 ? `${m / 60}시간` : `${m}분` }));

/** The query form of the reports screen. */
export function ReportFilters({ q, busy }: { q: ReportQuery; busy: boolean }) {
  return (
    <FilterPanel id="filters-title" asked={q} busy={busy}>
      <DateRange from={q.from} to={q.to} />
      <InputField label="기준 시각 (공개 시각, KST)" type="datetime-local" name="at" defaultValue={q.at} required />
      <SelectField label="이전" name="before" defaultValue={q.before} choices={minutes(WINDOWS)} />
      <SelectField label="이후" name="after" defaultValue={q.after} choices={minutes(WINDOWS)} />
      <SelectField label="간격" name="step" defaultValue={q.step} choices={minutes(STEPS)} />
      <InputField label="작품 ID (트래픽, 선택)" type="text" name="pid" defaultValue={q.pid} pattern="[A-Za-z0-9_\-]{1,64}" size={12} />
      <SelectField label="인기 작품 기준" name="by" defaultValue={q.by} choices={METRICS} />
    </FilterPanel>
  );
}
