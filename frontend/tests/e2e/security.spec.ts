import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { member, paidWork, sectionPath } from "./members";

// Issue 9: markup a reader can put into the store (reviews, Q&A, search
// terms, addresses) is shown as text on every screen that shows it and never
// runs. Each payload sets window.__xss if it ever executes; an <img src=x>
// that became an element would also fail to load (a console error, which the
// fixture fails on). Runs against a real store (edge, writer, PostgreSQL).

const PAYLOAD = `<img src=x onerror=window.__xss=1>"><script>window.__xss=1</script><svg onload=window.__xss=1>'-alert(1)-'`;

/** The page never ran a payload and holds no element made from one. */
async function clean(page: Page, where: string) {
  expect(await page.evaluate(() => (window as unknown as { __xss?: unknown }).__xss), `${where}: a payload ran`).toBeUndefined();
  expect(await page.locator('img[src="x"], svg[onload], [onerror]').count(), `${where}: markup became elements`).toBe(0);
  expect(await page.locator("script").evaluateAll((ss) => ss.filter((s) => s.textContent?.includes("__xss")).length), `${where}: a script element`).toBe(0);
}

test("a review with markup shows as text on the work's page, for its author and for visitors", async ({ page, browser, request }) => {
  const { detail } = await paidWork(request, "webtoon");
  const path = `/${sectionPath(detail.prodInfo.section)}/detail/${detail.prodInfo.pid}?tab=R`;
  await member(page);
  await page.goto(path);
  const text = `${PAYLOAD} ${Date.now()}`;
  await page.getByLabel("리뷰 쓰기").fill(text);
  await page.getByRole("button", { name: "등록" }).click();
  const mine = page.getByTestId("review").filter({ hasText: text });
  await expect(mine).toBeVisible();
  await expect(mine.getByText(text, { exact: true })).toBeVisible();
  await clean(page, "author, just written");
  await page.reload();
  await page.getByLabel("리뷰 정렬").selectOption("recent");
  await expect(page.getByTestId("review").filter({ hasText: text })).toBeVisible();
  await clean(page, "author, reloaded");

  // A visitor (another browser) sees the review from the edge's list.
  const visitor = await (await browser.newContext()).newPage();
  await visitor.goto(path);
  await visitor.getByLabel("리뷰 정렬").selectOption("recent");
  await expect(visitor.getByTestId("review").filter({ hasText: text })).toBeVisible();
  await clean(visitor, "visitor");
  await visitor.context().close();

  // Clean up: the shared demo store keeps no payload around.
  await page.getByTestId("review").filter({ hasText: text }).getByRole("button", { name: "삭제" }).click();
  await page.getByTestId("confirm-popup").getByRole("button", { name: "삭제" }).click();
  await expect(page.getByTestId("review").filter({ hasText: text })).toHaveCount(0);
});

test("a 1:1 question with markup shows as text in the question list and the conversation", async ({ page }) => {
  await member(page);
  await page.goto("/cs/qna");
  // Titles hold 100 characters.
  const title = `"><img src=x onerror=window.__xss=1><script>window.__xss=1</script> ${Date.now()}`;
  await page.getByLabel("제목").fill(title);
  await page.getByLabel("문의 내용").fill(PAYLOAD);
  await page.getByRole("button", { name: "문의 보내기" }).click();
  await expect(page).toHaveURL(/\/cs\/qna\/list/);
  await expect(page.getByRole("region", { name: "내 문의 내역" }).getByRole("listitem").first()).toContainText(title);
  await clean(page, "question list");
  await page.goto("/conversation");
  await expect(page.getByText(PAYLOAD, { exact: true }).first()).toBeVisible();
  await clean(page, "conversation");
});

test("search terms with markup show as text", async ({ page }) => {
  const q = encodeURIComponent(PAYLOAD);
  await page.goto(`/cs/faq/list/all?keyword=${q}`);
  await expect(page.getByLabel("FAQ 검색")).toHaveValue(PAYLOAD);
  await expect(page.getByText("검색 결과가 없습니다.")).toBeVisible();
  await clean(page, "FAQ search");
  // Typed into the search box and sent.
  await page.getByLabel("FAQ 검색").fill(`"><img src=x onerror=window.__xss=1>`);
  await page.getByRole("button", { name: "검색" }).click();
  await expect(page).toHaveURL(/keyword=/);
  await expect(page.getByLabel("FAQ 검색")).toHaveValue(`"><img src=x onerror=window.__xss=1>`);
  await clean(page, "FAQ search typed");
});

test.describe("addresses with markup", () => {
  // Unknown works and pages answer 404 on purpose.
  test.use({ allowConsole: [/Failed to load resource: the server responded with a status of (400|404)/] });
  for (const path of [
    `/webtoon/detail/${encodeURIComponent(PAYLOAD)}`,
    `/webtoon/genre/${encodeURIComponent(PAYLOAD)}`,
    `/keyword/1?id=${encodeURIComponent(PAYLOAD)}`,
    `/${encodeURIComponent(PAYLOAD)}`,
    `/nuxgin?url=${encodeURIComponent("javascript:window.__xss=1")}`,
  ]) {
    test(path.slice(0, 40), async ({ page }) => {
      await page.goto(path);
      await page.waitForLoadState("networkidle");
      await clean(page, path);
    });
  }
});

test.describe("the login return address", () => {
  test("never leaves the store", async ({ page, baseURL }) => {
    await member(page);
    const origin = new URL(baseURL!).origin;
    // Logged in, the login page goes straight to its return address.
    for (const ret of ["//evil.example/", "https://evil.example/", "/\\evil.example/", "\\\\evil.example/", "/\t/evil.example/", "/./\\evil.example/", "javascript:window.__xss=1"]) {
      await page.goto(`/nuxgin?url=${encodeURIComponent(ret)}`);
      await page.waitForLoadState("networkidle");
      expect(new URL(page.url()).origin, `return address ${JSON.stringify(ret)}`).toBe(origin);
      await clean(page, ret);
    }
  });
});
