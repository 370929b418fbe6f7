import { describe, expect, it } from "vitest";
import { GATES, GOALS, axeFindings, calibratedTaskMs, failures, goals, judge, multiplierFor, ourLongTaskMs } from "./lighthouse.mjs";

// the selectors Lighthouse reported for the largest paint of each page (2026-11-28)
const LCP = {
  home: "div > div.bn > i > img",
  genre: "div > div.gr > i > img",
  detail: "sf-first.detail > div > div.hero > img",
  viewer: "sf-first.v > div.st > img",
};

const run = (o = {}, page = "home") => ({
  fcpMs: 900,
  lcpMs: 1000,
  tbtMs: 50,
  siMs: 1200,
  cls: 0,
  jsGzipKB: 120,
  cssGzipKB: 5,
  requests: 20,
  longTaskMs: 120,
  lcpElement: LCP[page],
  axe: [],
  ...o,
});

const whats = (page, m) => failures(page, m).map((f) => f.what);

describe("lighthouse: what fails the run and what is only reported", () => {
  it("the speed goals are issue 23's budgets, reported and never failing", () => {
    expect(GOALS).toEqual({ fcpMs: 1800, lcpMs: 2000, tbtMs: 200, siMs: 3400 });
    // the genre and detail figures of the machine that failed the test command (benchmarkIndex 1,597)
    for (const page of ["genre", "detail"]) {
      const m = judge([run({ tbtMs: 287, lcpMs: 2400, fcpMs: 1900, siMs: 3500 }, page)]);
      expect(failures(page, m)).toEqual([]);
      expect(goals(m)).toEqual({
        fcpMs: { value: 1900, goal: 1800, met: false },
        lcpMs: { value: 2400, goal: 2000, met: false },
        tbtMs: { value: 287, goal: 200, met: false },
        siMs: { value: 3500, goal: 3400, met: false },
      });
    }
    // any TBT at all: it is the machine's speed
    expect(failures("home", judge([run({ tbtMs: 5000 })]))).toEqual([]);
    expect(goals(judge([run()])).tbtMs).toEqual({ value: 50, goal: 200, met: true });
  });

  it("bytes, requests, layout shift, the largest paint's element and axe still fail it", () => {
    expect(failures("home", judge([run()]))).toEqual([]);
    const js = GATES.pages.home.jsGzipKB;
    expect(whats("home", judge([run({ jsGzipKB: js + 0.1 })]))).toEqual([`home: JavaScript ${js + 0.1} KB gzip > ${js}`]);
    const css = GATES.pages.genre.cssGzipKB;
    expect(whats("genre", judge([run({ cssGzipKB: css + 1 }, "genre")]))).toEqual([`genre: CSS ${css + 1} KB gzip > ${css}`]);
    const n = GATES.pages.detail.requests;
    expect(whats("detail", judge([run({ requests: n + 1 }, "detail")]))).toEqual([`detail: ${n + 1} requests > ${n}`]);
    expect(whats("viewer", judge([run({ cls: 0.05 }, "viewer")]))).toEqual(["viewer: CLS 0.05 >= 0.05"]);
    // the largest paint is a heading, not the drawn cover
    expect(whats("detail", judge([run({ lcpElement: "sf-first.detail > div > div.hero > b" }, "detail")]))[0]).toMatch(/^detail: the largest paint is sf-first.detail > div > div.hero > b,/);
    // the app's own cover (hashed class names), not the drawing's
    expect(whats("detail", judge([run({ lcpElement: "div._1x2y3z > img" }, "detail")]))).toHaveLength(1);
    expect(whats("detail", judge([run({ lcpElement: "" }, "detail")]))[0]).toMatch(/^detail: the largest paint is nothing/);
    expect(whats("home", judge([run({ axe: ["color-contrast (serious): <a>"] })]))).toEqual(["home: axe: color-contrast (serious): <a>"]);
    // none of these is retried away
    expect(failures("home", judge([run({ jsGzipKB: 200, cls: 0.1, axe: ["x (critical): y"] })])).every((f) => !f.retryable)).toBe(true);
  });

  it("a long task of our own scripts fails only above its generous bound, and may be retried", () => {
    expect(failures("home", judge([run({ longTaskMs: GATES.longTaskMs })]))).toEqual([]);
    expect(failures("home", judge([run({ longTaskMs: GATES.longTaskMs + 1 })]))).toEqual([
      { retryable: true, what: `home: a task of our scripts ran ${GATES.longTaskMs + 1} ms > ${GATES.longTaskMs}` },
    ]);
    // the retry's shorter task counts; its sizes, shift and findings add to the first run's
    const m = judge([run({ longTaskMs: 1500, jsGzipKB: 120 })], run({ longTaskMs: 300, jsGzipKB: 121, cls: 0.06, lcpElement: "div > p" }));
    expect(m).toMatchObject({ longTaskMs: 300, jsGzipKB: 121, cls: 0.06 });
    expect(whats("home", m)).toEqual(["home: CLS 0.06 >= 0.05", `home: the largest paint is div > p, not ${GATES.pages.home.lcp}`]);
  });

  it("a run that names no largest-paint element is tried again, and the retry's element is judged", () => {
    const first = judge([run({ lcpElement: "" }, "genre")]);
    expect(failures("genre", first)).toEqual([{ retryable: true, what: `genre: the largest paint is nothing, not ${GATES.pages.genre.lcp}` }]);
    expect(failures("genre", judge([run({ lcpElement: "" }, "genre")], run({}, "genre")))).toEqual([]);
    // a retry that names the wrong element fails; one that names nothing again fails
    expect(whats("genre", judge([run({ lcpElement: "" }, "genre")], run({ lcpElement: "div > p" }, "genre")))).toEqual([
      `genre: the largest paint is div > p, not ${GATES.pages.genre.lcp}`,
    ]);
    expect(whats("genre", judge([run({ lcpElement: "" }, "genre")], run({ lcpElement: "" }, "genre")))).toHaveLength(1);
  });

  it("takes the median timing of the runs asked for and the worst of their gates", () => {
    const m = judge([run({ tbtMs: 30, jsGzipKB: 120 }), run({ tbtMs: 300, jsGzipKB: 122 }), run({ tbtMs: 60, lcpElement: "div > div" })]);
    expect(m.tbtMs).toBe(60);
    expect(m.jsGzipKB).toBe(122);
    expect(m.lcpElements).toEqual([LCP.home, "div > div"]);
  });

  it("counts long tasks of the store's own scripts only, and axe findings by impact", () => {
    const lhr = {
      audits: {
        "long-tasks": {
          details: {
            items: [
              { url: "Unattributable", duration: 900 },
              { url: "https://cdn.example/sdk.js", duration: 700 },
              { url: "http://127.0.0.1:8080/assets/shell-abc.js", duration: 180.4 },
              { url: "http://127.0.0.1:8080/webtoon/genre", duration: 90 },
            ],
          },
        },
        "color-contrast": { score: 0, title: "contrast", details: { debugData: { impact: "serious" }, items: [{ node: { snippet: "<a>" } }] } },
        "image-alt": { score: 0, title: "alt", details: { debugData: { impact: "minor" } } },
        label: { score: 1, title: "label", details: { debugData: { impact: "critical" } } },
        "total-blocking-time": { score: 0, numericValue: 900 },
      },
    };
    expect(ourLongTaskMs(lhr, "http://127.0.0.1:8080")).toBe(180);
    expect(axeFindings(lhr)).toEqual(["color-contrast (serious): <a>"]);
  });

  it("judges a long task at the slowdown the run's own benchmarkIndex calls for", () => {
    // given 3.2x from the run before, measured 688 itself (1.6x): half as long
    expect(calibratedTaskMs(1069, 3.2, 688)).toBe(535);
    expect(calibratedTaskMs(300, 2, 875)).toBe(300);
    // a host slower than the target phone runs at 1x: its tasks count whole
    expect(calibratedTaskMs(800, 1, 300)).toBe(800);
  });

  it("calibrates the CPU slowdown to the target phone, between 1x and 4x", () => {
    expect(multiplierFor(1750)).toBe(4);
    expect(multiplierFor(5000)).toBe(4);
    expect(multiplierFor(1597)).toBe(3.7);
    expect(multiplierFor(875)).toBe(2);
    expect(multiplierFor(300)).toBe(1);
  });
});
