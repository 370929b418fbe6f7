// The edge's home API: GET /home/api/v1/home?section=all|wt|cm|eb. The
// top-level tabs (seed §2: series, romance, fanmu, bl, others) are categories
// the edge serves per area (GET /home/api/v1/{webtoon|comic|novel}/genre/{tab});
// the series tab is the whole home.
import type { Http } from "./http";
import { TOP_TABS } from "./layout";
import type { ProductItem } from "./product";

export type Banner = { id: number; title: string; imageUrl: string; linkUrl: string };
export type HomeSection = { key: string; title: string; moreUrl: string; list: ProductItem[] };
export type HomeAnswer = {
  header: { code: number; message: string };
  area: string;
  banners: Banner[];
  sections: HomeSection[];
};

export const HOME_PATH = "/home/api/v1/home";

export function loadHome(http: Http, area: "all" | "wt" | "cm" | "eb" = "all", signal?: AbortSignal) {
  return http<HomeAnswer>(HOME_PATH, { query: { section: area }, signal });
}

export type HomeTab = (typeof TOP_TABS)[number]["key"];
export const DEFAULT_TAB: HomeTab = "series";

/** The tab the address asks for (`?tab=`); missing or unknown is the series tab. */
export function homeTab(search: string | URLSearchParams): HomeTab {
  const v = (typeof search === "string" ? new URLSearchParams(search) : search).get("tab");
  return TOP_TABS.find((t) => t.key === v)?.key ?? DEFAULT_TAB;
}

/** Where a tab lives in the address: the series tab is `/`. */
export const tabUrl = (tab: HomeTab) => (tab === DEFAULT_TAB ? "/" : `/?tab=${tab}`);

/** Works per shelf, as the edge's home shelves. */
export const TAB_SHELF = 12;
export const TAB_AREAS = [
  { area: "webtoon", label: "웹툰" },
  { area: "comic", label: "만화" },
  { area: "novel", label: "소설" },
] as const;

type ListAnswer = { list: ProductItem[] };

/**
 * loadHomeTab: the series tab is the home; another tab is one shelf per area
 * with that category's most popular works (areas without any are left out),
 * each with a more-link to the area's genre list of the category.
 */
export async function loadHomeTab(http: Http, tab: HomeTab, signal?: AbortSignal): Promise<HomeAnswer> {
  if (tab === DEFAULT_TAB) return loadHome(http, "all", signal);
  const label = TOP_TABS.find((t) => t.key === tab)!.label;
  const lists = await Promise.all(
    TAB_AREAS.map((a) => http<ListAnswer>(`/home/api/v1/${a.area}/genre/${tab}`, { query: { sort: "popular", size: TAB_SHELF }, signal })),
  );
  const sections = TAB_AREAS.map((a, i) => ({
    key: `${a.area}-${tab}`,
    title: `${a.label} ${label}`,
    moreUrl: `/${a.area}/genre/${tab}`,
    list: lists[i].list.slice(0, TAB_SHELF),
  })).filter((s) => s.list.length > 0);
  return { header: { code: 200, message: "" }, area: tab, banners: [], sections };
}
