// The admin analytics screen against the real store: events posted to the edge
// go through JetStream and analytics into ClickHouse, and the screen shows the
// reports the edge forwards from analytics.
import { randomUUID } from "node:crypto";
import type { APIRequestContext } from "@playwright/test";
import { expect, test } from "./fixtures";
import { PW, newEmail } from "./screens-helpers";

const TOKEN = process.env.ADMIN_TOKEN ?? "dev-admin-token";
const KST_MS = 9 * 3600 * 1000;

/** The current KST day and hour, as the screen's query wants them. */
function kstNow() {
  const k = new Date(Date.now() + KST_MS).toISOString();
  return { day: k.slice(0, 10), hour: `${k.slice(0, 13)}:00` };
}

async function report<T>(request: APIRequestContext, path: string): Promise<T> {
  const res = await request.get(`/analytics/api/v1/reports/${path}`, { headers: { Authorization: `Bearer ${TOKEN}` } });
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()) as T;
}

type Rev = { channels: { channel: string; purchases: number; purchaseAmount: number; rentals: number; rentalAmount: number }[] };
type Traffic = { points: { pageViews: number; contentViews: number }[] };
type Top = { works: { pid: string; purchases: number; rentals: number; revenue: number }[] };
type Funnel = { steps: { step: string; reached: number; through: number }[] };
type Detail = {
  header: { code: number };
  prodInfo: { pid: string; isSpecialPriceSet: boolean };
  volList: { no: number; isFree: boolean; buyInfo: { price: number } }[];
};

const ao = (r: Rev) => {
  const c = r.channels.find((x) => x.channel === "AO");
  return { sales: (c?.purchases ?? 0) + (c?.rentals ?? 0), amount: (c?.purchaseAmount ?? 0) + (c?.rentalAmount ?? 0) };
};

/** A paid volume of a work other specs are unlikely to buy (the list's far end). */
async function paidVolume(request: APIRequestContext) {
  const list = (await (await request.get("/home/api/v1/comic/genre/all?size=60&sort=popular")).json()) as { list: { pid: string; isAdult: boolean }[] };
  for (const it of [...list.list].reverse()) {
    if (it.isAdult) continue;
    const d = (await (await request.get(`/home/api/v1/products/${it.pid}`)).json()) as Detail;
    if (d.header.code !== 200 || d.prodInfo.isSpecialPriceSet) continue;
    const vol = d.volList.find((v) => !v.isFree && v.buyInfo.price > 0 && v.buyInfo.price <= 3000);
    if (vol) return { pid: d.prodInfo.pid, vol };
  }
  throw new Error("no paid comic volume in the demo catalog");
}

// The wrong-token step makes the browser log the five 401 answers.
test.describe("admin screen", () => {
  test.use({ allowConsole: [/\/admin\/analytics.*status of 401/] });

  test("an admin sees the traffic, top works, funnel and revenue of events that just happened", async ({ page, request }) => {
    const { day, hour } = kstNow();
    const tag = `e2e-an-${randomUUID().slice(0, 8)}`; // a work id of our own: its traffic is only ours
    const before = ao(await report<Rev>(request, `revenue?from=${day}&to=${day}`));

    // A release page's views and one detail view, sent twice as a page re-sends
    // a batch whose answer it never got (marked retry, as the shell's tracker
    // does): counted once.
    const events = [
      ...Array.from({ length: 7 }, (_, i) => ({ id: randomUUID(), type: "page_view", curPageUrl: `/webtoon/weekday/mon?e2e=${i}`, pid: tag })),
      { id: randomUUID(), type: "view_content", url: `/webtoon/detail/${tag}`, pid: tag, section: "WT", genreId: "21" },
      { id: randomUUID(), type: "page_view", curPageUrl: `/viewer/?pid=${tag}&no=1`, pid: tag },
    ];
    for (let i = 0; i < 2; i++) {
      const sent = i === 0 ? events : events.map((e) => ({ ...e, retry: true }));
      const res = await request.post("/home/api/v1/tracking/events", { data: { events: sent }, headers: { "X-Channel": "AW" } });
      expect(res.status(), await res.text()).toBe(200);
      expect((await res.json()).event_ids).toEqual(events.map((e) => e.id));
    }

    // A member buys a volume in the one-store app (channel AO), paying with the join bonus.
    const { pid, vol } = await paidVolume(request);
    expect((await request.post("/home/api/v1/auth/signup", { data: { email: newEmail(), password: PW } })).status()).toBe(201);
    expect((await request.post("/home/api/v1/wallet/join-bonus")).status()).toBe(200);
    const buy = await request.post("/home/api/v1/purchases", {
      data: { pid, vols: [vol.no], buyType: "B" },
      headers: { "X-Channel": "AO", "Idempotency-Key": randomUUID() },
    });
    expect(buy.status(), await buy.text()).toBe(200);

    // Wait until ClickHouse has them.
    const trafficQuery = `traffic?at=${encodeURIComponent(`${hour}:00+09:00`)}&before=60m&after=120m&step=5m&pid=${tag}`;
    await expect
      .poll(
        async () => {
          const t = await report<Traffic>(request, trafficQuery);
          const r = ao(await report<Rev>(request, `revenue?from=${day}&to=${day}`));
          return [
            t.points.reduce((n, p) => n + p.pageViews, 0),
            t.points.reduce((n, p) => n + p.contentViews, 0),
            r.sales - before.sales,
            r.amount - before.amount,
          ];
        },
        { timeout: 30_000 },
      )
      .toEqual([8, 1, 1, vol.buyInfo.price]);
    const after = ao(await report<Rev>(request, `revenue?from=${day}&to=${day}`));
    const top = await report<Top>(request, `top-works?from=${day}&to=${day}&by=revenue&limit=10`);
    const work = top.works.find((w) => w.pid === pid);

    // The screen asks for the token first. A wrong one: a clear message, and the API said 401.
    await page.goto(`/admin/analytics?from=${day}&to=${day}&at=${hour}&before=60&after=120&step=5&by=revenue&pid=${tag}`);
    await expect(page.getByRole("heading", { name: "분석 리포트", level: 1 })).toBeVisible();
    const refused = page.waitForResponse((r) => r.url().includes("/analytics/api/v1/reports/") && r.status() === 401);
    await page.getByLabel("관리자 토큰").fill("wrong-token");
    await page.getByRole("button", { name: "확인" }).click();
    await refused;
    await expect(page.getByRole("alert")).toContainText("관리자 토큰이 올바르지 않습니다");

    await page.getByLabel("관리자 토큰").fill(TOKEN);
    await page.getByRole("button", { name: "확인" }).click();
    await expect(page.getByTestId("kpi-pageviews")).toHaveText("8");
    await expect(page.getByRole("alert")).toHaveCount(0);
    // The token is kept for this tab only.
    expect(await page.evaluate(() => sessionStorage.getItem("sf_admin_token"))).toBe(TOKEN);
    expect(await page.evaluate(() => JSON.stringify(localStorage) + document.cookie)).not.toContain(TOKEN);

    // Traffic around the release instant: 8 page views and a detail view of our work.
    const traffic = page.getByRole("region", { name: "공개 시각 전후 트래픽" });
    await expect(traffic).toContainText("페이지뷰 8, 상세 조회 1");
    await traffic.getByText("표로 보기").click();
    const rows = page.getByTestId("traffic-table").locator("tbody tr");
    await expect(rows).toHaveCount(36); // 3 hours of 5-minute buckets
    const perBucket = await rows.evaluateAll((trs) => trs.map((tr) => Number(tr.querySelectorAll("td")[0].textContent!.replace(/,/g, ""))));
    expect(perBucket.reduce((a, b) => a + b, 0)).toBe(8);

    // Revenue by channel: the one-store app row has our purchase.
    const aoRow = page.getByTestId("revenue-table").getByRole("row", { name: /원스토어 앱 \(AO\)/ });
    await expect(aoRow.getByRole("cell").nth(0)).toHaveText(after.sales.toLocaleString("ko-KR"));
    await expect(aoRow.getByRole("cell").nth(1)).toHaveText(`${after.amount.toLocaleString("ko-KR")}원`);

    // Top works by revenue: the bought work is listed with its revenue.
    expect(work, "bought work in the top works").toBeTruthy();
    const workRow = page.getByTestId("top-works-table").getByRole("row", { name: new RegExp(pid) });
    await expect(workRow.getByRole("link", { name: pid })).toHaveAttribute("href", `/comic/detail/${pid}`);
    // (other specs may buy the same work meanwhile: at least what the API said before)
    const shown = Number((await workRow.getByRole("cell").last().textContent())!.replace(/[,원]/g, ""));
    expect(shown).toBeGreaterThanOrEqual(work!.revenue);
    expect(work!.revenue).toBeGreaterThanOrEqual(vol.buyInfo.price);

    // The funnel: our visitor went list -> detail -> viewer, in the seed's order.
    const funnel = page.getByTestId("funnel-table");
    await expect(funnel.locator("tbody th")).toHaveText(["목록", "상세", "뷰어", "구매"]);
    const f = await report<Funnel>(request, `funnel?from=${day}&to=${day}`);
    expect(f.steps.find((s) => s.step === "viewer")!.through).toBeGreaterThanOrEqual(1);
    const viewerThrough = Number((await funnel.getByRole("row", { name: /뷰어/ }).getByRole("cell").nth(1).textContent())!.replace(/,/g, ""));
    expect(viewerThrough).toBeGreaterThanOrEqual(1);

    // Four charts, each with a text alternative.
    await expect(page.locator("canvas[role=img][aria-label]")).toHaveCount(4);

    // Forgetting the token asks for it again.
    await page.getByRole("button", { name: "토큰 지우기" }).click();
    await expect(page.getByLabel("관리자 토큰")).toBeVisible();
    expect(await page.evaluate(() => sessionStorage.getItem("sf_admin_token"))).toBeNull();
  });
});

test("the reports API refuses a wrong token with 401 through the edge", async ({ request }) => {
  const res = await request.get("/analytics/api/v1/reports/funnel", { headers: { Authorization: "Bearer nope" } });
  expect(res.status()).toBe(401);
  expect((await res.json()).header.code).toBe(401);
});

test("the home route does not load the admin screen or the chart library", async ({ page }) => {
  const scripts: string[] = [];
  page.on("request", (r) => {
    if (r.resourceType() === "script") scripts.push(new URL(r.url()).pathname);
  });
  await page.goto("/");
  await page.waitForLoadState("networkidle");
  expect(scripts.length).toBeGreaterThan(0);
  expect(scripts.filter((s) => /\/(chartjs|analytics)-[^/]*\.js$/.test(s))).toEqual([]);
});

test.describe("ad pixel", () => {
  test.use({ allowConsole: [/tracking\/events|ERR_FAILED|net::/] });

  test("gets the event id the edge answered, and is sent without it when the call failed", async ({ page }) => {
    const pixels: URL[] = [];
    await page.addInitScript(() => {
      (window as unknown as { SF_AD_PIXEL_URL: string }).SF_AD_PIXEL_URL = "https://pixel.ads.test/tr";
    });
    await page.route("https://pixel.ads.test/**", (route) => {
      pixels.push(new URL(route.request().url()));
      return route.fulfill({ status: 200, contentType: "image/gif", body: Buffer.from("R0lGODlhAQABAAAAACw=", "base64") });
    });
    const answered = page.waitForResponse((r) => r.url().endsWith("/home/api/v1/tracking/events"));
    await page.goto("/cs");
    const ids = (await (await answered).json()).event_ids as string[];
    await expect.poll(() => pixels.length).toBe(1);
    expect(pixels[0].searchParams.get("eid")).toBe(ids[0]);
    expect(pixels[0].searchParams.get("ev")).toBe("PageView");
    expect(new URL(pixels[0].searchParams.get("dl")!).pathname).toBe("/cs");

    // The edge cannot be reached: the pixel still goes, without an event id.
    await page.route("**/home/api/v1/tracking/events", (route) => route.abort());
    await page.goto("/keyword");
    await expect.poll(() => pixels.length, { timeout: 15_000 }).toBe(2);
    expect(pixels[1].searchParams.has("eid")).toBe(false);
    expect(new URL(pixels[1].searchParams.get("dl")!).pathname).toBe("/keyword");
  });
});
