import { describe, expect, it } from "vitest";
import { kstDay } from "./weekday";

describe("kstDay (the release day's weekday)", () => {
  it("turns to the next weekday at the 23:00 KST release, not at midnight", () => {
    // 2026-03-02 is a Monday; 23:00 KST is 14:00 UTC.
    expect(kstDay(Date.parse("2026-03-01T15:00:00Z"))).toBe("mon"); // Monday 00:00 KST
    expect(kstDay(Date.parse("2026-03-02T03:00:00Z"))).toBe("mon"); // Monday noon
    expect(kstDay(Date.parse("2026-03-02T13:59:59Z"))).toBe("mon"); // Monday 22:59:59
    expect(kstDay(Date.parse("2026-03-02T14:00:00Z"))).toBe("tue"); // Monday 23:00: Tuesday's episodes
    expect(kstDay(Date.parse("2026-03-02T14:59:59Z"))).toBe("tue"); // Monday 23:59:59
    expect(kstDay(Date.parse("2026-03-07T14:00:00Z"))).toBe("sun"); // Saturday 23:00
  });
});
