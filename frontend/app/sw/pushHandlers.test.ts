import { describe, expect, it, vi } from "vitest";
import { FALLBACK_TITLE, notificationOf, openFromNotification, readPayload } from "./pushHandlers";

const ORIGIN = "https://store.example";

describe("push payload", () => {
  it("shows the writer's title, body and tag, and keeps the viewer URL", () => {
    const p = readPayload({ title: "작품", body: "새 회차 3화가 공개되었습니다.", url: "/viewer?pid=P1&no=3", tag: "vol:P1:3" });
    const [title, opts] = notificationOf(p);
    expect(title).toBe("작품");
    expect(opts).toMatchObject({ body: "새 회차 3화가 공개되었습니다.", tag: "vol:P1:3", data: { url: "/viewer?pid=P1&no=3" } });
  });
  it("shows something for a message it cannot read, and never leaves the store", () => {
    expect(readPayload(null)).toEqual({ title: FALLBACK_TITLE, body: "", url: "/", tag: "" });
    expect(readPayload({ url: "https://evil.example/x" }).url).toBe("/");
    expect(readPayload({ url: "//evil.example/x" }).url).toBe("/");
  });
});

const tab = (url: string, navigate = vi.fn(async () => undefined)) => ({ url, focus: vi.fn(async () => undefined), navigate });

describe("notification click", () => {
  it("focuses a tab already on the viewer", async () => {
    const there = tab(`${ORIGIN}/viewer?pid=P1&no=3`);
    const openWindow = vi.fn(async () => null);
    await openFromNotification("/viewer?pid=P1&no=3", ORIGIN, { matchAll: async () => [tab(`${ORIGIN}/`), there], openWindow });
    expect(there.focus).toHaveBeenCalled();
    expect(openWindow).not.toHaveBeenCalled();
  });
  it("takes a store tab there, not another site's", async () => {
    const other = tab("https://elsewhere.example/");
    const store = tab(`${ORIGIN}/webtoon`);
    const openWindow = vi.fn(async () => null);
    await openFromNotification("/viewer?pid=P1&no=3", ORIGIN, { matchAll: async () => [other, store], openWindow });
    expect(store.navigate).toHaveBeenCalledWith(`${ORIGIN}/viewer?pid=P1&no=3`);
    expect(other.navigate).not.toHaveBeenCalled();
    expect(openWindow).not.toHaveBeenCalled();
  });
  it("opens a window when no store tab is open or the tab cannot be navigated", async () => {
    const openWindow = vi.fn(async () => null);
    await openFromNotification("/viewer?pid=P1&no=3", ORIGIN, { matchAll: async () => [], openWindow });
    expect(openWindow).toHaveBeenCalledWith(`${ORIGIN}/viewer?pid=P1&no=3`);
    const stuck = tab(`${ORIGIN}/`, vi.fn(async () => Promise.reject(new TypeError("not controlled"))));
    await openFromNotification("/viewer?pid=P1&no=4", ORIGIN, { matchAll: async () => [stuck], openWindow });
    expect(openWindow).toHaveBeenLastCalledWith(`${ORIGIN}/viewer?pid=P1&no=4`);
  });
});
