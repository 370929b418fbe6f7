import { describe, expect, it, vi } from "vitest";
import { HttpError, type Http, type RequestOptions } from "./http";
import { alarmPush, askPermission, followPush, keyBytes, PUSH_DENIED, PUSH_KEY_PATH, PUSH_SUBSCRIPTIONS_PATH, pushMessage, subscribeDevice, type PushEnv } from "./webPush";

const KEY = "BIKiuuMoDc8VNBu5Ydrpu0K4snJ25lKi-eE5y1KQTSrycf_Hw0B9eP6kK76CsgowaXGWhZ1xHpjcXuo6AJL_TF8";
const SUB = { endpoint: "https://fcm.googleapis.com/fcm/send/x", expirationTime: null, keys: { p256dh: "p", auth: "a" } };

function env(opts: { permission?: NotificationPermission; existing?: boolean; removed?: boolean; app?: boolean; sw?: boolean; taken?: number } = {}) {
  const calls: [string, RequestOptions | undefined][] = [];
  let taken = opts.taken ?? 0;
  const h = (async (path: string, o?: RequestOptions) => {
    calls.push([path, o]);
    if (path === PUSH_KEY_PATH) return { publicKey: KEY };
    if (o?.method === "DELETE") return { removed: opts.removed ?? true };
    if (o?.method === "POST" && taken > 0) {
      taken--;
      throw new HttpError("api", 409, 409, "이 알림 구독 주소는 다른 회원이 등록했습니다.");
    }
    return {};
  }) as Http;
  const sub = { endpoint: SUB.endpoint, toJSON: () => SUB, unsubscribe: vi.fn(async () => true) };
  const pushManager = {
    getSubscription: vi.fn(async () => (opts.existing ? sub : null)),
    subscribe: vi.fn(async (_o: PushSubscriptionOptionsInit) => sub),
  };
  const requestPermission = vi.fn(async () => opts.permission ?? "granted");
  const sent: unknown[] = [];
  const win = { SFAndroid: { setAlarm: (json: string) => sent.push(JSON.parse(json)) } } as unknown as Window;
  const e: PushEnv = {
    device: { isApp: !!opts.app, isAndroidApp: !!opts.app },
    registration: async () => (opts.sw === false ? null : ({ pushManager } as unknown as ServiceWorkerRegistration)),
    requestPermission,
    h,
    win,
  };
  return { e, calls, pushManager, requestPermission, sub, sent };
}

describe("alarm by Web Push", () => {
  it("asks permission, subscribes with the writer's key and posts the subscription", async () => {
    const t = env();
    const perm = askPermission(t.e);
    expect(t.requestPermission).toHaveBeenCalledTimes(1);
    expect(await alarmPush("P1", true, perm, t.e)).toBe("subscribed");
    const opts = t.pushManager.subscribe.mock.calls[0][0];
    expect(opts.userVisibleOnly).toBe(true);
    expect(Array.from(opts.applicationServerKey as Uint8Array)).toEqual(Array.from(keyBytes(KEY)));
    expect((opts.applicationServerKey as Uint8Array).length).toBe(65);
    expect(t.calls.at(-1)).toEqual([PUSH_SUBSCRIPTIONS_PATH, { method: "POST", json: SUB }]);
  });
  it("reuses the browser's subscription", async () => {
    const t = env({ existing: true });
    expect(await alarmPush("P1", true, askPermission(t.e), t.e)).toBe("subscribed");
    expect(t.pushManager.subscribe).not.toHaveBeenCalled();
    expect(t.calls.map((c) => c[0])).toEqual([PUSH_SUBSCRIPTIONS_PATH]);
  });
  it("an endpoint another member registered (a shared browser): a fresh subscription, posted again", async () => {
    const t = env({ existing: true, taken: 1 });
    expect(await alarmPush("P1", true, askPermission(t.e), t.e)).toBe("subscribed");
    expect(t.sub.unsubscribe).toHaveBeenCalledTimes(1);
    expect(t.pushManager.subscribe).toHaveBeenCalledTimes(1);
    expect(t.calls.map((c) => c[0])).toEqual([PUSH_SUBSCRIPTIONS_PATH, PUSH_KEY_PATH, PUSH_SUBSCRIPTIONS_PATH]);
  });
  it("refused twice: the alarm's device side failed", async () => {
    const t = env({ existing: true, taken: 2 });
    expect(await alarmPush("P1", true, askPermission(t.e), t.e)).toBe("failed");
  });
  it("subscribes nothing when the reader refuses", async () => {
    const t = env({ permission: "denied" });
    const o = await alarmPush("P1", true, askPermission(t.e), t.e);
    expect(o).toBe("denied");
    expect(pushMessage(o)).toBe(PUSH_DENIED);
    expect(t.pushManager.subscribe).not.toHaveBeenCalled();
    expect(t.calls).toEqual([]);
  });
  it("without a service worker says the browser cannot", async () => {
    const t = env({ sw: false });
    expect(await alarmPush("P1", true, askPermission(t.e), t.e)).toBe("unsupported");
  });
  it("alarm off: the writer decides whether the device goes, the browser follows", async () => {
    const kept = env({ existing: true, removed: false });
    expect(await alarmPush("P1", false, null, kept.e)).toBe("kept");
    expect(kept.calls).toEqual([[PUSH_SUBSCRIPTIONS_PATH, { method: "DELETE", json: { endpoint: SUB.endpoint, ifNoAlarms: true } }]]);
    expect(kept.sub.unsubscribe).not.toHaveBeenCalled();
    const gone = env({ existing: true, removed: true });
    expect(await alarmPush("P1", false, null, gone.e)).toBe("unsubscribed");
    expect(gone.sub.unsubscribe).toHaveBeenCalled();
  });
  it("in the app: the bridge message, no permission prompt, no Web Push", async () => {
    const t = env({ app: true });
    expect(askPermission(t.e)).toBeNull();
    expect(await alarmPush("P1", true, null, t.e)).toBe("app");
    expect(t.sent).toEqual([{ pid: "P1", isAlarm: true }]);
    expect(t.requestPermission).not.toHaveBeenCalled();
    expect(t.calls).toEqual([]);
  });
  it("receipts on this device (the top-up screen): the same subscription, without any alarm; never in the app", async () => {
    const t = env();
    expect(await subscribeDevice(askPermission(t.e), t.e)).toBe("subscribed");
    expect(t.calls.at(-1)).toEqual([PUSH_SUBSCRIPTIONS_PATH, { method: "POST", json: SUB }]);
    const refused = env({ permission: "denied" });
    expect(await subscribeDevice(askPermission(refused.e), refused.e)).toBe("denied");
    expect(refused.calls).toEqual([]);
    const app = env({ app: true });
    expect(await subscribeDevice(askPermission(app.e), app.e)).toBe("unsupported");
    expect(app.sent).toEqual([]);
    expect(app.calls).toEqual([]);
  });
});

describe("following an author by Web Push", () => {
  it("subscribes the browser like an alarm", async () => {
    const t = env();
    expect(await followPush(askPermission(t.e), t.e)).toBe("subscribed");
    expect(t.calls.at(-1)).toEqual([PUSH_SUBSCRIPTIONS_PATH, { method: "POST", json: SUB }]);
  });
  it("denied permission: nothing posted", async () => {
    const t = env({ permission: "denied" });
    expect(await followPush(askPermission(t.e), t.e)).toBe("denied");
    expect(t.calls).toEqual([]);
  });
  it("in the app: no prompt, no bridge message, no call (the inbox tells them)", async () => {
    const t = env({ app: true });
    expect(await followPush(askPermission(t.e), t.e)).toBe("app");
    expect(t.requestPermission).not.toHaveBeenCalled();
    expect(t.sent).toEqual([]);
    expect(t.calls).toEqual([]);
  });
});
