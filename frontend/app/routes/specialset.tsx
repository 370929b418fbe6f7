import * as s from "~/components/product/pages.css";
import { useCallback } from "react";
import { useLoaderData } from "react-router";
import { ListScreen } from "~/components/product/ListScreen";
import { pageTitle } from "~/utils/meta";
import { getList } from "~/utils/storeApi";
import { loadList } from "~/utils/routeData";

export const meta = () => [{ title: pageTitle("특가 세트") }];

/** Special-price sets: bundles of volumes sold together at a discount (comic packages). */
export function clientLoader({ request }: { request: Request }) {
  return loadList("/comic/hq", {}, request.signal);
}

export default function Screen() {
  const data = useLoaderData<typeof clientLoader>();
  const load = useCallback((page: number) => getList("/comic/hq", { page }), []);
  return (
    <ListScreen title="특가 세트" initial={data} load={load}>
      <p className={s.intro}>여러 권을 묶어 할인된 가격에 만나는 세트입니다. 세트의 권은 언제나 1권부터 보여 드립니다.</p>
    </ListScreen>
  );
}
