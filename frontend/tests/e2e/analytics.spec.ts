// The admin analytics screen against the real store: events posted to the edge
// go through JetStream and analytics into ClickHouse, and the screen shows the
// reports the edge forwards from analytics.
import { randomUUID } from "node:crypto";
import type { APIRequestContext } from "@playwright/test";
import { expect, test } from "./fixtures";
import { becomeAnalyst, report } from "./analyst";
import { PW, newEmail } from "./members";
const KST_MS = 9 * 3600 * 1000;

/** The current KST day and hour, as the screen's query wants them. */
function kstNow() {
  const k = new Date(Date.now() + KST_MS).toISOString();
  return { day: k.slice(0, 10), hour: `${k.slice(0, 13)}:00` };
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

// The signed-out step makes the browser log the five 401 answers.
test.describe("analyst screen", () => {
  test.use({ allowConsole: [/\/admin\/analytics.*status of 401/] });

  test("an analyst sees the traffic, top works, funnel and revenue of events that just happened", async ({ page, request }) => {
    const { day, hour } = kstNow();
    const reports = page.request; // the page's cookies: the analyst's, once made
    const tag = `e2e-an-${randomUUID().slice(0, 8)}`; // a work id of our own: its traffic is only ours
    // Signed out, the screen asks for an analyst's login.
    const url = `/admin/analytics?from=${day}&to=${day}&at=${hour}&before=60&after=120&step=5&by=revenue&pid=${tag}`;
    const refused = page.waitForResponse((r) => r.url().includes("/analytics/api/v1/reports/") && r.status() === 401);
    await page.goto(url);
    await expect(page.getByRole("heading", { name: "분석 리포트", level: 1 })).toBeVisible();
    await refused;
    await expect(page.getByRole("alert")).toContainText("분석가 계정으로 로그인해 주세요");
    await expect(page.getByRole("link", { name: "로그인" })).toHaveAttribute("href", `/nuxgin?url=${encodeURIComponent(url)}`);
    // The catalog admin token opens no report.
    const admin = await reports.get("/analytics/api/v1/reports/funnel", { headers: { Authorization: `Bearer ${process.env.ADMIN_TOKEN ?? "dev-admin-token"}` } });
    expect(admin.status()).toBe(401);
    await becomeAnalyst(reports);
    // The analyst's login opens no catalog-admin route through the edge.
    expect((await reports.get("/admin/api/v1/works/wt000001")).status()).toBe(401);
    expect((await reports.post("/admin/api/v1/authors", { data: { name: "분석가가 만든 작가" } })).status()).toBe(401);
    const before = ao(await report<Rev>(reports, `revenue?from=${day}&to=${day}`));

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
          const t = await report<Traffic>(reports, trafficQuery);
          const r = ao(await report<Rev>(reports, `revenue?from=${day}&to=${day}`));
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
    const after = ao(await report<Rev>(reports, `revenue?from=${day}&to=${day}`));
    const top = await report<Top>(reports, `top-works?from=${day}&to=${day}&by=revenue&limit=10`);
    const work = top.works.find((w) => w.pid === pid);

    // Now an analyst, the same address shows the reports.
    await page.goto(url);
    await expect(page.getByTestId("kpi-pageviews")).toHaveText("8");
    await expect(page.getByRole("alert")).toHaveCount(0);
    // The analyst cookie is HttpOnly: no script of the page can read it.
    expect(await page.evaluate(() => document.cookie)).not.toContain("sf_analyst");

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
    const f = await report<Funnel>(reports, `funnel?from=${day}&to=${day}`);
    expect(f.steps.find((s) => s.step === "viewer")!.through).toBeGreaterThanOrEqual(1);
    const viewerThrough = Number((await funnel.getByRole("row", { name: /뷰어/ }).getByRole("cell").nth(1).textContent())!.replace(/,/g, ""));
    expect(viewerThrough).toBeGreaterThanOrEqual(1);

    // Four charts, each with a text alternative.
    await expect(page.locator("canvas[role=img][aria-label]")).toHaveCount(4);

    // Logging out takes the reports away.
    expect((await reports.post("/home/api/v1/auth/logout")).status()).toBe(200);
    expect((await reports.get("/analytics/api/v1/reports/funnel")).status()).toBe(401);
  });
});

test("the reports API refuses a visitor and a forged analyst cookie with 401 through the edge", async ({ request }) => {
  expect((await request.get("/analytics/api/v1/reports/funnel")).status()).toBe(401);
  const res = await request.get("/analytics/api/v1/reports/funnel", { headers: { Cookie: "sf_analyst=1000001.4102444800.forged" } });
  expect(res.status()).toBe(401);
  expect((await res.json()).header.code).toBe(401);
});

test("the home route does not load the admin screen or the chart library", async ({ page }) => {
  const scripts: string[] = [];
  page.on("request", (r) => {
    if (r.resourceType() === "script") scripts.push(new URL(r.url()).pathname);
  });
  await page.goto("/");
  // A drawn home starts the app once its picture painted (at the latest
  // 3 s after), which can be after the network first went idle.
  await expect.poll(() => scripts.length).toBeGreaterThan(0);
  await page.waitForLoadState("networkidle");
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
