// Early access (미리보기, issue 32) against the real stack: a content manager
// sells a work's next scheduled episode early (admin API); a member sees it
// in the volume list with its badge and early price, buys it with the join
// bonus, and reads it in full before its release; at its release it is an
// ordinary owned episode. The edge flips a release by its own clock, which
// no test can move (the writer's dev clock moves only coupon timers), so the
// release instant is moved to the present instead: the edge, the writer and
// the browser then pass it on their real clocks.
import type { APIRequestContext } from "@playwright/test";
import { expect, test } from "./fixtures";
import { member } from "./members";

const ADMIN_TOKEN = process.env.ADMIN_TOKEN ?? "dev-admin-token";
const PRICE = 300;
const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };

type Vol = { no: number; title: string; pages: number; isEarly?: boolean; buyInfo: { price: number } };
type Detail = { header: { code: number }; prodInfo: { pid: string; age: number; nextReleaseAt?: string; isSpecialPriceSet: boolean }; volList: Vol[]; earlyList?: Vol[] };

const json = async <T>(req: APIRequestContext, url: string): Promise<T> => {
  const res = await req.get(url);
  expect(res.status(), `${url}: ${await res.text()}`).toBe(200);
  return (await res.json()) as T;
};

/** A non-adult webtoon of the demo catalog with an episode scheduled ahead. */
async function scheduledWork(req: APIRequestContext): Promise<Detail> {
  const list = await json<{ list: { pid: string; isAdult: boolean }[] }>(req, "/home/api/v1/webtoon/genre/all?size=60&sort=popular");
  for (const it of list.list) {
    if (it.isAdult) continue;
    const d = await json<Detail>(req, `/home/api/v1/products/${it.pid}`);
    if (d.header.code === 200 && d.prodInfo.age < 19 && !d.prodInfo.isSpecialPriceSet && d.prodInfo.nextReleaseAt) return d;
  }
  throw new Error("no webtoon with a scheduled episode in the demo catalog");
}

let pid = "";
let moved: Record<string, unknown> | null = null;
test.afterAll(async ({ request }) => {
  // Other specs read the demo catalog: sell nothing early any more, and the
  // episode comes out when the catalog said.
  if (pid) await request.patch(`/admin/api/v1/works/${pid}`, { headers: admin, data: { earlyCount: 0, earlyPrice: 0 } });
  if (moved) await request.put(`/admin/api/v1/works/${pid}/volumes/${moved.no}`, { headers: admin, data: moved });
});

/** moveRelease sets the volume's release instant (admin API) and answers the volume as it was. */
async function moveRelease(req: APIRequestContext, work: string, no: number, at: Date): Promise<Record<string, unknown>> {
  const got = await req.get(`/admin/api/v1/works/${work}`, { headers: admin });
  expect(got.status(), await got.text()).toBe(200);
  const vol = ((await got.json()) as { product: { volumes: Record<string, unknown>[] } }).product.volumes.find((v) => v.no === no);
  expect(vol, `volume ${no} of ${work}`).toBeTruthy();
  const put = await req.put(`/admin/api/v1/works/${work}/volumes/${no}`, { headers: admin, data: { ...vol, releaseAt: at.toISOString() } });
  expect(put.status(), await put.text()).toBe(200);
  return vol!;
}

test("a member sees the 미리보기 episode with its early price, buys it, reads it in full before its release, and owns it as an ordinary episode after", async ({ page, request }) => {
  const d = await scheduledWork(request);
  pid = d.prodInfo.pid;
  const res = await request.patch(`/admin/api/v1/works/${pid}`, { headers: admin, data: { earlyCount: 1, earlyPrice: PRICE } });
  expect(res.status(), await res.text()).toBe(200);
  // The edge hears of it through the catalog bucket.
  let early: Vol | undefined;
  await expect
    .poll(async () => {
      early = (await json<Detail>(request, `/home/api/v1/products/${pid}`)).earlyList?.[0];
      return early?.buyInfo.price;
    })
    .toBe(PRICE);

  await member(page);
  expect((await page.request.post("/home/api/v1/wallet/join-bonus")).status()).toBe(200);
  await page.goto(`/webtoon/detail/${pid}?tab=V`);
  const row = page.locator(`[data-testid=early-vol][data-no="${early!.no}"]`);
  await expect(row).toContainText("미리보기");
  await expect(row).toContainText(early!.title);
  await expect(row.getByTestId("early-state")).toHaveText(`소장 ${PRICE}원`);

  await row.click();
  const sheet = page.getByTestId("unlock-sheet");
  await expect(sheet).toBeVisible();
  // Bought only: no coupon, pass, ticket or rental is offered.
  await expect(sheet.locator("[data-kind]")).toHaveCount(1);
  await sheet.locator("[data-kind=buy]").click();
  const popup = page.getByTestId("confirm-popup");
  await expect(popup).toContainText(`${PRICE}원이 차감됩니다`);
  await popup.getByRole("button", { name: "확인" }).click();
  await expect(page).toHaveURL(new RegExp(`/viewer\\?pid=${pid}&no=${early!.no}$`), { timeout: 15_000 });
  await expect(page.getByTestId("viewer")).toHaveAttribute("data-mode", "full");
  await expect(page.getByTestId("page").first()).toBeVisible();
  const src = await page.getByTestId("page").last().getAttribute("src");
  expect((await page.request.get(src!)).status()).toBe(200);

  // Owned: the list says so, the status too, and the join bonus paid for it.
  await page.goto(`/webtoon/detail/${pid}?tab=V`);
  await expect(page.locator(`[data-testid=early-vol][data-no="${early!.no}"]`).getByTestId("early-state")).toHaveText("소장");
  const st = await json<{ earlyList: { no: number; isAuth: boolean }[] }>(page.request, `/home/api/v1/purchases/status?pid=${pid}`);
  expect(st.earlyList.find((e) => e.no === early!.no)?.isAuth).toBe(true);
  const w = await json<{ blueMileage: number }>(page.request, "/home/api/v1/wallet");
  expect(w.blueMileage).toBe(3000 - PRICE);

  // The release: the episode comes out now. The edge moves it from the early
  // list to the volume list by its own clock (no origin call), where it is
  // owned like any bought episode: no 미리보기 badge, no price, read in full
  // with the ordinary purchase (authType B), nothing charged again.
  moved = await moveRelease(request, pid, early!.no, new Date(Date.now() + 3_000));
  await expect
    .poll(async () => {
      const d = await json<Detail>(request, `/home/api/v1/products/${pid}`);
      return [d.volList.some((v) => v.no === early!.no), d.earlyList?.some((v) => v.no === early!.no) ?? false];
    }, { timeout: 30_000 })
    .toEqual([true, false]);
  await page.goto(`/webtoon/detail/${pid}?tab=V`);
  const released = page.locator(`[data-testid=vol][data-no="${early!.no}"]`);
  await expect(released.getByTestId("vol-state")).toHaveText("소장");
  await expect(released).not.toContainText("미리보기");
  await expect(page.locator(`[data-testid=early-vol][data-no="${early!.no}"]`)).toHaveCount(0);
  const after = await json<{ volList: { no: number; buyInfo: { isAuth?: boolean } }[]; earlyList: { no: number }[] }>(page.request, `/home/api/v1/purchases/status?pid=${pid}`);
  expect(after.earlyList.some((e) => e.no === early!.no)).toBe(false);
  expect(after.volList.find((v) => v.no === early!.no)?.buyInfo.isAuth).toBe(true);
  const auth = await page.request.post("/protocol/api/v-1/product/download-auth.asp", { data: { pid, vol: early!.no } });
  expect(auth.status(), await auth.text()).toBe(200);
  expect(await auth.json()).toMatchObject({ isAuth: true, authType: "B" });
  await released.click();
  await expect(page).toHaveURL(new RegExp(`/viewer\\?pid=${pid}&no=${early!.no}$`), { timeout: 15_000 });
  await expect(page.getByTestId("viewer")).toHaveAttribute("data-mode", "full");
  await expect(page.getByTestId("page").first()).toBeVisible();
  expect((await json<{ blueMileage: number }>(page.request, "/home/api/v1/wallet")).blueMileage).toBe(3000 - PRICE);
});
