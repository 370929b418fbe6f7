import { useCallback } from "react";
import { Link, useLoaderData } from "react-router";
import { ListScreen } from "~/components/product/ListScreen";
import { http } from "~/utils/api";
import { pageTitle } from "~/utils/meta";
import { API, getList, type ListAnswer } from "~/utils/storeApi";
import { guard, pageOf } from "~/utils/routeData";
import * as s from "~/components/product/product.css";
import * as pg from "~/components/product/pages.css";

export const meta = () => [{ title: pageTitle("키워드") }];

type Keyword = { id: number; name: string; count: number };

export async function clientLoader({ request, params }: { request: Request; params: { page?: string } }) {
  const kw = await guard(http<{ keywords: Keyword[] }>(`${API}/keywords`, { signal: request.signal }));
  const sel = Number(new URL(request.url).searchParams.get("id")) || kw.keywords[0]?.id;
  const list: ListAnswer = sel
    ? await guard(getList(`/keywords/${sel}`, { page: pageOf(params.page) }, request.signal))
    : { header: { code: 200, message: "" }, list: [], paging: { curPage: 1, pageCount: 1, totalCount: 0, size: 24 } };
  return { keywords: kw.keywords, sel, list };
}

export default function Screen() {
  const { keywords, sel, list } = useLoaderData<typeof clientLoader>();
  const load = useCallback((p: number) => getList(`/keywords/${sel}`, { page: p }), [sel]);
  const name = keywords.find((k) => k.id === sel)?.name ?? "";
  return (
    <ListScreen title={name ? `#${name}` : "키워드"} initial={list} load={load}>
      <nav className={`${s.tabs} ${pg.tabsWrap}`} aria-label="키워드">
        {keywords.map((k) => (
          <Link key={k.id} to={`/keyword?id=${k.id}`} className={k.id === sel ? `${s.tab} ${s.tabActive}` : s.tab} aria-current={k.id === sel ? "page" : undefined}>
            #{k.name}
          </Link>
        ))}
      </nav>
    </ListScreen>
  );
}
