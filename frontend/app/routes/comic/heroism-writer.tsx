import { useCallback } from "react";
import { useLoaderData, useParams } from "react-router";
import { ListScreen } from "~/components/product/ListScreen";
import { pageTitle } from "~/utils/meta";
import { getList } from "~/utils/storeApi";
import { loadList, pageOf } from "~/utils/routeData";

export const meta = () => [{ title: pageTitle("작가전") }];

export function clientLoader({ request, params }: { request: Request; params: { writer?: string; page?: string } }) {
  return loadList(`/comic/heroism/${encodeURIComponent(params.writer ?? "")}`, { page: pageOf(params.page) }, request.signal);
}

export default function Screen() {
  const data = useLoaderData<typeof clientLoader>();
  const writer = useParams().writer ?? "";
  const load = useCallback((page: number) => getList(`/comic/heroism/${encodeURIComponent(writer)}`, { page }), [writer]);
  return <ListScreen title={data.title || "작가전"} initial={data} load={load} />;
}
