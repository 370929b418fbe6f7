// The detail page's other ways to open volumes, against the real stack: rent
// one volume, buy all and rent all, a comic ticket, a read coupon from the
// gift box, a pass, a bought jumping pass on the newest volume; and a second
// member reporting and blocking a review. Coupons and tickets have no source a
// member can call (seed §4, writer/admin/coupons.go): the admin API grants
// them, as customer service would.
import { randomUUID } from "node:crypto";
import type { APIRequestContext, Browser, BrowserContext, Page } from "@playwright/test";
import { assertNoConsoleErrors, expect, test, watchConsole } from "./fixtures";
import { member, sectionPath } from "./members";

const ADMIN_TOKEN = process.env.ADMIN_TOKEN ?? "dev-admin-token";
const DAY = 86_400_000;
const won = (n: number) => `${n.toLocaleString("en-US")}원`;

type Vol = { no: number; title: string; isFree: boolean; pages: number; previewPages: number; rentalInfo: { price: number }; buyInfo: { price: number } };
type Part = { leftPrice: number; leftCount: number; term?: number };
type Detail = {
  header: { code: number };
  prodInfo: { pid: string; section: string; title: string; isSpecialPriceSet: boolean; age: number };
  volList: Vol[];
  salesInfo?: { isBuy: boolean; isRental: boolean; isTicket: boolean; buy: Part; rental: Part };
};
type VolAuth = { no: number; rentalInfo: { isAuth: boolean; authEndDate?: string }; buyInfo: { isAuth: boolean } };
type Status = { isBuy: boolean; isRental: boolean; buyLeftPrice: number; buyLeftCount: number; rentLeftPrice: number; rentLeftCount: number; volList: VolAuth[] };
type Coupons = {
  WCPInfo?: { excludeNewest: number; isAvailable: boolean; waitTime: number };
  RCPInfo: { count: number; usedCnt: number; isRecv: boolean };
  PCPInfo: { passCount: number; jumpingCount: number; jumpingExpireDates: string[] };
};
type Wallet = { bluemoney: number; blueMileage: number; shownAmount: number; comicTickets: number; novelTickets: number };

const json = async <T>(req: APIRequestContext, url: string): Promise<T> => {
  const res = await req.get(url);
  expect(res.status(), `${url}: ${await res.text()}`).toBe(200);
  return (await res.json()) as T;
};
const status = (req: APIRequestContext, pid: string) => json<Status>(req, `/home/api/v1/purchases/status?pid=${pid}`);
const coupons = (req: APIRequestContext, pid: string) => json<Coupons>(req, `/home/api/v1/coupons?pid=${pid}`);
const wallet = (req: APIRequestContext) => json<Wallet>(req, "/home/api/v1/wallet");
const volOf = (st: Status, no: number) => st.volList.find((v) => v.no === no)!;
const paidNos = (d: Detail) => d.volList.filter((v) => !v.isFree).map((v) => v.no);

/** The first non-adult, on-sale work of the area (popular first) for which pick finds something. */
async function findWork<T>(req: APIRequestContext, area: "webtoon" | "comic" | "novel", pick: (d: Detail) => T | undefined | false) {
  const list = await json<{ list: { pid: string; isAdult: boolean }[] }>(req, `/home/api/v1/${area}/genre/all?size=60&sort=popular`);
  for (const it of list.list) {
    if (it.isAdult) continue;
    const d = await json<Detail>(req, `/home/api/v1/products/${it.pid}`);
    if (d.header.code !== 200 || d.prodInfo.age >= 19 || d.prodInfo.isSpecialPriceSet) continue;
    const got = pick(d);
    if (got) return { detail: d, got };
  }
  throw new Error(`no fitting ${area} work in the demo catalog`);
}

/** A paid volume with more pages than its preview, optionally filtered. */
const readableVol = (d: Detail, f: (v: Vol) => boolean = () => true) => d.volList.find((v) => !v.isFree && v.pages > v.previewPages && f(v));

const uidOf = async (req: APIRequestContext) => (await json<{ authInfo: { uid: string } }>(req, "/home/api/v1/auth/me")).authInfo.uid;

/** Grants the member coupons through the admin API (POST /admin/api/v1/users/{uid}/coupons). */
async function grant(req: APIRequestContext, uid: string, body: Record<string, unknown>) {
  const res = await req.post(`/admin/api/v1/users/${uid}/coupons`, {
    headers: { Authorization: `Bearer ${ADMIN_TOKEN}` },
    data: { expiresAt: new Date(Date.now() + 30 * DAY).toISOString(), ...body },
  });
  expect(res.status(), await res.text()).toBe(201);
}

const detailPath = (d: Detail) => `/${sectionPath(d.prodInfo.section)}/detail/${d.prodInfo.pid}?tab=V`;
const volRow = (page: Page, no: number) => page.locator(`[data-testid=vol][data-no="${no}"]`);
const volState = (page: Page, no: number) => volRow(page, no).locator("[data-testid=vol-state]");

/** The rental ends the work's term after now (writer: now + rent_days). */
function expectRentalEnd(end: string | undefined, days: number) {
  expect(end, "a rental has an end date").toBeTruthy();
  expect(Math.abs(Date.parse(end!) - (Date.now() + days * DAY))).toBeLessThan(10 * 60_000);
}

/**
 * Opens the volume's sheet and picks the option. The answer waits until the
 * undo window has passed and quick view shows the volume in full, its pages
 * served with the content token.
 */
async function pickOption(page: Page, d: Detail, v: Vol, kind: string) {
  await volRow(page, v.no).click();
  const sheet = page.getByTestId("unlock-sheet");
  await expect(sheet).toBeVisible();
  await sheet.locator(`[data-kind=${kind}]`).click();
  return async function readsInFull() {
    await expect(page).toHaveURL(new RegExp(`/viewer\\?pid=${d.prodInfo.pid}&no=${v.no}$`), { timeout: 10_000 });
    await expect(page.getByTestId("viewer")).toHaveAttribute("data-mode", "full");
    if (d.prodInfo.section === "WT") await expect(page.getByTestId("page")).toHaveCount(v.pages);
    else await expect(page.getByTestId("page").first()).toBeVisible();
    const src = await page.getByTestId("page").last().getAttribute("src");
    expect((await page.request.get(src!)).status()).toBe(200);
  };
}

test("rent one volume: confirm, the undo window passes, the volume reads in full and shows as rented; the rental price is spent", async ({ page, request }) => {
  const { detail, got: vol } = await findWork(request, "webtoon", (d) => d.salesInfo?.isRental && readableVol(d, (v) => v.rentalInfo.price > 0 && v.rentalInfo.price <= 3000));
  const pid = detail.prodInfo.pid;
  const price = vol.rentalInfo.price;
  await member(page);
  expect((await page.request.post("/home/api/v1/wallet/join-bonus")).status()).toBe(200);

  await page.goto(detailPath(detail));
  await expect(volState(page, vol.no)).toHaveText(`대여 ${won(price)}`);
  await volRow(page, vol.no).click();
  const sheet = page.getByTestId("unlock-sheet");
  const rent = sheet.locator("[data-kind=rent]");
  await expect(rent).toContainText(`대여${won(price)}`);
  await expect(sheet.locator("[data-kind=buy]")).toContainText(won(vol.buyInfo.price));
  await rent.click();
  const popup = page.getByTestId("confirm-popup");
  await expect(popup).toContainText(`${vol.title} 대여`);
  await expect(popup).toContainText(`${won(price)}이 차감됩니다. 진행할까요?`);
  await popup.getByRole("button", { name: "확인" }).click();
  await expect(page.getByTestId("undo-bar")).toContainText(`${vol.title}을 대여(으)로 엽니다`);
  await expect(page).toHaveURL(new RegExp(`/viewer\\?pid=${pid}&no=${vol.no}$`), { timeout: 10_000 });
  await expect(page.getByTestId("viewer")).toHaveAttribute("data-mode", "full");
  await expect(page.getByTestId("page")).toHaveCount(vol.pages);
  const src = await page.getByTestId("page").last().getAttribute("src");
  expect((await page.request.get(src!)).status()).toBe(200);

  // The writer: a rental (not a purchase) ending after the work's term; the rental price spent from the mileage.
  const v = volOf(await status(page.request, pid), vol.no);
  expect(v.rentalInfo.isAuth).toBe(true);
  expect(v.buyInfo.isAuth).toBe(false);
  expectRentalEnd(v.rentalInfo.authEndDate, detail.salesInfo!.rental.term ?? 3);
  const w = await wallet(page.request);
  expect(w.blueMileage).toBe(3000 - price);
  expect(w.bluemoney).toBe(0);

  // The work shows it rented, and the volume now opens straight into the viewer.
  await page.goto(detailPath(detail));
  await expect(volState(page, vol.no)).toHaveText("대여중");
  await volRow(page, vol.no).click();
  await expect(page).toHaveURL(new RegExp(`/viewer\\?pid=${pid}&no=${vol.no}$`));
  await expect(page.getByTestId("viewer")).toHaveAttribute("data-mode", "full");
  expect((await wallet(page.request)).blueMileage).toBe(3000 - price);
});

/** A webtoon selling and renting every paid volume for at most the join bonus. */
const allWork = (req: APIRequestContext) =>
  findWork(req, "webtoon", (d) => {
    const s = d.salesInfo;
    return !!s && s.isBuy && s.isRental && s.buy.leftCount >= 2 && s.buy.leftPrice <= 3000 && s.rental.leftCount >= 2 && s.rental.leftPrice <= 3000;
  });

for (const bt of ["B", "R"] as const) {
  const name = bt === "B" ? "소장" : "대여";
  test(`"전체 ${name}": the confirm shows the sum, the undo window passes, every paid volume is ${bt === "B" ? "owned" : "rented"} and the wallet went down by that sum`, async ({ page, request }) => {
    const { detail } = await allWork(request);
    const pid = detail.prodInfo.pid;
    const paid = paidNos(detail);
    await member(page);
    expect((await page.request.post("/home/api/v1/wallet/join-bonus")).status()).toBe(200);
    const before = await status(page.request, pid);
    const cnt = bt === "B" ? before.buyLeftCount : before.rentLeftCount;
    const sum = bt === "B" ? before.buyLeftPrice : before.rentLeftPrice;
    expect(cnt).toBe(paid.length);
    // what is left is the sum of the paid volumes' prices
    expect(sum).toBe(detail.volList.filter((v) => !v.isFree).reduce((a, v) => a + (bt === "B" ? v.buyInfo.price : v.rentalInfo.price), 0));

    await page.goto(detailPath(detail));
    await page.getByRole("button", { name: `전체 ${name}` }).first().click();
    const popup = page.getByTestId("confirm-popup");
    await expect(popup).toContainText(`${cnt}개 회차 전체 ${name}`);
    const shown = /([\d,]+)원이 차감됩니다/.exec((await popup.textContent()) ?? "");
    expect(shown, "the confirm shows the amount").not.toBeNull();
    const amount = Number(shown![1].replace(/,/g, ""));
    expect(amount).toBe(sum);
    await popup.getByRole("button", { name: "확인" }).click();
    const undo = page.getByTestId("undo-bar");
    await expect(undo).toHaveText(new RegExp(`^${cnt}개 회차를 ${name}합니다`));
    await expect(undo).toBeHidden({ timeout: 10_000 });
    await expect(page.getByTestId("floating-message")).toHaveText(`${cnt}개 회차를 ${name}했습니다.`);
    for (const v of detail.volList) await expect(volState(page, v.no)).toHaveText(v.isFree ? "무료" : bt === "B" ? "소장" : "대여중");

    const after = await status(page.request, pid);
    for (const no of paid) {
      const v = volOf(after, no);
      if (bt === "B") expect(v.buyInfo.isAuth, `vol ${no} owned`).toBe(true);
      else {
        expect(v.rentalInfo.isAuth, `vol ${no} rented`).toBe(true);
        expect(v.buyInfo.isAuth, `vol ${no} not owned`).toBe(false);
        expectRentalEnd(v.rentalInfo.authEndDate, detail.salesInfo!.rental.term ?? 3);
      }
    }
    expect([after.rentLeftCount, after.rentLeftPrice]).toEqual([0, 0]);
    if (bt === "B") expect([after.buyLeftCount, after.buyLeftPrice]).toEqual([0, 0]);
    else expect([after.buyLeftCount, after.buyLeftPrice]).toEqual([before.buyLeftCount, before.buyLeftPrice]);
    const w = await wallet(page.request);
    expect(w.blueMileage + w.bluemoney).toBe(3000 - amount);

    // Nothing is left to take that way: the page says so, without asking for money.
    await page.reload();
    await expect(volState(page, paid[0])).toHaveText(bt === "B" ? "소장" : "대여중");
    await page.getByRole("button", { name: "전체 대여" }).click();
    await expect(page.getByTestId("floating-message")).toHaveText("대여할 회차가 없습니다.");
    await expect(popup).toHaveCount(0);
    if (bt === "B") {
      await page.getByRole("button", { name: "전체 소장" }).first().click();
      await expect(page.getByTestId("floating-message")).toHaveText("이미 모든 회차를 소장했습니다.");
      await expect(popup).toHaveCount(0);
    }
    expect((await wallet(page.request)).blueMileage).toBe(w.blueMileage);
  });
}

test("a comic ticket granted by the admin rents a volume without money", async ({ page, request }) => {
  const { detail, got: vol } = await findWork(request, "comic", (d) => d.salesInfo?.isTicket && readableVol(d));
  const pid = detail.prodInfo.pid;
  await member(page);
  const uid = await uidOf(page.request);
  await grant(request, uid, { kind: "ticket", section: "CM", count: 1, received: true });
  expect((await wallet(page.request)).comicTickets).toBe(1);

  await page.goto(detailPath(detail));
  const readsInFull = await pickOption(page, detail, vol, "ticket");
  // No money moves: no confirmation of an amount, straight to the undo window.
  await expect(page.getByTestId("confirm-popup")).toHaveCount(0);
  await expect(page.getByTestId("undo-bar")).toContainText(`${vol.title}을 대여권(으)로 엽니다`);
  await readsInFull();

  const v = volOf(await status(page.request, pid), vol.no);
  expect(v.rentalInfo.isAuth).toBe(true);
  expect(v.buyInfo.isAuth).toBe(false);
  expectRentalEnd(v.rentalInfo.authEndDate, detail.salesInfo!.rental.term ?? 3);
  const w = await wallet(page.request);
  expect([w.comicTickets, w.blueMileage, w.bluemoney]).toEqual([0, 0, 0]);
  const hist = await json<{ list: { pid: string; buyType: string; vols: number[]; amount: number }[] }>(page.request, "/home/api/v1/purchases?type=rental");
  expect(hist.list.map((h) => ({ pid: h.pid, buyType: h.buyType, vols: h.vols, amount: h.amount }))).toEqual([{ pid, buyType: "T", vols: [vol.no], amount: 0 }]);

  // Rented on the work; another volume no longer offers a ticket.
  await page.goto(detailPath(detail));
  await expect(volState(page, vol.no)).toHaveText("대여중");
  const other = detail.volList.find((x) => !x.isFree && x.no !== vol.no);
  if (other) {
    await volRow(page, other.no).click();
    await expect(page.getByTestId("unlock-sheet").locator("[data-kind=rent]")).toBeVisible();
    await expect(page.getByTestId("unlock-sheet").locator("[data-kind=ticket]")).toHaveCount(0);
  }
});

test("read coupons from the gift box open volumes one each and count down", async ({ page, request }) => {
  const { detail, got: vol } = await findWork(request, "webtoon", (d) => paidNos(d).length >= 2 && readableVol(d));
  const pid = detail.prodInfo.pid;
  await member(page);
  const uid = await uidOf(page.request);
  // Compensation lands in the gift box; the member receives it (writer's member API).
  await grant(request, uid, { kind: "read", pid, count: 2, received: false });
  // While they wait in the gift box they open nothing, and the sheet does not offer them.
  await page.goto(detailPath(detail));
  await volRow(page, vol.no).click();
  await expect(page.getByTestId("unlock-sheet").locator("[data-kind=buy], [data-kind=rent]").first()).toBeVisible();
  await expect(page.getByTestId("unlock-sheet").locator("[data-kind=read]")).toHaveCount(0);
  await page.keyboard.press("Escape");
  const gifts = await json<{ list: { id: number; kind: string; pid: string; count: number }[] }>(page.request, "/home/api/v1/coupons/gifts");
  expect(gifts.list.map((g) => ({ kind: g.kind, pid: g.pid, count: g.count }))).toEqual([{ kind: "read", pid, count: 2 }]);
  expect((await page.request.post(`/home/api/v1/coupons/gifts/${gifts.list[0].id}/receive`)).status()).toBe(200);
  expect((await coupons(page.request, pid)).RCPInfo).toMatchObject({ count: 2, usedCnt: 0, isRecv: true });

  await page.goto(detailPath(detail));
  await volRow(page, vol.no).click();
  await expect(page.getByTestId("unlock-sheet").locator("[data-kind=read]")).toContainText("2장 남음");
  await page.keyboard.press("Escape");
  const readsInFull = await pickOption(page, detail, vol, "read");
  await expect(page.getByTestId("confirm-popup")).toHaveCount(0);
  await expect(page.getByTestId("undo-bar")).toContainText(`${vol.title}을 열람 쿠폰(으)로 엽니다`);
  await readsInFull();

  expect((await coupons(page.request, pid)).RCPInfo).toMatchObject({ count: 2, usedCnt: 1 });
  const v = volOf(await status(page.request, pid), vol.no);
  expect(v.rentalInfo.isAuth).toBe(true);
  expect(v.buyInfo.isAuth).toBe(false);
  expect((await wallet(page.request)).blueMileage).toBe(0);

  await page.goto(detailPath(detail));
  await expect(volState(page, vol.no)).toHaveText("대여중");
  const other = detail.volList.find((x) => !x.isFree && x.no !== vol.no)!;
  await volRow(page, other.no).click();
  await expect(page.getByTestId("unlock-sheet").locator("[data-kind=read]")).toContainText("1장 남음");
});

test("a pass opens a volume of any work and is spent", async ({ page, request }) => {
  // Any comic: a pass opens any work, though not the newest volumes a wait-for-free work keeps out (writer/money).
  const { detail, got: vol } = await findWork(request, "comic", (d) => readableVol(d));
  const pid = detail.prodInfo.pid;
  await member(page);
  await grant(request, await uidOf(page.request), { kind: "pass", count: 1, received: true });
  const c = await coupons(page.request, pid);
  expect(c.PCPInfo.passCount).toBe(1);
  // a volume the pass may open: not among the newest a wait-for-free work keeps out
  const exclude = c.WCPInfo?.excludeNewest ?? 0;
  const nos = detail.volList.map((v) => v.no);
  const target = exclude > 0 ? (readableVol(detail, (v) => !nos.slice(-exclude).includes(v.no)) ?? vol) : vol;
  test.skip(exclude > 0 && nos.slice(-exclude).includes(target.no), "no volume of the work is open to a pass");

  await page.goto(detailPath(detail));
  const readsInFull = await pickOption(page, detail, target, "pass");
  await expect(page.getByTestId("undo-bar")).toContainText(`${target.title}을 이용권(으)로 엽니다`);
  await readsInFull();
  expect((await coupons(page.request, pid)).PCPInfo.passCount).toBe(0);
  expect(volOf(await status(page.request, pid), target.no).rentalInfo.isAuth).toBe(true);
  await page.goto(detailPath(detail));
  await expect(volState(page, target.no)).toHaveText("대여중");
});

test("a pass is shown but not offered for the newest volumes a wait-for-free work keeps out", async ({ page, request }) => {
  await member(page);
  await grant(request, await uidOf(page.request), { kind: "pass", count: 1, received: true });
  let found: { detail: Detail; vol: Vol; exclude: number } | undefined;
  for (const area of ["comic", "webtoon"] as const) {
    const list = await json<{ list: { pid: string; isAdult: boolean }[] }>(request, `/home/api/v1/${area}/genre/all?size=60&sort=popular`);
    for (const it of list.list) {
      if (it.isAdult || found) continue;
      const d = await json<Detail>(request, `/home/api/v1/products/${it.pid}`);
      if (d.header.code !== 200 || d.prodInfo.age >= 19 || d.prodInfo.isSpecialPriceSet) continue;
      const exclude = (await coupons(page.request, it.pid)).WCPInfo?.excludeNewest ?? 0;
      const newest = d.volList[d.volList.length - 1];
      if (exclude > 0 && newest && !newest.isFree) found = { detail: d, vol: newest, exclude };
    }
  }
  test.skip(!found, "no wait-for-free work keeps its newest volumes out in this catalog");
  const { detail, vol, exclude } = found!;
  await page.goto(detailPath(detail));
  await volRow(page, vol.no).click();
  const pass = page.getByTestId("unlock-sheet").locator("[data-kind=pass]");
  await expect(pass).toBeDisabled();
  await expect(pass).toContainText(`최신 ${exclude}화 제외`);
  expect((await coupons(page.request, detail.prodInfo.pid)).PCPInfo.passCount).toBe(1);
});

test.describe("jumping pass", () => {
  // The Toss sandbox's checkout page is the third party's: its missing favicon is its business.
  test.use({ allowConsole: [/\/sandbox\/checkout\/[\w-]+: Failed to load resource/] });

  test("a bought jumping pass opens the newest volume, which wait-for-free keeps out", async ({ page, request }) => {
    const offer = await json<{ price: number; days: number; sections: { list: { pid: string; isAdult: boolean }[] }[] }>(request, "/home/api/v1/jumpingpass");
    await member(page);
    // A jumping-pass work whose newest volume is paid; one that keeps its newest volumes out of wait-for-free if there is one.
    let pick: { d: Detail; v: Vol; exclude: number } | null = null;
    for (const it of offer.sections.flatMap((s) => s.list)) {
      if (it.isAdult) continue;
      const d = await json<Detail>(request, `/home/api/v1/products/${it.pid}`);
      const v = d.volList[d.volList.length - 1];
      if (d.header.code !== 200 || d.prodInfo.age >= 19 || !v || v.isFree || v.pages <= v.previewPages) continue;
      const exclude = (await coupons(page.request, it.pid)).WCPInfo?.excludeNewest ?? 0;
      if (!pick || (exclude > 0 && pick.exclude === 0)) pick = { d, v, exclude };
      if (pick.exclude > 0) break;
    }
    expect(pick, "a jumping-pass work with a paid newest volume").not.toBeNull();
    const { d: detail, v: newest, exclude } = pick!;
    const pid = detail.prodInfo.pid;

    // Money for the pass through the payment gateway, then the pass from the writer's member API.
    const work = detailPath(detail);
    await page.goto(`/payment/recharge.asp?need=${offer.price}&return=${encodeURIComponent(work)}`);
    const amount = [1000, 3000, 5000, 10000, 30000, 50000].find((a) => a >= offer.price) ?? 50000;
    await page.getByRole("button", { name: `${won(amount)} 충전하기` }).click();
    await page.getByRole("button", { name: "결제하기" }).click(); // the Toss sandbox's checkout page
    await expect(page.getByTestId("floating-message")).toHaveText(`${won(amount)} 충전되었습니다.`);
    await expect(page).toHaveURL(new RegExp(`/detail/${pid}\\?tab=V$`));
    const bought = await page.request.post("/home/api/v1/coupons/jumping-pass", { data: {}, headers: { "Idempotency-Key": randomUUID().replace(/-/g, "") } });
    expect(bought.status(), await bought.text()).toBe(200);
    expect((await bought.json()).amount).toBe(offer.price);
    const c = await coupons(page.request, pid);
    expect(c.PCPInfo.jumpingCount).toBe(1);
    const w0 = await wallet(page.request);

    await page.reload();
    if (c.WCPInfo) await expect(page.getByTestId("wff")).toContainText("점핑패스 1장");
    await volRow(page, newest.no).click();
    const sheet = page.getByTestId("unlock-sheet");
    await expect(sheet.locator("[data-kind=jumping]")).toContainText("1장 남음");
    await expect(sheet.locator("[data-kind=jumping]")).toBeEnabled();
    if (exclude > 0) {
      await expect(sheet.locator("[data-kind=wff]")).toBeDisabled();
      await expect(sheet.locator("[data-kind=wff]")).toContainText(`최신 ${exclude}화 제외`);
    }
    await page.keyboard.press("Escape");
    const readsInFull = await pickOption(page, detail, newest, "jumping");
    await expect(page.getByTestId("confirm-popup")).toHaveCount(0);
    await expect(page.getByTestId("undo-bar")).toContainText(`${newest.title}을 점핑패스(으)로 엽니다`);
    await readsInFull();

    const after = await coupons(page.request, pid);
    expect(after.PCPInfo.jumpingCount).toBe(0);
    expect(after.PCPInfo.jumpingExpireDates).toEqual([]);
    const v = volOf(await status(page.request, pid), newest.no);
    expect(v.rentalInfo.isAuth).toBe(true);
    expect(v.buyInfo.isAuth).toBe(false);
    const w1 = await wallet(page.request);
    expect([w1.bluemoney, w1.blueMileage]).toEqual([w0.bluemoney, w0.blueMileage]);
    await page.goto(work);
    await expect(volState(page, newest.no)).toHaveText("대여중");
    if (c.WCPInfo) await expect(page.getByTestId("wff")).not.toContainText("점핑패스");
  });
});

// ---- reviews: a second member reports and blocks ----

type PublicReview = { id: number; body: string; likeCnt: number };
const publicReviews = async (req: APIRequestContext, pid: string) =>
  (await json<{ reviewList: PublicReview[] }>(req, `/home/api/v1/products/${pid}/reviews?sort=recent&size=100`)).reviewList;

/** A member in a browser context of its own; its console is watched. */
async function otherMember(browser: Browser, baseURL: string | undefined, errors: string[]) {
  const ctx = await browser.newContext({ baseURL, locale: "ko-KR", timezoneId: "Asia/Seoul" });
  const email = await member(ctx);
  const open = async () => {
    const p = await ctx.newPage();
    watchConsole(p, errors);
    return p;
  };
  return { ctx, email, open };
}

/** The author writes a review through the writer and waits until the edge lists it. */
async function writeReview(author: BrowserContext, pid: string, body: string) {
  const res = await author.request.post(`/home/api/v1/products/${pid}/reviews`, { data: { body, point: 4 } });
  expect(res.status(), await res.text()).toBe(201);
  const id = ((await res.json()) as { id: number }).id;
  await expect.poll(async () => (await publicReviews(author.request, pid)).some((r) => r.id === id), { timeout: 15_000 }).toBe(true);
  return id;
}

async function openReviews(page: Page, pid: string, section: string) {
  await page.goto(`/${sectionPath(section)}/detail/${pid}?tab=R`);
  await page.getByLabel("리뷰 정렬").selectOption("recent");
}

const reviewWork = (req: APIRequestContext) => findWork(req, "webtoon", (d) => d.volList.length > 0);

test("blocking a review hides its text for the blocker only, and stays after a reload", async ({ page, request, browser, baseURL }) => {
  const { detail } = await reviewWork(request);
  const pid = detail.prodInfo.pid;
  const errors: string[] = [];
  const author = await otherMember(browser, baseURL, errors);
  const body = `차단 테스트 리뷰 ${randomUUID()}`;
  const id = await writeReview(author.ctx, pid, body);

  await member(page);
  await openReviews(page, pid, detail.prodInfo.section);
  const row = page.getByTestId("review").filter({ has: page.getByRole("button", { name: "차단", exact: true }) }).filter({ hasText: body });
  await expect(row).toHaveCount(1);
  const blocked = page.waitForResponse((r) => r.url().endsWith(`/reviews/${id}/block`) && r.request().method() === "POST");
  await row.getByRole("button", { name: "차단", exact: true }).click();
  const res = await blocked;
  expect(res.status()).toBe(200);
  expect((await res.json()).isBlock).toBe(true);
  // the row stays, its text replaced
  const mine = page.getByTestId("review").filter({ hasText: "차단한 리뷰입니다." });
  await expect(mine).toHaveCount(1);
  await expect(page.getByTestId("review").filter({ hasText: body })).toHaveCount(0);
  await expect(mine.getByRole("button", { name: "차단됨" })).toBeDisabled();

  // The writer keeps it for this member; a reload shows the same.
  const st = await json<{ blocked: number[]; reported: number[] }>(page.request, `/home/api/v1/products/${pid}/reviews/state`);
  expect(st.blocked).toEqual([id]);
  expect(st.reported).toEqual([]);
  await openReviews(page, pid, detail.prodInfo.section);
  await expect(mine.getByRole("button", { name: "차단됨" })).toBeDisabled();
  await expect(page.getByTestId("review").filter({ hasText: body })).toHaveCount(0);

  // Everybody else still reads it: the public list and the author's own page.
  expect((await publicReviews(request, pid)).some((r) => r.id === id && r.body === body)).toBe(true);
  expect((await json<{ blocked: number[] }>(author.ctx.request, `/home/api/v1/products/${pid}/reviews/state`)).blocked).toEqual([]);
  const pa = await author.open();
  await openReviews(pa, pid, detail.prodInfo.section);
  const own = pa.getByTestId("review").filter({ hasText: body });
  await expect(own).toHaveCount(1);
  await expect(own.getByRole("button", { name: "삭제" })).toBeVisible();

  // Unblocking (writer API) gives the text back to the blocker.
  const un = await page.request.delete(`/home/api/v1/reviews/${id}/block`);
  expect(un.status()).toBe(200);
  expect((await un.json()).isBlock).toBe(false);
  await openReviews(page, pid, detail.prodInfo.section);
  await expect(page.getByTestId("review").filter({ hasText: body }).getByRole("button", { name: "차단", exact: true })).toBeEnabled();
  await author.ctx.close();
  assertNoConsoleErrors(errors);
});

test("reporting a review: confirmed, marked for the reporter, counted once per member; the fifth member's report hides it from everybody", async ({ page, request, browser, baseURL }) => {
  const { detail } = await reviewWork(request);
  const pid = detail.prodInfo.pid;
  const errors: string[] = [];
  const author = await otherMember(browser, baseURL, errors);
  const body = `신고 테스트 리뷰 ${randomUUID()}`;
  const id = await writeReview(author.ctx, pid, body);
  // nobody reports their own review
  expect((await author.ctx.request.post(`/home/api/v1/reviews/${id}/report`, { data: { reason: "spam" } })).status()).toBe(400);

  await member(page);
  await openReviews(page, pid, detail.prodInfo.section);
  const row = page.getByTestId("review").filter({ hasText: body });
  await row.getByRole("button", { name: "신고", exact: true }).click();
  const popup = page.getByTestId("confirm-popup");
  await expect(popup).toContainText("이 리뷰를 신고할까요?");
  // cancelling sends nothing
  await popup.getByRole("button", { name: "취소" }).click();
  await expect(popup).toHaveCount(0);
  expect((await json<{ reported: number[] }>(page.request, `/home/api/v1/products/${pid}/reviews/state`)).reported).toEqual([]);
  await row.getByRole("button", { name: "신고", exact: true }).click();
  await popup.getByRole("button", { name: "신고", exact: true }).click();
  await expect(page.getByTestId("floating-message")).toHaveText("신고가 접수되었습니다.");
  await expect(row.getByRole("button", { name: "신고됨" })).toBeDisabled();
  // a report does not hide the text from the reporter
  await expect(row).toContainText(body);
  expect((await json<{ reported: number[] }>(page.request, `/home/api/v1/products/${pid}/reviews/state`)).reported).toEqual([id]);
  await openReviews(page, pid, detail.prodInfo.section);
  await expect(row.getByRole("button", { name: "신고됨" })).toBeDisabled();

  // The same member again counts once; three more members make four reports: still listed.
  const again = await page.request.post(`/home/api/v1/reviews/${id}/report`, { data: { reason: "spam" } });
  expect(again.status()).toBe(200);
  expect((await again.json()).isReport).toBe(true);
  const others: BrowserContext[] = [];
  for (let i = 0; i < 4; i++) {
    const m = await otherMember(browser, baseURL, errors);
    others.push(m.ctx);
  }
  const report = async (ctx: BrowserContext) => {
    const r = await ctx.request.post(`/home/api/v1/reviews/${id}/report`, { data: { reason: "spam" } });
    expect(r.status(), await r.text()).toBe(200);
  };
  for (const ctx of others.slice(0, 3)) await report(ctx);
  // A like republishes the list after those reports: once the edge shows it, the review is still there.
  expect((await others[3].request.post(`/home/api/v1/reviews/${id}/like`)).status()).toBe(200);
  await expect.poll(async () => (await publicReviews(request, pid)).find((r) => r.id === id)?.likeCnt, { timeout: 15_000 }).toBe(1);

  // The fifth member: the review leaves the public list, and the pages.
  await report(others[3]);
  await expect.poll(async () => (await publicReviews(request, pid)).some((r) => r.id === id), { timeout: 15_000 }).toBe(false);
  await openReviews(page, pid, detail.prodInfo.section);
  await expect(page.getByTestId("reviews")).toBeVisible();
  await expect(page.getByTestId("review").filter({ hasText: body })).toHaveCount(0);
  const pa = await author.open();
  await openReviews(pa, pid, detail.prodInfo.section);
  await expect(pa.getByTestId("reviews")).toBeVisible();
  await expect(pa.getByTestId("review").filter({ hasText: body })).toHaveCount(0);
  for (const ctx of others) await ctx.close();
  await author.ctx.close();
  assertNoConsoleErrors(errors);
});
