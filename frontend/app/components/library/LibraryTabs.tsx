import { NavLink } from "react-router";
import * as p from "~/components/product/product.css";
import { SHELVES } from "~/utils/library";

/** The library's shelves and the gift box, as tabs. */
export function LibraryTabs() {
  return (
    <nav className={p.tabs} aria-label="서재 목록">
      {SHELVES.map((t) => (
        <NavLink
          key={t.shelf}
          to={t.shelf === "gifts" ? "/mypages/gifts" : `/mypages/library/${t.shelf}`}
          end={false}
          className={({ isActive }) => (isActive ? `${p.tab} ${p.tabActive}` : p.tab)}
        >
          {t.label}
        </NavLink>
      ))}
    </nav>
  );
}
