import { randomUUID } from "node:crypto";
import { expect, test } from "./fixtures";
import { fakePushManager, pushMessages, showInWorker, startFakePush } from "./fakepush";
import { member } from "./members";

// New-volume alarms by Web Push (issue 19), against the real store and the
// fake push service of writer/push/pushtest (`storefront fakepush`), which
// checks the VAPID JWT and decrypts what the writer sends exactly as a
// browser's push service and the browser would.
//
// Headless Chromium cannot reach a real push service (its subscribe() fails),
// so an init script makes PushManager.subscribe return a subscription that
// the fake made for the applicationServerKey the page passed: its endpoint
// is the fake and the fake keeps its private keys. Everything else is real:
// the permission asked at the click, the page posting the subscription, the
// writer's worker sending at the release instant, and the message handed to
// the store's service worker (CDP ServiceWorker.deliverPushMessage, as a push
// service would) showing the notification. The stack must accept the fake's
// endpoints: scripts/test.sh starts it with PUSH_ENDPOINT_HOSTS=127.0.0.1.

const ADMIN_TOKEN = process.env.ADMIN_TOKEN ?? "dev-admin-token";
const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
let fake: { url: string; stop: () => void };
test.beforeAll(async () => {
  fake = await startFakePush();
});
test.afterAll(() => fake?.stop());
const messages = (request: Parameters<typeof pushMessages>[0], endpoint: string) => pushMessages(request, fake.url, endpoint);

test("a member turns the alarm on; at the release the push service gets one notification that opens the viewer", async ({ page, context, request, baseURL }) => {
  const pid = `push-${randomUUID().slice(0, 8)}`;
  const title = `알림 작품 ${pid.slice(5)}`;
  const later = new Date(Date.now() + 3_600_000).toISOString();
  const res = await request.post("/admin/api/v1/works", {
    headers: admin,
    data: {
      pid,
      section: "WT",
      title,
      genreId: "12",
      authors: [{ authorName: "작가", isWriter: true }],
      volumes: [
        { no: 1, title: "1화", isFree: true, pages: 4, previewPages: 4, releaseAt: new Date(Date.now() - 2 * 86_400_000).toISOString() },
        { no: 2, title: "2화", isFree: true, pages: 4, previewPages: 4, releaseAt: later },
      ],
    },
  });
  expect(res.status(), await res.text()).toBe(201);
  await expect.poll(async () => (await request.get(`/home/api/v1/products/${pid}`)).ok(), { timeout: 30_000 }).toBe(true);

  // The page's PushManager answers with the fake's subscriptions.
  const made = await fakePushManager(page, request, fake.url);
  await context.grantPermissions(["notifications"], { origin: baseURL });
  await member(page);
  await page.goto(`/webtoon/detail/${pid}`);
  await page.getByRole("button", { name: "알림" }).click();
  await expect(page.getByTestId("floating-message")).toHaveText("새 회차 알림을 받습니다.");
  await expect(page.getByRole("button", { name: "알림" })).toHaveAttribute("aria-pressed", "true");
  expect(made).toHaveLength(1);
  const sub = made[0];
  // The page subscribed with the writer's VAPID key.
  const key = ((await (await request.get("/home/api/v1/push/key")).json()) as { publicKey: string }).publicKey;
  expect(await page.evaluate(() => (window as unknown as { __pushKeys: string[] }).__pushKeys)).toEqual([key]);

  // Nothing before the release instant.
  await page.waitForTimeout(1_500);
  expect((await messages(request, sub.endpoint)).messages).toHaveLength(0);

  // The release instant moves to now (the schedule the edges flip by): the
  // writer's worker sends at it.
  const put = await request.put(`/admin/api/v1/works/${pid}/volumes/2`, {
    headers: admin,
    data: { no: 2, title: "2화", isFree: true, pages: 4, previewPages: 4, releaseAt: new Date(Date.now() + 2_000).toISOString() },
  });
  expect(put.status(), await put.text()).toBe(200);
  await expect.poll(async () => (await messages(request, sub.endpoint)).messages.length, { timeout: 45_000 }).toBe(1);
  await page.waitForTimeout(3_000); // room for a second one to show up
  const got = await messages(request, sub.endpoint);
  expect(got.refused).toEqual([]);
  expect(got.messages).toHaveLength(1);
  const msg = got.messages[0];
  expect(msg.payload).toEqual({ title, body: "새 회차 2화가 공개되었습니다.", url: `/viewer?pid=${pid}&no=2`, tag: `vol:${pid}:2` });
  expect(msg.urgency).toBe("normal");
  expect(msg.ttl).toBeGreaterThan(0);

  // The push service hands the decrypted message to the store's worker.
  const shown = await showInWorker(page, context, baseURL!, msg.payload);
  await expect.poll(shown, { timeout: 20_000 }).toEqual([{ title, body: "새 회차 2화가 공개되었습니다.", tag: `vol:${pid}:2`, url: `/viewer?pid=${pid}&no=2` }]);
  const opens = (await shown())[0].url;

  // Alarm off: this was the member's only alarm, so the device goes too.
  const removed = page.waitForResponse((r) => r.url().endsWith("/home/api/v1/push/subscriptions") && r.request().method() === "DELETE");
  await page.getByRole("button", { name: "알림" }).click();
  expect(await (await removed).json()).toMatchObject({ removed: true });
  await expect(page.getByTestId("floating-message")).toHaveText("새 회차 알림을 끕니다.");
  expect(await page.evaluate(() => sessionStorage.getItem("__fakePushSub"))).toBeNull();
  await expect(page.getByRole("button", { name: "알림" })).toHaveAttribute("aria-pressed", "false");

  // Its URL opens the volume in the viewer (the click's tab handling is
  // pushHandlers.test.ts: headless Chromium has no notification to click).
  await page.goto(opens);
  await expect(page.getByTestId("viewer")).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`/viewer\\?pid=${pid}&no=2$`));
});
