// What a reader meets in the first minutes (issues 24 and 25): the interests
// sheet, the release day, Korean and tidy pages, the seed's grid, the detail's
// place kept, the chat's states.
import type { Page } from "@playwright/test";
import { expect, signup, test } from "./fixtures";
import { paidWork } from "./screens-helpers";

/** Two animation frames: what a resolved call sets has been drawn by then. */
const frames = (page: Page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

test("the interests sheet names the catalog's genres and never covers the unlock sheet the member opened", async ({ page, request }) => {
  const { detail, vol } = await paidWork(request, "webtoon");
  await signup(page);
  // The sheet's first call is held until the member has opened a sheet of theirs.
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  await page.route("**/home/api/v1/users/interests/genres/exists", async (route) => {
    await held;
    await route.continue();
  });
  await page.goto(`/webtoon/detail/${detail.prodInfo.pid}?tab=V`);
  await page.locator(`[data-testid=vol][data-no="${vol.no}"]`).click();
  const unlock = page.getByTestId("unlock-sheet");
  await expect(unlock).toBeVisible();

  const names = page.waitForResponse((r) => r.url().endsWith("/home/api/v1/genres"));
  const choices = page.waitForResponse((r) => r.url().endsWith("/home/api/v1/users/interests/genres") && r.request().method() === "GET");
  release();
  await Promise.all([names, choices]);
  await frames(page);
  await expect(page.getByTestId("interests-sheet")).toHaveCount(0);
  await expect(unlock).toBeVisible();

  // Once the member closes theirs, the interests sheet comes, with names.
  await page.goBack();
  await expect(unlock).toHaveCount(0);
  const sheet = page.getByTestId("interests-sheet");
  await expect(sheet).toBeVisible();
  const catalog = (await (await request.get("/home/api/v1/genres")).json()) as { genres: { name: string }[] };
  const chips = sheet.locator("button[aria-pressed]");
  await expect(chips).toHaveText(catalog.genres.map((g) => g.name));
  for (const name of ["무협", "로맨스판타지", "일상", "학원", "스포츠"]) await expect(sheet.getByRole("button", { name, exact: true })).toBeVisible();
  for (const text of await chips.allTextContents()) expect(text).not.toMatch(/^\d+$/);
  // Back closes it, and the page stays.
  await page.goBack();
  await expect(sheet).toHaveCount(0);
  await expect(page).toHaveURL(new RegExp(`/webtoon/detail/${detail.prodInfo.pid}`));
});
