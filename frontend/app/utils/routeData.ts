// Helpers the list routes share: loading with the error page on failure, and
// the tabs of each area.
import { getGenres, getList, type ListAnswer } from "./storeApi";
import { routeError } from "~/utils/routeError";
import type { Tab } from "~/components/product/Tabs";

export async function loadList(path: string, query: Record<string, string | number | undefined>, signal?: AbortSignal): Promise<ListAnswer> {
  try {
    return await getList(path, query, signal);
  } catch (e) {
    throw routeError(e);
  }
}

export async function guard<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (e) {
    throw routeError(e);
  }
}

export const pageOf = (v: string | undefined) => {
  const n = Number(v);
  return Number.isInteger(n) && n > 0 ? n : 1;
};

/** Genre tabs of an area: all, then every integrated genre. */
export async function genreTabs(area: "webtoon" | "comic" | "novel", signal?: AbortSignal): Promise<Tab[]> {
  try {
    const g = await getGenres(signal);
    const base = area === "novel" ? "/novel/genre" : `/${area}/genre`;
    return [{ to: `${base}/all`, label: "전체" }, ...g.genres.map((x) => ({ to: `${base}/${x.integratedGenreId}`, label: x.name }))];
  } catch {
    return [];
  }
}

export const AREA_TABS: Record<"webtoon" | "comic" | "novel", Tab[]> = {
  webtoon: [
    { to: "/webtoon", label: "홈" },
    { to: "/webtoon/weekday", label: "요일연재", end: false },
    { to: "/webtoon/todayup", label: "오늘 업데이트" },
    { to: "/webtoon/best", label: "베스트" },
    { to: "/webtoon/original", label: "오리지널" },
    { to: "/webtoon/shortstory", label: "단편" },
    { to: "/webtoon/genre/all", label: "장르", end: false },
  ],
  comic: [
    { to: "/comic", label: "홈" },
    { to: "/comic/best", label: "베스트" },
    { to: "/comic/benefit", label: "꿀혜택", end: false },
    { to: "/comic/heroism", label: "작가전", end: false },
    { to: "/comic/hq", label: "패키지", end: false },
    { to: "/comic/genre/all", label: "장르", end: false },
  ],
  novel: [
    { to: "/novel", label: "홈" },
    { to: "/novel/best", label: "베스트" },
    { to: "/novel/series", label: "시리즈" },
    { to: "/novel/romance", label: "로맨스" },
    { to: "/novel/fanmu", label: "판타지/무협" },
    { to: "/novel/bl", label: "BL" },
    { to: "/novel/others", label: "일반" },
    { to: "/novel/genre/all", label: "장르", end: false },
  ],
};
