// Issue 34, the two parts that came last: 인기 검색어 on the search screen
// (settled searches counted by analytics in ClickHouse, published to the
// catalog bucket, served by the edge) and 오프라인 저장 in 내 서재 (the episodes
// saved on this device, readable with the network cut).
import AxeBuilder from "@axe-core/playwright";
import { randomUUID } from "node:crypto";
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { member, paidWork } from "./members";

test.use({ allowConsole: [/Failed to load resource: net::ERR_(INTERNET_DISCONNECTED|FAILED)/] });

const searchbox = (page: Page) => page.getByRole("searchbox", { name: "작품 검색" });

async function axe(page: Page, where: string, report: string[]) {
  const { violations } = await new AxeBuilder({ page }).analyze();
  for (const v of violations) report.push(`${where} ${v.impact} ${v.id}: ${v.help} [${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", ")}]`);
}

test("searches of five readers reach analytics and show under 인기 검색어; one reader searching often does not", async ({ page, playwright, baseURL }) => {
  // Analytics computes once a minute (ANALYTICS_RANK_INTERVAL): the wait below is for its next computation.
  test.setTimeout(300_000);
  const tag = randomUUID().slice(0, 6);
  const keyword = `인기작 ${tag}`;
  const lone = `혼자만 ${tag}`;

  // This reader settles on a search on the screen: the page tells analytics.
  await page.goto("/search");
  const told = page.waitForRequest((r) => r.url().endsWith("/home/api/v1/tracking/events") && (r.postData() ?? "").includes('"type":"search"'));
  await searchbox(page).fill(keyword);
  await searchbox(page).press("Enter");
  expect(JSON.parse((await told).postData()!).events).toContainEqual(expect.objectContaining({ type: "search", props: { q: keyword } }));

  // Four more readers, each on their own device (session), search it; one
  // reader searches another keyword ten times.
  const devices = await Promise.all(Array.from({ length: 5 }, () => playwright.request.newContext({ baseURL })));
  const search = async (d: (typeof devices)[number], q: string) =>
    expect((await d.post("/home/api/v1/tracking/events", { data: { events: [{ type: "search", url: "/search", props: { q } }] } })).status()).toBe(200);
  for (const d of devices.slice(0, 4)) await search(d, keyword);
  for (let i = 0; i < 10; i++) await search(devices[4], lone);

  const popular = async () => ((await (await page.request.get("/home/api/v1/search/popular")).json()).list as { keyword: string }[]).map((x) => x.keyword);
  await expect.poll(popular, { timeout: 150_000, intervals: [2_000] }).toContain(keyword);
  expect(await popular()).not.toContain(lone);
  await Promise.all(devices.map((d) => d.dispose()));

  // The empty box shows them; picking one searches it.
  await page.goto("/search");
  const list = page.getByTestId("popular-searches");
  await expect(list.getByRole("heading", { name: "인기 검색어" })).toBeVisible();
  await expect(list.getByRole("button", { name: keyword })).toBeVisible();
  await expect(list.getByRole("button", { name: lone })).toHaveCount(0);

  const report: string[] = [];
  for (const theme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: theme });
    await page.reload();
    await expect(page.locator("html")).toHaveAttribute("data-theme", theme);
    await expect(list.getByRole("button", { name: keyword })).toBeVisible();
    await axe(page, `popular searches (${theme})`, report);
  }
  expect(report, report.join("\n")).toEqual([]);

  await list.getByRole("button", { name: keyword }).click();
  await expect(searchbox(page)).toHaveValue(keyword);
  await expect(page.getByText("검색 결과가 없습니다.", { exact: false })).toBeVisible();
  await expect(list).toHaveCount(0);
});

/** controlled opens path and waits until the store's worker controls the page (installed, then a reload). */
async function controlled(page: Page, path: string) {
  await page.goto(path);
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
  await page.reload();
  await expect.poll(() => page.evaluate(() => !!navigator.serviceWorker.controller)).toBe(true);
}

test("내 서재 lists the episodes saved offline with the next to read, opens it with the network cut, sorts and removes", async ({ page, context }) => {
  const { detail, vol } = await paidWork(page.request, "webtoon");
  const { pid, title } = detail.prodInfo;
  await member(page);
  expect((await page.request.post("/home/api/v1/wallet/join-bonus")).status()).toBe(200);
  const buy = await page.request.post("/home/api/v1/purchases", { data: { pid, vols: [vol.no], buyType: "B" }, headers: { "Idempotency-Key": randomUUID() } });
  expect(buy.status(), await buy.text()).toBe(200);

  // Nothing saved yet.
  await page.goto("/mypages/library/offline");
  await expect(page.getByText("이 기기에 오프라인 저장한 회차가 없습니다.", { exact: false })).toBeVisible();

  // Save the bought episode for offline reading, from the viewer's settings.
  const at = `/viewer?pid=${pid}&no=${vol.no}`;
  await controlled(page, at);
  await expect(page.getByTestId("viewer")).toHaveAttribute("data-mode", "full");
  await page.getByRole("button", { name: "보기 설정" }).click();
  await page.getByTestId("offline-save").getByRole("button", { name: "오프라인 저장" }).click();
  await expect(page.getByText("오프라인 저장되었습니다.")).toBeVisible();

  // The shelf, through the library's tabs.
  await page.goto("/mypages/library/saved");
  await page.getByRole("navigation", { name: "서재 목록" }).getByRole("link", { name: "오프라인 저장" }).click();
  await expect(page).toHaveURL(/\/mypages\/library\/offline$/);
  const shelf = page.getByRole("list", { name: "오프라인 저장" });
  const item = shelf.getByTestId("library-item").filter({ hasText: title });
  await expect(item).toBeVisible();
  await expect(item.getByTestId("offline-vols")).toContainText(`저장한 회차 ${vol.no}화`);
  const next = item.getByRole("link", { name: new RegExp(`${vol.no}화 (이어보기|부터 보기)$`) });
  await expect(next).toHaveAttribute("href", at);
  await expect(page.getByText("총 1작품")).toBeVisible();
  await page.getByRole("link", { name: "최근 저장 순" }).click();
  await expect(page).toHaveURL(/\/mypages\/library\/offline\?sort=update$/);
  await expect(item).toBeVisible();

  const report: string[] = [];
  for (const theme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: theme });
    await page.reload();
    await expect(page.locator("html")).toHaveAttribute("data-theme", theme);
    await expect(item).toBeVisible();
    await axe(page, `offline shelf (${theme})`, report);
  }
  expect(report, report.join("\n")).toEqual([]);

  // With the network cut the shelf still opens, and its next episode reads from the saved copy.
  await context.setOffline(true);
  await page.goto("/mypages/library/offline");
  await expect(item).toBeVisible();
  await next.click();
  await expect(page).toHaveURL(new RegExp(`/viewer\\?pid=${pid}&no=${vol.no}$`));
  await expect(page.getByTestId("viewer")).toHaveAttribute("data-mode", "full");
  await expect.poll(() => page.getByTestId("page").first().evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
  await context.setOffline(false);

  // Remove: the copy leaves the device and the shelf.
  await page.goto("/cs");
  await page.goto("/mypages/library/offline");
  await item.getByRole("button", { name: `${title} 오프라인 저장 삭제` }).click();
  await expect(page.getByText("이 기기에 오프라인 저장한 회차가 없습니다.", { exact: false })).toBeVisible();
  await expect(page.getByRole("status").filter({ hasText: `${title} 오프라인 저장을 삭제했습니다.` })).toBeAttached();
  expect(await page.evaluate(() => localStorage.getItem("sf_saved_volumes"))).toBeNull();
});
