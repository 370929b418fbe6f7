import { ProductGrid } from "~/components/product/ProductGrid";
import type { ProductItem } from "~/utils/product";
import * as s from "./search.css";

/** The works found for q, or the empty state; opening one keeps q as a recent search. */
export function SearchResults({ q, items, total, onOpen }: { q: string; items: ProductItem[]; total: number; onOpen: () => void }) {
  return (
    <section aria-labelledby="search-results">
      <div className={`${s.head} ${s.section}`}>
        <h2 id="search-results" className={s.heading}>
          ‘{q}’ 검색 결과 {total.toLocaleString("ko-KR")}건
        </h2>
      </div>
      {items.length === 0 ? (
        <p className={s.status} role="status">
          검색 결과가 없습니다. 다른 검색어나 초성으로 찾아 보세요.
        </p>
      ) : (
        <ProductGrid items={items} label="검색 결과" onOpen={onOpen} eager={6} />
      )}
    </section>
  );
}
