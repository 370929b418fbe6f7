// Opening the app from a mobile browser (seed §4, §9; issue 25 item 8): the
// detail page's "앱에서 보기" opens the app's link; on iOS, when the app did not
// take over, the app-only message is asked at about 2 s (its way to the App Store and
// the 4 s window are unit-tested in app/shell/shell.test.ts).
import { expect, test } from "./fixtures";
import { paidWork, sectionPath } from "./members";

const IPHONE_SAFARI =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";
const PROMPT =
  "앱 전용 기능입니다. 앱이 설치되어 있지 않다면 앱스토어에서 설치해 주세요.";

test.describe("iOS web", () => {
  test.use({ userAgent: IPHONE_SAFARI });
  test("the app-only prompt at about 2 s offers the App Store", async ({
    page,
    request,
  }) => {
    const { detail } = await paidWork(request, "comic", false);
    await page.clock.install();
    await page.goto(`/${sectionPath(detail.prodInfo.section)}/detail/${detail.prodInfo.pid}`);
    await page.getByRole("button", { name: "앱에서 보기" }).click();
    // The app did not take over (no app here): at about 2 s the app-only message.
    await page.clock.fastForward(2100);
    const popup = page.getByTestId("confirm-popup");
    await expect(popup).toContainText(PROMPT);
    await expect(popup.getByRole("button", { name: "앱스토어로 이동" })).toBeVisible();
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
