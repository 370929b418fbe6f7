// Opening the app from a mobile browser (seed §4, §9; issue 25 item 8): the
// detail page's "앱에서 보기" opens the app's link; on iOS, when the app did not
// take over, the app-only message is asked at about 2 s and leads to the App Store.
import { expect, test } from "./fixtures";
import { paidWork, sectionPath } from "./screens-helpers";

const IPHONE_SAFARI =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";
const PROMPT =
  "앱 전용 기능입니다. 앱이 설치되어 있지 않다면 앱스토어에서 설치해 주세요.";

test.describe("iOS web", () => {
  test.use({ userAgent: IPHONE_SAFARI });
  test("the app-only prompt after about 2 s, then the App Store", async ({
    page,
    request,
  }) => {
    const { detail } = await paidWork(request, "comic", false);
    await page.route("https://apps.apple.com/**", (r) =>
      r.fulfill({
        status: 200,
        contentType: "text/html",
        body: "<title>App Store</title>store",
      }),
    );
    await page.clock.install();
    await page.goto(
      `/${sectionPath(detail.prodInfo.section)}/detail/${detail.prodInfo.pid}`,
    );
    await page.getByRole("button", { name: "앱에서 보기" }).click();
    await page.clock.fastForward(1500);
    await expect(page.getByTestId("confirm-popup")).toHaveCount(0);
    await page.clock.fastForward(600);
    const popup = page.getByTestId("confirm-popup");
    await expect(popup).toContainText(PROMPT);
    await popup.getByRole("button", { name: "앱스토어로 이동" }).click();
    await expect(page).toHaveURL(/^https:\/\/apps\.apple\.com\//);
  });
});

test.describe("desktop", () => {
  test.use({
    userAgent:
      "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  });
  test("a desktop browser offers no app", async ({ page, request }) => {
    const { detail } = await paidWork(request, "comic", false);
    await page.goto(
      `/${sectionPath(detail.prodInfo.section)}/detail/${detail.prodInfo.pid}`,
    );
    await expect(page.getByTestId("detail")).toBeVisible();
    await expect(page.getByRole("button", { name: "앱에서 보기" })).toHaveCount(
      0,
    );
  });
});
