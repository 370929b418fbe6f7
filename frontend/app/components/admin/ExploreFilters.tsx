import { BREAKDOWNS, CHANNELS, FUNNEL_KINDS, type ExploreQuery } from "./explore";
import { DateRange, FilterPanel, InputField, SelectField } from "./Filters";

const COHORTS = [
  { v: "first-read", l: "첫 열람 주" },
  { v: "signup", l: "가입 주" },
];
const CHANNEL_CHOICES = [{ v: "", l: "전체" }, ...CHANNELS.map((c) => ({ v: c, l: c }))];
const FUNNEL_WINDOWS = ["10m", "30m", "1h", "6h", "24h", "72h", "168h"].map((w) => ({ v: w, l: w }));

/** The query form of the explore screen. */
export function ExploreFilters({ q }: { q: ExploreQuery }) {
  return (
    <FilterPanel id="explore-filters" asked={q}>
      <DateRange from={q.from} to={q.to} />
      <SelectField label="코호트" name="cohort" defaultValue={q.cohort} choices={COHORTS} />
      <SelectField label="채널 (리텐션)" name="channel" defaultValue={q.channel} choices={CHANNEL_CHOICES} />
      <InputField label="퍼널 단계 (쉼표로 구분)" name="steps" defaultValue={q.steps.join(",")} list="funnel-kinds" size={28}>
        <datalist id="funnel-kinds">
          {FUNNEL_KINDS.map((k) => (
            <option key={k.v} value={k.v}>
              {k.l}
            </option>
          ))}
        </datalist>
      </InputField>
      <SelectField label="퍼널 기간" name="window" defaultValue={q.window} choices={FUNNEL_WINDOWS} />
      <SelectField label="유입 기준" name="by" defaultValue={q.by} choices={BREAKDOWNS} />
    </FilterPanel>
  );
}
