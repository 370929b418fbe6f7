// The edge's home API: GET /home/api/v1/home?section=all|wt|cm|eb.
import type { Http } from "./http";
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
