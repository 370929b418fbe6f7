import { NavLink } from "react-router";
import * as s from "./product.css";

export type Tab = { to: string; label: string; end?: boolean };

/** Genre tabs: horizontally scrolling pills, the current one filled. */
export function Tabs({ tabs, label }: { tabs: Tab[]; label: string }) {
  return (
    <nav className={s.tabs} aria-label={label}>
      {tabs.map((t) => (
        <NavLink key={t.to} to={t.to} end={t.end ?? true} className={({ isActive }) => (isActive ? `${s.tab} ${s.tabActive}` : s.tab)} preventScrollReset>
          {t.label}
        </NavLink>
      ))}
    </nav>
  );
}
