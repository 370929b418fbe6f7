// Opening the native app from the web, with the store as fallback (seed §4, §9):
// Android goes to the store when the app did not take over within about 2 s
// (then 300 ms later); iOS asks at about 2 s, but only inside a 4 s window
// (a later timer means the app was in front), and gives up after 5000 ms.

import { androidBrowserEncodesParams, isDesktop } from "~/utils/device";

export const APP_OPEN = {
  androidCheckMs: 2000,
  androidStoreFallbackMs: 300,
  iosPromptMs: 2000,
  iosWindowMs: 4000,
  iosStoreFallbackMs: 5000,
} as const;

// The app's store pages: where the app-open fallback and the app update notice
// send people. The seed names no listing, so the defaults are placeholders;
// a deployment sets its own at build time (VITE_PLAY_STORE_URL,
// VITE_ONE_STORE_URL, VITE_APP_STORE_URL).
const env = import.meta.env;
export const PLAY_STORE_URL: string = env.VITE_PLAY_STORE_URL || "https://play.google.com/store/apps/details?id=kr.storefront.app";
export const ONE_STORE_URL: string = env.VITE_ONE_STORE_URL || "https://onesto.re/kr.storefront.app";
export const APP_STORE_URL: string = env.VITE_APP_STORE_URL || "https://apps.apple.com/kr/app/storefront/id0000000000";

/**
 * storeUrlFor: the store page that updates the app of a channel. AA is the Play
 * build, AO the one-store build, IA the App Store build; AC (the store-independent
 * Android build) has no store of its own and takes the Play listing. Browsers: "".
 */
export function storeUrlFor(channel: string): string {
  switch (channel) {
    case "AA":
    case "AC":
      return PLAY_STORE_URL;
    case "AO":
      return ONE_STORE_URL;
    case "IA":
      return APP_STORE_URL;
    default:
      return "";
  }
}

/** The app's own scheme: a link into the app names the store path to open (url). */
export const APP_SCHEME = "storefront://open";

/**
 * appLink is the link into the app for a store path. Android browsers from
 * version 130 encode URL parameters (seed §5): there the path goes in
 * percent-encoded, so the app reads it back the same; older browsers and
 * iOS pass it as it is.
 */
export function appLink(path: string, ua: string): string {
  return `${APP_SCHEME}?url=${androidBrowserEncodesParams(ua) ? encodeURIComponent(path) : path}`;
}

/** The page's own ways to open the app: the address bar, its visibility, the shell's confirm popup. */
export function browserAppOpenDeps(confirm: (message: string) => boolean | Promise<boolean>): AppOpenDeps {
  return {
    go: (u) => window.location.assign(u),
    hidden: () => document.visibilityState === "hidden",
    confirm,
    now: () => Date.now(),
    setTimeout: (f, ms) => setTimeout(f, ms),
  };
}

/**
 * openAppFromWeb opens the app at path from a mobile browser (seed §4, §9):
 * Android falls back to its store after about 2 s, iOS asks at about 2 s,
 * within a 4 s window, with the app-only message. "" for other devices.
 */
export function openAppFromWeb(path: string, d: { isIOS: boolean; isAndroid: boolean; userAgent: string }, deps: AppOpenDeps): boolean {
  if (isDesktop(d)) return false;
  openApp(d.isIOS ? "ios" : "android", appLink(path, d.userAgent), d.isIOS ? APP_STORE_URL : PLAY_STORE_URL, deps);
  return true;
}

export const IOS_APP_MISSING_PROMPT = "앱 전용 기능입니다. 앱이 설치되어 있지 않다면 앱스토어에서 설치해 주세요.";

export type AppOpenDeps = {
  go: (url: string) => void;
  hidden: () => boolean;
  confirm: (message: string) => boolean | Promise<boolean>;
  now: () => number;
  setTimeout: (f: () => void, ms: number) => unknown;
};

export function openApp(platform: "android" | "ios", appUrl: string, storeUrl: string, d: AppOpenDeps): void {
  const started = d.now();
  d.go(appUrl);
  if (platform === "android") {
    d.setTimeout(() => {
      if (d.hidden()) return; // the app took over
      d.setTimeout(() => d.go(storeUrl), APP_OPEN.androidStoreFallbackMs);
    }, APP_OPEN.androidCheckMs);
    return;
  }
  d.setTimeout(async () => {
    if (d.hidden() || d.now() - started > APP_OPEN.iosWindowMs) return;
    const asked = d.now();
    const ok = await d.confirm(IOS_APP_MISSING_PROMPT);
    if (ok && d.now() - asked <= APP_OPEN.iosStoreFallbackMs) d.go(storeUrl);
  }, APP_OPEN.iosPromptMs);
}
