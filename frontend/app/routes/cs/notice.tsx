import { useLoaderData } from "react-router";
import { Pager } from "~/components/product/Pager";
import { TitleBar } from "~/components/TitleBar/TitleBar";
import { http } from "~/utils/api";
import { pageTitle } from "~/utils/meta";
import { API, type Paging } from "~/utils/storeApi";
import type { ProductItem } from "~/utils/product";
import { guard, pageOf } from "~/utils/routeData";
import * as s from "~/components/product/cs.css";

export const meta = () => [{ title: pageTitle("공지사항") }];

type Notice = { id: number; title: string; body: string; postedAt: string; list?: ProductItem[] };

export function clientLoader({ request, params }: { request: Request; params: { page?: string } }) {
  return guard(http<{ list: Notice[]; paging: Paging }>(`${API}/cs/notices`, { query: { page: pageOf(params.page), size: 15 }, signal: request.signal }));
}

export default function Screen() {
  const { list, paging } = useLoaderData<typeof clientLoader>();
  return (
    <section aria-label="공지사항">
      <TitleBar title="공지사항" />
      {list.length === 0 && <p className={s.text}>공지사항이 없습니다.</p>}
      <ul className={s.list}>
        {list.map((n) => (
          <li key={n.id} className={s.item}>
            <details>
              <summary className={s.q}>
                {n.title}
                <span className={s.date}>{new Date(n.postedAt).toLocaleDateString("ko-KR")}</span>
              </summary>
              <p className={s.a}>{n.body}</p>
              
            </details>
          </li>
        ))}
      </ul>
      <Pager base="/cs/notice" cur={paging.curPage} count={paging.pageCount} />
    </section>
  );
}
