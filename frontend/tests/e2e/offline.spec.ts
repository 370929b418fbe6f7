// The installable, offline-capable store (issue 19 item 2) in Chromium with
// its service worker for real: every test here runs the worker the build
// made, against the real stack; the network is cut with context.setOffline.
import { randomUUID } from "node:crypto";
import type { Page } from "@playwright/test";
import { expect, openMenu, test } from "./fixtures";
import { member, paidWork } from "./members";

// Requests the cut network refuses show in the console as failed loads (the
// worker's failed ones as ERR_FAILED).
test.use({ allowConsole: [/Failed to load resource: net::ERR_(INTERNET_DISCONNECTED|FAILED)/] });

/** controlled opens path and waits until the store's worker controls the page (installed, then a reload). */
async function controlled(page: Page, path = "/") {
  await page.goto(path);
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
  await page.reload();
  await expect.poll(() => page.evaluate(() => !!navigator.serviceWorker.controller)).toBe(true);
}

test("installable: a Korean manifest with icons, the worker and the manifest never cached long", async ({ request }) => {
  const res = await request.get("/manifest.webmanifest");
  expect(res.headers()["content-type"]).toContain("application/manifest+json");
  expect(res.headers()["cache-control"]).toBe("no-cache");
  const m = (await res.json()) as { name: string; short_name: string; start_url: string; scope: string; display: string; theme_color: string; background_color: string; icons: { src: string; sizes: string; purpose: string }[] };
  expect(m).toMatchObject({ name: "블루페이지", short_name: "블루페이지", start_url: "/", scope: "/", display: "standalone", theme_color: "#ffffff", background_color: "#ffffff" });
  for (const [sizes, purpose] of [["192x192", "any"], ["512x512", "any"], ["192x192", "maskable"], ["512x512", "maskable"]]) {
    const icon = m.icons.find((i) => i.sizes === sizes && i.purpose === purpose);
    expect(icon, `${sizes} ${purpose}`).toBeTruthy();
    const png = await request.get(icon!.src);
    expect(png.headers()["content-type"]).toBe("image/png");
  }
  const sw = await request.get("/sw.js");
  expect(sw.headers()["cache-control"]).toBe("no-cache");
  expect(sw.headers()["content-type"]).toContain("javascript");
});

test("offline: the app shell and a visited list open; a list never visited shows the offline page (40)", async ({ page, context }) => {
  await controlled(page, "/webtoon/best");
  const items = page.getByTestId("product-item");
  await expect(items.first()).toBeVisible();
  const titles = await items.getByTestId("product-title").allTextContents();
  await page.goto("/");
  await expect(page.getByTestId("product-item").first()).toBeVisible();

  await context.setOffline(true);
  await page.goto("/webtoon/best");
  await expect(page.getByTestId("error-page")).toHaveCount(0);
  await expect(items.getByTestId("product-title")).toHaveText(titles);
  await page.goto("/");
  await expect(page.getByTestId("product-item").first()).toBeVisible();
  await expect(page.getByTestId("error-page")).toHaveCount(0);

  // Nothing cached for this list: the seed's offline page, its retry reloads once the network is back.
  await page.goto("/comic/best");
  const err = page.getByTestId("error-page");
  await expect(err).toHaveAttribute("data-status", "40");
  await expect(err.getByRole("heading", { name: "오프라인 상태입니다" })).toBeVisible();
  await context.setOffline(false);
  await err.getByRole("button", { name: "다시 시도" }).click();
  await expect(page.getByTestId("product-item").first()).toBeVisible();
});

test("a new release waits for the reader: the update prompt, and no reload until they say so", async ({ page }) => {
  await controlled(page, "/webtoon/best");
  // The next release's worker: a worker script the registration has not run
  // yet. (A changed /sw.js cannot be served here: the browser fetches the
  // worker's script itself, past Playwright's routing; another address of the
  // same script is, for the browser, a new worker like a new build's.)
  const next = "/sw.js?release=next";
  await page.evaluate((u) => navigator.serviceWorker.register(u, { scope: "/" }).then(() => undefined), next);
  const prompt = page.getByTestId("update-prompt");
  await expect(prompt).toContainText("새 버전이 있습니다. 새로고침하면 적용됩니다.");
  // Not applied behind the reader's back: the page stays, the old worker still controls it.
  await page.evaluate(() => ((window as unknown as { __kept: number }).__kept = 1));
  await page.waitForTimeout(1500);
  expect(await page.evaluate(() => (window as unknown as { __kept?: number }).__kept)).toBe(1);
  expect(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL)).not.toContain(next);
  // Later: the prompt goes, nothing else happens.
  await prompt.getByRole("button", { name: "나중에" }).click();
  await expect(prompt).toHaveCount(0);
  expect(await page.evaluate(() => (window as unknown as { __kept?: number }).__kept)).toBe(1);

  // The next page load offers it again; applying it reloads into the new
  // release: nothing waits any more, and nothing is offered.
  await page.reload();
  await expect(prompt).toBeVisible();
  const waiting = () => page.evaluate(() => navigator.serviceWorker.getRegistration().then((r) => !!r?.waiting));
  expect(await waiting()).toBe(true);
  const reloaded = page.waitForEvent("framenavigated");
  await prompt.getByRole("button", { name: "새로고침" }).click();
  await reloaded;
  await expect.poll(waiting).toBe(false);
  await expect(page.getByTestId("product-item").first()).toBeVisible();
  await expect(prompt).toHaveCount(0);
});

test("a bought volume saved for offline opens with the network cut; logout in another tab clears it", async ({ page, context }) => {
  const { detail, vol } = await paidWork(page.request, "webtoon");
  const pid = detail.prodInfo.pid;
  await member(page);
  expect((await page.request.post("/home/api/v1/wallet/join-bonus")).status()).toBe(200);
  const buy = await page.request.post("/home/api/v1/purchases", { data: { pid, vols: [vol.no], buyType: "B" }, headers: { "Idempotency-Key": randomUUID() } });
  expect(buy.status(), await buy.text()).toBe(200);
  const at = `/viewer?pid=${pid}&no=${vol.no}`;
  await controlled(page, at);
  const viewer = page.getByTestId("viewer");
  await expect(viewer).toHaveAttribute("data-mode", "full");
  const pageCount = await page.getByTestId("page").count();
  expect(pageCount).toBeGreaterThan(0);

  await page.getByRole("button", { name: "보기 설정" }).click();
  const box = page.getByTestId("offline-save");
  await box.getByRole("button", { name: "오프라인 저장" }).click();
  await expect(page.getByText("오프라인 저장되었습니다.")).toBeVisible();
  await expect(box).toHaveAttribute("data-saved", "true");
  await expect(box).toContainText("오프라인 저장됨");
  // The space it takes: our own count against the limit, and the browser's estimate.
  await expect(page.getByTestId("offline-usage")).toContainText(/저장한 회차 1개 · [\d.]+(KB|MB) \/ 200\.0MB · 이 사이트의 기기 저장 공간 /);

  await context.setOffline(true);
  await page.goto(at);
  await expect(viewer).toHaveAttribute("data-mode", "full");
  const pages = page.getByTestId("page");
  await expect(pages).toHaveCount(pageCount);
  for (let i = 0; i < pageCount; i++) {
    await pages.nth(i).scrollIntoViewIfNeeded();
    await expect.poll(() => pages.nth(i).evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
  }
  await context.setOffline(false);
  // (Off the viewer first: it sends the reading place as it leaves, which a
  // session already ended would refuse with a 401.)
  await page.goto("/cs");

  // Logout in another tab: this tab follows it (storage key 'logout') and the saved copy goes with the session.
  const other = await context.newPage();
  await other.goto("/cs");
  const side = await openMenu(other);
  await side.getByRole("button", { name: "로그아웃" }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect.poll(() => page.evaluate(() => caches.has("sf-saved"))).toBe(false);
  expect(await page.evaluate(() => localStorage.getItem("sf_saved_volumes"))).toBeNull();
  await context.setOffline(true);
  await page.goto(at);
  await expect(page.getByTestId("error-page")).toHaveAttribute("data-status", "40");
});
