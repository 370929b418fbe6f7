// The native app bridge (seed §1): messages from the page to the Android and
// iOS web views.
//
// Shapes:
//   Android: the app injects `window.SFAndroid` (addJavascriptInterface); each
//            message is a method taking one JSON string:  SFAndroid.goPage('{"url":"/cs/"}')
//   iOS:     WKWebView script message handlers, one per message, taking an object:
//            webkit.messageHandlers.goPage.postMessage({url: "/cs/"})
import { currentDevice, type DeviceInfo } from "./device";

export type BridgeMessages = {
  login: { returnUrl: string; message?: string };
  goPage: { url: string };
  goSubMainHome: { section?: string };
  urlChanged: { url: string };
  setTitle: { title: string };
  showModal: { show: boolean };
  openViewer: { pid: string; volNo?: number | string; isPreview?: boolean };
  goFreeCoin: Record<string, never>;
  scrollEnable: { enabled: boolean };
  /** A work's new-volume alarm turned on or off: the app rings through its own push (issue 19), not Web Push. */
  setAlarm: { pid: string; isAlarm: boolean };
};
export type BridgeAction = keyof BridgeMessages;

type AndroidBridge = Partial<Record<BridgeAction, (json: string) => void>>;
type IOSHandlers = Partial<Record<BridgeAction, { postMessage(m: unknown): void }>>;

declare global {
  interface Window {
    SFAndroid?: AndroidBridge;
    webkit?: { messageHandlers?: IOSHandlers };
  }
}

type Device = Pick<DeviceInfo, "isApp" | "isAndroidApp">;

/** sender is the app's handler of one message in either shape, or undefined outside the app or when the app lacks it. */
function sender<A extends BridgeAction>(action: A, device: Device, win: Window): ((data: BridgeMessages[A]) => void) | undefined {
  if (!device.isApp) return undefined;
  if (device.isAndroidApp) {
    const bridge = win.SFAndroid;
    const fn = bridge?.[action];
    return typeof fn === "function" ? (data) => fn.call(bridge, JSON.stringify(data)) : undefined;
  }
  const h = win.webkit?.messageHandlers?.[action];
  return h && typeof h.postMessage === "function" ? (data) => h.postMessage(data) : undefined;
}

/** postToApp sends one message; false when not in the app or the app lacks the handler. */
export function postToApp<A extends BridgeAction>(
  action: A,
  data: BridgeMessages[A],
  device: Device = currentDevice(),
  win: Window = window,
): boolean {
  const send = sender(action, device, win);
  if (!send) return false;
  send(data);
  return true;
}

/** appHandles tells whether the app this page runs in takes the message (older app versions lack some). */
export function appHandles(action: BridgeAction, device: Device = currentDevice(), win: Window = window): boolean {
  return sender(action, device, win) !== undefined;
}

export const app = {
  login: (returnUrl: string, message?: string) => postToApp("login", message ? { returnUrl, message } : { returnUrl }),
  goPage: (url: string) => postToApp("goPage", { url }),
  goSubMainHome: (section?: string) => postToApp("goSubMainHome", section ? { section } : {}),
  urlChanged: (url: string) => postToApp("urlChanged", { url }),
  setTitle: (title: string) => postToApp("setTitle", { title }),
  showModal: (show: boolean) => postToApp("showModal", { show }),
  openViewer: (pid: string, volNo?: number | string, isPreview?: boolean) =>
    postToApp("openViewer", { pid, ...(volNo !== undefined ? { volNo } : {}), ...(isPreview !== undefined ? { isPreview } : {}) }),
  goFreeCoin: () => postToApp("goFreeCoin", {}),
  scrollEnable: (enabled: boolean) => postToApp("scrollEnable", { enabled }),
};
