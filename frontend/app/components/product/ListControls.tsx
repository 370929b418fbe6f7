import { useSearchParams } from "react-router";
import * as s from "./product.css";

export const SORTS = [
  { v: "recent", l: "최신순" },
  { v: "popular", l: "인기순" },
  { v: "new", l: "신작순" },
  { v: "title", l: "제목순" },
  { v: "rating", l: "별점순" },
  { v: "zzim", l: "찜 많은순" },
];
export const FILTERS = [
  { v: "all", l: "전체" },
  { v: "free", l: "무료회차" },
  { v: "wff", l: "기다리면 무료" },
  { v: "gift", l: "선물" },
  { v: "jumping", l: "점핑패스" },
  { v: "ing", l: "연재중" },
  { v: "end", l: "완결" },
  { v: "discount", l: "할인" },
];

/** listQuery reads filter, sort (default recent) and style (grid) from the address. */
export function listQuery(sp: URLSearchParams) {
  const filter = FILTERS.some((f) => f.v === sp.get("filter")) ? sp.get("filter")! : "all";
  const sort = SORTS.some((f) => f.v === sp.get("sort")) ? sp.get("sort")! : "recent";
  const style = sp.get("style") === "list" ? "list" : "grid";
  return { filter, sort, style } as const;
}

/** Filter, sort and list-style options of a genre list; they live in the address. */
export function ListControls() {
  const [sp, setSp] = useSearchParams();
  const q = listQuery(sp);
  const set = (k: string, v: string) => {
    const n = new URLSearchParams(sp);
    n.set(k, v);
    setSp(n, { preventScrollReset: true });
  };
  return (
    <>
      <select className={s.select} aria-label="필터" value={q.filter} onChange={(e) => set("filter", e.target.value)}>
        {FILTERS.map((f) => (
          <option key={f.v} value={f.v}>
            {f.l}
          </option>
        ))}
      </select>
      <select className={s.select} aria-label="정렬" value={q.sort} onChange={(e) => set("sort", e.target.value)}>
        {SORTS.map((f) => (
          <option key={f.v} value={f.v}>
            {f.l}
          </option>
        ))}
      </select>
      <button
        type="button"
        className={s.select}
        aria-label={q.style === "grid" ? "목록형으로 보기" : "바둑판형으로 보기"}
        onClick={() => set("style", q.style === "grid" ? "list" : "grid")}
      >
        {q.style === "grid" ? "☰" : "▦"}
      </button>
    </>
  );
}
