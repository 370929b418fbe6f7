import { expect, test } from "./fixtures";

const ANDROID_APP_UA = "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36 SFApp/AA/6.1.0/kr.storefront.app";
const IOS_APP_UA = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 SFApp/IA/3.30.0/kr.storefront.ios";

type Msg = { action: string; data: unknown };
declare global {
  interface Window {
    __bridge: Msg[];
  }
}

test.describe("Android app web view", () => {
  test.use({ userAgent: ANDROID_APP_UA });
  test.beforeEach(async ({ page }) => {
    // A fake native bridge: addJavascriptInterface-style methods taking JSON strings.
    await page.addInitScript(() => {
      window.__bridge = [];
      const actions = ["login", "goPage", "goSubMainHome", "urlChanged", "setTitle", "showModal", "openViewer", "goFreeCoin", "scrollEnable"];
      const obj: Record<string, (json: string) => void> = {};
      for (const a of actions) obj[a] = (json: string) => window.__bridge.push({ action: a, data: JSON.parse(json) });
      (window as unknown as { SFAndroid: unknown }).SFAndroid = obj;
    });
  });

  test("error page buttons go through the app; no web-only parts", async ({ page }) => {
    await page.goto("/nuxgin/error/403");
    const err = page.getByTestId("error-page");
    await err.getByRole("button", { name: "홈으로" }).click();
    await err.getByRole("link", { name: /고객센터/ }).click();
    expect(await page.evaluate(() => window.__bridge)).toEqual([
      { action: "goSubMainHome", data: {} },
      { action: "goPage", data: { url: "/cs/" } },
    ]);
    await expect(page).toHaveURL(/\/nuxgin\/error\/403$/);
    await page.goto("/cs");
    await expect(page.locator("header[data-header]")).toBeVisible();
    await expect(page.getByRole("button", { name: "메뉴 열기" })).toHaveCount(0);
    await expect(page.getByRole("contentinfo")).toHaveCount(0);
    await expect(page.getByTestId("top-banner")).toHaveCount(0);
  });

  test("a route change tells the app the URL changed", async ({ page }) => {
    await page.goto("/cs");
    await page.locator('a[href="/keyword"]').first().click();
    await expect(page).toHaveURL(/\/keyword$/);
    await expect.poll(() => page.evaluate(() => window.__bridge.filter((m) => m.action === "urlChanged").map((m) => m.data))).toContainEqual({ url: "/keyword" });
  });

  test("login goes to the app's native login with the return url and the seed's message", async ({ page }) => {
    await page.goto("/adultverification?url=%2Fcs");
    await expect.poll(() => page.evaluate(() => window.__bridge)).toContainEqual({
      action: "login",
      data: { returnUrl: "/adultverification?url=%2Fcs", message: "로그인이 필요한 서비스입니다." },
    });
    await expect(page).toHaveURL(/\/adultverification\?url=%2Fcs$/);
  });
});

test.describe("iOS app web view", () => {
  test.use({ userAgent: IOS_APP_UA });
  test.beforeEach(async ({ page }) => {
    // A fake WKWebView: one script message handler per message, taking objects.
    await page.addInitScript(() => {
      window.__bridge = [];
      const actions = ["login", "goPage", "goSubMainHome", "urlChanged", "setTitle", "showModal", "openViewer", "goFreeCoin", "scrollEnable"];
      const handlers: Record<string, { postMessage(m: unknown): void }> = {};
      for (const a of actions) handlers[a] = { postMessage: (m: unknown) => window.__bridge.push({ action: a, data: m }) };
      (window as unknown as { webkit: unknown }).webkit = { messageHandlers: handlers };
    });
  });

  test("error page and login messages in the iOS shape", async ({ page }) => {
    await page.goto("/nuxgin/error/400");
    await page.getByTestId("error-page").getByRole("button", { name: "홈으로" }).click();
    await page.goto("/adultverification");
    await expect.poll(() => page.evaluate(() => window.__bridge)).toEqual([
      { action: "login", data: { returnUrl: "/adultverification", message: "로그인이 필요한 서비스입니다." } },
    ]);
  });

  test("the first page sent nothing; a route change sends urlChanged", async ({ page }) => {
    await page.goto("/cs");
    await page.locator('a[href="/keyword"]').first().click();
    await expect.poll(() => page.evaluate(() => window.__bridge)).toEqual([{ action: "urlChanged", data: { url: "/keyword" } }]);
  });
});
