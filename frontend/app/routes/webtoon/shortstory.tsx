import { useCallback } from "react";
import { useLoaderData } from "react-router";
import { ListScreen } from "~/components/product/ListScreen";
import { pageTitle } from "~/utils/meta";
import { getList } from "~/utils/storeApi";
import { AREA_TABS, loadList } from "~/utils/routeData";

export const meta = () => [{ title: pageTitle("단편") }];

export function clientLoader({ request }: { request: Request }) {
  return loadList("/webtoon/shortstory", {}, request.signal);
}

export default function Screen() {
  const data = useLoaderData<typeof clientLoader>();
  const load = useCallback((page: number) => getList("/webtoon/shortstory", { page }), []);
  return <ListScreen title="단편" initial={data} load={load} tabs={AREA_TABS.webtoon} tabsLabel="웹툰 메뉴" />;
}
