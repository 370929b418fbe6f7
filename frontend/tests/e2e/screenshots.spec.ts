import { test, expect } from "./fixtures";
import { member, paidWork } from "./members";

// Screenshots of the main screens at 360x800 in light and dark, for people to
// look at (in <output dir>/screens/, test-results/ by default, git-ignored). The theme comes from the shell's
// theme cookie (sf_theme) and the colour scheme.
test.use({ viewport: { width: 360, height: 800 } });

for (const theme of ["light", "dark"] as const) {
  test(`screens in ${theme}`, async ({ page, request, context, baseURL }) => {
    test.setTimeout(120_000);
    await page.emulateMedia({ colorScheme: theme });
    await context.addCookies([{ name: "theme", value: theme, url: baseURL! }, { name: "sf_theme", value: theme, url: baseURL! }]);
    // under the run's output folder (E2E_OUTPUT_DIR, default test-results)
    const dir = `${test.info().project.outputDir}/screens/${theme}`;
    const shot = async (name: string) => {
      await page.waitForLoadState("networkidle").catch(() => {});
      await page.screenshot({ path: `${dir}/${name}.png` });
    };
    await page.goto("/");
    await expect(page.getByTestId("product-item").first()).toBeVisible();
    await shot("home");
    await page.goto("/webtoon/genre/21");
    await expect(page.getByTestId("product-item").first()).toBeVisible();
    await shot("genre");
    await page.goto("/ranking");
    await expect(page.getByTestId("rank").first()).toBeVisible();
    await shot("ranking");
    const { detail, free } = await paidWork(request, "webtoon");
    await page.goto(`/webtoon/detail/${detail.prodInfo.pid}`);
    await expect(page.getByTestId("detail")).toBeVisible();
    await shot("detail");
    await page.getByRole("tab", { name: /회차/ }).click();
    await shot("detail-volumes");
    await page.goto("/bluerun");
    await expect(page.getByTestId("event").first().locator("img").first()).toBeVisible();
    await shot("event");
    await page.goto("/nuxgin");
    await shot("login");
    await page.goto("/this/page/does/not/exist");
    await shot("error-404");
    await member(page);
    await page.goto(`/webtoon/detail/${detail.prodInfo.pid}?tab=V`);
    const paid = detail.volList.find((v) => !v.isFree)!;
    await page.locator(`[data-testid=vol][data-no="${paid.no}"]`).click();
    await expect(page.getByTestId("unlock-sheet")).toBeVisible();
    await shot("unlock-sheet");
    await page.goto(`/viewer?pid=${detail.prodInfo.pid}&no=${free.no}`);
    await expect(page.getByTestId("page").first()).toBeVisible();
    await shot("viewer-webtoon");
    const nv = await paidWork(request, "novel");
    await page.goto(`/viewer?pid=${nv.detail.prodInfo.pid}&no=${nv.free.no}`);
    await expect(page.getByTestId("novel-text")).not.toBeEmpty();
    await shot("viewer-novel");
  });
}
