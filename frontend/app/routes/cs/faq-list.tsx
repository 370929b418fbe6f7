import { Form, useLoaderData, useParams, useSearchParams } from "react-router";
import { Pager } from "~/components/product/Pager";
import { Tabs } from "~/components/product/Tabs";
import { TitleBar } from "~/components/TitleBar/TitleBar";
import { http } from "~/utils/api";
import { pageTitle } from "~/utils/meta";
import { API, type Paging } from "~/utils/storeApi";
import { FAQ_CATEGORIES, faqCid } from "~/utils/cs";
import { guard, pageOf } from "~/utils/routeData";
import * as s from "~/components/product/cs.css";
import * as c from "~/components/product/csForm.css";

export const meta = () => [{ title: pageTitle("자주 묻는 질문") }];

type Faq = { id: number; cid: string; question: string; answer: string };

export function clientLoader({ request, params }: { request: Request; params: { category?: string; page?: string } }) {
  const keyword = new URL(request.url).searchParams.get("keyword") ?? undefined;
  return guard(
    http<{ list: Faq[]; paging: Paging }>(`${API}/cs/faq`, {
      query: { cid: faqCid(params.category), keyword: keyword || undefined, page: pageOf(params.page), size: 15 },
      signal: request.signal,
    }),
  );
}

export default function Screen() {
  const { list, paging } = useLoaderData<typeof clientLoader>();
  const category = useParams().category;
  const [sp] = useSearchParams();
  const keyword = sp.get("keyword") ?? "";
  const base = `/cs/faq/list/${category ?? "all"}`;
  const tabs = [{ to: "/cs/faq/list", label: "전체" }, ...FAQ_CATEGORIES.map((c) => ({ to: `/cs/faq/list/${c.key}`, label: c.label, end: false }))];
  return (
    <section aria-label="자주 묻는 질문">
      <TitleBar title="자주 묻는 질문" />
      <Tabs tabs={tabs} label="FAQ 분류" />
      <Form method="get" className={s.search} role="search">
        <input className={`${s.input} ${c.grow}`} name="keyword" defaultValue={keyword} placeholder="궁금한 내용을 검색하세요" aria-label="FAQ 검색" />
        <button className={`${s.button} ${c.buttonWide}`} type="submit">
          검색
        </button>
      </Form>
      {list.length === 0 && <p className={s.text}>검색 결과가 없습니다.</p>}
      <ul className={s.list}>
        {list.map((f) => (
          <li key={f.id} className={s.item}>
            <details>
              <summary className={s.q}>Q. {f.question}</summary>
              <p className={s.a}>{f.answer}</p>
            </details>
          </li>
        ))}
      </ul>
      <Pager base={base} cur={paging.curPage} count={paging.pageCount} search={keyword ? `?keyword=${encodeURIComponent(keyword)}` : ""} />
    </section>
  );
}
