import { useCallback } from "react";
import { useLoaderData } from "react-router";
import { ListScreen } from "~/components/product/ListScreen";
import { pageTitle } from "~/utils/meta";
import { getList } from "~/utils/storeApi";
import { AREA_TABS, loadList } from "~/utils/routeData";

export const meta = () => [{ title: pageTitle("오늘 업데이트") }];

export function clientLoader({ request }: { request: Request }) {
  return loadList("/webtoon/todayup", {}, request.signal);
}

export default function Screen() {
  const data = useLoaderData<typeof clientLoader>();
  const load = useCallback((page: number) => getList("/webtoon/todayup", { page }), []);
  return <ListScreen title="오늘 업데이트" initial={data} load={load} tabs={AREA_TABS.webtoon} tabsLabel="웹툰 메뉴" />;
}
