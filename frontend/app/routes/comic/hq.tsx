import { useCallback } from "react";
import { useLoaderData, useParams } from "react-router";
import { ListScreen } from "~/components/product/ListScreen";
import { pageTitle } from "~/utils/meta";
import { getList } from "~/utils/storeApi";
import { AREA_TABS, loadList, pageOf } from "~/utils/routeData";

export const meta = () => [{ title: pageTitle("패키지") }];

const pathOf = (pkg?: string) => (pkg ? `/comic/hq/${encodeURIComponent(pkg)}` : "/comic/hq");

export function clientLoader({ request, params }: { request: Request; params: { package?: string; page?: string } }) {
  return loadList(pathOf(params.package), { page: pageOf(params.page) }, request.signal);
}

export default function Screen() {
  const data = useLoaderData<typeof clientLoader>();
  const pkg = useParams().package;
  const load = useCallback((page: number) => getList(pathOf(pkg), { page }), [pkg]);
  return <ListScreen title={data.title || "패키지"} initial={data} load={load} tabs={pkg ? undefined : AREA_TABS.comic} tabsLabel="만화 메뉴" />;
}
