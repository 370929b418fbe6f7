import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { APP_OPEN, APP_STORE_URL, appLink, IOS_APP_MISSING_PROMPT, openApp, openAppFromWeb, PLAY_STORE_URL } from "./appOpen";
import { deviceInfo } from "~/utils/device";
import { isChunkLoadError, RELOAD_STAMP, reloadOnce } from "./chunkReload";
import { LoadingBar, type BarState } from "./loadingBar";
import { ModalStack, modalReporter, scrollLocker } from "./modalStack";
import { SnackQueue, type Snack } from "./snack";
import { APP_VERSION, FLOATING_MESSAGE_MS, LOADER, popupMaxHeight, POPUP, SNACK_SWITCH_MS } from "./timing";
import { isAdminPage, isProductDetail, MAX_BATCH, MAX_RETRIES, Tracker, TRACK_EVENTS_PATH, type TrackEvent } from "./tracking";
import { shouldReload, VERSION_PATH, VersionCheck } from "./versionCheck";

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe("constants", () => {
  it("are the seed's numbers", () => {
    expect(FLOATING_MESSAGE_MS).toBe(3000);
    expect(SNACK_SWITCH_MS).toBe(350);
    expect(LOADER).toEqual({ zIndex: 993, size: 40, speedMs: 1300 });
    expect(APP_VERSION).toBe(24);
    expect(POPUP.maxWidth).toBe(320);
  });
  it("popup max height: 70% of the window minus 70, minus 55.5 more with a title", () => {
    expect(popupMaxHeight(1000, false)).toBe(630);
    expect(popupMaxHeight(1000, true)).toBe(574.5);
  });
});

describe("loading bar", () => {
  const run = () => {
    const seen: BarState[] = [];
    const bar = new LoadingBar((s) => seen.push(s));
    return { bar, seen };
  };
  it("does not show before 100 ms, then climbs in 10% steps until above 70%", () => {
    const { bar, seen } = run();
    bar.start();
    vi.advanceTimersByTime(99);
    expect(seen).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(seen.at(-1)).toEqual({ visible: true, percent: 10 });
    vi.advanceTimersByTime(10_000);
    expect(seen.map((s) => s.percent)).toEqual([10, 20, 30, 40, 50, 60, 70, 80]);
  });
  it("jumps to 100% at finish and hides 500 ms later", () => {
    const { bar, seen } = run();
    bar.start();
    vi.advanceTimersByTime(400);
    bar.finish();
    expect(seen.at(-1)).toEqual({ visible: true, percent: 100 });
    vi.advanceTimersByTime(499);
    expect(seen.at(-1)!.visible).toBe(true);
    vi.advanceTimersByTime(1);
    expect(seen.at(-1)).toEqual({ visible: false, percent: 0 });
  });
  it("never shows when finished within 100 ms", () => {
    const { bar, seen } = run();
    bar.start();
    vi.advanceTimersByTime(50);
    bar.finish();
    vi.advanceTimersByTime(2000);
    expect(seen).toEqual([]);
  });
});

describe("modal stack", () => {
  it("ignores an existing entry and pops the last on back", () => {
    const changes: (readonly string[])[] = [];
    const st = new ModalStack((l) => changes.push(l));
    expect(st.push("a")).toBe(true);
    expect(st.push("b")).toBe(true);
    expect(st.push("a")).toBe(false);
    expect(st.list).toEqual(["a", "b"]);
    expect(st.pop()).toBe("b");
    expect(st.list).toEqual(["a"]);
    st.clear();
    expect(st.list).toEqual([]);
    expect(st.pop()).toBeUndefined();
    expect(changes.length).toBe(4);
  });
  it("scroll lock: body attribute on the web, the bridge's scroll enable in the iOS app", () => {
    const web = scrollLocker(false, () => true);
    web(true);
    expect(document.body.getAttribute("data-scroll-lock")).toBe("true");
    web(false);
    expect(document.body.hasAttribute("data-scroll-lock")).toBe(false);
    const calls: boolean[] = [];
    const ios = scrollLocker(true, (e) => (calls.push(e), true));
    ios(true);
    ios(true);
    ios(false);
    expect(calls).toEqual([false, true]);
    expect(document.body.hasAttribute("data-scroll-lock")).toBe(false);
  });
  it("show modal reaches the app on the first open and the last close only", () => {
    const calls: boolean[] = [];
    const report = modalReporter((show) => (calls.push(show), true));
    report(false);
    report(true);
    report(true);
    report(false);
    report(true);
    expect(calls).toEqual([true, false, true]);
  });
});

describe("snack bar and cashback toast", () => {
  it("shows at once when nothing shows; a showing one hides first and the new one comes 350 ms later", () => {
    const seen: Snack[] = [];
    const q = new SnackQueue((s) => seen.push(s));
    q.show("snack", "one");
    expect(q.current?.message).toBe("one");
    q.show("cashback", "two");
    expect(q.current).toBeNull();
    vi.advanceTimersByTime(349);
    expect(q.current).toBeNull();
    vi.advanceTimersByTime(1);
    expect(q.current).toMatchObject({ kind: "cashback", message: "two" });
  });
  it("hides after the given time (3000 ms by default)", () => {
    const q = new SnackQueue(() => {});
    q.show("snack", "x");
    vi.advanceTimersByTime(2999);
    expect(q.current).not.toBeNull();
    vi.advanceTimersByTime(1);
    expect(q.current).toBeNull();
    q.show("snack", "zzim", 1500);
    vi.advanceTimersByTime(1500);
    expect(q.current).toBeNull();
  });
});

describe("tracking", () => {
  it("excludes product detail pages", () => {
    expect(isProductDetail("/comic/detail/cm000001")).toBe(true);
    expect(isProductDetail("/webtoon/detail")).toBe(true);
    expect(isProductDetail("/webtoon/best")).toBe(false);
    expect(isProductDetail("/")).toBe(false);
  });
  it("batches page views and sends them after the flush delay", async () => {
    const sent: TrackEvent[][] = [];
    const t = new Tracker({ send: async (e) => sent.push(e), flushMs: 5000 });
    expect(t.pageView("/", undefined, "AW")).toBe(true);
    expect(t.pageView("/comic/detail/cm1")).toBe(false);
    expect(t.pageView("/webtoon?x=1", "/")).toBe(true);
    expect(sent).toEqual([]);
    await vi.advanceTimersByTimeAsync(5000);
    expect(sent).toEqual([
      [
        { id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/), type: "page_view", curPageUrl: "/", url: "/", props: { channel: "AW" } },
        { id: expect.any(String), type: "page_view", curPageUrl: "/webtoon?x=1", url: "/webtoon?x=1", referrer: "/" },
      ],
    ]);
    expect(sent[0][0].id).not.toBe(sent[0][1].id);
  });
  it("sends at once when the batch is full", async () => {
    const sent: TrackEvent[][] = [];
    const t = new Tracker({ send: async (e) => sent.push(e) });
    for (let i = 0; i < MAX_BATCH; i++) t.pageView(`/p${i}`);
    await vi.advanceTimersByTimeAsync(0);
    expect(sent[0]).toHaveLength(MAX_BATCH);
  });
  it("hands the queue to sendBeacon when the page hides", async () => {
    const beacons: { url: string; body: string }[] = [];
    const t = new Tracker({
      send: async () => {},
      beacon: (url, data) => {
        void data.text().then((body) => beacons.push({ url, body }));
        return true;
      },
    });
    const detach = t.attach(window);
    t.pageView("/a");
    t.pageView("/b");
    window.dispatchEvent(new Event("pagehide"));
    await vi.advanceTimersByTimeAsync(0);
    expect(beacons).toHaveLength(1);
    expect(beacons[0].url).toBe(TRACK_EVENTS_PATH);
    expect(JSON.parse(beacons[0].body).events.map((e: TrackEvent) => e.url)).toEqual(["/a", "/b"]);
    expect(t.pending).toHaveLength(0);
    detach();
  });
  it("swallows send failures", async () => {
    const t = new Tracker({ send: async () => Promise.reject(new Error("down")) });
    t.pageView("/a");
    await expect(t.flush()).resolves.toBeUndefined();
  });
  it("does not count admin screens", () => {
    const t = new Tracker({ send: async () => {} });
    expect(isAdminPage("/admin/analytics")).toBe(true);
    expect(isAdminPage("/administration")).toBe(false);
    expect(t.pageView("/admin/analytics?from=2026-11-01")).toBe(false);
    expect(t.pending).toHaveLength(0);
  });
  it("re-sends a failed batch later with the same ids, a bounded number of times", async () => {
    const sent: TrackEvent[][] = [];
    let n = 0;
    const t = new Tracker({ send: async (e) => { sent.push(e); if (n++ < 1) throw new Error("503"); return { event_ids: e.map((x) => x.id) }; }, flushMs: 1000 });
    t.pageView("/a");
    await vi.advanceTimersByTimeAsync(1000);
    expect(sent).toHaveLength(1);
    expect(t.pending).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(sent).toHaveLength(2);
    expect(sent[1][0].id).toBe(sent[0][0].id);
    expect(t.pending).toHaveLength(0);
    // Always failing: the event is dropped after MAX_RETRIES more tries.
    const calls: number[] = [];
    const down = new Tracker({ send: async () => { calls.push(1); throw new Error("down"); }, flushMs: 1000 });
    down.pageView("/b");
    await vi.advanceTimersByTimeAsync(10_000);
    expect(calls).toHaveLength(1 + MAX_RETRIES);
    expect(down.pending).toHaveLength(0);
  });
  it("gives the ad pixel the edge's event id, and still sends it without one on failure or by beacon", async () => {
    const pixels: [string, string | undefined][] = [];
    const pixel = (page: string, id?: string) => void pixels.push([page, id]);
    const ok = new Tracker({ send: async (e) => ({ header: { code: 200 }, event_ids: e.map((_, i) => `srv-${i}`) }), pixel, flushMs: 1000 });
    ok.pageView("/a");
    ok.pageView("/b?x=1");
    await vi.advanceTimersByTimeAsync(1000);
    expect(pixels).toEqual([["/a", "srv-0"], ["/b?x=1", "srv-1"]]);

    pixels.length = 0;
    let fail = true;
    const bad = new Tracker({ send: async (e) => { if (fail) throw new Error("network"); return { event_ids: e.map((x) => x.id) }; }, pixel, flushMs: 1000 });
    bad.pageView("/c");
    await vi.advanceTimersByTimeAsync(1000);
    expect(pixels).toEqual([["/c", undefined]]);
    fail = false;
    await vi.advanceTimersByTimeAsync(1000); // the retry succeeds: no second pixel
    expect(pixels).toEqual([["/c", undefined]]);
    expect(bad.pending).toHaveLength(0);

    pixels.length = 0;
    const hid = new Tracker({ send: async () => ({}), beacon: () => true, pixel, flushMs: 1000 });
    hid.pageView("/d");
    hid.flushBeacon();
    expect(pixels).toEqual([["/d", undefined]]);
    // A pixel that throws does not break tracking.
    const throwing = new Tracker({ send: async () => ({ event_ids: ["x"] }), pixel: () => { throw new Error("blocked"); }, flushMs: 1000 });
    throwing.pageView("/e");
    await expect(throwing.flush()).resolves.toBeUndefined();
  });
});

describe("version check", () => {
  it("reloads only when the server version is above 24", () => {
    expect(shouldReload(25)).toBe(true);
    expect(shouldReload("25")).toBe(true);
    expect(shouldReload(24)).toBe(false);
    expect(shouldReload(undefined)).toBe(false);
    expect(shouldReload("x")).toBe(false);
  });
  it("posts to the web version code after its delay and reloads", async () => {
    const reload = vi.fn();
    const http = vi.fn(async () => ({ header: { code: 200, version: 25 } }));
    const vc = new VersionCheck(http as never, reload, 1000);
    vc.schedule();
    await vi.advanceTimersByTimeAsync(1000);
    expect(http).toHaveBeenCalledWith(VERSION_PATH, expect.objectContaining({ method: "POST" }));
    expect(reload).toHaveBeenCalledOnce();
  });
  it("a route change cancels the pending check", async () => {
    const reload = vi.fn();
    const http = vi.fn(async () => ({ header: { code: 200, version: 99 } }));
    const vc = new VersionCheck(http as never, reload, 1000);
    vc.schedule();
    expect(vc.pending).toBe(true);
    vc.cancel();
    await vi.advanceTimersByTimeAsync(5000);
    expect(http).not.toHaveBeenCalled();
    expect(reload).not.toHaveBeenCalled();
  });
});

describe("chunk-load reload", () => {
  it("recognises chunk load failures", () => {
    expect(isChunkLoadError(new TypeError("Failed to fetch dynamically imported module: /assets/x.js"))).toBe(true);
    expect(isChunkLoadError(new Error("boom"))).toBe(false);
  });
  it("reloads at most once per 60 s", () => {
    const reload = vi.fn();
    expect(reloadOnce(sessionStorage, reload, 100_000)).toBe(true);
    expect(sessionStorage.getItem(RELOAD_STAMP)).toBe("100000");
    expect(reloadOnce(sessionStorage, reload, 159_999)).toBe(false);
    expect(reloadOnce(sessionStorage, reload, 160_000)).toBe(true);
    expect(reload).toHaveBeenCalledTimes(2);
  });
});

describe("app open with store fallback", () => {
  const deps = (hidden = false, answer = true) => {
    const went: string[] = [];
    const asked: string[] = [];
    return {
      went,
      asked,
      d: {
        go: (u: string) => went.push(u),
        hidden: () => hidden,
        confirm: (m: string) => (asked.push(m), answer),
        now: () => Date.now(),
        setTimeout: (f: () => void, ms: number) => setTimeout(f, ms),
      },
    };
  };
  it("Android: store about 2 s + 300 ms later when the app did not open", () => {
    const { went, d } = deps();
    openApp("android", "app://x", "store://x", d);
    expect(went).toEqual(["app://x"]);
    vi.advanceTimersByTime(APP_OPEN.androidCheckMs + APP_OPEN.androidStoreFallbackMs - 1);
    expect(went).toEqual(["app://x"]);
    vi.advanceTimersByTime(1);
    expect(went).toEqual(["app://x", "store://x"]);
  });
  it("Android: no store when the page was hidden (the app opened)", () => {
    const { went, d } = deps(true);
    openApp("android", "app://x", "store://x", d);
    vi.advanceTimersByTime(10_000);
    expect(went).toEqual(["app://x"]);
  });
  it("iOS: prompt at about 2 s inside the 4 s window, store when accepted", async () => {
    const { went, asked, d } = deps(false, true);
    openApp("ios", "app://x", "store://x", d);
    await vi.advanceTimersByTimeAsync(APP_OPEN.iosPromptMs);
    expect(asked).toEqual([IOS_APP_MISSING_PROMPT]);
    expect(went).toEqual(["app://x", "store://x"]);
  });
  it("links into the app encode their parameters on Android browsers 130 and above (seed §5)", () => {
    const chrome = (v: number) => `Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${v}.0.0.0 Mobile Safari/537.36`;
    expect(appLink("/comic/detail/c1?tab=V&x=1", chrome(130))).toBe("storefront://open?url=%2Fcomic%2Fdetail%2Fc1%3Ftab%3DV%26x%3D1");
    expect(appLink("/comic/detail/c1?tab=V&x=1", chrome(129))).toBe("storefront://open?url=/comic/detail/c1?tab=V&x=1");
    expect(appLink("/a?b=1", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148")).toBe("storefront://open?url=/a?b=1");
  });
  it("opening the app from the web: Android's link and Play fallback, iOS's link and the app-only prompt, nothing on a desktop", async () => {
    const android = deviceInfo("Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 Chrome/131.0.0.0 Mobile Safari/537.36");
    const a = deps();
    expect(openAppFromWeb("/webtoon/detail/w1", android, a.d)).toBe(true);
    vi.advanceTimersByTime(APP_OPEN.androidCheckMs + APP_OPEN.androidStoreFallbackMs);
    expect(a.went).toEqual(["storefront://open?url=%2Fwebtoon%2Fdetail%2Fw1", PLAY_STORE_URL]);
    const ios = deviceInfo("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148");
    const i = deps(false, true);
    expect(openAppFromWeb("/webtoon/detail/w1", ios, i.d)).toBe(true);
    await vi.advanceTimersByTimeAsync(APP_OPEN.iosPromptMs);
    expect(i.asked).toEqual([IOS_APP_MISSING_PROMPT]);
    expect(i.went).toEqual(["storefront://open?url=/webtoon/detail/w1", APP_STORE_URL]);
    const desk = deps();
    expect(openAppFromWeb("/", deviceInfo("Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0.0.0 Safari/537.36"), desk.d)).toBe(false);
    expect(desk.went).toEqual([]);
  });
  it("iOS: no prompt when the timer fires outside the 4 s window (the app was in front)", async () => {
    const { asked, d } = deps();
    let t = 0;
    openApp("ios", "app://x", "store://x", { ...d, now: () => t });
    t = APP_OPEN.iosWindowMs + 1;
    await vi.advanceTimersByTimeAsync(APP_OPEN.iosPromptMs);
    expect(asked).toEqual([]);
  });
});
