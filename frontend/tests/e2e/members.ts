// Helpers of the screens' e2e suite: members made through the writer's real
// API and works picked from what the edge serves.
import { randomUUID } from "node:crypto";
import { expect, type APIRequestContext, type BrowserContext, type Page } from "@playwright/test";

export const PW = "screens-pass-123";
export const newEmail = () => `scr-${randomUUID().slice(0, 12)}@example.com`;

export async function member(ctx: BrowserContext | Page, email = newEmail()) {
  const res = await ctx.request.post("/home/api/v1/auth/signup", { data: { email, password: PW } });
  expect(res.status(), await res.text()).toBe(201);
  // The shell's interests-genres sheet opens for new web members: decline it.
  await ctx.request.post("/home/api/v1/users/interests/genres/rejection");
  return email;
}

export async function loginAs(ctx: BrowserContext | Page, email: string) {
  const res = await ctx.request.post("/home/api/v1/auth/login", { data: { email, password: PW } });
  expect(res.status(), await res.text()).toBe(200);
}

type Vol = { no: number; isFree: boolean; pages: number; previewPages: number; rentalInfo: { price: number }; buyInfo: { price: number } };
type Detail = { header: { code: number }; prodInfo: { pid: string; section: string; title: string; isSpecialPriceSet: boolean; age: number }; volList: Vol[]; salesInfo?: { isRental: boolean; isBuy: boolean } };

/** A work of the area whose first paid volume has more pages than its preview. */
export async function paidWork(req: APIRequestContext, area: "webtoon" | "comic" | "novel", needPaid = area === "webtoon") {
  const list = await (await req.get(`/home/api/v1/${area}/genre/all?size=60&sort=popular`)).json();
  for (const it of list.list as { pid: string; isAdult: boolean }[]) {
    if (it.isAdult) continue;
    const d = (await (await req.get(`/home/api/v1/products/${it.pid}`)).json()) as Detail;
    if (d.header.code !== 200 || d.prodInfo.isSpecialPriceSet) continue;
    const vol = d.volList.find((v) => !v.isFree && v.pages > v.previewPages && v.buyInfo.price > 0 && v.buyInfo.price <= 500);
    const free = d.volList.find((v) => v.isFree && v.pages > 1);
    if (free && d.volList.length >= 2 && (!needPaid || (vol && d.salesInfo?.isBuy))) return { detail: d, vol: vol ?? free, free };
  }
  throw new Error(`no paid ${area} work in the demo catalog`);
}

export const sectionPath = (s: string) => (s === "WT" ? "webtoon" : s === "CM" ? "comic" : "novel");
