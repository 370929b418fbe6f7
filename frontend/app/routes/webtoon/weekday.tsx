import { useCallback } from "react";
import { useLoaderData, useParams } from "react-router";
import { ListScreen } from "~/components/product/ListScreen";
import { pageTitle } from "~/utils/meta";
import { getList } from "~/utils/storeApi";
import { loadList } from "~/utils/routeData";

export const meta = () => [{ title: pageTitle("요일 연재") }];

const DAYS = [
  { key: "mon", label: "월" },
  { key: "tue", label: "화" },
  { key: "wed", label: "수" },
  { key: "thu", label: "목" },
  { key: "fri", label: "금" },
  { key: "sat", label: "토" },
  { key: "sun", label: "일" },
];

/** The hour (KST) a day's episodes go out, the evening before: the edge's contract.ReleaseHour. */
export const RELEASE_HOUR = 23;

/**
 * Today's weekday key by the release day Korean webtoon readers know: from
 * 23:00 KST the next weekday's episodes are out, so "today" is that weekday
 * (the edge's `/webtoon/weekday` says the same).
 */
export function kstDay(now = Date.now()): string {
  const d = new Date(now + (9 + 24 - RELEASE_HOUR) * 3600_000).getUTCDay();
  return ["sun", "mon", "tue", "wed", "thu", "fri", "sat"][d];
}

export function clientLoader({ request, params }: { request: Request; params: { section?: string } }) {
  const day = params.section && DAYS.some((d) => d.key === params.section) ? params.section : kstDay();
  return loadList(`/webtoon/weekday/${day}`, {}, request.signal);
}

export default function Screen() {
  const data = useLoaderData<typeof clientLoader>();
  const section = useParams().section;
  const day = section && DAYS.some((d) => d.key === section) ? section : kstDay();
  const load = useCallback((page: number) => getList(`/webtoon/weekday/${day}`, { page }), [day]);
  const today = kstDay();
  const tabs = DAYS.map((d) => ({ to: `/webtoon/weekday/${d.key}`, label: d.key === today ? `${d.label} (오늘)` : d.label }));
  // The bare address shows today: mark today's tab active there too.
  if (!section) tabs.unshift({ to: "/webtoon/weekday", label: "오늘" });
  return <ListScreen title="요일 연재" initial={data} load={load} tabs={tabs} tabsLabel="요일" />;
}
