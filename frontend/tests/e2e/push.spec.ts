import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { createInterface } from "node:readline";
import type { APIRequestContext } from "@playwright/test";
import { expect, test } from "./fixtures";
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
const LAUNCHER = process.env.STOREFRONT_BIN ?? path.resolve(import.meta.dirname, "../../../bin/storefront");

type Sub = { endpoint: string; keys: { p256dh: string; auth: string } };
type Msg = { endpoint: string; payload: { title: string; body: string; url: string; tag: string }; ttl: number; urgency: string; topic: string };

let fake: ChildProcess;
let fakeURL = "";

test.beforeAll(async () => {
  fake = spawn(LAUNCHER, ["fakepush", "-addr", "127.0.0.1:0"], { stdio: ["ignore", "pipe", "inherit"] });
  fakeURL = await new Promise<string>((resolve, reject) => {
    fake.once("error", reject);
    fake.once("exit", (code) => reject(new Error(`storefront fakepush exited ${code}`)));
    createInterface({ input: fake.stdout! }).on("line", (l) => l.startsWith("FAKEPUSH_URL=") && resolve(l.slice("FAKEPUSH_URL=".length)));
  });
});

test.afterAll(() => {
  fake?.kill();
});

async function messages(request: APIRequestContext, endpoint: string) {
  const r = await request.get(`${fakeURL}/_fake/messages?endpoint=${encodeURIComponent(endpoint)}`);
  expect(r.ok()).toBe(true);
  return (await r.json()) as { messages: Msg[]; refused: string[] };
}

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
  const made: Sub[] = [];
  await page.exposeFunction("__fakePushSubscribe", async (applicationServerKey: string) => {
    const r = await request.post(`${fakeURL}/_fake/subscriptions`, { data: { applicationServerKey } });
    expect(r.ok(), await r.text()).toBe(true);
    const s = (await r.json()) as Sub;
    made.push(s);
    return s;
  });
  await page.addInitScript(() => {
    type FakeSub = { endpoint: string; keys: { p256dh: string; auth: string } };
    const w = window as unknown as { __fakePushSubscribe(key: string): Promise<FakeSub>; __pushKeys: string[] };
    w.__pushKeys = [];
    // Kept in session storage: the browser's subscription outlives a page.
    const KEY = "__fakePushSub";
    const b64url = (b: Uint8Array) => btoa(String.fromCharCode(...b)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    const make = (s: FakeSub) =>
      ({
        endpoint: s.endpoint,
        expirationTime: null,
        options: { userVisibleOnly: true },
        getKey: () => null,
        toJSON: () => ({ endpoint: s.endpoint, expirationTime: null, keys: s.keys }),
        unsubscribe: async () => {
          sessionStorage.removeItem(KEY);
          return true;
        },
      }) as unknown as PushSubscription;
    PushManager.prototype.subscribe = async function (opts?: PushSubscriptionOptionsInit) {
      const k = opts?.applicationServerKey;
      const bytes = typeof k === "string" || !k ? new Uint8Array() : k instanceof ArrayBuffer ? new Uint8Array(k) : new Uint8Array(k.buffer, k.byteOffset, k.byteLength);
      const key = b64url(bytes);
      w.__pushKeys.push(key);
      const s = await w.__fakePushSubscribe(key);
      sessionStorage.setItem(KEY, JSON.stringify(s));
      return make(s);
    };
    PushManager.prototype.getSubscription = async () => {
      const s = sessionStorage.getItem(KEY);
      return s ? make(JSON.parse(s) as FakeSub) : null;
    };
  });
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
  const cdp = await context.newCDPSession(page);
  const regs: { registrationId: string; scopeURL: string }[] = [];
  cdp.on("ServiceWorker.workerRegistrationUpdated", (e) => regs.push(...e.registrations));
  await cdp.send("ServiceWorker.enable");
  await expect.poll(() => regs.find((r) => r.scopeURL === `${baseURL}/`)?.registrationId ?? "", { timeout: 20_000 }).not.toBe("");
  const registrationId = regs.find((r) => r.scopeURL === `${baseURL}/`)!.registrationId;
  await cdp.send("ServiceWorker.deliverPushMessage", { origin: baseURL!, registrationId, data: JSON.stringify(msg.payload) });
  const shown = async () =>
    page.evaluate(async () => (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => ({ title: n.title, body: n.body, tag: n.tag, url: (n.data as { url: string }).url })));
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
