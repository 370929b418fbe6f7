import { describe, expect, it, vi } from "vitest";
import { cookieString, getCookie } from "./cookies";
import { applyTheme, parseSetting, resolveTheme, saveSetting, THEME_BOOT_SCRIPT, THEME_COOKIE_MAX_AGE } from "./theme";

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
