import AxeBuilder from "@axe-core/playwright";
import type { APIRequestContext, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { member } from "./members";

// Reading that flows (issue 34 item 6): in webtoon mode the next episode
// follows on scrolling when the reader may read it, the unlock sheet stands
// inline when not; a comic read right to left turns that way; the viewer's
// end panel passes axe on every reader theme. Mobile viewport (Pixel 7).

const ADMIN_TOKEN = process.env.ADMIN_TOKEN ?? "dev-admin-token";

type Vol = { no: number; title: string; isFree: boolean; pages: number; previewPages: number };
type Detail = { header: { code: number }; prodInfo: { pid: string; title: string; isSpecialPriceSet: boolean; age: number }; volList: Vol[] };

/** A work of the area whose episodes k and k+1 pass test (vol k, vol k+1). */
async function workWith(req: APIRequestContext, area: "webtoon" | "comic" | "novel", ok: (a: Vol, b: Vol) => boolean) {
  const list = await (await req.get(`/home/api/v1/${area}/genre/all?size=100&sort=popular`)).json();
  for (const it of list.list as { pid: string; isAdult: boolean }[]) {
    if (it.isAdult) continue;
    const d = (await (await req.get(`/home/api/v1/products/${it.pid}`)).json()) as Detail;
    if (d.header.code !== 200 || d.prodInfo.isSpecialPriceSet) continue;
    for (let i = 0; i + 1 < d.volList.length; i++) if (ok(d.volList[i], d.volList[i + 1])) return { detail: d, a: d.volList[i], b: d.volList[i + 1] };
  }
  throw new Error(`no ${area} work fits in the demo catalog`);
}

/** Scrolls to the page's end until done() holds (the page grows as episodes follow). */
async function scrollUntil(page: Page, done: () => Promise<boolean>) {
  await expect
    .poll(async () => {
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      return done();
    })
    .toBe(true);
}

test("webtoon: scrolling past a free episode brings the next one in below, and the address, title and place follow", async ({ page, request }) => {
  const { detail, a, b } = await workWith(request, "webtoon", (x, y) => x.isFree && y.isFree && x.pages > 1 && y.pages > 1);
  const pid = detail.prodInfo.pid;
  await member(page);
  await page.goto(`/viewer?pid=${pid}&no=${a.no}`);
  const viewer = page.getByTestId("viewer");
  await expect(viewer).toHaveAttribute("data-mode", "full");
  await expect(page.locator(`[data-episode="${a.no}"]`).getByTestId("page")).toHaveCount(a.pages);

  const next = page.locator(`[data-testid=follow-episode][data-episode="${b.no}"]`);
  await scrollUntil(page, async () => (await next.count()) > 0);
  await expect(next.getByRole("heading", { name: b.title })).toBeVisible();
  // All of it: the reader may read it in full.
  await expect(next.getByTestId("page")).toHaveCount(b.pages);

  // Into episode b: its first pages under the reading line.
  await next.getByTestId("page").nth(1).scrollIntoViewIfNeeded();
  await expect(page).toHaveURL(new RegExp(`[?&]no=${b.no}(&|$)`));
  await expect(page.getByRole("heading", { level: 1 })).toContainText(b.title);
  await expect(page).toHaveTitle(new RegExp(b.title));
  await expect.poll(() => page.evaluate((k) => JSON.parse(localStorage.getItem(k) ?? "null")?.no, `sf_place_v2_${pid}`)).toBe(b.no);
  // No unlock sheet on the way.
  await expect(page.getByTestId("unlock-sheet")).toHaveCount(0);
  // Back up into episode a: the address follows back.
  await page.locator(`[data-episode="${a.no}"]`).getByTestId("page").first().scrollIntoViewIfNeeded();
  await expect(page).toHaveURL(new RegExp(`[?&]no=${a.no}(&|$)`));
});

test("webtoon: a locked next episode is not loaded; the unlock sheet stands inline at the end", async ({ page, request }) => {
  const { detail, a, b } = await workWith(request, "webtoon", (x, y) => x.isFree && !y.isFree && x.pages > 1);
  await member(page);
  await page.goto(`/viewer?pid=${detail.prodInfo.pid}&no=${a.no}`);
  await expect(page.getByTestId("viewer")).toHaveAttribute("data-mode", "full");
  const sheet = page.getByTestId("unlock-sheet");
  await scrollUntil(page, async () => (await sheet.count()) > 0);
  await expect(sheet).toHaveAttribute("data-inline", "true");
  await expect(sheet.getByText(b.title)).toBeVisible();
  await expect(sheet.getByRole("button", { name: /소장|대여|기다리면 무료/ }).first()).toBeVisible();
  // In the page, not over it: no dialog, and the episode's pages are not fetched.
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await expect(page.getByTestId("follow-episode")).toHaveCount(0);
});

let rtlPid = "";
test.afterAll(async ({ request }) => {
  // Other specs read the demo catalog: the comic reads left to right again, even when the test failed half-way.
  if (rtlPid) await request.patch(`/admin/api/v1/works/${rtlPid}`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` }, data: { rightToLeft: false } });
});

test("comic: a work set right to left by the admin API shows a spread's first page on the right and turns from the left", async ({ page, request }) => {
  const { detail, a } = await workWith(request, "comic", (x) => x.isFree && x.pages >= 4);
  const pid = (rtlPid = detail.prodInfo.pid);
  const res = await request.patch(`/admin/api/v1/works/${pid}`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` }, data: { rightToLeft: true } });
  expect(res.status(), await res.text()).toBe(200);
  // writer -> outbox -> KV -> edge: the detail says so.
  await expect.poll(async () => (await (await request.get(`/home/api/v1/products/${pid}`)).json()).prodInfo.rightToLeft).toBe(true);

  await member(page);
  await page.setViewportSize({ width: 1024, height: 600 });
  await page.goto(`/viewer?pid=${pid}&no=${a.no}`);
  const spread = page.getByTestId("comic-page");
  await expect(spread).toHaveAttribute("data-order", "rtl");
  await expect(spread.getByTestId("page")).toHaveCount(2);
  const x = async (alt: string) => (await spread.getByAltText(alt).boundingBox())!.x;
  expect(await x("1쪽")).toBeGreaterThan(await x("2쪽"));
  // The left side leads on, the left arrow too; the right side goes back.
  await page.getByRole("button", { name: "다음 쪽" }).click();
  await expect(spread).toHaveAttribute("data-page", "1");
  expect(await x("3쪽")).toBeGreaterThan(await x("4쪽"));
  const left = await page.getByRole("button", { name: "다음 쪽" }).boundingBox();
  expect(left!.x).toBeLessThan(100);
  await page.getByRole("button", { name: "이전 쪽" }).click();
  await expect(spread).toHaveAttribute("data-page", "0");
  await page.keyboard.press("ArrowLeft");
  await expect(spread).toHaveAttribute("data-page", "1");

  // Zoom: the bar's buttons and the keys; a turn brings the page back to its size.
  await page.getByRole("button", { name: "확대하기" }).click();
  await expect(spread).toHaveAttribute("data-zoom", "1.5");
  await page.keyboard.press("+");
  await expect(spread).toHaveAttribute("data-zoom", "2.25");
  await page.getByTestId("zoom-level").click();
  await expect(spread).toHaveAttribute("data-zoom", "1");
  // Double tap on the middle of the page zooms, again goes back.
  const box = (await spread.boundingBox())!;
  await page.mouse.dblclick(box.x + box.width / 2, box.y + box.height / 2);
  await expect(spread).toHaveAttribute("data-zoom", "2");
  await page.mouse.dblclick(box.x + box.width / 2, box.y + box.height / 2);
  await expect(spread).toHaveAttribute("data-zoom", "1");
});

// Reader themes: the dark strip (webtoon, comic) and the novel page, sepia
// in the light theme and dark in the dark theme.
for (const theme of ["light", "dark"] as const) {
  for (const area of ["webtoon", "comic", "novel"] as const) {
    test(`axe finds no violation on the viewer's end panel: ${area}, ${theme} theme`, async ({ page, request }) => {
      const { detail, a } = await workWith(request, area, (x) => x.previewPages > 0);
      await page.emulateMedia({ colorScheme: theme });
      await page.goto(`/viewer?pid=${detail.prodInfo.pid}&no=${a.no}`);
      await expect(page.locator("html")).toHaveAttribute("data-theme", theme);
      const end = page.getByTestId("viewer-end");
      if (area === "comic") {
        await expect(page.getByTestId("comic-page")).toBeVisible();
        await expect.poll(async () => {
          if ((await end.count()) === 0) await page.keyboard.press("ArrowRight");
          return end.count();
        }).toBe(1);
      }
      await end.scrollIntoViewIfNeeded();
      await expect(end.getByRole("link", { name: "목록으로" })).toBeVisible();
      const { violations } = await new AxeBuilder({ page }).include("[data-testid=viewer-end]").analyze();
      const found = violations.map((v) => `${v.impact} ${v.id}: ${v.help} ${v.nodes.map((n) => `${n.target.join(" ")} ${n.failureSummary ?? ""}`).join("; ")}`);
      expect(found, found.join("\n")).toEqual([]);
    });
  }
}
