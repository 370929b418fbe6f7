import { becomeAnalyst, report } from "./analyst";
import { expect, test } from "./fixtures";

declare global {
  interface Window {
    __beaconUrls: string[];
    __beaconBodies: string[];
  }
}

type Sent = { id: string; type: string; url: string; referrer?: string; pid?: string; section?: string; genreId?: string; vol?: number };

test("queued page views leave by sendBeacon when the page hides; product detail sends its view_content instead of a page view", async ({ page }) => {
  // Record which batches left by sendBeacon (the real call still happens).
  await page.addInitScript(() => {
    window.__beaconUrls = [];
    window.__beaconBodies = [];
    const orig = navigator.sendBeacon.bind(navigator);
    navigator.sendBeacon = (url: string | URL, data?: BodyInit | null) => {
      window.__beaconUrls.push(String(url));
      if (data instanceof Blob) void data.text().then((t) => window.__beaconBodies.push(t));
      return orig(url, data);
    };
  });
  const bodies: string[] = [];
  page.on("request", (r) => {
    if (r.url().endsWith("/home/api/v1/tracking/events") && r.method() === "POST") bodies.push(r.postData() ?? "");
  });
  // Time stands still, so the 5 s batch timer cannot fire before the page hides.
  await page.clock.install();
  await page.clock.pauseAt(Date.now() + 1000);
  await page.goto("/");
  await page.getByTestId("product-item").first().getByRole("link").click();
  await expect(page).toHaveURL(/\/detail\//);
  await expect(page.getByTestId("detail")).toBeVisible();
  const detailPath = new URL(page.url()).pathname;
  await page.goBack();
  await expect(page).toHaveURL(/\/$/);
  await page.locator('a[href="/search"]').first().click();
  await expect(page).toHaveURL(/\/search$/);
  // Hide the page: what is still queued leaves by sendBeacon.
  await page.evaluate(() => {
    Object.defineProperty(document, "visibilityState", { value: "hidden", configurable: true });
    document.dispatchEvent(new Event("visibilitychange"));
  });
  const events = async () => [...bodies.filter((b) => b !== ""), ...(await page.evaluate(() => window.__beaconBodies))].flatMap((b) => (JSON.parse(b) as { events: Sent[] }).events);
  await expect.poll(async () => (await events()).map((e) => `${e.type} ${e.url}`)).toEqual(["page_view /", `view_content ${detailPath}`, "page_view /", "page_view /search"]);
  // The detail view names the work and where the reader came from.
  const view = (await events())[1];
  expect(view).toMatchObject({ pid: decodeURIComponent(detailPath.split("/").pop()!), referrer: "/" });
  expect(view.section).toMatch(/^(WT|CM|EB)$/);
  expect(await page.evaluate(() => window.__beaconUrls)).toEqual(["/home/api/v1/tracking/events"]);
  // The beacon really went out to the edge.
  await expect.poll(() => bodies.length).toBe(1);
});

test("page views go out in a batch after 5 s without a page hide", async ({ page }) => {
  const bodies: string[] = [];
  page.on("request", (r) => {
    if (r.url().endsWith("/home/api/v1/tracking/events") && r.method() === "POST") bodies.push(r.postData() ?? "");
  });
  const answered = page.waitForResponse((r) => r.url().endsWith("/home/api/v1/tracking/events"));
  await page.goto("/cs");
  expect((await answered).status()).toBe(200);
  const events = bodies.flatMap((b) => (JSON.parse(b) as { events: { url: string }[] }).events.map((e) => e.url));
  expect(events[0]).toBe("/cs");
});

type Top = { works: { pid: string; section: string; genreId: string; views: number }[] };
type Funnel = { steps: { step: string; reached: number; through: number }[] };
type Detail = { header: { code: number }; prodInfo: { pid: string; section: string; genreId?: string; isAdult: boolean }; volList: { no: number; isFree: boolean; pages: number }[] };

test("a detail open is one view_content the edge stores and analytics counts; tabs add none; the viewer is a page view", async ({ page, request }) => {
  await becomeAnalyst(request); // reads the reports
  const day = new Date(Date.now() + 9 * 3600 * 1000).toISOString().slice(0, 10);
  // What the page sent and what the edge answered (the ids it stored).
  const sent: Sent[] = [];
  const stored: string[] = [];
  page.on("response", async (r) => {
    if (!r.url().endsWith("/home/api/v1/tracking/events") || r.request().method() !== "POST") return;
    sent.push(...(JSON.parse(r.request().postData() ?? "{}") as { events: Sent[] }).events);
    try {
      if (r.status() === 200) stored.push(...((await r.json()) as { event_ids: string[] }).event_ids);
    } catch {
      // an answer the page left behind: its events count as not confirmed
    }
  });

  // The funnel's list step, then a work from the far end of the page (other
  // specs open the popular ones) that has a free volume to read.
  await page.goto("/comic");
  await expect(page.getByTestId("product-item").first()).toBeVisible();
  const hrefs = await page.locator('[data-testid=product-item] a[href*="/detail/"]').evaluateAll((as) => as.map((a) => a.getAttribute("href") ?? ""));
  let d: Detail | undefined;
  for (const h of [...new Set(hrefs)].reverse()) {
    const x = (await (await request.get(`/home/api/v1/products/${h.split("/").pop()}`)).json()) as Detail;
    if (x.header.code === 200 && !x.prodInfo.isAdult && x.volList.some((v) => v.isFree && v.pages > 0)) {
      d = x;
      break;
    }
  }
  expect(d, "a comic with a free volume on /comic").toBeTruthy();
  const { pid, section, genreId } = d!.prodInfo;
  expect(genreId, "the edge gives the work's genre").toBeTruthy();
  const free = d!.volList.find((v) => v.isFree && v.pages > 0)!;
  const views = async () => (await report<Top>(request, `top-works?from=${day}&to=${day}&by=views&section=${section}&limit=500`)).works.find((w) => w.pid === pid)?.views ?? 0;
  const through = async () => Object.fromEntries((await report<Funnel>(request, `funnel?from=${day}&to=${day}`)).steps.map((s) => [s.step, s.through]));
  const viewsBefore = await views();
  const funnelBefore = await through();

  await page.locator(`[data-testid=product-item] a[href="/comic/detail/${pid}"]`).first().click();
  await expect(page.getByTestId("detail")).toBeVisible();
  await page.getByRole("tab", { name: /리뷰/ }).click();
  await page.getByRole("tab", { name: /회차/ }).click();
  await page.locator(`[data-testid=vol][data-no="${free.no}"]`).click();
  await expect(page).toHaveURL(new RegExp(`/viewer\\?pid=${pid}&no=${free.no}`));
  await expect(page.getByTestId("viewer")).toBeVisible();

  // Batches leave every 5 s: wait until the edge has answered for the viewer's page view.
  const viewer = () => sent.find((e) => e.type === "page_view" && e.url.startsWith(`/viewer?pid=${pid}`));
  await expect.poll(() => !!viewer() && stored.includes(viewer()!.id), { timeout: 20_000 }).toBe(true);
  const contentViews = sent.filter((e) => e.type === "view_content");
  expect(contentViews).toEqual([{ id: expect.any(String), type: "view_content", curPageUrl: `/comic/detail/${pid}`, url: `/comic/detail/${pid}`, referrer: "/comic", pid, section, genreId, props: { channel: "AW" } }]);
  expect(stored).toContain(contentViews[0].id);
  // seed §4: still no page view of the detail page, whichever tab
  expect(sent.filter((e) => e.type === "page_view" && e.url.includes("/detail/"))).toEqual([]);

  // Analytics counts it: a view of the work in top works, and this visit went list -> detail -> viewer.
  await expect.poll(views, { timeout: 30_000 }).toBeGreaterThanOrEqual(viewsBefore + 1);
  const top = (await report<Top>(request, `top-works?from=${day}&to=${day}&by=views&section=${section}&limit=500`)).works.find((w) => w.pid === pid)!;
  expect(top).toMatchObject({ section, genreId });
  await expect
    .poll(async () => {
      const f = await through();
      return [f.detail - funnelBefore.detail >= 1, f.viewer - funnelBefore.viewer >= 1];
    }, { timeout: 30_000 })
    .toEqual([true, true]);
});
