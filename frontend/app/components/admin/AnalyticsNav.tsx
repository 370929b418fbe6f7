import { NavLink } from "react-router";
import * as s from "./analytics.css";

const SCREENS = [
  { to: "/admin/analytics", label: "리포트" },
  { to: "/admin/analytics/live", label: "실시간" },
  { to: "/admin/analytics/explore", label: "리텐션 · 퍼널 · 유입" },
];

/** The analysts' screens. */
export function AnalyticsNav() {
  return (
    <nav className={s.nav} aria-label="분석 화면">
      {SCREENS.map((x) => (
        <NavLink key={x.to} to={x.to} end className={({ isActive }) => (isActive ? `${s.link} ${s.navCurrent}` : s.link)}>
          {x.label}
        </NavLink>
      ))}
    </nav>
  );
}
