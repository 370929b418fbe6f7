import { useCallback } from "react";
import { useLoaderData } from "react-router";
import { ListScreen } from "~/components/product/ListScreen";
import { pageTitle } from "~/utils/meta";
import { getList } from "~/utils/storeApi";
import { AREA_TABS, loadList } from "~/utils/routeData";

export const meta = () => [{ title: pageTitle("만화 베스트") }];

export function clientLoader({ request }: { request: Request }) {
  return loadList("/comic/best", {}, request.signal);
}

export default function Screen() {
  const data = useLoaderData<typeof clientLoader>();
  const load = useCallback((page: number) => getList("/comic/best", { page }), []);
  return <ListScreen title="만화 베스트" initial={data} load={load} tabs={AREA_TABS.comic} tabsLabel="만화 메뉴" />;
}
