import { describe, expect, it } from "vitest";
import { csvHref, pngName } from "./exportFiles";
import { breakdownKey, exploreParams, readExplore } from "./explore";
import { liveSeries, readersPerSecond, type Live } from "./live";

describe("export", () => {
  it("asks analytics for CSV with the shown parameters and names the PNG like the CSV", () => {
    expect(csvHref("top-works", { from: "2026-11-16", to: "2026-11-22", by: "revenue", limit: 10, pid: "" })).toBe(
      "/analytics/api/v1/reports/top-works?from=2026-11-16&to=2026-11-22&by=revenue&limit=10&format=csv",
    );
    expect(pngName("traffic", { at: "2026-11-22T23:00:00+09:00", step: "5m", pid: undefined })).toBe("traffic_at-2026-11-22T23_00_00_09_00_step-5m.png");
  });
});

describe("explore", () => {
  const now = new Date("2026-11-25T03:00:00Z");
  it("reads the address with defaults and refuses unknown kinds", () => {
    const q = readExplore(new URLSearchParams("steps=detail,drop,purchase&window=6h&by=campaign&channel=IA&cohort=signup"), now);
    expect(q).toEqual({ from: "2026-10-01", to: "2026-11-25", cohort: "signup", channel: "IA", steps: ["detail", "purchase"], window: "6h", by: "campaign" });
    const d = readExplore(new URLSearchParams("steps=detail&window=1d&by=ip&channel=XX"), now);
    expect([d.steps, d.window, d.by, d.channel, d.cohort]).toEqual([["detail", "viewer", "purchase"], "1h", "channel", "", "first-read"]);
    expect(exploreParams(d).funnels).toEqual({ from: "2026-10-01", to: "2026-11-25", steps: "detail,viewer,purchase", window: "1h" });
    expect([breakdownKey("(none)"), breakdownKey("(unknown)"), breakdownKey("kakao")]).toEqual(["(없음)", "(알 수 없음)", "kakao"]);
  });
});

describe("live", () => {
  const sec = (i: number, pv: number) => ({ t: new Date(Date.UTC(2026, 10, 22, 14, 0, i)).toISOString(), pageViews: pv, contentViews: 1, opens: i % 2, purchases: 0, revenue: 0 });
  const live: Live = { now: "", minutes: 1, seconds: Array.from({ length: 60 }, (_, i) => sec(i, i)), totals: sec(0, 0), topWorks: [], topVolumes: [], newVolumeOpens: 0 };
  it("averages readers over the 10 seconds before the newest two", () => {
    // seconds 48..57: page views 48..57 plus one detail view each
    expect(readersPerSecond(live)).toBe((48 + 57) / 2 + 1);
  });
  it("buckets by 10 seconds with KST labels", () => {
    const s = liveSeries(live);
    expect(s.labels[0]).toBe("23:00:00");
    expect(s.labels).toHaveLength(6);
    expect(s.readers[0]).toBe(4.5 + 1);
    expect(s.opens[0]).toBe(5);
  });
});
