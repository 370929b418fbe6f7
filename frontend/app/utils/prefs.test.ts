import { beforeEach, describe, expect, it } from "vitest";
import { listPlace, quickView, saveListPlace, setQuickView, setVolOrder, volOrder } from "./prefs";

beforeEach(() => {
  localStorage.clear();
  sessionStorage.clear();
});

describe("volume order", () => {
  it("defaults to old and remembers latest", () => {
    expect(volOrder(false)).toBe("old");
    setVolOrder("latest");
    expect(volOrder(false)).toBe("latest");
    expect(localStorage.getItem("volOrder")).toBe("latest");
  });
  it("is always oldest first for special-price sets", () => {
    setVolOrder("latest");
    expect(volOrder(true)).toBe("old");
  });
});

describe("quick view", () => {
  it("defaults to on and stores 'on'/'off'", () => {
    expect(quickView()).toBe(true);
    setQuickView(false);
    expect(localStorage.getItem("quickView")).toBe("off");
    expect(quickView()).toBe(false);
    setQuickView(true);
    expect(localStorage.getItem("quickView")).toBe("on");
  });
});

describe("list place", () => {
  it("restores scroll and index for the same list only", () => {
    saveListPlace({ url: "/webtoon/genre/21", scroll: 420, index: 2 });
    expect(listPlace("/webtoon/genre/21")).toEqual({ scroll: 420, index: 2 });
    expect(listPlace("/comic/genre/21")).toBeNull();
  });
});

describe("detail context and hint (session keys detailContext, detailHint)", () => {
  it("keep one work's tab, scroll and opened volume, and nothing for another work", async () => {
    const { saveDetailContext, detailContext, saveDetailHint, detailHint, SESSION } = await import("./prefs");
    sessionStorage.clear();
    expect(detailContext("wt1")).toBeNull();
    saveDetailContext("wt1", { tab: "V", scroll: 812.6 });
    expect(JSON.parse(sessionStorage.getItem(SESSION.detailContext)!)).toEqual({ pid: "wt1", tab: "V", y: 813 });
    expect(detailContext("wt1")).toEqual({ tab: "V", scroll: 813 });
    expect(detailContext("wt2")).toBeNull();
    // Above the detail's own top (the header still showing).
    saveDetailContext("wt1", { tab: "I", scroll: -124.2 });
    expect(detailContext("wt1")).toEqual({ tab: "I", scroll: -124 });
    saveDetailHint("wt1", 7);
    expect(detailHint("wt1")).toBe(7);
    expect(detailHint("wt2")).toBeNull();
    sessionStorage.setItem(SESSION.detailContext, "{broken");
    expect(detailContext("wt1")).toBeNull();
  });
});

describe("arriving at a detail (detailArrival)", () => {
  const tabs = ["I", "V", "R"] as const;
  it("brings the work last shown back on its tab, then at its scroll", async () => {
    const { detailArrival } = await import("./prefs");
    // No tab in the address: the saved tab first, the scroll once it is shown.
    expect(detailArrival({ tab: "V", scroll: 352 }, null, tabs)).toEqual({ tab: "V" });
    expect(detailArrival({ tab: "V", scroll: 352 }, "V", tabs)).toEqual({ scroll: 352 });
    // The default tab needs no tab in the address.
    expect(detailArrival({ tab: "I", scroll: 90 }, null, tabs)).toEqual({ scroll: 90 });
    expect(detailArrival({ tab: "I", scroll: 90 }, "I", tabs)).toEqual({ scroll: 90 });
  });
  it("leaves another work, another tab named by the address, or a broken context to the router", async () => {
    const { detailArrival } = await import("./prefs");
    expect(detailArrival(null, null, tabs)).toBeNull();
    expect(detailArrival(null, "V", tabs)).toBeNull();
    // The viewer's way back names the volumes tab; a place saved on the info tab is not its place.
    expect(detailArrival({ tab: "I", scroll: 400 }, "V", tabs)).toBeNull();
    expect(detailArrival({ tab: "R", scroll: 400 }, "V", tabs)).toBeNull();
    expect(detailArrival({ tab: "X", scroll: 400 }, null, tabs)).toBeNull();
  });
});
