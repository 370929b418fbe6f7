import { randomUUID } from "node:crypto";
import type { APIRequestContext } from "@playwright/test";
import { expect, test } from "./fixtures";
import { member } from "./members";
import { createOperator, createStaff, signInOnPage, staffAPI } from "./staff";

// Review moderation (issue 31 item 4): a member reports a review, a moderator
// signed in as staff hides it on /admin/reviews and readers no longer get it
// from the edge; restored from the hidden list, it is back; the operator's
// audit trail names the moderator with the state before and after.

const ADMIN_TOKEN = process.env.ADMIN_TOKEN ?? "dev-admin-token";
// The screen asks who is signed in before the sign-in: a 401 the console shows.
test.use({ allowConsole: [/\/admin\/reviews.*status of 401/] });

async function work(request: APIRequestContext) {
  const pid = `mod-${randomUUID().slice(0, 8)}`;
  const res = await request.post("/admin/api/v1/works", {
    headers: { Authorization: `Bearer ${ADMIN_TOKEN}` },
    data: {
      pid,
      section: "WT",
      title: `리뷰 작품 ${pid.slice(4)}`,
      genreId: "12",
      age: 0,
      serviceCode: 200,
      authors: [{ authorName: "작가", isWriter: true }],
      volumes: [{ no: 1, title: "1화", isFree: true, pages: 2, previewPages: 2 }],
    },
  });
  expect(res.status(), await res.text()).toBe(201);
  await expect.poll(async () => (await request.get(`/home/api/v1/products/${pid}`)).status(), { timeout: 30_000 }).toBe(200);
  return pid;
}

test("a moderator hides a reported review and readers no longer see it; a restore brings it back", async ({ browser, request, baseURL, page }) => {
  test.setTimeout(180_000);
  const pid = await work(request);
  const publicReviews = async () => JSON.stringify(await (await request.get(`/home/api/v1/products/${pid}/reviews?sort=recent`)).json());

  const authorCtx = await browser.newContext();
  await member(authorCtx);
  const text = `광고 리뷰 ${randomUUID().slice(0, 6)}`;
  const add = await authorCtx.request.post(`/home/api/v1/products/${pid}/reviews`, { data: { body: text, point: 2 } });
  expect(add.status(), await add.text()).toBe(201);
  const id = ((await add.json()) as { id: number }).id;
  await expect.poll(publicReviews, { timeout: 60_000 }).toContain(text);

  const readerCtx = await browser.newContext();
  await member(readerCtx);
  const rep = await readerCtx.request.post(`/home/api/v1/reviews/${id}/report`, { data: { reason: "광고성 글" } });
  expect(rep.status(), await rep.text()).toBe(200);

  // The moderator signs in as staff on the screen and hides it.
  await page.goto("/admin/reviews");
  const op = await staffAPI(baseURL!, createOperator());
  const moderator = await createStaff(op, "moderator");
  await signInOnPage(page, moderator);
  const row = page.getByTestId("reported-review").filter({ hasText: text });
  await expect(row).toContainText("광고성 글");
  await expect(row).toContainText("노출 중");
  await row.getByLabel("메모 (감사 기록에 남음)").fill("광고");
  await row.getByRole("button", { name: "숨기기" }).click();
  await expect(page.getByTestId("reported-review").filter({ hasText: text })).toHaveCount(0);
  await expect.poll(publicReviews, { timeout: 60_000 }).not.toContain(text);

  // The author is told; the reader's detail page lists it no more.
  const state = await (await authorCtx.request.get(`/home/api/v1/products/${pid}/reviews/state`)).json();
  expect(state.hidden).toEqual([id]);

  // Restored from the hidden list: back for readers.
  await page.getByRole("link", { name: "숨긴 리뷰" }).click();
  const hidden = page.getByTestId("reported-review").filter({ hasText: text });
  await expect(hidden).toContainText("숨김 처리됨");
  await hidden.getByRole("button", { name: "다시 노출" }).click();
  await expect(page.getByTestId("reported-review").filter({ hasText: text })).toHaveCount(0);
  await expect.poll(publicReviews, { timeout: 60_000 }).toContain(text);

  // The trail: who, role, before and after.
  const trail = await (await op.get(`/admin/api/v1/audit?target=review:${id}`)).json();
  const rows = trail.entries as { action: string; actorLogin: string; actorRole: string; before: { state: string }; after: { state: string; note?: string } }[];
  expect(rows.map((r) => r.action)).toEqual(["review.restore", "review.hide"]);
  expect(rows[1]).toMatchObject({ actorLogin: moderator.login, actorRole: "moderator", before: { state: "visible" }, after: { state: "hidden", note: "광고" } });
  await op.dispose();
  await authorCtx.close();
  await readerCtx.close();
});
