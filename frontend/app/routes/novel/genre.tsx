import { useCallback } from "react";
import { useLoaderData, useParams, useSearchParams } from "react-router";
import { ListControls, listQuery } from "~/components/product/ListControls";
import { ListScreen } from "~/components/product/ListScreen";
import { pageTitle } from "~/utils/meta";
import { getList } from "~/utils/storeApi";
import { genreTabs, loadList, pageOf } from "~/utils/routeData";

export const meta = () => [{ title: pageTitle("소설 장르") }];

function pathOf(category?: string, subgenre?: string) {
  const c = encodeURIComponent(category || "all");
  return subgenre ? `/novel/genre/${c}/${encodeURIComponent(subgenre)}` : `/novel/genre/${c}`;
}

export async function clientLoader({ request, params }: { request: Request; params: { category?: string; subgenre?: string; page?: string } }) {
  const q = listQuery(new URL(request.url).searchParams);
  const [list, tabs] = await Promise.all([
    loadList(pathOf(params.category, params.subgenre), { ...q, page: pageOf(params.page) }, request.signal),
    genreTabs("novel", request.signal),
  ]);
  return { list, tabs, style: q.style };
}

export default function Screen() {
  const { list, tabs, style } = useLoaderData<typeof clientLoader>();
  const { category, subgenre } = useParams();
  const [sp] = useSearchParams();
  const q = listQuery(sp);
  const load = useCallback((page: number) => getList(pathOf(category, subgenre), { ...q, page }), [category, subgenre, q.filter, q.sort, q.style]); // eslint-disable-line react-hooks/exhaustive-deps
  return (
    <ListScreen
      title={`소설 ${list.title ?? "장르"}`}
      initial={list}
      load={load}
      tabs={tabs}
      tabsLabel="장르"
      controls={<ListControls />}
      listStyle={style}
    />
  );
}
