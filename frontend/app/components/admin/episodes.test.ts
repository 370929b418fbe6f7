import { describe, expect, it } from "vitest";
import { fromKstInput, kstInput, limitsText, PRICE_MESSAGE, readEpisode, RELEASE_MESSAGE, TITLE_MESSAGE } from "./episodes";

const form = (fields: Record<string, string>) => {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.set(k, v);
  return f;
};

describe("release times in Korean time", () => {
  it("shows an instant as KST and reads it back", () => {
    expect(kstInput("2026-12-01T14:00:00Z")).toBe("2026-12-01T23:00");
    expect(fromKstInput("2026-12-01T23:00")).toBe("2026-12-01T14:00:00.000Z");
    expect(fromKstInput(kstInput("2027-01-01T00:30:00+09:00"))).toBe("2026-12-31T15:30:00.000Z");
  });
  it("has no value for the zero time or a bad one", () => {
    expect(kstInput("0001-01-01T00:00:00Z")).toBe("");
    expect(kstInput("x")).toBe("");
    expect(fromKstInput("2026-12-01")).toBeNull();
    expect(fromKstInput("2026-13-01T00:00")).toBeNull();
  });
});

describe("readEpisode", () => {
  const good = { title: " 7화 ", releaseAt: "2026-12-01T23:00", buyPrice: "1,000", rentPrice: "" };
  it("makes the writer's fields", () => {
    expect(readEpisode(form({ ...good, isFree: "on" }))).toEqual({
      ok: true,
      fields: { title: "7화", releaseAt: "2026-12-01T14:00:00.000Z", isFree: true, buyPrice: 1000, rentPrice: 0 },
    });
  });
  it.each([
    [{ ...good, title: "" }, TITLE_MESSAGE],
    [{ ...good, releaseAt: "" }, RELEASE_MESSAGE],
    [{ ...good, buyPrice: "-1" }, PRICE_MESSAGE],
    [{ ...good, rentPrice: "1.5" }, PRICE_MESSAGE],
  ])("refuses %j", (fields, message) => {
    expect(readEpisode(form(fields))).toEqual({ ok: false, message });
  });
});

describe("limitsText", () => {
  it("says the contract's limits", () => {
    expect(limitsText({ minPrice: 100, maxPrice: 1000, maxFree: 3 })).toBe("유료 회차 가격 100원~1,000원, 무료 회차 작품당 3개까지");
    expect(limitsText({ minPrice: null, maxPrice: 500, maxFree: null })).toBe("유료 회차 가격 500원 이하");
    expect(limitsText({ minPrice: null, maxPrice: null, maxFree: null })).toBeNull();
  });
});
