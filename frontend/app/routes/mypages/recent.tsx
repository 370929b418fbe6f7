import { Link, useLoaderData } from "react-router";
import { loadRecent, RecentList } from "~/components/product/Recent";
import { TitleBar } from "~/components/TitleBar/TitleBar";
import { pageTitle } from "~/utils/meta";
import { guard, pageOf } from "~/utils/routeData";
import { Pager } from "~/components/product/Pager";
import * as s from "~/components/product/product.css";
import * as pg from "~/components/product/pages.css";

export const meta = () => [{ title: pageTitle("최근 본 작품") }];

export function clientLoader({ request, params }: { request: Request; params: { page?: string } }) {
  return guard(loadRecent(pageOf(params.page), request.signal));
}

export default function Screen() {
  const data = useLoaderData<typeof clientLoader>();
  return (
    <section aria-label="최근 본 작품" className={s.page}>
      <TitleBar title="최근 본 작품" />
      {data.login && data.list.length > 0 && (
        <div className={`${s.controls} ${pg.controlsTop}`}>
          <span className={s.count}>총 {data.totalCount}작품</span>
          <Link to="/mypages/recent/edit" className={s.select}>
            편집
          </Link>
        </div>
      )}
      <RecentList data={data} edit={false} />
      <Pager base="/mypages/recent" cur={data.curPage} count={data.pageCount} />
    </section>
  );
}
