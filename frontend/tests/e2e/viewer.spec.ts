import { expect, test } from "./fixtures";
import { member, paidWork } from "./members";

test("webtoon: the width setting narrows the strip and is remembered; auto-scroll moves the strip by itself and stops at 0", async ({ page, request }) => {
  const { detail, free } = await paidWork(request, "webtoon");
  await member(page);
  const viewer = `/viewer?pid=${detail.prodInfo.pid}&no=${free.no}`;
  await page.goto(viewer);
  await expect(page.getByTestId("page")).toHaveCount(free.pages);
  const strip = page.getByTestId("page").first().locator("..");
  await expect(strip).toHaveAttribute("style", /width: 100%/);

  await page.getByRole("button", { name: "보기 설정" }).click();
  await page.getByLabel("화면 폭").fill("60");
  await expect(strip).toHaveAttribute("style", /width: 60%/);
  const full = await page.evaluate(() => document.documentElement.clientWidth);
  const img = await page.getByTestId("page").first().boundingBox();
  expect(img!.width).toBeLessThan(full * 0.65);
  expect(await page.evaluate(() => localStorage.getItem("sf_wt_width"))).toBe("60");
  await page.reload();
  await expect(page.getByTestId("page").first().locator("..")).toHaveAttribute("style", /width: 60%/);

  // Auto-scroll: the page moves without input, then holds still at speed 0.
  await page.getByRole("button", { name: "보기 설정" }).click();
  const y0 = await page.evaluate(() => window.scrollY);
  await page.getByLabel("자동 스크롤 속도").fill("4");
  await expect.poll(() => page.evaluate(() => window.scrollY), { timeout: 10_000 }).toBeGreaterThan(y0 + 200);
  await page.getByLabel("자동 스크롤 속도").fill("0");
  const y1 = await page.evaluate(() => window.scrollY);
  await page.waitForTimeout(700);
  expect(await page.evaluate(() => window.scrollY)).toBeLessThanOrEqual(y1 + 1);
});

test("comic: a wide landscape screen shows two pages side by side and turns by spreads; portrait shows one", async ({ page, request }) => {
  const { detail, free } = await paidWork(request, "comic");
  test.skip(free.pages < 4, "the demo comic's free volume is too short for two spreads");
  await member(page);
  await page.setViewportSize({ width: 1024, height: 600 });
  await page.goto(`/viewer?pid=${detail.prodInfo.pid}&no=${free.no}`);
  const spread = page.getByTestId("comic-page");
  await expect(spread).toHaveAttribute("data-page", "0");
  await expect(spread.getByTestId("page")).toHaveCount(2);
  await expect(spread.getByAltText("1쪽")).toBeVisible();
  await expect(spread.getByAltText("2쪽")).toBeVisible();
  await page.getByRole("button", { name: "다음 쪽" }).click();
  await expect(spread).toHaveAttribute("data-page", "1");
  await expect(spread.getByAltText("3쪽")).toBeVisible();
  await expect(spread.getByAltText("4쪽")).toBeVisible();

  // Turned to portrait: one page at a time, still on page 3.
  await page.setViewportSize({ width: 412, height: 915 });
  await expect(spread.getByTestId("page")).toHaveCount(1);
  await expect(spread.getByAltText("3쪽")).toBeVisible();
});
