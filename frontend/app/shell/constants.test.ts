// Seed §9's constants of issue 25 item 13, each through what uses it.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { deviceInfo } from "~/utils/device";
import { DESKTOP_POPUP_FEATURES, openDesktopPopup } from "./popup";
import { loadPromotionLib, PROMOTION_SCRIPT_ID, promotionLibUrl } from "./promotion";
import { installSafeArea, reserve, safeArea, setSafeArea, type Insets } from "./safeArea";
import { DESKTOP_POPUP, PROMOTION_LIB_VERSION, RESERVE, SAFE_AREA_UPDATES, SCROLLBAR_HIDE_MS, SKELETON_DELAY_MS } from "./timing";

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

it("are the seed's numbers", () => {
  expect(SKELETON_DELAY_MS).toBe(100);
  expect(RESERVE).toEqual({ times: 10, stepMs: 200 });
  expect(SAFE_AREA_UPDATES).toBe(30);
  expect(PROMOTION_LIB_VERSION).toBe("20250611");
  expect(SCROLLBAR_HIDE_MS).toBe(1000);
  expect(DESKTOP_POPUP).toEqual({ width: 350, height: 510 });
});

describe("the reservation helper", () => {
  it("runs a job 10 times, 200 ms apart, the first one step from now", () => {
    const job = vi.fn();
    reserve(job);
    vi.advanceTimersByTime(199);
    expect(job).toHaveBeenCalledTimes(0);
    vi.advanceTimersByTime(1);
    expect(job).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1799);
    expect(job).toHaveBeenCalledTimes(9);
    vi.advanceTimersByTime(1);
    expect(job).toHaveBeenCalledTimes(10);
    vi.advanceTimersByTime(10_000);
    expect(job).toHaveBeenCalledTimes(10);
  });
  it("takes other counts and steps, and stops when cancelled", () => {
    const job = vi.fn();
    const cancel = reserve(job, 3, 50);
    vi.advanceTimersByTime(100);
    expect(job).toHaveBeenCalledTimes(2);
    cancel();
    vi.advanceTimersByTime(1000);
    expect(job).toHaveBeenCalledTimes(2);
  });
});

describe("the safe area", () => {
  afterEach(() => setSafeArea({ top: 0, right: 0, bottom: 0, left: 0 }));
  it("is measured at start, then 30 more times 200 ms apart; a resize starts over; the last measure is kept", () => {
    let n = 0;
    const measure = vi.fn((): Insets => ({ top: ++n, right: 0, bottom: 34, left: 0 }));
    const detach = installSafeArea(window, measure);
    expect(measure).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(30 * 200);
    expect(measure).toHaveBeenCalledTimes(31);
    expect(safeArea()).toEqual({ top: 31, right: 0, bottom: 34, left: 0 });
    vi.advanceTimersByTime(5000);
    expect(measure).toHaveBeenCalledTimes(31);
    // A rotation halfway through a round: one round again, not two.
    window.dispatchEvent(new Event("resize"));
    vi.advanceTimersByTime(1000);
    window.dispatchEvent(new Event("orientationchange"));
    expect(measure).toHaveBeenCalledTimes(31 + 1 + 5 + 1);
    vi.advanceTimersByTime(30 * 200 + 1000);
    expect(measure).toHaveBeenCalledTimes(31 + 1 + 5 + 31);
    detach();
    window.dispatchEvent(new Event("resize"));
    vi.advanceTimersByTime(10_000);
    expect(measure).toHaveBeenCalledTimes(68);
  });
});

describe("the promotion library", () => {
  afterEach(() => document.getElementById(PROMOTION_SCRIPT_ID)?.remove());
  it("is asked for with the seed's version, other query parameters kept", () => {
    expect(promotionLibUrl("https://promo.example/lib/promotion.js", "https://m.store.example/bluerun")).toBe("https://promo.example/lib/promotion.js?v=20250611");
    expect(promotionLibUrl("/promo/lib.js?site=sf&v=1", "https://m.store.example/bluerun")).toBe("https://m.store.example/promo/lib.js?site=sf&v=20250611");
  });
  it("is added to the page once, and not at all when no address is configured", () => {
    loadPromotionLib(document, undefined);
    expect(document.getElementById(PROMOTION_SCRIPT_ID)).toBeNull();
    loadPromotionLib(document, "https://promo.example/lib/promotion.js");
    loadPromotionLib(document, "https://promo.example/lib/promotion.js");
    const scripts = document.querySelectorAll(`script#${PROMOTION_SCRIPT_ID}`);
    expect(scripts).toHaveLength(1);
    expect((scripts[0] as HTMLScriptElement).src).toBe("https://promo.example/lib/promotion.js?v=20250611");
  });
});

describe("desktop popups", () => {
  const desktop = deviceInfo("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36");
  const android = deviceInfo("Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36");
  const iosApp = deviceInfo("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148 SFApp/IA/3.30.0");
  it("open at 350x510 on a desktop browser", () => {
    const open = vi.fn(() => ({ focus: () => {} }) as unknown as Window);
    expect(openDesktopPopup("/conversation", "sf_chat", desktop, { open })).toBe(true);
    expect(open).toHaveBeenCalledWith("/conversation", "sf_chat", "popup,width=350,height=510");
    expect(DESKTOP_POPUP_FEATURES).toBe("popup,width=350,height=510");
  });
  it("leave the page to open itself on a phone, in the app, or when the browser blocks the popup", () => {
    const open = vi.fn(() => null);
    expect(openDesktopPopup("/conversation", "sf_chat", android, { open })).toBe(false);
    expect(openDesktopPopup("/conversation", "sf_chat", iosApp, { open })).toBe(false);
    expect(open).not.toHaveBeenCalled();
    expect(openDesktopPopup("/conversation", "sf_chat", desktop, { open })).toBe(false);
    expect(open).toHaveBeenCalledTimes(1);
  });
});
