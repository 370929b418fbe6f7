import * as s from "~/components/product/pages.css";
import { useCallback } from "react";
import { useLoaderData } from "react-router";
import { ListScreen } from "~/components/product/ListScreen";
import { pageTitle } from "~/utils/meta";
import { getList, type ListAnswer } from "~/utils/storeApi";
import { loadList } from "~/utils/routeData";

export const meta = () => [{ title: pageTitle("캐시백") }];

/** Cashback: works that give money back on purchase, from the discount filter of every area. */
const only = (a: ListAnswer): ListAnswer => ({ ...a, list: a.list.filter((x) => (x.cashback ?? 0) > 0 || (x.discount ?? 0) > 0) });

export async function clientLoader({ request }: { request: Request }) {
  return only(await loadList("/comic/genre/all", { filter: "discount", sort: "popular", size: 48 }, request.signal));
}

export default function Screen() {
  const data = useLoaderData<typeof clientLoader>();
  const load = useCallback(async (page: number) => only(await getList("/comic/genre/all", { filter: "discount", sort: "popular", size: 48, page })), []);
  return (
    <ListScreen title="캐시백 · 할인 작품" initial={data} load={load}>
      <p className={s.intro}>구매하면 블루머니 일부를 돌려 드리는 작품과 할인 중인 작품입니다.</p>
    </ListScreen>
  );
}
