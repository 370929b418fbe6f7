import type { BrowserContext, Page } from "@playwright/test";
import { expect, test } from "./fixtures";

const ANDROID_APP_UA = "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36 SFApp/AA/6.1.0/kr.storefront.app";
const IOS_APP_UA = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 SFApp/IA/3.30.0/kr.storefront.ios";
const ACTIONS = ["login", "goPage", "goSubMainHome", "urlChanged", "setTitle", "showModal", "openViewer", "goFreeCoin", "scrollEnable"];
const LOGIN_MESSAGE = "로그인이 필요한 서비스입니다.";

type Msg = { action: string; data: unknown };
declare global {
  interface Window {
    __bridge: Msg[];
  }
}

/**
 * A fake native bridge of either shape. The messages are kept in session
 * storage, so what a page sent is still there after the next page.goto (the
 * init script runs again on every document).
 */
async function fakeBridge(page: Page, shape: "android" | "ios") {
  await page.addInitScript(
    ({ shape, actions }) => {
      const KEY = "__bridge_log";
      const log: Msg[] = JSON.parse(sessionStorage.getItem(KEY) ?? "[]");
      window.__bridge = log;
      const record = (action: string, data: unknown) => {
        log.push({ action, data });
        sessionStorage.setItem(KEY, JSON.stringify(log));
      };
      if (shape === "android") {
        // addJavascriptInterface-style methods taking JSON strings.
        const obj: Record<string, (json: string) => void> = {};
        for (const a of actions) obj[a] = (json: string) => record(a, JSON.parse(json));
        (window as unknown as { SFAndroid: unknown }).SFAndroid = obj;
      } else {
        // WKWebView: one script message handler per message, taking objects.
        const handlers: Record<string, { postMessage(m: unknown): void }> = {};
        for (const a of actions) handlers[a] = { postMessage: (m: unknown) => record(a, m) };
        (window as unknown as { webkit: unknown }).webkit = { messageHandlers: handlers };
      }
    },
    { shape, actions: ACTIONS },
  );
}

const sent = (page: Page) => page.evaluate(() => window.__bridge);
const sentOf = (page: Page, action: string) => page.evaluate((a) => window.__bridge.filter((m) => m.action === a).map((m) => m.data), action);
const withoutTitles = (page: Page) => page.evaluate(() => window.__bridge.filter((m) => m.action !== "setTitle"));

/** The app's guest (loginType D): the writer's guest login, as the app makes it, leaves its cookies in the context. */
async function appGuest(context: BrowserContext) {
  const res = await context.request.post("/home/api/v1/auth/guest");
  expect(res.status(), await res.text()).toBe(201);
  expect(((await res.json()) as { authInfo: { loginType: string } }).authInfo.loginType).toBe("D");
}

/** A work the visitor can open (not adult). */
async function openWork(page: Page) {
  const list = (await (await page.request.get("/home/api/v1/webtoon/genre/all?size=30&sort=popular")).json()) as { list: { pid: string; isAdult: boolean }[] };
  const w = list.list.find((x) => !x.isAdult);
  expect(w).toBeTruthy();
  return `/webtoon/detail/${w!.pid}`;
}

test.describe("Android app web view", () => {
  test.use({ userAgent: ANDROID_APP_UA });
  test.beforeEach(async ({ page }) => fakeBridge(page, "android"));

  test("error page buttons go through the app; no web-only parts", async ({ page }) => {
    await page.goto("/nuxgin/error/403");
    const err = page.getByTestId("error-page");
    await err.getByRole("button", { name: "홈으로" }).click();
    await err.getByRole("link", { name: /고객센터/ }).click();
    expect(await withoutTitles(page)).toEqual([
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
    await page.locator('a[href="/search"]').first().click();
    await expect(page).toHaveURL(/\/search$/);
    await expect.poll(() => sentOf(page, "urlChanged")).toContainEqual({ url: "/search" });
  });

  test("the app's title bar gets each page's title", async ({ page }) => {
    await page.goto("/cs");
    await expect.poll(() => sentOf(page, "setTitle")).toEqual([{ title: "고객센터" }]);
    await page.locator('a[href="/search"]').first().click();
    await expect(page).toHaveURL(/\/search$/);
    await expect.poll(() => sentOf(page, "setTitle")).toEqual([{ title: "고객센터" }, { title: "검색" }]);
  });

  test("login goes to the app's native login with the return url and the seed's message", async ({ page }) => {
    await page.goto("/adultverification?url=%2Fcs");
    await expect.poll(() => sent(page)).toContainEqual({
      action: "login",
      data: { returnUrl: "/adultverification?url=%2Fcs", message: LOGIN_MESSAGE },
    });
    await expect(page).toHaveURL(/\/adultverification\?url=%2Fcs$/);
  });

  test("a guest's zzim sends the app's login and changes nothing", async ({ page, context }) => {
    await appGuest(context);
    const path = await openWork(page);
    const zzim: string[] = [];
    page.on("request", (r) => r.url().includes("/zzim-add") && zzim.push(r.url()));
    await page.goto(path);
    const zzimButton = page.getByRole("button", { name: "찜", exact: true });
    await zzimButton.click();
    await expect.poll(() => sentOf(page, "login")).toEqual([{ returnUrl: path, message: LOGIN_MESSAGE }]);
    // No modal, no zzim call, no message, still not in zzim, same page.
    await expect(page.getByTestId("confirm-popup")).toHaveCount(0);
    await expect(page.getByTestId("snack-bar")).toHaveCount(0);
    await expect(zzimButton).toBeVisible();
    await expect(zzimButton).toHaveAttribute("aria-pressed", "false");
    await expect(page).toHaveURL(new RegExp(`${path}$`));
    expect(zzim).toEqual([]);
  });
});

test("the free-coin station is the app's: the charge page offers it in the app only", async ({ browser }) => {
  for (const [ua, shape] of [[ANDROID_APP_UA, "android"], [IOS_APP_UA, "ios"]] as const) {
    const ctx = await browser.newContext({ userAgent: ua });
    const page = await ctx.newPage();
    await fakeBridge(page, shape);
    await page.goto("/payment/recharge.asp");
    await page.getByRole("button", { name: "무료 코인 받기" }).click();
    await expect.poll(() => sentOf(page, "goFreeCoin")).toEqual([{}]);
    await ctx.close();
  }
  // On the web there is no such screen, so no button.
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await page.goto("/payment/recharge.asp");
  await expect(page.getByRole("button", { name: /충전하기$/ })).toBeVisible();
  await expect(page.getByRole("button", { name: "무료 코인 받기" })).toHaveCount(0);
  await ctx.close();
});

test.describe("iOS app web view", () => {
  test.use({ userAgent: IOS_APP_UA });
  test.beforeEach(async ({ page }) => fakeBridge(page, "ios"));

  test("error page and login messages in the iOS shape", async ({ page }) => {
    await page.goto("/nuxgin/error/400");
    await page.getByTestId("error-page").getByRole("button", { name: "홈으로" }).click();
    await page.goto("/adultverification");
    await expect.poll(() => withoutTitles(page)).toEqual([
      { action: "goSubMainHome", data: {} },
      { action: "login", data: { returnUrl: "/adultverification", message: LOGIN_MESSAGE } },
    ]);
  });

  test("the first page sends its title only; a route change sends urlChanged and the new title", async ({ page }) => {
    await page.goto("/cs");
    await expect.poll(() => sent(page)).toEqual([{ action: "setTitle", data: { title: "고객센터" } }]);
    await page.locator('a[href="/search"]').first().click();
    await expect(page).toHaveURL(/\/search$/);
    await expect.poll(() => sent(page)).toEqual([
      { action: "setTitle", data: { title: "고객센터" } },
      { action: "urlChanged", data: { url: "/search" } },
      { action: "setTitle", data: { title: "검색" } },
    ]);
  });

  test("a guest's zzim sends the app's login in the iOS shape", async ({ page, context }) => {
    await appGuest(context);
    const path = await openWork(page);
    await page.goto(path);
    const zzimButton = page.getByRole("button", { name: "찜", exact: true });
    await zzimButton.click();
    await expect.poll(() => sentOf(page, "login")).toEqual([{ returnUrl: path, message: LOGIN_MESSAGE }]);
    await expect(zzimButton).toHaveAttribute("aria-pressed", "false");
  });
});
