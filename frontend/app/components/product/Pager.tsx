import { Link } from "react-router";
import * as s from "./cs.css";

/** Numbered pages around the current one; base + "/" + n is each page's address. */
export function Pager({ base, cur, count, search = "" }: { base: string; cur: number; count: number; search?: string }) {
  if (count <= 1) return null;
  const from = Math.max(1, Math.min(cur - 2, count - 4));
  const pages = Array.from({ length: Math.min(5, count) }, (_, i) => from + i);
  return (
    <nav className={s.pager} aria-label="페이지">
      {cur > 1 && <Link className={s.pageLink} to={`${base}/${cur - 1}${search}`}>‹</Link>}
      {pages.map((p) => (
        <Link key={p} className={p === cur ? `${s.pageLink} ${s.pageCur}` : s.pageLink} to={`${base}/${p}${search}`} aria-current={p === cur ? "page" : undefined}>
          {p}
        </Link>
      ))}
      {cur < count && <Link className={s.pageLink} to={`${base}/${cur + 1}${search}`}>›</Link>}
    </nav>
  );
}
