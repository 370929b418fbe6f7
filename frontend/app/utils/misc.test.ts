import { afterEach, describe, expect, it, vi } from "vitest";
import { app, appHandles, postToApp } from "./bridge";
import { cookieString, getCookie } from "./cookies";
import { describeError, errorContent, NOT_FOUND_TEXT, OFFLINE, PageError, UNKNOWN_500_TEXT } from "./errors";
import { UNSAFE_ErrorResponseImpl as ErrorResponseImpl } from "react-router";
import { HttpError } from "./http";
import { appTitle, pageTitle, PRODUCT_NAME } from "./meta";
import { headerKind, sectionOf, TOP_TABS } from "./layout";
import { applyTheme, parseSetting, resolveTheme, saveSetting, THEME_BOOT_SCRIPT, THEME_COOKIE_MAX_AGE } from "./theme";

afterEach(() => {
  delete window.SFAndroid;
  delete window.webkit;
});

describe("header by path prefix", () => {
  it.each([
    ["/jumpingpass", "none"],
    ["/jumpingpass/weekly", "none"],
    ["/mypages/recent/edit", "none"],
    ["/mypages/recent", "main"],
    ["/novel", "section"],
    ["/comic/best", "section"],
    ["/webtoon/detail/wt1", "section"],
    ["/webtoons", "main"],
    ["/", "main"],
    ["/cs/faq", "main"],
  ])("%s -> %s", (p, k) => expect(headerKind(p)).toBe(k));
  it("section of a path and the top tabs", () => {
    expect(sectionOf("/comic/best")).toBe("comic");
    expect(sectionOf("/cs")).toBeNull();
    expect(TOP_TABS.map((t) => t.key)).toEqual(["series", "romance", "fanmu", "bl", "others"]);
    expect(TOP_TABS.map((t) => t.label)).toEqual(["시리즈", "로맨스", "판타지/무협", "BL", "일반"]);
  });
});

describe("error page contents", () => {
  it("40 offline: retry, wifi-off, CS link", () => {
    expect(errorContent(OFFLINE)).toMatchObject({ title: "오프라인 상태입니다", action: "retry", wifiOff: true, showCs: true });
    expect(errorContent(OFFLINE).description).toContain("인터넷 연결");
  });
  it("400, 403, 404 get home buttons; only 404 lacks the CS link", () => {
    expect(errorContent(400)).toMatchObject({ title: "페이지가 작동하지 않습니다", description: "잘못된 요청입니다.", action: "home", showCs: true });
    expect(errorContent(403)).toMatchObject({ title: "페이지에 접근할 수 없습니다", description: "접근이 거부되었습니다.", action: "home", showCs: true });
    expect(errorContent(404)).toMatchObject({ title: "페이지를 찾을 수 없습니다", action: "home", showCs: false });
    expect(errorContent(408)).toMatchObject({ action: "home", showCs: true });
  });
  it("other codes apologise and offer refresh", () => {
    for (const c of [500, 501, 503]) expect(errorContent(c)).toMatchObject({ title: "이용에 불편을 드려 죄송합니다", action: "refresh", showCs: true });
  });
  it("describes thrown errors", () => {
    expect(describeError(new PageError(40, "network connection broken"))).toEqual({ status: 40, message: "network connection broken" });
    expect(describeError(new HttpError("api", 408, 408, "time out"))).toEqual({ status: 408, message: "time out" });
    expect(describeError(new HttpError("network", 0, 0, "x"))).toEqual({ status: 40 });
    expect(describeError(new HttpError("api", 404, 404, "gone"))).toEqual({ status: 404, message: "gone" });
    expect(describeError(new Error("x"))).toMatchObject({ status: 500 });
    expect(NOT_FOUND_TEXT).toBe("This page could not be found");
    // A 500 without a message of its own shows the seed's 500 text.
    expect(UNKNOWN_500_TEXT).toBe("Unknown middleware");
    expect(describeError("boom")).toEqual({ status: 500, message: "Unknown middleware" });
    expect(describeError(new Error(""))).toEqual({ status: 500, message: "Unknown middleware" });
    expect(describeError(new Error("x"))).toEqual({ status: 500, message: "x" });
    expect(describeError(new HttpError("api", 500, 500, ""))).toEqual({ status: 500, message: "Unknown middleware" });
    expect(describeError(new ErrorResponseImpl(500, "Internal Server Error", null))).toEqual({ status: 500, message: "Unknown middleware" });
    expect(describeError(new ErrorResponseImpl(404, "Not Found", null))).toEqual({ status: 404, message: NOT_FOUND_TEXT });
    expect(describeError(new ErrorResponseImpl(503, "Service Unavailable", { message: "down" }))).toEqual({ status: 503, message: "down" });
  });
});

describe("themes", () => {
  it("light, dark or auto following the system", () => {
    expect(parseSetting("dark")).toBe("dark");
    expect(parseSetting("weird")).toBe("auto");
    expect(parseSetting(undefined)).toBe("auto");
    expect(resolveTheme("auto", true)).toBe("dark");
    expect(resolveTheme("auto", false)).toBe("light");
    expect(resolveTheme("light", true)).toBe("light");
  });
  it("writes the theme attribute and the browser theme colour", () => {
    applyTheme("dark", false);
    expect(document.documentElement.getAttribute("data-theme")).toBe("dark");
    expect(document.documentElement.getAttribute("data-theme-setting")).toBe("dark");
    expect(document.querySelector('meta[name="theme-color"]')!.getAttribute("content")).toBe("#1c1c1c");
    applyTheme("auto", false);
    expect(document.documentElement.getAttribute("data-theme")).toBe("light");
    expect(document.querySelector('meta[name="theme-color"]')!.getAttribute("content")).toBe("#ffffff");
  });
  it("keeps the setting in the theme cookie for 30 days", () => {
    expect(THEME_COOKIE_MAX_AGE).toBe(2592000);
    const spy = vi.spyOn(document, "cookie", "set");
    saveSetting("dark");
    expect(spy).toHaveBeenCalledWith(expect.stringMatching(/^theme=dark; path=\/; max-age=2592000/));
    expect(getCookie("theme")).toBe("dark");
  });
  it("the boot script applies the cookie before React runs", () => {
    document.cookie = "theme=dark; path=/";
    document.documentElement.removeAttribute("data-theme");
    new Function(THEME_BOOT_SCRIPT)();
    expect(document.documentElement.getAttribute("data-theme")).toBe("dark");
    expect(document.querySelector('meta[name="theme-color"]')!.getAttribute("content")).toBe("#1c1c1c");
  });
  it("cookie strings", () => {
    expect(cookieString("a", "x y", { maxAge: 5 })).toBe("a=x%20y; path=/; max-age=5; SameSite=Lax");
  });
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

describe("app title", () => {
  it("is the page's own title without the product name", () => {
    expect(appTitle(pageTitle("검색"))).toBe("검색");
    expect(appTitle(pageTitle())).toBe(PRODUCT_NAME);
    expect(appTitle("")).toBe(PRODUCT_NAME);
  });
});
