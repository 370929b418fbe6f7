import { useCallback } from "react";
import { useLoaderData, useParams, useSearchParams } from "react-router";
import { ListControls, listQuery } from "~/components/product/ListControls";
import { ListScreen } from "~/components/product/ListScreen";
import { TOP_TABS } from "~/utils/layout";
import { pageTitle } from "~/utils/meta";
import { getList } from "~/utils/storeApi";
import { AREA_TABS, loadList } from "~/utils/routeData";

export const meta = () => [{ title: pageTitle("소설") }];

export function clientLoader({ request, params }: { request: Request; params: { genre?: string } }) {
  const q = listQuery(new URL(request.url).searchParams);
  return loadList(`/novel/tab/${encodeURIComponent(params.genre ?? "")}`, q, request.signal);
}

export default function Screen() {
  const data = useLoaderData<typeof clientLoader>();
  const genre = useParams().genre ?? "";
  const [sp] = useSearchParams();
  const q = listQuery(sp);
  const load = useCallback((page: number) => getList(`/novel/tab/${encodeURIComponent(genre)}`, { ...q, page }), [genre, q.filter, q.sort, q.style]); // eslint-disable-line react-hooks/exhaustive-deps
  const label = TOP_TABS.find((t) => t.key === genre)?.label ?? data.title ?? "소설";
  return <ListScreen title={`소설 ${label}`} initial={data} load={load} tabs={AREA_TABS.novel} tabsLabel="소설 메뉴" controls={<ListControls />} listStyle={q.style} />;
}
