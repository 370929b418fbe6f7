import { describe, expect, it } from "vitest";
import { BUDGET, judge, misses, multiplierFor } from "./lighthouse.mjs";

const run = (o) => ({ fcpMs: 900, lcpMs: 1000, tbtMs: 50, cls: 0, siMs: 1200, jsGzipKB: 120, ...o });

describe("lighthouse budgets", () => {
  it("are issue 23's, every one of them failing the run", () => {
    expect(BUDGET).toEqual({ lcpMs: 2000, tbtMs: 200, cls: 0.05, homeJsGzipKB: 130 });
    expect(misses("home", run({}))).toEqual([]);
    expect(misses("home", run({ tbtMs: 200 })).map((m) => m.what)).toEqual(["home: TBT 200 ms >= 200"]);
    expect(misses("genre", run({ lcpMs: 2000 }))).toEqual([{ timing: true, what: "genre: LCP 2000 ms >= 2000" }]);
    expect(misses("detail", run({ cls: 0.05 }))).toEqual([{ timing: false, what: "detail: CLS 0.05 >= 0.05" }]);
    expect(misses("home", run({ jsGzipKB: 130.1 }))).toEqual([{ timing: false, what: "home: JavaScript 130.1 KB gzip > 130" }]);
    // the JavaScript budget is the home's
    expect(misses("viewer", run({ jsGzipKB: 140 }))).toEqual([]);
  });

  it("a retry is judged by its best timing, never by a smaller size or layout shift", () => {
    const first = run({ lcpMs: 2100, tbtMs: 350, cls: 0.01, jsGzipKB: 124 });
    const retry = run({ lcpMs: 1100, tbtMs: 400, cls: 0.02, jsGzipKB: 123 });
    const m = judge([first], retry);
    expect(m).toMatchObject({ lcpMs: 1100, tbtMs: 350, cls: 0.02, jsGzipKB: 124 });
    expect(misses("home", m).map((x) => x.what)).toEqual(["home: TBT 350 ms >= 200"]);
  });

  it("takes the median of the runs asked for", () => {
    expect(judge([run({ tbtMs: 30 }), run({ tbtMs: 300 }), run({ tbtMs: 60 })]).tbtMs).toBe(60);
  });

  it("calibrates the CPU slowdown to the target phone, between 1x and 4x", () => {
    expect(multiplierFor(1750)).toBe(4);
    expect(multiplierFor(5000)).toBe(4);
    expect(multiplierFor(875)).toBe(2);
    expect(multiplierFor(300)).toBe(1);
  });
});
