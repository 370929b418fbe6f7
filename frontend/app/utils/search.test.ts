import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { HttpError } from "./http";
import { addRecent, clearRecent, cleanQuery, createLiveSearch, MAX_QUERY, RECENT_KEY, RECENT_MAX, recentSearches, removeRecent, searchErrorText, type LiveState } from "./search";

describe("live search", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function setup() {
    const calls: { q: string; signal: AbortSignal; resolve: (v: string) => void; reject: (e: unknown) => void }[] = [];
    const run = (q: string, signal: AbortSignal) =>
      new Promise<string>((resolve, reject) => {
        calls.push({ q, signal, resolve, reject });
      });
    const states: LiveState<string>[] = [];
    const live = createLiveSearch(run, (s) => states.push(s), 200);
    return { calls, states, live };
  }

  it("asks once, after the quiet time, for the last query typed", async () => {
    const { calls, states, live } = setup();
    live.input("ㄴ");
    vi.advanceTimersByTime(100);
    live.input("ㄴㅎ");
    vi.advanceTimersByTime(199);
    expect(calls).toHaveLength(0);
    vi.advanceTimersByTime(1);
    expect(calls.map((c) => c.q)).toEqual(["ㄴㅎ"]);
    calls[0].resolve("hits");
    await vi.runAllTimersAsync();
    expect(states.at(-1)).toEqual({ status: "done", q: "ㄴㅎ", result: "hits" });
  });

  it("cancels the request before when the reader types on, and drops its late answer", async () => {
    const { calls, states, live } = setup();
    live.input("나");
    vi.advanceTimersByTime(200);
    live.input("나혼");
    expect(calls[0].signal.aborted).toBe(true);
    calls[0].resolve("old");
    vi.advanceTimersByTime(200);
    expect(calls[1].signal.aborted).toBe(false);
    calls[1].resolve("new");
    await vi.runAllTimersAsync();
    expect(states.filter((s) => s.status === "done")).toEqual([{ status: "done", q: "나혼", result: "new" }]);
  });

  it("keeps the last result while the next query loads; an empty field is idle and asks nothing", async () => {
    const { calls, states, live } = setup();
    live.input("나");
    vi.advanceTimersByTime(200);
    calls[0].resolve("first");
    await vi.runAllTimersAsync();
    live.input("나혼");
    expect(states.at(-1)).toEqual({ status: "loading", q: "나혼", result: "first" });
    live.input("   ");
    expect(states.at(-1)).toEqual({ status: "idle", q: "" });
    vi.advanceTimersByTime(1000);
    expect(calls).toHaveLength(1);
  });

  it("reports a failure of the current query, never of a cancelled one", async () => {
    const { calls, states, live } = setup();
    live.input("가");
    vi.advanceTimersByTime(200);
    live.input("가나");
    calls[0].reject(new DOMException("aborted", "AbortError"));
    vi.advanceTimersByTime(200);
    calls[1].reject(new HttpError("network", 0, 0, "down"));
    await vi.runAllTimersAsync();
    const errors = states.filter((s) => s.status === "error");
    expect(errors).toHaveLength(1);
    expect(errors[0].q).toBe("가나");
  });

  it("dispose cancels the waiting and the running request", () => {
    const { calls, live } = setup();
    live.input("가");
    vi.advanceTimersByTime(200);
    live.dispose();
    expect(calls[0].signal.aborted).toBe(true);
    live.input("나");
    live.dispose();
    vi.advanceTimersByTime(1000);
    expect(calls).toHaveLength(1);
  });
});

describe("the query sent", () => {
  it("is trimmed and cut at the edge's limit in characters, not UTF-16 units", () => {
    expect(cleanQuery("  나 혼자  ")).toBe("나 혼자");
    const long = "😀".repeat(MAX_QUERY + 5);
    expect(Array.from(cleanQuery(long))).toHaveLength(MAX_QUERY);
  });
});

describe("recent searches", () => {
  beforeEach(() => localStorage.clear());

  it("keeps the newest first, once each, at most RECENT_MAX", () => {
    addRecent("귀멸");
    addRecent("나혼");
    expect(addRecent(" 귀멸 ")).toEqual(["귀멸", "나혼"]);
    for (let i = 0; i < RECENT_MAX + 3; i++) addRecent(`q${i}`);
    const list = recentSearches();
    expect(list).toHaveLength(RECENT_MAX);
    expect(list[0]).toBe(`q${RECENT_MAX + 2}`);
    expect(addRecent("   ")).toEqual(list);
  });

  it("deletes one, clears all, and survives a page load (localStorage)", () => {
    addRecent("a");
    addRecent("b");
    expect(removeRecent("a")).toEqual(["b"]);
    expect(JSON.parse(localStorage.getItem(RECENT_KEY)!)).toEqual(["b"]);
    expect(clearRecent()).toEqual([]);
    expect(recentSearches()).toEqual([]);
  });

  it("reads damaged storage as empty", () => {
    localStorage.setItem(RECENT_KEY, "{not json");
    expect(recentSearches()).toEqual([]);
    localStorage.setItem(RECENT_KEY, JSON.stringify([1, "x", null]));
    expect(recentSearches()).toEqual(["x"]);
  });
});

describe("search errors", () => {
  it("shows the edge's Korean message for a refused query, a network line offline, else a retry line", () => {
    expect(searchErrorText(new HttpError("api", 400, 400, "검색어는 1~50자로 입력해 주세요."))).toBe("검색어는 1~50자로 입력해 주세요.");
    expect(searchErrorText(new HttpError("network", 0, 0, "x"))).toBe("네트워크 연결을 확인해 주세요.");
    expect(searchErrorText(new Error("boom"))).toMatch(/다시 시도/);
  });
});
