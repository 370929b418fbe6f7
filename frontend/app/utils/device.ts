// Device and channel detection (seed §3, §5, §6).
//
// The native apps put a token in their web view's user agent:
//   SFApp/<channel>/<appVersion>[/<appID>]   e.g. "SFApp/AA/6.1.0/kr.storefront.app"
// Channels: AO Android one-store, AC Android complete, AA Android app (Play),
// IA iOS app; browsers are AW (Android web and any non-iOS browser) and IW (iOS web).

export type Channel = "AO" | "AC" | "AA" | "AW" | "IA" | "IW";
export const CHANNELS: readonly Channel[] = ["AO", "AC", "AA", "AW", "IA", "IW"];

export type DeviceInfo = {
  appID: string;
  appVersion: string;
  channel: Channel;
  realChannel: Channel;
  host: string;
  isApp: boolean;
  isAndroidApp: boolean;
  isIOSApp: boolean;
  isAndroid: boolean;
  isIOS: boolean;
  osVersion: string;
  userAgent: string;
  isAdultChannel: boolean;
  isAppMoneyChannel: boolean;
  deviceIP: string;
};

const APP_TOKEN = /SFApp\/(AO|AC|AA|IA)\/([0-9][0-9.]*|-1)(?:\/([\w.-]+))?/;

export function isAndroidUA(ua: string): boolean {
  return /Android/i.test(ua);
}
export function isIOSUA(ua: string): boolean {
  return /iPhone|iPad|iPod/i.test(ua) || (/Macintosh/.test(ua) && /Mobile\//.test(ua));
}

export function osVersionOf(ua: string): string {
  const a = /Android\s+([\d.]+)/i.exec(ua);
  if (a) return a[1];
  const i = /OS\s+(\d+(?:_\d+)*)\s+like Mac OS X/i.exec(ua);
  if (i) return i[1].replace(/_/g, ".");
  return "";
}

/** detectChannel reads the channel code from a user agent. */
export function detectChannel(ua: string): Channel {
  const m = APP_TOKEN.exec(ua);
  if (m) return m[1] as Channel;
  return isIOSUA(ua) ? "IW" : "AW";
}

/** Adult content is allowed on the web and the store-independent Android builds, never in the store-reviewed apps. */
export function isAdultChannel(ch: Channel): boolean {
  return ch === "AO" || ch === "AC" || ch === "AW" || ch === "IW";
}

/** App money channels pay through the app stores' billing. */
export function isAppMoneyChannel(ch: Channel): boolean {
  return ch === "AA" || ch === "IA";
}

export function deviceInfo(ua: string, host = ""): DeviceInfo {
  const m = APP_TOKEN.exec(ua);
  const channel = detectChannel(ua);
  const isApp = m !== null;
  return {
    appID: m?.[3] ?? "",
    appVersion: m?.[2] ?? "",
    channel,
    realChannel: channel,
    host,
    isApp,
    isAndroidApp: isApp && channel !== "IA",
    isIOSApp: channel === "IA",
    isAndroid: isAndroidUA(ua) || (isApp && channel !== "IA"),
    isIOS: isIOSUA(ua) || channel === "IA",
    osVersion: osVersionOf(ua),
    userAgent: ua,
    isAdultChannel: isAdultChannel(channel),
    isAppMoneyChannel: isAppMoneyChannel(channel),
    deviceIP: "",
  };
}

/** A desktop browser: neither a phone or tablet browser nor an app's web view (the apps run on Android or iOS). */
export const isDesktop = (d: Pick<DeviceInfo, "isAndroid" | "isIOS">) => !d.isAndroid && !d.isIOS;

export function currentDevice(): DeviceInfo {
  if (typeof navigator === "undefined") return deviceInfo("");
  return deviceInfo(navigator.userAgent, typeof location === "undefined" ? "" : location.host);
}

/**
 * compareVersion compares dotted versions: -1 when a < b, 0 when equal, 1 when
 * a > b. '-1' is the newest version (developer builds report it).
 */
export function compareVersion(a: string, b: string): -1 | 0 | 1 {
  if (a === b) return 0;
  if (a === "-1") return 1;
  if (b === "-1") return -1;
  const pa = a.split(".").map((x) => parseInt(x, 10) || 0);
  const pb = b.split(".").map((x) => parseInt(x, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] ?? 0;
    const y = pb[i] ?? 0;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** Minimum app versions per feature and app channel (seed §5). */
export const MIN_APP_VERSIONS = {
  productHome: { AA: "1.3.0", AC: "1.4.0", AO: "1.4.0", IA: "3.23.0" },
  conversation: { AA: "1.4.6", AC: "1.5.6", AO: "1.5.7", IA: "3.26.0" },
} as const;
export type AppFeature = keyof typeof MIN_APP_VERSIONS;

/** supportsFeature: browsers always support; apps need the minimum version. */
export function supportsFeature(d: Pick<DeviceInfo, "isApp" | "channel" | "appVersion">, feature: AppFeature): boolean {
  if (!d.isApp) return true;
  const min = (MIN_APP_VERSIONS[feature] as Record<string, string>)[d.channel];
  if (!min) return true;
  return compareVersion(d.appVersion, min) >= 0;
}

/** The app viewer and login-free preview in the app need app 6.0.0 or above (seed §5). */
export const APP_VIEWER_MIN_VERSION = "6.0.0";
export function hasAppViewer(d: Pick<DeviceInfo, "isApp" | "appVersion">): boolean {
  return d.isApp && compareVersion(d.appVersion, APP_VIEWER_MIN_VERSION) >= 0;
}
export function previewNeedsLogin(d: Pick<DeviceInfo, "isApp" | "appVersion">): boolean {
  return d.isApp && compareVersion(d.appVersion, APP_VIEWER_MIN_VERSION) < 0;
}

export type MoneyName = "blue" | "android" | "ios";
export type MoneyKind = "blueMoney" | "androidMoney" | "iosMoney";
export type Money = { blueMoney: number; androidMoney: number; iosMoney: number };
export const MONEY_KIND: Record<MoneyName, MoneyKind> = { blue: "blueMoney", android: "androidMoney", ios: "iosMoney" };
export const MONEY_LABEL: Record<MoneyKind, string> = { blueMoney: "블루머니", androidMoney: "안드로이드 머니", iosMoney: "iOS 머니" };

/**
 * Money by channel (seed §6): the iOS app uses iOS money, the Android apps
 * (AA, AC, AO) Android money, otherwise blue money. The writer's rule
 * (contract.MoneyFor); both are run against contract/cases/money-by-channel.json.
 */
export function moneyNameFor(ch: Channel | ""): MoneyName {
  if (ch === "IA") return "ios";
  if (ch === "AA" || ch === "AC" || ch === "AO") return "android";
  return "blue";
}

/**
 * shownMoney is the money a screen shows: the one the writer's answer names
 * (it spends that one), else the same rule here until the writer answered.
 */
export function shownMoney(ch: Channel, m: Money & { shownMoney?: MoneyName | null }): { kind: MoneyKind; label: string; amount: number } {
  const kind = MONEY_KIND[m.shownMoney ?? moneyNameFor(ch)];
  return { kind, label: MONEY_LABEL[kind], amount: m[kind] };
}
/** Money shown by channel, by the rule alone. */
export function moneyForChannel(ch: Channel, m: Money): { kind: MoneyKind; amount: number } {
  const kind = MONEY_KIND[moneyNameFor(ch)];
  return { kind, amount: m[kind] };
}

/** The join-bonus and first-charge banners are hidden in the iOS app (seed §6). */
export const bonusBanners = (ch: Channel | "") => ch !== "IA";

/** Android browsers from version 130 encode URL parameters (seed §5). */
export function androidBrowserEncodesParams(ua: string): boolean {
  if (!isAndroidUA(ua)) return false;
  const m = /Chrome\/(\d+)/.exec(ua);
  return m !== null && parseInt(m[1], 10) >= 130;
}
