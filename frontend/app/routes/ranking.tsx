import { useCallback, useEffect, useState } from "react";
import { useLoaderData, useSearchParams } from "react-router";
import { ProductRows } from "~/components/product/ProductGrid";
import { TitleBar } from "~/components/TitleBar/TitleBar";
import { http } from "~/utils/api";
import { pageTitle } from "~/utils/meta";
import { API, type Paging, type Ranked } from "~/utils/storeApi";
import { guard } from "~/utils/routeData";
import * as s from "~/components/product/product.css";
import * as pg from "~/components/product/pages.css";

export const meta = () => [{ title: pageTitle("랭킹") }];

const CATEGORIES = [
  { v: "all", l: "전체" },
  { v: "wt", l: "웹툰" },
  { v: "cm", l: "만화" },
  { v: "eb", l: "소설" },
];
const TABS = [
  { v: "real", l: "실시간" },
  { v: "daily", l: "일간" },
  { v: "weekly", l: "주간" },
  { v: "new", l: "신작" },
];

/** The best ranking: category defaults to all, tab to real (seed §2). */
export function rankingQuery(sp: URLSearchParams) {
  const category = CATEGORIES.some((c) => c.v === sp.get("category")) ? sp.get("category")! : "all";
  const tab = TABS.some((c) => c.v === sp.get("tab")) ? sp.get("tab")! : "real";
  return { category, tab };
}

type RankAnswer = { category: string; tab: string; list: Ranked[]; paging: Paging };
const fetchRank = (q: { category: string; tab: string }, page: number, signal?: AbortSignal) =>
  http<RankAnswer>(`${API}/rankings`, { query: { ...q, page, size: 30 }, signal });

export function clientLoader({ request }: { request: Request }) {
  return guard(fetchRank(rankingQuery(new URL(request.url).searchParams), 1, request.signal));
}

export default function Screen() {
  const first = useLoaderData<typeof clientLoader>();
  const [sp, setSp] = useSearchParams();
  const q = rankingQuery(sp);
  const [rows, setRows] = useState(first.list);
  const [paging, setPaging] = useState(first.paging);
  useEffect(() => {
    setRows(first.list);
    setPaging(first.paging);
  }, [first]);
  const more = useCallback(async () => {
    const next = await fetchRank(q, paging.curPage + 1).catch(() => null);
    if (!next) return;
    setRows((r) => [...r, ...next.list]);
    setPaging(next.paging);
  }, [q.category, q.tab, paging.curPage]); // eslint-disable-line react-hooks/exhaustive-deps
  const set = (k: string, v: string) => {
    const n = new URLSearchParams(sp);
    n.set(k, v);
    setSp(n, { preventScrollReset: true });
  };
  return (
    <section aria-label="랭킹" className={s.page}>
      <TitleBar title="랭킹" />
      <div className={s.tabs} role="tablist" aria-label="분야">
        {CATEGORIES.map((c) => (
          <button key={c.v} role="tab" aria-selected={q.category === c.v} className={q.category === c.v ? `${s.tab} ${s.tabActive}` : s.tab} onClick={() => set("category", c.v)}>
            {c.l}
          </button>
        ))}
      </div>
      <div className={s.controls} role="tablist" aria-label="기간">
        {TABS.map((c) => (
          <button key={c.v} role="tab" aria-selected={q.tab === c.v} className={q.tab === c.v ? `${s.chip} ${s.chipAccent} ${pg.chipButton}` : `${s.chip} ${pg.chipButton}`} onClick={() => set("tab", c.v)}>
            {c.l}
          </button>
        ))}
      </div>
      {rows.length === 0 ? (
        <p className={s.empty}>랭킹을 집계하고 있습니다.</p>
      ) : (
        <ProductRows items={rows.map((r) => r.item)} rank={rows} label="랭킹 목록" />
      )}
      {paging.curPage < paging.pageCount && (
        <button type="button" className={s.more} onClick={more} data-testid="list-more">
          더 보기
        </button>
      )}
    </section>
  );
}
