// The fake push service of writer/push/pushtest (`storefront fakepush`) for
// specs that follow a Web Push notification to the browser: it checks the
// VAPID JWT and decrypts what the writer sends exactly as a browser's push
// service and the browser would. Headless Chromium cannot reach a real push
// service, so fakePushManager makes the page's PushManager.subscribe return
// a subscription the fake made for the key the page passed (push.spec.ts
// describes the same stand-in). The stack must accept the fake's endpoints
// (scripts/test.sh: PUSH_ENDPOINT_HOSTS=127.0.0.1).
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import type { APIRequestContext, BrowserContext, Page } from "@playwright/test";
import { expect } from "./fixtures";

const LAUNCHER = process.env.STOREFRONT_BIN ?? path.resolve(import.meta.dirname, "../../../bin/storefront");

export type FakeSub = { endpoint: string; keys: { p256dh: string; auth: string } };
export type PushMsg = { endpoint: string; payload: { title: string; body: string; url: string; tag: string }; ttl: number; urgency: string; topic: string };

/** startFakePush starts the fake and answers its URL and a stop function. */
export async function startFakePush(): Promise<{ url: string; stop: () => void }> {
  const fake: ChildProcess = spawn(LAUNCHER, ["fakepush", "-addr", "127.0.0.1:0"], { stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise<string>((resolve, reject) => {
    fake.once("error", reject);
    fake.once("exit", (code) => reject(new Error(`storefront fakepush exited ${code}`)));
    createInterface({ input: fake.stdout! }).on("line", (l) => l.startsWith("FAKEPUSH_URL=") && resolve(l.slice("FAKEPUSH_URL=".length)));
  });
  return { url, stop: () => fake.kill() };
}

/** pushMessages is what the fake accepted for endpoint (decrypted) and what it refused. */
export async function pushMessages(request: APIRequestContext, fakeURL: string, endpoint: string) {
  const r = await request.get(`${fakeURL}/_fake/messages?endpoint=${encodeURIComponent(endpoint)}`);
  expect(r.ok()).toBe(true);
  return (await r.json()) as { messages: PushMsg[]; refused: string[] };
}

/** fakePushManager makes the page's subscriptions the fake's; it answers the list they go into. */
export async function fakePushManager(page: Page, request: APIRequestContext, fakeURL: string): Promise<FakeSub[]> {
  const made: FakeSub[] = [];
  await page.exposeFunction("__fakePushSubscribe", async (applicationServerKey: string) => {
    const r = await request.post(`${fakeURL}/_fake/subscriptions`, { data: { applicationServerKey } });
    expect(r.ok(), await r.text()).toBe(true);
    const s = (await r.json()) as FakeSub;
    made.push(s);
    return s;
  });
  await page.addInitScript(() => {
    type Sub = { endpoint: string; keys: { p256dh: string; auth: string } };
    // __pushKeys: the applicationServerKeys the page subscribed with.
    const w = window as unknown as { __fakePushSubscribe(key: string): Promise<Sub>; __pushKeys: string[] };
    w.__pushKeys = [];
    // Kept in session storage: the browser's subscription outlives a page.
    const KEY = "__fakePushSub";
    const b64url = (b: Uint8Array) => btoa(String.fromCharCode(...b)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    const make = (s: Sub) =>
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
      return s ? make(JSON.parse(s) as Sub) : null;
    };
  });
  return made;
}

/**
 * showInWorker hands a message to the store's service worker as the push
 * service would (CDP ServiceWorker.deliverPushMessage) and answers the
 * notifications it then shows.
 */
export async function showInWorker(page: Page, context: BrowserContext, origin: string, payload: PushMsg["payload"]) {
  const cdp = await context.newCDPSession(page);
  const regs: { registrationId: string; scopeURL: string }[] = [];
  cdp.on("ServiceWorker.workerRegistrationUpdated", (e) => regs.push(...e.registrations));
  await cdp.send("ServiceWorker.enable");
  await expect.poll(() => regs.find((r) => r.scopeURL === `${origin}/`)?.registrationId ?? "", { timeout: 20_000 }).not.toBe("");
  const registrationId = regs.find((r) => r.scopeURL === `${origin}/`)!.registrationId;
  await cdp.send("ServiceWorker.deliverPushMessage", { origin, registrationId, data: JSON.stringify(payload) });
  return async () =>
    page.evaluate(async () => (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => ({ title: n.title, body: n.body, tag: n.tag, url: (n.data as { url: string }).url })));
}
