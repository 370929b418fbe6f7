import { randomUUID } from "node:crypto";
import type { APIRequestContext } from "@playwright/test";
import { expect, test, verifyThroughSandbox } from "./fixtures";
import { member } from "./members";
import { createOperator, createStaff, signInOnPage, staffAPI } from "./staff";

// Episode comments (issue 36) in the viewer's end-of-episode panel: members
// comment, reply and like, the best list follows the likes; a moderator's
// hide on /admin/comments takes a comment off the edge; an adult work's comments never reach a
// teen. Works are made through the admin API, not picked from the demo.

const ADMIN_TOKEN = process.env.ADMIN_TOKEN ?? "dev-admin-token";
const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };

async function work(request: APIRequestContext, age: number) {
  const pid = `cmt-${randomUUID().slice(0, 8)}`;
  const res = await request.post("/admin/api/v1/works", {
    headers: admin,
    data: {
      pid,
      section: "WT",
      title: `댓글 작품 ${pid.slice(4)}`,
      genreId: "12",
      age,
      serviceCode: 200,
      authors: [{ authorName: "작가", isWriter: true }],
      volumes: [
        { no: 1, title: "1화", isFree: true, pages: 2, previewPages: 2 },
        { no: 2, title: "2화", isFree: true, pages: 2, previewPages: 2 },
      ],
    },
  });
  expect(res.status(), await res.text()).toBe(201);
  await expect.poll(async () => (await request.get(`/home/api/v1/products/${pid}`)).status(), { timeout: 30_000 }).toBe(200);
  return pid;
}

const comments = (pid: string) => `/home/api/v1/products/${pid}/episodes/1/comments`;

test("members comment, reply and like at the end of an episode; best follows likes; a hidden comment leaves", async ({ browser, request, baseURL }) => {
  test.setTimeout(180_000);
  const pid = await work(request, 0);
  const writerCtx = await browser.newContext();
  await member(writerCtx);
  const page = await writerCtx.newPage();
  await page.goto(`/viewer?pid=${pid}&no=1`);
  const panel = page.getByTestId("episode-comments");
  await panel.scrollIntoViewIfNeeded();
  await expect(panel.getByRole("heading", { name: /댓글/ })).toBeVisible();
  const text = `<b>첫 댓글</b> ${randomUUID().slice(0, 6)}`;
  await panel.getByRole("textbox", { name: "댓글 쓰기" }).fill(text);
  await panel.getByRole("button", { name: "등록", exact: true }).click();
  // Shown as text, never as markup.
  await expect(panel.getByTestId("newest-comments").getByText(text)).toBeVisible();

  // Another member replies and likes; the edge's head shows both within a second or so.
  const readerCtx = await browser.newContext();
  await member(readerCtx);
  const reader = await readerCtx.newPage();
  await reader.goto(`/viewer?pid=${pid}&no=1`);
  const rp = reader.getByTestId("episode-comments");
  await rp.scrollIntoViewIfNeeded();
  await expect(rp.getByRole("heading", { name: /댓글/ })).toBeVisible();
  await expect.poll(async () => {
    await rp.getByRole("button", { name: "댓글 새로고침" }).click();
    await rp.getByRole("button", { name: "최신순" }).click();
    return rp.getByTestId("newest-comments").getByText(text).count();
  }, { timeout: 60_000 }).toBe(1);
  const item = rp.getByTestId("comment").filter({ hasText: text });
  await item.getByRole("button", { name: "답글 쓰기" }).click();
  await item.getByRole("textbox", { name: "답글 쓰기" }).fill("답글이에요");
  await item.getByRole("button", { name: "답글 등록" }).click();
  await expect(item.getByTestId("comment-reply").getByText("답글이에요")).toBeVisible();
  await item.getByRole("button", { name: /^좋아요/ }).first().click();
  await expect(item.getByRole("button", { name: "좋아요 1" }).first()).toHaveAttribute("aria-pressed", "true");

  // The best list: the liked comment is there for everybody, with its reply.
  await expect.poll(async () => {
    await panel.getByRole("button", { name: "댓글 새로고침" }).click();
    await panel.getByRole("button", { name: "베스트" }).click();
    return panel.getByTestId("best-comments").getByText(text).count();
  }, { timeout: 60_000 }).toBe(1);
  await expect(panel.getByTestId("best-comments").getByText("답글이에요")).toBeVisible();

  // A report, then the moderator's hide: gone from the edge's answer.
  const id = (await (await request.get(comments(pid))).json()).data.newest[0].id as number;
  const rep = await readerCtx.request.post(`/home/api/v1/comments/${id}/report`, { data: { reason: "테스트" } });
  expect(rep.status()).toBe(200);
  // The moderator decides on /admin/comments.
  // A moderator signs in as staff (issue 31: no shared token for people).
  await page.goto("/admin/comments");
  const op = await staffAPI(baseURL!, createOperator());
  await signInOnPage(page, await createStaff(op, "moderator"));
  await op.dispose();
  const row = page.getByTestId("reported-comment").filter({ hasText: text });
  await expect(row).toContainText("테스트");
  await row.getByRole("button", { name: "숨기기" }).click();
  await expect(page.getByTestId("reported-comment").filter({ hasText: text })).toHaveCount(0);
  await expect.poll(async () => JSON.stringify(await (await request.get(comments(pid))).json()).includes(text), { timeout: 60_000 }).toBe(false);
  await writerCtx.close();
  await readerCtx.close();
});

test("a teen or visitor never gets the comments of an adult work", async ({ browser, request }) => {
  test.setTimeout(120_000);
  const pid = await work(request, 19);
  const adultCtx = await browser.newContext();
  await member(adultCtx);
  const v = await verifyThroughSandbox(adultCtx, "김성인", "1990-05-05");
  expect(v.status(), await v.text()).toBe(200);
  const post = await adultCtx.request.post(comments(pid), { headers: { "Idempotency-Key": `k-${pid}` }, data: { body: "성인 작품 댓글" } });
  expect(post.status(), await post.text()).toBe(201);
  await expect.poll(async () => JSON.stringify(await (await adultCtx.request.get(comments(pid))).json()).includes("성인 작품 댓글"), { timeout: 60_000 }).toBe(true);

  const teenCtx = await browser.newContext();
  await member(teenCtx);
  for (const r of [teenCtx.request, request]) {
    const a = await r.get(comments(pid));
    expect(a.status()).toBe(403);
    expect(await a.text()).not.toContain("성인 작품 댓글");
  }
  await adultCtx.close();
  await teenCtx.close();
});
