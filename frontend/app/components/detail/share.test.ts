import { describe, expect, it } from "vitest";
import { shareLink } from "./share";

const data = { url: "https://store.example/webtoon/detail/w1", title: "하나" };

describe("shareLink", () => {
  it("uses the Web Share API where present", async () => {
    const shared: ShareData[] = [];
    const copied: string[] = [];
    const nav = { share: async (d: ShareData) => void shared.push(d), clipboard: { writeText: async (t: string) => void copied.push(t) } };
    expect(await shareLink(nav, data, (t) => copied.push(t))).toBe("shared");
    expect(shared).toEqual([{ url: data.url, title: data.title }]);
    expect(copied).toEqual([]);
  });

  it("copies to the clipboard without it", async () => {
    const copied: string[] = [];
    expect(await shareLink({ clipboard: { writeText: async (t: string) => void copied.push(t) } }, data, () => copied.push("fallback"))).toBe("copied");
    expect(copied).toEqual([data.url]);
  });

  it("falls back to selection copy when the clipboard refuses", async () => {
    const copied: string[] = [];
    const nav = { clipboard: { writeText: () => Promise.reject(new Error("denied")) } };
    expect(await shareLink(nav, data, (t) => copied.push(t))).toBe("copied");
    expect(copied).toEqual([data.url]);
  });

  it("says nothing when the reader closes the share sheet, copies when the sheet fails", async () => {
    const copied: string[] = [];
    const abort = Object.assign(new Error("closed"), { name: "AbortError" });
    const clip = { writeText: async (t: string) => void copied.push(t) };
    expect(await shareLink({ share: () => Promise.reject(abort), clipboard: clip }, data, () => {})).toBe("cancelled");
    expect(copied).toEqual([]);
    expect(await shareLink({ share: () => Promise.reject(new TypeError("bad")), clipboard: clip }, data, () => {})).toBe("copied");
    expect(copied).toEqual([data.url]);
  });
});
