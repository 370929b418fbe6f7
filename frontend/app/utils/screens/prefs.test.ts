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
