// App versions (seed §5) and the detail page's service-off / payment-off
// states (seed §4), against the real stack: apps below a screen's minimum
// version see the update notice; a preview in an app below 6.0.0 needs login;
// works made with serviceCode 201 / 202 through the writer's admin API offer
// no purchase.
import { randomUUID } from "node:crypto";
import type { APIRequestContext, BrowserContext, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { member, paidWork } from "./members";

const ANDROID = "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36";
const IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148";
const androidApp = (ch: "AA" | "AC" | "AO", v: string) => `${ANDROID} SFApp/${ch}/${v}/kr.storefront.app`;
const iosApp = (v: string) => `${IPHONE} SFApp/IA/${v}/kr.storefront.ios`;
const PLAY = "https://play.google.com/store/apps/details?id=kr.storefront.app";
const APP_STORE = /^https:\/\/apps\.apple\.com\//;
const LOGIN_MESSAGE = "로그인이 필요한 서비스입니다.";
const ADMIN_TOKEN = process.env.ADMIN_TOKEN ?? "dev-admin-token";

type Msg = { action: string; data: unknown };
declare global {
  interface Window {
    __bridge: Msg[];
  }
}

/** A fake Android bridge recording every message (kept in session storage across documents). */
async function fakeAndroidBridge(page: Page) {
  await page.addInitScript(() => {
    const KEY = "__bridge_log";
    const log: Msg[] = JSON.parse(sessionStorage.getItem(KEY) ?? "[]");
    window.__bridge = log;
    const obj: Record<string, (json: string) => void> = {};
    for (const a of ["login", "goPage", "goSubMainHome", "urlChanged", "setTitle", "showModal", "openViewer", "goFreeCoin", "scrollEnable"])
      obj[a] = (json: string) => {
        log.push({ action: a, data: JSON.parse(json) });
        sessionStorage.setItem(KEY, JSON.stringify(log));
      };
    (window as unknown as { SFAndroid: unknown }).SFAndroid = obj;
  });
}
const sentOf = (page: Page, action: string) => page.evaluate((a) => window.__bridge.filter((m) => m.action === a).map((m) => m.data), action);

const notice = (page: Page) => page.getByTestId("app-update");

test.describe("product home: minimum app versions", () => {
  test.describe("Android app 1.2.9 (minimum 1.3.0)", () => {
    test.use({ userAgent: androidApp("AA", "1.2.9") });
    test("shows the update notice with the Play store link instead of the home, and loads no home", async ({ page }) => {
      const homeCalls: string[] = [];
      page.on("request", (r) => r.url().includes("/home/api/v1/home") && homeCalls.push(r.url()));
      await page.route("https://play.google.com/**", (r) => r.fulfill({ status: 200, contentType: "text/html", body: "<title>store</title>store" }));
      await page.goto("/");
      await expect(notice(page)).toBeVisible();
      await expect(page.getByRole("heading", { name: "앱 업데이트가 필요합니다" })).toBeVisible();
      await expect(notice(page)).toContainText("업데이트해 주세요");
      await expect(page.locator('a[href*="/detail/"]')).toHaveCount(0);
      expect(homeCalls).toEqual([]);
      const link = page.getByRole("link", { name: "앱 업데이트하기" });
      await expect(link).toHaveAttribute("href", PLAY);
      await link.click();
      await expect(page).toHaveURL(PLAY);
    });
  });

  test.describe("Android app 1.3.0", () => {
    test.use({ userAgent: androidApp("AA", "1.3.0") });
    test("at the minimum the home shows", async ({ page }) => {
      await page.goto("/");
      await expect(page.locator('a[href*="/detail/"]').first()).toBeVisible();
      await expect(notice(page)).toHaveCount(0);
    });
  });
});

test.describe("conversation: minimum app versions", () => {
  test.describe("iOS app 3.25.0 (minimum 3.26.0)", () => {
    test.use({ userAgent: iosApp("3.25.0") });
    test("shows the update notice with the App Store link instead of the conversation", async ({ page }) => {
      await page.goto("/conversation");
      await expect(notice(page)).toBeVisible();
      await expect(page.getByRole("link", { name: "앱 업데이트하기" })).toHaveAttribute("href", APP_STORE);
      await expect(page.getByRole("heading", { name: "상담" })).toHaveCount(0);
    });
  });

  test.describe("iOS app 3.26.0", () => {
    test.use({ userAgent: iosApp("3.26.0") });
    test("at the minimum the conversation shows", async ({ page }) => {
      await page.goto("/conversation");
      await expect(page.getByRole("region", { name: "상담" })).toBeVisible();
      await expect(notice(page)).toHaveCount(0);
    });
  });

  test.describe("Android one-store app 1.5.6 (minimum 1.5.7)", () => {
    test.use({ userAgent: androidApp("AO", "1.5.6") });
    test("shows the update notice", async ({ page }) => {
      await page.goto("/conversation");
      await expect(notice(page)).toBeVisible();
      await expect(page.getByRole("link", { name: "앱 업데이트하기" })).toHaveAttribute("href", /^https:\/\//);
    });
  });
});

/** The paid volume of a work and the way to its preview on the detail page. */
async function openPreviewFromDetail(page: Page, request: APIRequestContext) {
  const { detail, vol } = await paidWork(request, "webtoon");
  const pid = detail.prodInfo.pid;
  await page.goto(`/webtoon/detail/${pid}?tab=V`);
  await page.locator(`[data-testid="vol"][data-no="${vol.no}"]`).click();
  await page.getByTestId("unlock-sheet").locator('[data-kind="preview"]').click();
  return { pid, no: vol.no, viewer: `/viewer?pid=${encodeURIComponent(pid)}&no=${vol.no}` };
}

async function appGuest(context: BrowserContext) {
  const res = await context.request.post("/home/api/v1/auth/guest");
  expect(res.status(), await res.text()).toBe(201);
}

test.describe("preview in an app below 6.0.0 needs login", () => {
  test.use({ userAgent: androidApp("AA", "5.9.0") });
  test.beforeEach(async ({ page }) => fakeAndroidBridge(page));

  test("a visitor's preview from the detail page asks to log in; login is the app's, back to the preview", async ({ page, request }) => {
    const { pid, viewer } = await openPreviewFromDetail(page, request);
    const popup = page.getByTestId("confirm-popup");
    await expect(popup).toContainText(LOGIN_MESSAGE);
    await expect(page).toHaveURL(new RegExp(`/webtoon/detail/${pid}`));
    await popup.getByRole("button", { name: "로그인" }).click();
    await expect.poll(() => sentOf(page, "login")).toEqual([{ returnUrl: viewer, message: LOGIN_MESSAGE }]);
    await expect(page.getByTestId("viewer")).toHaveCount(0);
  });

  test("a guest's preview goes straight to the app's login", async ({ page, context, request }) => {
    await appGuest(context);
    const { pid, viewer } = await openPreviewFromDetail(page, request);
    await expect.poll(() => sentOf(page, "login")).toEqual([{ returnUrl: viewer, message: LOGIN_MESSAGE }]);
    await expect(page.getByTestId("confirm-popup")).toHaveCount(0);
    await expect(page).toHaveURL(new RegExp(`/webtoon/detail/${pid}`));
  });

  test("the viewer opened directly on a paid volume asks a visitor to log in and shows no pages", async ({ page, request }) => {
    const { detail, vol } = await paidWork(request, "webtoon");
    const viewer = `/viewer?pid=${encodeURIComponent(detail.prodInfo.pid)}&no=${vol.no}`;
    await page.goto(viewer);
    await expect(page.getByTestId("preview-login")).toBeVisible();
    await expect(page.getByTestId("confirm-popup")).toContainText(LOGIN_MESSAGE);
    await expect(page.getByTestId("viewer")).toHaveCount(0);
    await page.getByTestId("confirm-popup").getByRole("button", { name: "로그인" }).click();
    await expect.poll(() => sentOf(page, "login")).toEqual([{ returnUrl: viewer, message: LOGIN_MESSAGE }]);
  });

  test("a member previews in the web viewer", async ({ page, context, request }) => {
    await member(context);
    await openPreviewFromDetail(page, request);
    await expect(page.getByTestId("viewer")).toHaveAttribute("data-mode", "preview");
    expect(await sentOf(page, "login")).toEqual([]);
  });
});

test.describe("preview in a browser", () => {
  test("a visitor previews without login", async ({ page, request }) => {
    await openPreviewFromDetail(page, request);
    await expect(page.getByTestId("viewer")).toHaveAttribute("data-mode", "preview");
    await expect(page.getByTestId("confirm-popup")).toHaveCount(0);
  });
});

/** A work made through the writer's admin API with a detail header code; answers once the edge serves it. */
async function workWithServiceCode(request: APIRequestContext, serviceCode: 201 | 202 | 203) {
  const pid = `svc${serviceCode}-${randomUUID().slice(0, 8)}`;
  const res = await request.post("/admin/api/v1/works", {
    headers: { Authorization: `Bearer ${ADMIN_TOKEN}` },
    data: {
      pid,
      section: "WT",
      title: `서비스 코드 ${serviceCode}`,
      genreId: "21",
      age: 0,
      serviceCode,
      authors: [{ authorName: "작가", isWriter: true }],
      volumes: [
        { no: 1, title: "1화", isFree: true, pages: 4, previewPages: 4 },
        { no: 2, title: "2화", buyPrice: 100, rentPrice: 50, pages: 6, previewPages: 2 },
        { no: 3, title: "3화", buyPrice: 100, rentPrice: 50, pages: 6, previewPages: 2 },
      ],
    },
  });
  expect(res.status(), await res.text()).toBe(201);
  await expect
    .poll(async () => {
      const r = await request.get(`/home/api/v1/products/${pid}`);
      return r.ok() ? ((await r.json()) as { header: { code: number } }).header.code : r.status();
    }, { timeout: 30_000 })
    .toBe(serviceCode);
  return pid;
}

test.describe("detail page: service off and payment off", () => {
  test("payment off (202): the state is shown and nothing is sold", async ({ page, context, request }) => {
    const pid = await workWithServiceCode(request, 202);
    await member(context);
    await page.goto(`/webtoon/detail/${pid}?tab=V`);
    await expect(page.getByTestId("state-banner")).toContainText("결제가 중지된 작품입니다");
    await expect(page.getByRole("button", { name: "전체 소장" })).toHaveCount(0);
    await expect(page.getByRole("button", { name: "전체 대여" })).toHaveCount(0);
    await page.locator('[data-testid="vol"][data-no="2"]').click();
    const sheet = page.getByTestId("unlock-sheet");
    await expect(sheet).toBeVisible();
    await expect(sheet).toContainText("지금은 이 회차를 열 수 없습니다.");
    await expect(sheet.locator('[data-kind="buy"], [data-kind="rent"], [data-kind="ticket"]')).toHaveCount(0);
  });

  test("service off (201): the state is shown, nothing is sold and no volume opens to buy", async ({ page, context, request }) => {
    const pid = await workWithServiceCode(request, 201);
    await member(context);
    await page.goto(`/webtoon/detail/${pid}?tab=V`);
    await expect(page.getByTestId("state-banner")).toContainText("서비스가 중지된 작품입니다");
    await expect(page.getByRole("button", { name: "전체 소장" })).toHaveCount(0);
    await expect(page.getByRole("button", { name: "전체 대여" })).toHaveCount(0);
    await page.locator('[data-testid="vol"][data-no="2"]').click();
    await expect(page.getByTestId("floating-message")).toHaveText("서비스가 중지된 작품입니다.");
    await expect(page.getByTestId("unlock-sheet")).toHaveCount(0);
  });
});
