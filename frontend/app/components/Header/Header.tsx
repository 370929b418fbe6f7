import { Link, NavLink, useLocation, useSearchParams } from "react-router";
import { headerKind, sectionOf, SECTION_LABEL, TOP_TABS, type SectionKey } from "~/utils/layout";
import { homeTab, tabUrl } from "~/utils/home";
import { PRODUCT_NAME } from "~/utils/meta";
import * as s from "./Header.css";

const MenuIcon = () => (
  <svg width="22" height="22" viewBox="0 0 24 24" aria-hidden="true">
    <path d="M4 6h16M4 12h16M4 18h16" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
  </svg>
);
const HomeIcon = () => (
  <svg width="22" height="22" viewBox="0 0 24 24" aria-hidden="true">
    <path d="M4 11l8-7 8 7v9h-5v-6H9v6H4z" fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinejoin="round" />
  </svg>
);

/** Header by path prefix (seed §2): none, the section header, or the main navigation. */
export function Header({ onMenu }: { onMenu?: () => void }) {
  const { pathname } = useLocation();
  const kind = headerKind(pathname);
  if (kind === "none") return null;
  if (kind === "section") return <SectionHeader section={sectionOf(pathname) as SectionKey} onMenu={onMenu} />;
  return <MainHeader onMenu={onMenu} />;
}

function MainHeader({ onMenu }: { onMenu?: () => void }) {
  const [params] = useSearchParams();
  const { pathname } = useLocation();
  // The tab shown on the home page (an unknown ?tab= shows the series tab).
  const current = pathname === "/" ? homeTab(params) : null;
  return (
    <header className={s.header} data-header="main">
      <div className={s.row}>
        <Link to="/" className={s.logo}>
          {PRODUCT_NAME}
        </Link>
        <Link to="/search" className={s.iconButton} aria-label="검색">
          <svg width="22" height="22" viewBox="0 0 24 24" aria-hidden="true">
            <circle cx="11" cy="11" r="6.5" fill="none" stroke="currentColor" strokeWidth="2" />
            <path d="M16 16l4 4" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
          </svg>
        </Link>
        {onMenu && (
          <button type="button" className={s.iconButton} aria-label="메뉴 열기" onClick={onMenu}>
            <MenuIcon />
          </button>
        )}
      </div>
      <nav className={s.tabs} aria-label="주요 메뉴">
        {TOP_TABS.map((t) => (
          <Link
            key={t.key}
            to={tabUrl(t.key)}
            className={s.tab}
            aria-current={current === t.key ? "page" : undefined}
          >
            {t.label}
          </Link>
        ))}
      </nav>
    </header>
  );
}

function SectionHeader({ section, onMenu }: { section: SectionKey; onMenu?: () => void }) {
  return (
    <header className={s.header} data-header="section">
      <div className={s.row}>
        <h1 className={s.sectionTitle}>
          <Link to={`/${section}`}>{SECTION_LABEL[section]}</Link>
        </h1>
        <Link to="/" className={s.iconButton} aria-label="홈">
          <HomeIcon />
        </Link>
        {onMenu && (
          <button type="button" className={s.iconButton} aria-label="메뉴 열기" onClick={onMenu}>
            <MenuIcon />
          </button>
        )}
      </div>
      <nav className={s.tabs} aria-label={`${SECTION_LABEL[section]} 메뉴`}>
        {(["webtoon", "comic", "novel"] as const).map((k) => (
          <NavLink key={k} to={`/${k}`} className={s.tab}>
            {SECTION_LABEL[k]}
          </NavLink>
        ))}
      </nav>
    </header>
  );
}
