import { randomUUID } from "node:crypto";
import AxeBuilder from "@axe-core/playwright";
import type { APIRequestContext, Page } from "@playwright/test";
import { fakePushManager, pushMessages, startFakePush } from "./fakepush";
import { expect, test } from "./fixtures";
import { member } from "./members";

// Author pages, following and the inbox (issue 34 item 3), against the real
// store and the fake push service of writer/push/pushtest (`storefront
// fakepush`), as push.spec.ts: the page's PushManager answers with the
// fake's subscriptions; the writer's worker really sends at the release and
// the fake checks and decrypts what it gets.

const ADMIN_TOKEN = process.env.ADMIN_TOKEN ?? "dev-admin-token";
const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
let fakeURL = "";
let stopFake = () => {};

test.beforeAll(async () => {
  ({ url: fakeURL, stop: stopFake } = await startFakePush());
});

test.afterAll(() => stopFake());

const messages = (request: APIRequestContext, endpoint: string) => pushMessages(request, fakeURL, endpoint);

/** A new work by a new author, volume 1 long out and volume 2 scheduled an hour ahead; answers the pid and the author's id. */
async function newWork(request: APIRequestContext) {
  const pid = `follow-${randomUUID().slice(0, 8)}`;
  const author = `팔로우작가${pid.slice(7)}`;
  const res = await request.post("/admin/api/v1/works", {
    headers: admin,
    data: {
      pid,
      section: "WT",
      title: `팔로우 작품 ${pid.slice(7)}`,
      genreId: "12",
      authors: [{ authorName: author, isWriter: true }],
      volumes: [
        { no: 1, title: "1화", isFree: true, pages: 4, previewPages: 4, releaseAt: new Date(Date.now() - 2 * 86_400_000).toISOString() },
        { no: 2, title: "2화", isFree: true, pages: 4, previewPages: 4, releaseAt: new Date(Date.now() + 3_600_000).toISOString() },
      ],
    },
  });
  expect(res.status(), await res.text()).toBe(201);
  let authorId = 0;
  await expect
    .poll(
      async () => {
        const r = await request.get(`/home/api/v1/products/${pid}`);
        if (!r.ok()) return 0;
        authorId = ((await r.json()) as { prodInfo: { authors: { authorId: number }[] } }).prodInfo.authors[0]?.authorId ?? 0;
        return authorId;
      },
      { timeout: 30_000 },
    )
    .toBeGreaterThan(0);
  return { pid, title: `팔로우 작품 ${pid.slice(7)}`, author, authorId };
}

/** axe's serious and critical findings on the page as it is, in both themes. */
async function axeBothThemes(page: Page, name: string, ready: () => Promise<void>) {
  const found: string[] = [];
  for (const theme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: theme });
    await page.reload();
    await ready();
    await expect(page.locator("html")).toHaveAttribute("data-theme", theme);
    const { violations } = await new AxeBuilder({ page }).analyze();
    for (const v of violations) {
      if (v.impact !== "serious" && v.impact !== "critical") continue;
      const where = v.nodes.slice(0, 3).map((n) => `${n.target.join(" ")}: ${n.failureSummary?.split("\n").slice(1).join(" ").trim()}`);
      found.push(`${name} (${theme}) ${v.impact} ${v.id}: ${v.help}\n    ${where.join("\n    ")}`);
    }
  }
  expect(found, found.join("\n")).toEqual([]);
}

test("a visitor sees the author's works and is asked to sign in to follow", async ({ page, request }) => {
  const w = await newWork(request);
  await page.goto(`/authors/${w.authorId}`);
  await expect(page.getByRole("heading", { name: `${w.author} 작가` })).toBeVisible();
  await expect(page.getByTestId("product-title").filter({ hasText: w.title })).toBeVisible();
  await expect(page.getByTestId("follow")).toHaveCount(0);
  await expect(page.getByRole("link", { name: "로그인하고 팔로우" })).toHaveAttribute("href", `/nuxgin?url=${encodeURIComponent(`/authors/${w.authorId}`)}`);
  await axeBothThemes(page, "author page (visitor)", () => expect(page.getByTestId("follow-signin")).toBeVisible());
});

test("a member follows an author; the author's new episode is released and the inbox and a Web Push tell them once", async ({ page, context, request, baseURL }) => {
  const w = await newWork(request);
  const made = await fakePushManager(page, request, fakeURL);
  await context.grantPermissions(["notifications"], { origin: baseURL });
  await member(page);

  // From the work's detail page to its author's page.
  await page.goto(`/webtoon/detail/${w.pid}`);
  await page.getByRole("tab", { name: "작품 정보" }).click();
  await page.getByRole("link", { name: `${w.author} 작가 페이지` }).click();
  await expect(page).toHaveURL(new RegExp(`/authors/${w.authorId}$`));
  await expect(page.getByRole("heading", { name: `${w.author} 작가` })).toBeVisible();
  const follow = page.getByRole("button", { name: `${w.author} 팔로우` });
  await expect(follow).toHaveAttribute("aria-pressed", "false");
  await expect(follow).toBeEnabled();
  await follow.click();
  await expect(page.getByTestId("floating-message")).toHaveText("작가를 팔로우합니다. 새 작품과 새 회차가 나오면 알려 드려요.");
  await expect(follow).toHaveAttribute("aria-pressed", "true");
  expect(made).toHaveLength(1);
  const sub = made[0];
  await axeBothThemes(page, "author page (member)", () => expect(page.getByRole("button", { name: `${w.author} 팔로우` })).toHaveAttribute("aria-pressed", "true"));
  // Following survives a reload (the writer's author zzim).
  await page.reload();
  await expect(page.getByRole("button", { name: `${w.author} 팔로우` })).toHaveAttribute("aria-pressed", "true");
  expect((await messages(request, sub.endpoint)).messages).toHaveLength(0);

  // The scheduled episode's release instant comes (moved to now, as the
  // schedule the edges flip by): the writer's worker tells the follower.
  const put = await request.put(`/admin/api/v1/works/${w.pid}/volumes/2`, {
    headers: admin,
    data: { no: 2, title: "2화", isFree: true, pages: 4, previewPages: 4, releaseAt: new Date(Date.now() + 1_000).toISOString() },
  });
  expect(put.status(), await put.text()).toBe(200);
  await expect.poll(async () => (await messages(request, sub.endpoint)).messages.length, { timeout: 45_000 }).toBe(1);
  const got = await messages(request, sub.endpoint);
  expect(got.refused).toEqual([]);
  expect(got.messages[0].payload).toEqual({ title: w.title, body: "새 회차 2화가 공개되었습니다.", url: `/viewer?pid=${w.pid}&no=2`, tag: `vol:${w.pid}:2` });

  // The sidebar's 새 알림 opens the inbox, which shows the episode unread.
  await page.goto("/");
  await page.getByRole("button", { name: "메뉴 열기" }).click();
  await page.getByTestId("sidebar").getByRole("link", { name: "새 알림" }).click();
  await expect(page).toHaveURL(/\/mypages\/inbox$/);
  const item = page.getByTestId("inbox-item").filter({ hasText: w.title });
  await expect(item).toHaveCount(1);
  await expect(item).toContainText("새 회차 2화가 공개되었습니다.");
  await expect(item).toContainText("읽지 않음");
  await expect(page.getByTestId("inbox-unread")).toHaveText("읽지 않은 알림 1개");
  await axeBothThemes(page, "inbox", () => expect(page.getByTestId("inbox-item").first()).toBeVisible());

  // Opening it marks it read and opens the episode.
  await page.getByTestId("inbox-item").filter({ hasText: w.title }).getByRole("link").click();
  await expect(page).toHaveURL(new RegExp(`/viewer\\?pid=${w.pid}&no=2$`));
  await expect(page.getByTestId("viewer")).toBeVisible();
  await page.goto("/mypages/inbox");
  await expect(page.getByTestId("inbox-unread")).toHaveText("읽지 않은 알림 0개");
  await expect(page.getByTestId("inbox-item").filter({ hasText: w.title })).not.toContainText("읽지 않음");
  // Told once: the push service got one notification.
  expect((await messages(request, sub.endpoint)).messages).toHaveLength(1);
});
