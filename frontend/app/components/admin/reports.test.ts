import { describe, expect, it, vi } from "vitest";
import {
  defaultQuery,
  funnelRows,
  kstDay,
  kstLocal,
  kstToRFC3339,
  loadReports,
  parseQuery,
  reportError,
  revenueRows,
  topWorkRows,
  trafficSeries,
  won,
  type Traffic,
} from "./reports";

// 2026-11-22 14:35 UTC is 23:35 KST.
const now = new Date("2026-11-22T14:35:10Z");

describe("KST times", () => {
  it("reads instants as KST days and wall times", () => {
    expect(kstDay(now)).toBe("2026-11-22");
    expect(kstLocal(now)).toBe("2026-11-22T23:35");
    // 15:00 UTC is already the next day in Korea.
    expect(kstDay(new Date("2026-11-22T15:00:00Z"))).toBe("2026-11-23");
  });
  it("turns a KST wall time into RFC 3339 and refuses impossible ones", () => {
    expect(kstToRFC3339("2026-11-22T23:00")).toBe("2026-11-22T23:00:00+09:00");
    expect(kstToRFC3339("2026-02-30T10:00")).toBeNull();
    expect(kstToRFC3339("2026-11-22 23:00")).toBeNull();
    expect(kstToRFC3339("")).toBeNull();
  });
});

describe("query", () => {
  it("defaults to the last 7 KST days and the current KST hour", () => {
    expect(defaultQuery(now)).toEqual({ from: "2026-11-16", to: "2026-11-22", at: "2026-11-22T23:00", before: 60, after: 120, step: 5, by: "views", pid: "" });
  });
  it("reads the address and reports bad values, keeping the defaults for them", () => {
    const ok = parseQuery(new URLSearchParams("from=2026-11-01&to=2026-11-07&at=2026-11-05T23:00&before=30&after=180&step=1&by=revenue&pid=wt000123"), now);
    expect(ok.errors).toEqual([]);
    expect(ok.q).toEqual({ from: "2026-11-01", to: "2026-11-07", at: "2026-11-05T23:00", before: 30, after: 180, step: 1, by: "revenue", pid: "wt000123" });
    const bad = parseQuery(new URLSearchParams("from=2026-13-01&at=noon&step=7&by=likes&pid=a%20b"), now);
    expect(bad.errors).toHaveLength(5);
    expect(bad.q).toEqual(defaultQuery(now));
    expect(parseQuery(new URLSearchParams("from=2026-11-10&to=2026-11-01"), now).errors).toEqual(["시작일이 종료일보다 늦습니다."]);
  });
});

describe("loadReports", () => {
  it("asks for every report with the query and no token of its own (the analyst cookie goes along)", async () => {
    const calls: { path: string; query: unknown; auth: string }[] = [];
    const http = vi.fn(async (path: string, opts?: { query?: unknown; headers?: Record<string, string> }) => {
      calls.push({ path, query: opts?.query, auth: opts?.headers?.Authorization ?? "" });
      return { header: { code: 200, message: "" } };
    });
    const q = { ...defaultQuery(now), at: "2026-11-22T23:00", before: 30, after: 60, step: 1 };
    await loadReports(http as never, q);
    await loadReports(http as never, { ...q, pid: "wt1" });
    expect(calls.every((c) => c.auth === "")).toBe(true);
    expect(calls[5].query).toEqual({ at: "2026-11-22T23:00:00+09:00", before: "30m", after: "60m", step: "1m", pid: "wt1" });
    expect(calls.slice(0, 5).map((c) => c.path)).toEqual([
      "/analytics/api/v1/reports/traffic",
      "/analytics/api/v1/reports/top-works",
      "/analytics/api/v1/reports/funnel",
      "/analytics/api/v1/reports/revenue",
      "/analytics/api/v1/reports/active-users",
    ]);
    expect(calls[0].query).toEqual({ at: "2026-11-22T23:00:00+09:00", before: "30m", after: "60m", step: "1m" });
    expect(calls[1].query).toEqual({ from: "2026-11-16", to: "2026-11-22", by: "views", limit: 10 });
  });
  it("says what went wrong, a missing analyst login apart", () => {
    expect(reportError(401, "분석가 계정으로 로그인해 주세요.")).toEqual({ unauthorized: true, text: expect.stringContaining("분석가 계정으로 로그인") });
    expect(reportError(400, "at most 366 days").text).toContain("at most 366 days");
    expect(reportError(502, "").text).toContain("분석 서버에 연결할 수 없습니다");
    expect(reportError(500, "").unauthorized).toBe(false);
  });
});

describe("traffic", () => {
  const t: Traffic = {
    at: "2026-11-22T23:00:00+09:00",
    stepSeconds: 300,
    points: [
      { t: "2026-11-22T13:55:00Z", pageViews: 4, contentViews: 1, purchases: 0, revenue: 0 },
      { t: "2026-11-22T14:00:00Z", pageViews: 9, contentViews: 3, purchases: 2, revenue: 600 },
      { t: "2026-11-22T14:05:00Z", pageViews: 9, contentViews: 2, purchases: 1, revenue: 300 },
    ],
  };
  it("labels buckets in KST, marks the release bucket, sums and finds the first peak", () => {
    const s = trafficSeries(t);
    expect(s.labels).toEqual(["22:55", "23:00", "23:05"]);
    expect(s.atIndex).toBe(1);
    expect(s.pageViews).toEqual([4, 9, 9]);
    expect(s.totals).toEqual({ pageViews: 22, contentViews: 6, purchases: 3, revenue: 900 });
    expect(s.peak).toEqual({ label: "23:00", pageViews: 9 });
  });
  it("adds the day when the window crosses KST midnight, and has no peak without views", () => {
    const s = trafficSeries({
      at: "2026-11-22T23:30:00+09:00",
      stepSeconds: 3600,
      points: [
        { t: "2026-11-22T14:00:00Z", pageViews: 0, contentViews: 0, purchases: 0, revenue: 0 },
        { t: "2026-11-22T15:00:00Z", pageViews: 0, contentViews: 0, purchases: 0, revenue: 0 },
      ],
    });
    expect(s.labels).toEqual(["11.22 23:00", "11.23 00:00"]);
    expect(s.atIndex).toBe(0);
    expect(s.peak).toBeNull();
  });
});

it("top works: labels, detail links and the chosen metric", () => {
  const rows = topWorkRows(
    {
      from: "2026-11-16",
      to: "2026-11-22",
      by: "revenue",
      works: [
        { pid: "cm7", section: "CM", genreId: "24", views: 3, purchases: 1, rentals: 2, revenue: 700 },
        { pid: "x 1", section: "EB", genreId: "99", views: 10, purchases: 0, rentals: 0, revenue: 0 },
      ],
    },
    "purchases",
  );
  expect(rows[0]).toEqual({ rank: 1, pid: "cm7", section: "만화", genre: "액션", href: "/comic/detail/cm7", views: 3, sales: 3, revenue: 700, value: 3 });
  expect(rows[1]).toMatchObject({ rank: 2, section: "소설", genre: "99", href: "/novel/detail/x%201", value: 0 });
  expect(
    topWorkRows(
      { from: "", to: "", by: "", works: [{ pid: "a", section: "WT", genreId: "21", views: 5, purchases: 1, rentals: 0, revenue: 300 }] },
      "revenue",
    )[0].value,
  ).toBe(300);
});

it("funnel: seed order, step conversion and share of the start", () => {
  const rows = funnelRows({
    from: "",
    to: "",
    steps: [
      { step: "purchase", reached: 2, through: 1, conversion: 1 },
      { step: "list", reached: 3, through: 3, conversion: 1 },
      { step: "detail", reached: 3, through: 2, conversion: 0.67 },
      { step: "viewer", reached: 1, through: 1, conversion: 0.5 },
    ],
  });
  expect(rows.map((r) => `${r.label} ${r.reached}/${r.through} ${r.conversion} ${r.ofStart}`)).toEqual([
    "목록 3/3 100.0% 100.0%",
    "상세 3/2 66.7% 66.7%",
    "뷰어 1/1 50.0% 33.3%",
    "구매 2/1 100.0% 33.3%",
  ]);
  // Nobody at all: no division by zero.
  expect(funnelRows({ from: "", to: "", steps: [] }).map((r) => r.conversion)).toEqual(["0.0%", "0.0%", "0.0%", "0.0%"]);
});

it("revenue: channel names, spending first, totals", () => {
  const { rows, total } = revenueRows({
    from: "",
    to: "",
    channels: [
      { channel: "AW", charges: 0, chargeAmount: 0, purchases: 1, purchaseAmount: 300, rentals: 0, rentalAmount: 0 },
      { channel: "IA", charges: 1, chargeAmount: 10000, purchases: 1, purchaseAmount: 500, rentals: 1, rentalAmount: 100 },
      { channel: "", charges: 2, chargeAmount: 5000, purchases: 0, purchaseAmount: 0, rentals: 0, rentalAmount: 0 },
    ],
  });
  expect(rows.map((r) => `${r.label} ${r.sales} ${r.salesAmount} ${r.charges} ${r.chargeAmount}`)).toEqual([
    "iOS 앱 (IA) 2 600 1 10000",
    "안드로이드 웹 (AW) 1 300 0 0",
    "알 수 없음 0 0 2 5000",
  ]);
  expect(total).toEqual({ channel: "", label: "합계", charges: 3, chargeAmount: 15000, sales: 3, salesAmount: 900 });
  expect(won(1234567)).toBe("1,234,567원");
});
