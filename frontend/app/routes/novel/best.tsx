import { useCallback } from "react";
import { useLoaderData } from "react-router";
import { ListScreen } from "~/components/product/ListScreen";
import { pageTitle } from "~/utils/meta";
import { getList } from "~/utils/storeApi";
import { AREA_TABS, loadList } from "~/utils/routeData";

export const meta = () => [{ title: pageTitle("소설 베스트") }];

export function clientLoader({ request }: { request: Request }) {
  return loadList("/novel/best", {}, request.signal);
}

export default function Screen() {
  const data = useLoaderData<typeof clientLoader>();
  const load = useCallback((page: number) => getList("/novel/best", { page }), []);
  return <ListScreen title="소설 베스트" initial={data} load={load} tabs={AREA_TABS.novel} tabsLabel="소설 메뉴" />;
}
