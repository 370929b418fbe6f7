import { describe, expect, it } from "vitest";
import { nextLabel, shelfOf, sortOf, timeLeft, viewerHref, giftLabel } from "./library";

describe("library labels", () => {
  const base = { unit: "화", section: "WT" };
  it("names the next episode: start, go on, or the next one", () => {
    expect(nextLabel({ ...base, nextVol: 1, place: null })).toBe("1화부터 보기");
    expect(nextLabel({ ...base, nextVol: 3, place: { vol: 3, page: 1, ratio: 0.2, offset: 0, at: 1 } })).toBe("3화 이어보기");
    expect(nextLabel({ ...base, nextVol: 4, place: { vol: 3, page: 9, ratio: 1, offset: 0, at: 1 } })).toBe("다음 4화 보기");
    expect(nextLabel({ unit: "", section: "CM", nextVol: 2, place: null })).toBe("2권부터 보기");
    expect(nextLabel({ ...base, nextVol: 0, place: null })).toBe("공개된 회차가 없어요");
  });
  it("says how long a rental runs on", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(timeLeft("2026-01-03T05:00:00Z", now)).toBe("2일 5시간 남음");
    expect(timeLeft("2026-01-02T00:00:00Z", now)).toBe("1일 남음");
    expect(timeLeft("2026-01-01T03:30:00Z", now)).toBe("3시간 남음");
    expect(timeLeft("2026-01-01T00:00:20Z", now)).toBe("1분 남음");
    expect(timeLeft("2025-12-31T00:00:00Z", now)).toBe("대여 기간 만료");
    expect(timeLeft(undefined, now)).toBe("");
  });
  it("reads shelf and sort from the address, refusing unknown shelves", () => {
    expect(shelfOf(undefined)).toBe("saved");
    expect(shelfOf("rented")).toBe("rented");
    expect(shelfOf("offline")).toBe("offline");
    expect(shelfOf("wish")).toBeNull();
    expect(sortOf("update")).toBe("update");
    expect(sortOf("title")).toBe("read");
  });
  it("opens the viewer at the next episode", () => {
    expect(viewerHref({ pid: "a b", nextVol: 3 })).toBe("/viewer?pid=a%20b&no=3");
    expect(giftLabel({ kind: "wff", count: 2 })).toBe("기다리면 무료 이용권 2장");
  });
});
