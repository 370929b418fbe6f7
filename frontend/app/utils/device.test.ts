import { describe, expect, it } from "vitest";
import {
  androidBrowserEncodesParams,
  compareVersion,
  detectChannel,
  deviceInfo,
  hasAppViewer,
  isAdultChannel,
  isAppMoneyChannel,
  MIN_APP_VERSIONS,
  moneyForChannel,
  moneyNameFor,
  MONEY_KIND,
  previewNeedsLogin,
  shownMoney,
  bonusBanners,
  CHANNELS,
  type Channel,
  supportsFeature,
} from "./device";
import { contractCases, type MoneyCases } from "~/test/cases";

const ANDROID_CHROME = "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36";
const IPHONE_SAFARI = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";
const DESKTOP = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const app = (ch: string, v: string, base = ANDROID_CHROME) => `${base} SFApp/${ch}/${v}/kr.storefront.app`;

describe("channel detection", () => {
  it.each([
    [app("AO", "1.4.0"), "AO"],
    [app("AC", "1.4.0"), "AC"],
    [app("AA", "6.1.0"), "AA"],
    [ANDROID_CHROME, "AW"],
    [app("IA", "3.23.0", IPHONE_SAFARI), "IA"],
    [IPHONE_SAFARI, "IW"],
    [DESKTOP, "AW"],
  ])("%s -> %s", (ua, ch) => {
    expect(detectChannel(ua)).toBe(ch);
  });

  it("device info of an Android app", () => {
    const d = deviceInfo(app("AA", "6.1.0"), "m.example.com");
    expect(d).toMatchObject({
      appID: "kr.storefront.app",
      appVersion: "6.1.0",
      channel: "AA",
      realChannel: "AA",
      host: "m.example.com",
      isApp: true,
      isAndroidApp: true,
      isIOSApp: false,
      osVersion: "14",
      isAdultChannel: false,
      isAppMoneyChannel: true,
      deviceIP: "",
    });
  });
  it("device info of iOS web", () => {
    const d = deviceInfo(IPHONE_SAFARI);
    expect(d).toMatchObject({ channel: "IW", isApp: false, isAndroidApp: false, isIOS: true, osVersion: "17.4", isAdultChannel: true, isAppMoneyChannel: false });
  });
  it("adult channels are web, one-store and complete; app money channels are the store apps", () => {
    expect(["AO", "AC", "AA", "AW", "IA", "IW"].filter((c) => isAdultChannel(c as never))).toEqual(["AO", "AC", "AW", "IW"]);
    expect(["AO", "AC", "AA", "AW", "IA", "IW"].filter((c) => isAppMoneyChannel(c as never))).toEqual(["AA", "IA"]);
  });
});

describe("money by channel", () => {
  const m = { blueMoney: 100, androidMoney: 200, iosMoney: 300 };
  const table = contractCases<MoneyCases>("money-by-channel.json");
  it("follows contract/cases/money-by-channel.json, the writer's table, on every channel", () => {
    expect(table.cases.map((c) => c.channel).filter(Boolean).sort()).toEqual([...CHANNELS].sort());
    for (const c of table.cases) {
      const ch = c.channel as Channel;
      expect(moneyNameFor(ch), `channel ${c.channel}`).toBe(c.money);
      expect(moneyForChannel(ch, m).kind).toBe(MONEY_KIND[c.money]);
      expect(bonusBanners(ch), `banners on ${c.channel}`).toBe(c.bonusBanners);
      // Before the writer answered, the rule; after, what the writer named.
      expect(shownMoney(ch, m).amount).toBe(m[MONEY_KIND[c.money]]);
    }
  });
  it("shows the money the writer's answer names", () => {
    expect(shownMoney("AW", { ...m, shownMoney: "android" })).toEqual({ kind: "androidMoney", label: "안드로이드 머니", amount: 200 });
    expect(shownMoney("IA", { ...m, shownMoney: null })).toEqual({ kind: "iosMoney", label: "iOS 머니", amount: 300 });
  });
});

describe("version comparison", () => {
  it("compares dotted versions numerically", () => {
    expect(compareVersion("1.10.0", "1.9.9")).toBe(1);
    expect(compareVersion("1.4", "1.4.0")).toBe(0);
    expect(compareVersion("3.22.9", "3.23.0")).toBe(-1);
  });
  it("treats '-1' as the newest", () => {
    expect(compareVersion("-1", "99.0.0")).toBe(1);
    expect(compareVersion("99.0.0", "-1")).toBe(-1);
    expect(compareVersion("-1", "-1")).toBe(0);
  });
});

describe("minimum app versions", () => {
  it("has the seed's numbers", () => {
    expect(MIN_APP_VERSIONS.productHome).toEqual({ AA: "1.3.0", AC: "1.4.0", AO: "1.4.0", IA: "3.23.0" });
    expect(MIN_APP_VERSIONS.conversation).toEqual({ AA: "1.4.6", AC: "1.5.6", AO: "1.5.7", IA: "3.26.0" });
  });
  it("gates apps below the minimum; browsers always pass", () => {
    expect(supportsFeature({ isApp: true, channel: "AA", appVersion: "1.2.9" }, "productHome")).toBe(false);
    expect(supportsFeature({ isApp: true, channel: "AA", appVersion: "1.3.0" }, "productHome")).toBe(true);
    expect(supportsFeature({ isApp: true, channel: "AO", appVersion: "1.5.6" }, "conversation")).toBe(false);
    expect(supportsFeature({ isApp: true, channel: "AC", appVersion: "1.5.6" }, "conversation")).toBe(true);
    expect(supportsFeature({ isApp: true, channel: "IA", appVersion: "-1" }, "conversation")).toBe(true);
    expect(supportsFeature({ isApp: false, channel: "AW", appVersion: "" }, "conversation")).toBe(true);
  });
  it("app viewer and login-free preview from app 6.0.0", () => {
    expect(hasAppViewer({ isApp: true, appVersion: "6.0.0" })).toBe(true);
    expect(hasAppViewer({ isApp: true, appVersion: "5.9.9" })).toBe(false);
    expect(hasAppViewer({ isApp: false, appVersion: "" })).toBe(false);
    expect(previewNeedsLogin({ isApp: true, appVersion: "5.9.9" })).toBe(true);
    expect(previewNeedsLogin({ isApp: true, appVersion: "6.0.0" })).toBe(false);
  });
  it("Android browsers from 130 encode URL parameters", () => {
    expect(androidBrowserEncodesParams(ANDROID_CHROME)).toBe(true);
    expect(androidBrowserEncodesParams(ANDROID_CHROME.replace("131.0", "129.0"))).toBe(false);
    expect(androidBrowserEncodesParams(DESKTOP)).toBe(false);
  });
});
