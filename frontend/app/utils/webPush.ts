// New-volume alarms delivered by Web Push (issue 19): the alarm button of a
// work's detail page subscribes this browser with the writer's VAPID key and
// hands the subscription to the writer, which notifies it at each release
// (writer/README.md "Web Push"). The app web views ring through the app: the
// button sends the bridge message setAlarm and the app uses its own push.
import { http } from "~/utils/api";
import { postToApp } from "~/utils/bridge";
import { currentDevice, type DeviceInfo } from "~/utils/device";
import { HttpError, type Http } from "~/utils/http";

export const PUSH_KEY_PATH = "/home/api/v1/push/key";
export const PUSH_SUBSCRIPTIONS_PATH = "/home/api/v1/push/subscriptions";

export const PUSH_DENIED = "알림이 차단되어 있어 새 회차 소식을 보내 드릴 수 없습니다. 브라우저 설정에서 알림을 허용해 주세요.";
export const PUSH_UNSUPPORTED = "이 브라우저에서는 새 회차 알림을 보내 드릴 수 없습니다.";
export const PUSH_FAILED = "알림 등록에 실패했습니다. 잠시 후 다시 시도해 주세요.";

/** What became of the device's side of the alarm. */
export type PushOutcome = "app" | "subscribed" | "unsubscribed" | "kept" | "unsupported" | "denied" | "failed";

/** The browser parts used (tests give their own). */
export type PushEnv = {
  device: Pick<DeviceInfo, "isApp" | "isAndroidApp">;
  /** The service worker's registration, or null when there is none. */
  registration: () => Promise<Pick<ServiceWorkerRegistration, "pushManager"> | null>;
  /** Notification.requestPermission, or null without the Notification API. */
  requestPermission: (() => Promise<NotificationPermission>) | null;
  h: Http;
  win: Window;
};

/** How long to wait for the service worker (it registers after load). */
const SW_WAIT_MS = 10_000;

export function browserPushEnv(): PushEnv {
  const hasPush = typeof window !== "undefined" && "serviceWorker" in navigator && "PushManager" in window;
  return {
    device: currentDevice(),
    registration: async () => {
      if (!hasPush) return null;
      const timeout = new Promise<null>((r) => setTimeout(() => r(null), SW_WAIT_MS));
      return Promise.race([navigator.serviceWorker.ready, timeout]);
    },
    requestPermission: typeof Notification === "undefined" ? null : () => Notification.requestPermission(),
    h: http,
    win: window,
  };
}

/** keyBytes decodes the base64url VAPID key for applicationServerKey. */
export function keyBytes(b64url: string): Uint8Array<ArrayBuffer> {
  const b64 = b64url.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (b64url.length % 4)) % 4);
  const raw = atob(b64);
  const out = new Uint8Array(new ArrayBuffer(raw.length));
  for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
  return out;
}

/**
 * askPermission starts the permission prompt. Call it in the click handler
 * itself, before anything is awaited: browsers show the prompt only during
 * the user's gesture, and never on page load.
 */
export function askPermission(env: PushEnv): Promise<NotificationPermission> | null {
  if (env.device.isApp || !env.requestPermission) return null;
  return env.requestPermission();
}

/**
 * alarmPush follows the alarm just set on the writer (on or off) on this
 * device. permission is askPermission's promise, started at the click.
 */
export async function alarmPush(pid: string, on: boolean, permission: Promise<NotificationPermission> | null, env: PushEnv = browserPushEnv()): Promise<PushOutcome> {
  if (env.device.isApp) {
    return postToApp("setAlarm", { pid, isAlarm: on }, env.device, env.win) ? "app" : "unsupported";
  }
  try {
    if (!on) {
      const reg = await env.registration();
      const sub = await reg?.pushManager.getSubscription();
      if (!sub) return "unsubscribed";
      // The writer keeps the device while another work's alarm is on.
      const a = await env.h<{ removed: boolean }>(PUSH_SUBSCRIPTIONS_PATH, { method: "DELETE", json: { endpoint: sub.endpoint, ifNoAlarms: true } });
      if (!a.removed) return "kept";
      await sub.unsubscribe();
      return "unsubscribed";
    }
    return await subscribeDevice(permission, env);
  } catch {
    return "failed";
  }
}

/**
 * subscribeDevice subscribes this browser with the writer's VAPID key and
 * hands the subscription to the writer: what turning an alarm on does, and
 * what the automatic top-up screen does for its receipts (the writer rings
 * a member's devices for both). permission is askPermission's promise.
 */
export async function subscribeDevice(permission: Promise<NotificationPermission> | null, env: PushEnv = browserPushEnv()): Promise<PushOutcome> {
  if (env.device.isApp) return "unsupported";
  try {
    if (!permission) return "unsupported";
    if ((await permission) !== "granted") return "denied";
    const reg = await env.registration();
    if (!reg) return "unsupported";
    const fresh = async () => {
      const { publicKey } = await env.h<{ publicKey: string }>(PUSH_KEY_PATH);
      return reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(publicKey) });
    };
    let sub = (await reg.pushManager.getSubscription()) ?? (await fresh());
    try {
      await env.h(PUSH_SUBSCRIPTIONS_PATH, { method: "POST", json: sub.toJSON() });
    } catch (e) {
      // 409: this browser's endpoint was registered by another member (the
      // browser is shared); it never moves to us, so make a new one.
      if (!(e instanceof HttpError) || e.status !== 409) throw e;
      await sub.unsubscribe();
      sub = await fresh();
      await env.h(PUSH_SUBSCRIPTIONS_PATH, { method: "POST", json: sub.toJSON() });
    }
    return "subscribed";
  } catch {
    return "failed";
  }
}

/** pushMessage is the toast for an outcome, or null when the alarm's own toast says it all. */
export function pushMessage(o: PushOutcome): string | null {
  switch (o) {
    case "denied":
      return PUSH_DENIED;
    case "unsupported":
      return PUSH_UNSUPPORTED;
    case "failed":
      return PUSH_FAILED;
    default:
      return null;
  }
}

/**
 * followPush puts this device on the member's Web Push when they follow an
 * author (issue 34): the writer tells followers of the author's new works and
 * episodes on the member's subscriptions, the same as alarms. Unfollowing
 * leaves the device alone (the writer keeps it while any alarm or follow
 * remains). The app web views have no bridge message for authors yet: the
 * inbox tells them.
 */
export async function followPush(permission: Promise<NotificationPermission> | null, env: PushEnv = browserPushEnv()): Promise<PushOutcome> {
  if (env.device.isApp) return "app";
  return alarmPush("", true, permission, env);
}
