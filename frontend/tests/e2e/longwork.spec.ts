import { randomUUID } from "node:crypto";
import { expect, test } from "./fixtures";
import { sectionPath } from "./members";

// A work longer than the detail lists (issue 35): the edge's detail names the
// first and newest 100 of a work over 1,000 episodes and volCnt; the viewer,
// its previous / next and the volume list get the rest from /volumes pages.

const ADMIN_TOKEN = process.env.ADMIN_TOKEN ?? "dev-admin-token";
const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
const COUNT = 1500;

test("a 1,500-episode work: episode 700 opens in the viewer, its next is 701, and the list pages on", async ({ page, request }) => {
  test.setTimeout(120_000);
  const pid = `long-${randomUUID().slice(0, 8)}`;
  const released = new Date(Date.now() - 2 * 86_400_000).toISOString();
  const volumes = Array.from({ length: COUNT }, (_, i) => ({ no: i + 1, title: `${i + 1}화`, isFree: true, pages: 3, previewPages: 3, releaseAt: released }));
  const res = await request.post("/admin/api/v1/works", {
    headers: admin,
    data: { pid, section: "WT", title: `긴 작품 ${pid.slice(5)}`, genreId: "12", authors: [{ authorName: "작가", isWriter: true }], volumes },
  });
  expect(res.status(), await res.text()).toBe(201);
  await expect.poll(async () => (await request.get(`/home/api/v1/products/${pid}`)).ok(), { timeout: 60_000 }).toBe(true);
  const detail = (await (await request.get(`/home/api/v1/products/${pid}`)).json()) as { prodInfo: { volCnt: number }; volList: { no: number }[] };
  expect(detail.prodInfo.volCnt).toBe(COUNT);
  expect(detail.volList.some((v) => v.no === 700)).toBe(false);

  // Episode 700 is in none of the detail's volumes: the viewer asks its page.
  const pageAsked = page.waitForRequest((r) => r.url().includes(`/products/${pid}/volumes?`) && new URL(r.url()).searchParams.get("page") === "7");
  await page.goto(`/viewer?pid=${pid}&no=700`);
  await pageAsked;
  await expect(page.getByRole("heading", { level: 1 })).toContainText("700화");
  await expect(page).toHaveURL(new RegExp(`no=700`));
  await page.getByRole("button", { name: "다음화 ›" }).click();
  await expect(page).toHaveURL(new RegExp(`no=701`));
  await expect(page.getByRole("heading", { level: 1 })).toContainText("701화");
  await page.getByTestId("prev-vol").click();
  await expect(page.getByRole("heading", { level: 1 })).toContainText("700화");

  // The volumes tab starts with the first 100 and brings the next page on 더보기.
  await page.goto(`/${sectionPath("WT")}/detail/${pid}?tab=V`);
  await expect(page.getByTestId("vol")).toHaveCount(100);
  await page.getByTestId("vol-more").click();
  await expect(page.getByTestId("vol")).toHaveCount(200);
  await expect(page.locator('[data-testid=vol][data-no="200"]')).toBeVisible();
});
