import { afterEach, describe, expect, it, vi } from "vitest";
import { app, appHandles, postToApp } from "./bridge";

afterEach(() => {
  delete window.SFAndroid;
  delete window.webkit;
});

describe("native bridge", () => {
  const android = { isApp: true, isAndroidApp: true, isIOSApp: false };
  const ios = { isApp: true, isAndroidApp: false, isIOSApp: true };
  const web = { isApp: false, isAndroidApp: false, isIOSApp: false };
  it("Android: one method per message taking a JSON string", () => {
    const got: [string, string][] = [];
    window.SFAndroid = { goPage: (j) => got.push(["goPage", j]), setTitle: (j) => got.push(["setTitle", j]) };
    expect(postToApp("goPage", { url: "/cs/" }, android)).toBe(true);
    expect(postToApp("setTitle", { title: "웹툰" }, android)).toBe(true);
    expect(postToApp("login", { returnUrl: "/" }, android)).toBe(false);
    expect(got).toEqual([
      ["goPage", '{"url":"/cs/"}'],
      ["setTitle", '{"title":"웹툰"}'],
    ]);
  });
  it("iOS: one script message handler per message taking an object", () => {
    const got: unknown[] = [];
    window.webkit = { messageHandlers: { scrollEnable: { postMessage: (m) => got.push(m) } } };
    expect(postToApp("scrollEnable", { enabled: false }, ios)).toBe(true);
    expect(postToApp("goFreeCoin", {}, ios)).toBe(false);
    expect(got).toEqual([{ enabled: false }]);
  });
  it("sends nothing outside the app", () => {
    const fn = vi.fn();
    window.SFAndroid = { goPage: fn };
    expect(postToApp("goPage", { url: "/" }, web)).toBe(false);
    expect(fn).not.toHaveBeenCalled();
  });
  it("appHandles: whether the app has the message's handler, in either shape", () => {
    window.SFAndroid = { goFreeCoin: () => {} };
    expect(appHandles("goFreeCoin", android)).toBe(true);
    expect(appHandles("showModal", android)).toBe(false);
    expect(appHandles("goFreeCoin", web)).toBe(false);
    window.webkit = { messageHandlers: { goFreeCoin: { postMessage: () => {} } } };
    expect(appHandles("goFreeCoin", ios)).toBe(true);
    expect(appHandles("login", ios)).toBe(false);
  });
  it("the helpers cover every message of the seed", () => {
    expect(Object.keys(app).sort()).toEqual(
      ["goFreeCoin", "goPage", "goSubMainHome", "login", "openViewer", "scrollEnable", "setTitle", "showModal", "urlChanged"].sort(),
    );
  });
});
