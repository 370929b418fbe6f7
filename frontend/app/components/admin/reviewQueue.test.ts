import { describe, expect, it } from "vitest";
import { decisionsFor, kstTime, parseQueueQuery, queueSearch, reasonSummary } from "./reviewQueue";

describe("review queue view", () => {
  it("reads the screen's query and falls back on anything unknown", () => {
    expect(parseQueueQuery(new URLSearchParams("status=hidden&order=most&page=3"))).toEqual({ status: "hidden", order: "most", page: 3 });
    expect(parseQueueQuery(new URLSearchParams("status=all&order=newest&page=0"))).toEqual({ status: "open", order: "oldest", page: 1 });
    expect(parseQueueQuery(new URLSearchParams("page=1.5"))).toEqual({ status: "open", order: "oldest", page: 1 });
  });
  it("writes the API's query", () => {
    expect(queueSearch({ status: "open", order: "most", page: 2 })).toBe("status=open&order=most&page=2");
  });
});

describe("decisions", () => {
  it("offers what the writer accepts for the state", () => {
    expect(decisionsFor({ state: "visible", reports: 2 }, "open")).toEqual(["hide", "dismiss"]);
    expect(decisionsFor({ state: "auto-hidden", reports: 5 }, "open")).toEqual(["hide", "restore", "dismiss"]);
    expect(decisionsFor({ state: "hidden", reports: 1 }, "open")).toEqual(["hide", "restore", "dismiss"]);
    // The hidden list: its reports are decided, only a restore is left.
    expect(decisionsFor({ state: "hidden", reports: 3 }, "hidden")).toEqual(["restore"]);
  });
});

describe("reports", () => {
  it("groups reasons, most frequent first", () => {
    expect(reasonSummary([{ reason: "광고" }, { reason: "욕설" }, { reason: "광고" }, { reason: " " }])).toBe("광고 ×2, 사유 없음, 욕설");
    expect(reasonSummary([])).toBe("");
  });
  it("shows instants in KST", () => {
    expect(kstTime("2026-11-22T14:35:10Z")).toBe("2026-11-22 23:35");
    expect(kstTime(null)).toBe("-");
  });
});
