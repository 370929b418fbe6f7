// Seed §9's constants where a reader meets them (issue 25 item 13): the
// skeleton after 100 ms of loading, the header_one height, the promotion
// library's version and the desktop popups' size. The timings themselves are
// vitest's (fake timers): app/shell/constants.test.ts, ShellProvider.test.tsx.
import { expect, test } from "./fixtures";
import { paidWork } from "./members";

test("the main navigation header (header_one) is 100 px tall, and the section header as tall", async ({ page }) => {
  for (const path of ["/", "/keyword", "/cs", "/webtoon", "/webtoon/genre"]) {
    await page.goto(path);
    const header = page.locator("header[data-header]");
    await expect(header).toBeVisible();
    expect((await header.boundingBox())!.height, path).toBe(100);
  }
  // Its tabs fill the rest of it: the shown tab's line sits on the header's bottom.
  await page.goto("/");
  const shown = page.locator('header[data-header=main] nav a[aria-current="page"]');
  const tabBox = (await shown.boundingBox())!;
  const headerBox = (await page.locator("header[data-header=main]").boundingBox())!;
  expect(Math.round(tabBox.y + tabBox.height - headerBox.y)).toBe(99);
});

test("the reviews show the skeleton while they load past 100 ms, never 'no reviews yet'", async ({ page, request }) => {
  const { detail } = await paidWork(request, "webtoon", false);
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let asked = 0;
  await page.route("**/home/api/v1/products/*/reviews?**", async (route) => {
    asked++;
    await held;
    await route.continue();
  });
  await page.goto(`/webtoon/detail/${detail.prodInfo.pid}?tab=R`);
  await expect.poll(() => asked).toBe(1);
  await expect(page.getByRole("status", { name: "리뷰를 불러오는 중" })).toBeVisible();
  await expect(page.getByText("아직 리뷰가 없습니다.", { exact: false })).toHaveCount(0);
  release();
  await expect(page.getByRole("status", { name: "리뷰를 불러오는 중" })).toHaveCount(0);
});

test("the first screen shows its skeleton only once loading has lasted 100 ms", async ({ page }) => {
  // Recorded from the first paint: the skeleton is not in the page before 100 ms.
  await page.addInitScript(() => {
    const w = window as unknown as { __skeletonAt?: number };
    new MutationObserver(() => {
      if (w.__skeletonAt === undefined && document.querySelector("[data-testid=skeleton]")) w.__skeletonAt = performance.now();
    }).observe(document, { childList: true, subtree: true });
  });
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  await page.route("**/home/api/v1/home?**", async (route) => {
    await held;
    await route.continue();
  });
  await page.goto("/", { waitUntil: "commit" });
  await expect(page.getByRole("status", { name: "불러오는 중" })).toBeVisible();
  const at = await page.evaluate(() => (window as unknown as { __skeletonAt: number }).__skeletonAt);
  const started = await page.evaluate(() => performance.getEntriesByType("navigation")[0].startTime);
  expect(at - started).toBeGreaterThanOrEqual(100);
  release();
  await expect(page.getByRole("status", { name: "불러오는 중" })).toHaveCount(0);
  await expect(page.locator("header[data-header=main]")).toBeVisible();
});

test.describe("the promotion library", () => {
  // On the store's origin, as the edge's script policy wants; the vendor's file is faked here.
  const LIB = "/vendor/promotion/promotion.js";
  test("an event page loads it once, with the seed's version; a page without an event does not", async ({ page }) => {
    const asked: string[] = [];
    await page.route("**/vendor/promotion/**", async (route) => {
      asked.push(new URL(route.request().url()).pathname + new URL(route.request().url()).search);
      await route.fulfill({ contentType: "text/javascript", body: "window.__promotionRuns = (window.__promotionRuns || 0) + 1;" });
    });
    await page.addInitScript((lib) => ((window as unknown as { SF_PROMOTION_LIB_URL: string }).SF_PROMOTION_LIB_URL = lib), LIB);
    await page.goto("/");
    await expect(page.locator("header[data-header=main]")).toBeVisible();
    await page.goto("/webtoon");
    await expect(page.locator("header[data-header=section]")).toBeVisible();
    expect(asked).toEqual([]);
    await page.goto("/bluerun");
    await expect(page.getByTestId("event").first()).toBeVisible();
    await expect.poll(() => page.evaluate(() => (window as unknown as { __promotionRuns?: number }).__promotionRuns)).toBe(1);
    expect(asked).toEqual([`${LIB}?v=20250611`]);
    // Another event page of the same page load: the library is there already.
    await page.evaluate(() => window.history.pushState(null, "", "/doublecoupon"));
    await page.evaluate(() => window.dispatchEvent(new PopStateEvent("popstate")));
    await expect(page).toHaveURL(/\/doublecoupon$/);
    await expect(page.getByTestId("event").first()).toBeVisible();
    expect(await page.evaluate(() => (window as unknown as { __promotionRuns?: number }).__promotionRuns)).toBe(1);
    expect(asked).toHaveLength(1);
  });
});

test.describe("desktop popups", () => {
  test.use({
    viewport: { width: 1280, height: 800 },
    isMobile: false,
    hasTouch: false,
    userAgent: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  });
  test("the chat opens beside the store in a 350x510 window", async ({ page }) => {
    await page.goto("/cs");
    const [popup] = await Promise.all([page.waitForEvent("popup"), page.getByRole("link", { name: "채팅 상담" }).click()]);
    await popup.waitForLoadState();
    await expect(popup).toHaveURL(/\/conversation$/);
    expect(await popup.evaluate(() => [window.innerWidth, window.innerHeight])).toEqual([350, 510]);
    // The store stays where it was.
    await expect(page).toHaveURL(/\/cs$/);
  });
});

test("on a phone the chat opens in the page itself", async ({ page }) => {
  await page.goto("/cs");
  await page.getByRole("link", { name: "채팅 상담" }).click();
  await expect(page).toHaveURL(/\/conversation$/);
});
