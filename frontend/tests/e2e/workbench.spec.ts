// The analysts' workbench against the real store: the live release view
// while a load runs, and the exports.
import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { APIRequestContext } from "@playwright/test";
import { becomeAnalyst, report } from "./analyst";
import { expect, test } from "./fixtures";

type Live = { totals: { pageViews: number; contentViews: number; opens: number }; topWorks: { pid: string; views: number; opens: number }[] };

/** A light release-minute generator: readers opening one work's detail and its newest volume, in batches, until stopped. */
function startLoad(request: APIRequestContext, pid: string) {
  let running = true;
  let sent = 0;
  const loop = (async () => {
    while (running) {
      const events = Array.from({ length: 10 }, (_, i) =>
        i % 2 === 0
          ? { id: randomUUID(), type: "view_content", url: `/webtoon/detail/${pid}`, pid, section: "WT" }
          : { id: randomUUID(), type: "page_view", curPageUrl: `/viewer?pid=${pid}&no=7` },
      );
      const res = await request.post("/home/api/v1/tracking/events", { data: { events }, headers: { "X-Channel": "AW" } });
      expect(res.status(), await res.text()).toBe(200);
      sent += events.length;
      await new Promise((r) => setTimeout(r, 150));
    }
  })();
  return {
    sent: () => sent,
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

test("the live view shows a running release load, second by second, and its figures are the API's", async ({ page, request }) => {
  await becomeAnalyst(page.request);
  const pid = `e2e-live-${randomUUID().slice(0, 8)}`;
  const load = startLoad(request, pid);
  try {
    await page.goto("/admin/analytics/live?minutes=5");
    await expect(page.getByRole("heading", { name: "실시간 공개 현황", level: 1 })).toBeVisible();
    // Readers per second rise above zero while the load runs, and the work leads.
    await expect.poll(async () => Number((await page.getByTestId("live-rate").textContent()) ?? "0"), { timeout: 30_000 }).toBeGreaterThan(0);
    const works = page.getByTestId("live-works-table");
    await expect(works.getByRole("row", { name: new RegExp(pid) })).toBeVisible({ timeout: 30_000 });
    // The screen refreshes by itself: the readers' count grows without a reload.
    const count = async () => Number(((await page.getByTestId("live-readers").textContent()) ?? "0").replace(/,/g, ""));
    const first = await count();
    await expect.poll(count, { timeout: 20_000 }).toBeGreaterThan(first);
    await expect(page.getByTestId("live-volumes-table")).toContainText(`${pid} · 7화`);
    await expect(page.locator("canvas[role=img][aria-label]")).toHaveCount(1);
  } finally {
    await load.stop();
  }
  // Stopped: once ingested, the API's window holds every event the load sent (the rollups' delay is the ingestion's).
  await expect
    .poll(
      async () => {
        const w = (await report<Live>(page.request, "live?minutes=10")).topWorks.find((x) => x.pid === pid);
        return (w?.views ?? 0) + (w?.opens ?? 0);
      },
      { timeout: 30_000 },
    )
    .toBe(load.sent());
  const api = await report<Live>(page.request, "live?minutes=10");
  await page.goto("/admin/analytics/live?minutes=10");
  const row = page.getByTestId("live-works-table").getByRole("row", { name: new RegExp(pid) });
  const w = api.topWorks.find((x) => x.pid === pid)!;
  await expect(row.getByRole("cell").nth(0)).toHaveText(w.views.toLocaleString("ko-KR"));
  await expect(row.getByRole("cell").nth(1)).toHaveText(w.opens.toLocaleString("ko-KR"));
});

test("retention, funnels and breakdowns show, and their CSV exports open with the right columns", async ({ page }) => {
  await becomeAnalyst(page.request);
  await page.goto("/admin/analytics/explore?steps=detail,viewer,purchase&window=1h&by=campaign");
  await expect(page.getByRole("heading", { name: "리텐션 · 퍼널 · 유입", level: 1 })).toBeVisible();
  await expect(page.getByTestId("custom-funnel-table").locator("thead th")).toHaveText(["채널", "상세", "뷰어 열람", "구매"]);
  await expect(page.getByTestId("breakdown-table").locator("thead th").first()).toHaveText("UTM 캠페인");
  const want: Record<string, string> = {
    "유입 CSV 내려받기": "campaign,visits,pageViews,contentViews,purchases,revenue",
    "퍼널 CSV 내려받기": "channel,step,kind,reached,conversion",
    "리텐션 CSV 내려받기": "week,channel,members,week1,week2,week3,week4,week5,week6,week7,week8,elapsedWeeks",
  };
  for (const [link, header] of Object.entries(want)) {
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: link }).click()]);
    expect(download.suggestedFilename()).toMatch(/^(breakdown|funnels|retention)_from-\d{4}-\d{2}-\d{2}_to-\d{4}-\d{2}-\d{2}_.*\.csv$/);
    const text = await readFile((await download.path())!, "utf8");
    expect(text.replace(/^\ufeff/, "").split("\n")[0]).toBe(header);
  }
  // A chart saves as PNG under the same kind of name.
  const [png] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "퍼널 단계별 도달 방문 막대 그래프 PNG로 저장" }).click()]);
  expect(png.suggestedFilename()).toMatch(/^funnels_from-.*_steps-detail_viewer_purchase_window-1h\.png$/);
  expect((await readFile((await png.path())!)).subarray(1, 4).toString()).toBe("PNG");
});
