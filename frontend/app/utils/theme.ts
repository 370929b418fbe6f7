// Themes (seed §2, §4, §9): light, dark or auto (follows the system and its
// changes). The chosen setting lives in the theme cookie for 30 days; the
// resolved theme is the html element's data-theme attribute, and the browser
// theme colour follows it.
import { getCookie, setCookie } from "./cookies";
import { themeColor } from "~/styles/tokens";

export type ThemeSetting = "light" | "dark" | "auto";
export type Theme = "light" | "dark";

export const THEME_COOKIE = "theme";
export const THEME_COOKIE_MAX_AGE = 2_592_000; // 30 days
export const THEME_COLOR = themeColor;

export function parseSetting(v: string | null | undefined): ThemeSetting {
  return v === "light" || v === "dark" || v === "auto" ? v : "auto";
}

export function resolveTheme(setting: ThemeSetting, systemDark: boolean): Theme {
  if (setting === "auto") return systemDark ? "dark" : "light";
  return setting;
}

export function readSetting(doc: Document = document): ThemeSetting {
  return parseSetting(getCookie(THEME_COOKIE, doc));
}

const darkQuery = "(prefers-color-scheme: dark)";
export const systemPrefersDark = (win: Window = window) => !!win.matchMedia?.(darkQuery).matches;

/** applyTheme writes the attributes and the theme-color meta. */
export function applyTheme(setting: ThemeSetting, systemDark: boolean, doc: Document = document): Theme {
  const theme = resolveTheme(setting, systemDark);
  const root = doc.documentElement;
  root.setAttribute("data-theme", theme);
  root.setAttribute("data-theme-setting", setting);
  let meta = doc.querySelector('meta[name="theme-color"]');
  if (!meta) {
    meta = doc.createElement("meta");
    meta.setAttribute("name", "theme-color");
    doc.head.appendChild(meta);
  }
  meta.setAttribute("content", THEME_COLOR[theme]);
  return theme;
}

export function saveSetting(setting: ThemeSetting, doc: Document = document): void {
  setCookie(THEME_COOKIE, setting, { maxAge: THEME_COOKIE_MAX_AGE }, doc);
}

/** watchSystem calls onChange when the system preference flips; returns the unsubscribe. */
export function watchSystem(onChange: (dark: boolean) => void, win: Window = window): () => void {
  const mq = win.matchMedia?.(darkQuery);
  if (!mq) return () => {};
  const h = (e: MediaQueryListEvent) => onChange(e.matches);
  mq.addEventListener("change", h);
  return () => mq.removeEventListener("change", h);
}

/**
 * The boot script runs before first paint (inlined in index.html), so the page
 * never flashes the wrong theme. It repeats applyTheme in plain ES5.
 */
export const THEME_BOOT_SCRIPT = `(function(){try{var m=document.cookie.match(/(?:^|; )${THEME_COOKIE}=(light|dark|auto)/);var s=m?m[1]:"auto";var d=window.matchMedia&&window.matchMedia("${darkQuery}").matches;var t=s==="auto"?(d?"dark":"light"):s;var r=document.documentElement;r.setAttribute("data-theme",t);r.setAttribute("data-theme-setting",s);var e=document.querySelector('meta[name="theme-color"]');if(!e){e=document.createElement("meta");e.setAttribute("name","theme-color");document.head.appendChild(e);}e.setAttribute("content",t==="dark"?"${themeColor.dark}":"${themeColor.light}");}catch(x){}})();`;
