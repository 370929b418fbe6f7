import * as s from "./search.css";

/** Recent searches kept on the device: pick one again, delete one, or clear all. */
export function RecentSearches({ items, onPick, onRemove, onClear }: { items: string[]; onPick: (q: string) => void; onRemove: (q: string) => void; onClear: () => void }) {
  return (
    <section className={s.section} aria-labelledby="recent-searches">
      <div className={s.head}>
        <h2 id="recent-searches" className={s.heading}>
          최근 검색어
        </h2>
        {items.length > 0 && (
          <button type="button" className={s.textButton} onClick={onClear}>
            전체 삭제
          </button>
        )}
      </div>
      {items.length === 0 ? (
        <p className={s.status}>최근 검색어가 없습니다.</p>
      ) : (
        <ul className={s.chips} aria-label="최근 검색어">
          {items.map((q) => (
            <li key={q} className={s.chip}>
              <button type="button" className={s.chipQuery} onClick={() => onPick(q)}>
                {q}
              </button>
              <button type="button" className={s.chipRemove} aria-label={`${q} 삭제`} onClick={() => onRemove(q)}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
