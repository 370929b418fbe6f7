import { useCallback } from "react";
import { useLoaderData, useParams } from "react-router";
import { ListScreen } from "~/components/product/ListScreen";
import { pageTitle } from "~/utils/meta";
import { getList } from "~/utils/storeApi";
import { genreTabs, loadList, pageOf } from "~/utils/routeData";

export const meta = () => [{ title: pageTitle("웹툰 장르") }];

export async function clientLoader({ request, params }: { request: Request; params: { category?: string; page?: string } }) {
  const category = params.category || "all";
  const [list, tabs] = await Promise.all([
    loadList(`/webtoon/genre/${encodeURIComponent(category)}`, { page: pageOf(params.page) }, request.signal),
    genreTabs("webtoon", request.signal),
  ]);
  return { list, tabs };
}

export default function Screen() {
  const { list, tabs } = useLoaderData<typeof clientLoader>();
  const category = useParams().category || "all";
  const load = useCallback((page: number) => getList(`/webtoon/genre/${encodeURIComponent(category)}`, { page }), [category]);
  return <ListScreen title={`웹툰 ${list.title ?? "장르"}`} initial={list} load={load} tabs={tabs} tabsLabel="장르" />;
}
