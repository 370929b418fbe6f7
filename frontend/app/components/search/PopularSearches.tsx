import type { PopularSearch } from "~/utils/search";
import * as s from "./search.css";

/** 인기 검색어: what most readers searched lately; picking one searches it. Nothing when there are none. */
export function PopularSearches({ items, onPick }: { items: PopularSearch[]; onPick: (q: string) => void }) {
  if (items.length === 0) return null;
  return (
    <section className={s.section} aria-labelledby="popular-searches" data-testid="popular-searches">
      <div className={s.head}>
        <h2 id="popular-searches" className={s.heading}>
          인기 검색어
        </h2>
      </div>
      <ol className={s.popular}>
        {items.map((it) => (
          <li key={it.keyword} className={s.popularItem}>
            <button type="button" className={s.popularButton} onClick={() => onPick(it.keyword)}>
              <span className={it.rank <= 3 ? `${s.popularRank} ${s.popularRankTop}` : s.popularRank} aria-hidden="true">
                {it.rank}
              </span>
              <span className={s.popularKeyword}>{it.keyword}</span>
            </button>
          </li>
        ))}
      </ol>
    </section>
  );
}
