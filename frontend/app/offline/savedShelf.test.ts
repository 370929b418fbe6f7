import { describe, expect, it } from "vitest";
import type { SavedVolume } from "./savedIndex";
import { nextSaved, nextText, offlineShelf, type ShelfPlace } from "./savedShelf";

const vol = (pid: string, no: number, savedAt: number, more: Partial<SavedVolume> = {}): SavedVolume => ({
  uid: "u1",
  pid,
  no,
  title: `작품 ${pid}`,
  volTitle: `${no}화`,
  savedAt,
  expiresAt: null,
  bytes: 100,
  urls: [],
  ...more,
});

describe("nextSaved", () => {
  const vols = [vol("a", 2, 1), vol("a", 3, 1), vol("a", 5, 1)];
  it("continues the saved episode the reader stopped in", () => {
    expect(nextSaved(vols, { no: 3, at: 1 })).toEqual({ next: vols[1], resume: true });
  });
  it("goes on to the first saved episode after the place", () => {
    expect(nextSaved(vols, { no: 4, at: 1 })).toEqual({ next: vols[2], resume: false });
    expect(nextSaved(vols, { no: 1, at: 1 })).toEqual({ next: vols[0], resume: false });
  });
  it("starts at the first saved without a place, and has none when the reader is past them all", () => {
    expect(nextSaved(vols, null)).toEqual({ next: vols[0], resume: false });
    expect(nextSaved(vols, { no: 9, at: 1 })).toEqual({ next: null, resume: false });
  });
  it("says so in the library's words", () => {
    expect(nextText({ next: vols[1], resume: true, lastReadAt: 5 }, "화")).toBe("3화 이어보기");
    expect(nextText({ next: vols[2], resume: false, lastReadAt: 5 }, "화")).toBe("다음 5화 보기");
    expect(nextText({ next: vols[0], resume: false, lastReadAt: null }, "권")).toBe("2권부터 보기");
    expect(nextText({ next: null, resume: false, lastReadAt: 5 }, "화")).toBe("저장한 회차를 모두 읽었어요");
  });
});

describe("offlineShelf", () => {
  const now = 1_000_000;
  const saved = [
    vol("a", 2, 10),
    vol("a", 1, 30),
    vol("b", 1, 20),
    vol("c", 1, 40),
    vol("r", 1, 50, { expiresAt: now - 1 }), // a rental that ended
    vol("o", 1, 60, { uid: "u2" }), // another member on this browser
  ];
  const places: Record<string, ShelfPlace> = { b: { no: 1, at: 500 }, a: { no: 1, at: 400 } };
  const place = (pid: string) => places[pid] ?? null;

  it("groups this member's saved episodes by work, leaving out ended rentals and other members", () => {
    const s = offlineShelf(saved, "u1", { now, place, sort: "update", page: 1 });
    expect(s.totalCount).toBe(3);
    expect(s.list.map((w) => w.pid)).toEqual(["c", "a", "b"]); // newest saved first
    const a = s.list[1];
    expect(a.vols.map((v) => v.no)).toEqual([1, 2]);
    expect(a.savedAt).toBe(30);
    expect(a.next?.no).toBe(1);
    expect(a.resume).toBe(true);
  });

  it("by last read: works read on this device first, newest read first, then the rest by saving", () => {
    const s = offlineShelf(saved, "u1", { now, place, sort: "read", page: 1 });
    expect(s.list.map((w) => [w.pid, w.lastReadAt])).toEqual([
      ["b", 500],
      ["a", 400],
      ["c", null],
    ]);
  });

  it("pages: a page of size, the last page when asked past it", () => {
    expect(offlineShelf(saved, "u1", { now, place, sort: "update", page: 2, size: 2 })).toMatchObject({ curPage: 2, pageCount: 2, totalCount: 3 });
    expect(offlineShelf(saved, "u1", { now, place, sort: "update", page: 2, size: 2 }).list.map((w) => w.pid)).toEqual(["b"]);
    expect(offlineShelf(saved, "u1", { now, place, sort: "update", page: 9, size: 2 }).curPage).toBe(2);
    expect(offlineShelf([], "u1", { now, place, sort: "read", page: 1 })).toEqual({ list: [], curPage: 1, pageCount: 1, totalCount: 0 });
  });
});
