import { afterEach, describe, expect, it, vi } from "vitest";
import { HttpError } from "~/utils/http";
import { fromServer, loadPlace, newest, placeSync, queuedPlaces, savePlace, sendQueued, stripPlace, stripY, textOffset, textTarget, type Box } from "./place";

describe("strip place", () => {
  // three 1024 px pages under a 48 px bar
  const boxes: Box[] = [0, 1, 2].map((i) => ({ top: 48 + i * 1024, height: 1024 }));
  it("names the page at the line and how far into it", () => {
    expect(stripPlace(boxes, 0)).toEqual({ page: 0, ratio: 0 });
    expect(stripPlace(boxes, 48 + 512)).toEqual({ page: 0, ratio: 0.5 });
    expect(stripPlace(boxes, 48 + 1024 + 256)).toEqual({ page: 1, ratio: 0.25 });
    expect(stripPlace(boxes, 99999)).toEqual({ page: 2, ratio: 1 });
  });
  it("lands on the same panel on a narrower screen", () => {
    const p = stripPlace(boxes, 48 + 1024 + 256);
    const narrow: Box[] = [0, 1, 2].map((i) => ({ top: 48 + i * 512, height: 512 }));
    expect(stripY(narrow, p.page, p.ratio)).toBe(48 + 512 + 128);
    expect(stripY([], 3, 0.5)).toBe(0);
  });
});

describe("text place", () => {
  // paragraphs of 10 characters, 2 lines of 5 characters each 20 px high, 10 px apart
  const lengths = [10, 10, 10];
  const paras: Box[] = [0, 1, 2].map((i) => ({ top: 100 + i * 50, height: 40 }));
  const bottom = (i: number, k: number) => paras[i].top + (Math.floor(k / 5) + 1) * 20;
  it("finds the first character whose line ends below the top", () => {
    expect(textOffset(lengths, paras, 0, bottom)).toBe(0);
    expect(textOffset(lengths, paras, 125, bottom)).toBe(5); // second line of the first paragraph
    expect(textOffset(lengths, paras, 155, bottom)).toBe(10); // first line of the second
    expect(textOffset(lengths, paras, 9999, bottom)).toBe(30);
  });
  it("maps an offset back to paragraph and character", () => {
    expect(textTarget(lengths, 0)).toEqual({ i: 0, k: 0 });
    expect(textTarget(lengths, 15)).toEqual({ i: 1, k: 5 });
    expect(textTarget(lengths, 30)).toBeNull();
  });
});

describe("kept places", () => {
  it("round-trips in local storage and refuses garbage", () => {
    savePlace("wt1", { no: 3, page: 1, ratio: 0.5, offset: 0, at: 1 });
    expect(loadPlace("wt1")).toEqual({ no: 3, page: 1, ratio: 0.5, offset: 0, at: 1 });
    expect(loadPlace("wt2")).toBeNull();
    localStorage.setItem("sf_place_v2_bad", '{"no":"x"}');
    expect(loadPlace("bad")).toBeNull();
    localStorage.setItem("sf_place_v2_odd", '{"no":2,"ratio":7,"page":-3}');
    expect(loadPlace("odd")).toEqual({ no: 2, page: 0, ratio: 1, offset: 0, at: 0 });
  });
  it("takes the writer's answer and picks the newest copy", () => {
    const s = fromServer({ pid: "p", vol: 4, page: 2, ratio: 0.25, offset: 0, updatedAt: "2026-01-01T00:00:10Z" })!;
    expect(s).toEqual({ no: 4, page: 2, ratio: 0.25, offset: 0, at: Date.parse("2026-01-01T00:00:10Z") });
    expect(fromServer(null)).toBeNull();
    const older = { ...s, no: 1, at: s.at - 1 };
    expect(newest(older, s, null)).toBe(s);
    expect(newest(null, undefined)).toBeNull();
  });
});

describe("placeSync", () => {
  afterEach(() => vi.useRealTimers());
  it("sends at most one place per interval, the last one, and flushes by beacon", async () => {
    vi.useFakeTimers();
    const put = vi.fn(() => Promise.resolve());
    const beacon = vi.fn();
    const s = placeSync("wt 1", 2000, { put, beacon }, memStore());
    s.update({ no: 1, page: 0, ratio: 0.1, offset: 0, at: 1 });
    s.update({ no: 1, page: 3, ratio: 0.2, offset: 0, at: 2 });
    expect(put).not.toHaveBeenCalled();
    vi.advanceTimersByTime(2000);
    expect(put).toHaveBeenCalledTimes(1);
    expect(put).toHaveBeenCalledWith("/home/api/v1/users/reading-place/wt%201", { vol: 1, page: 3, ratio: 0.2, offset: 0, at: 2 });
    vi.advanceTimersByTime(5000);
    expect(put).toHaveBeenCalledTimes(1); // nothing new, nothing sent
    s.update({ no: 2, page: 0, ratio: 0, offset: 0, at: 3 });
    s.flush();
    expect(beacon).toHaveBeenCalledWith("/home/api/v1/users/reading-place/wt%201", { vol: 2, page: 0, ratio: 0, offset: 0, at: 3 });
    vi.advanceTimersByTime(5000);
    expect(put).toHaveBeenCalledTimes(1); // the flushed place is not sent twice
    s.flush();
    expect(beacon).toHaveBeenCalledTimes(1);
    s.update({ no: 2, page: 1, ratio: 0, offset: 0, at: 4 });
    s.dispose();
    vi.advanceTimersByTime(5000);
    expect(put).toHaveBeenCalledTimes(1);
  });
});

function memStore(): Storage {
  const m = new Map<string, string>();
  return {
    get length() {
      return m.size;
    },
    clear: () => m.clear(),
    getItem: (k) => m.get(k) ?? null,
    key: (i) => [...m.keys()][i] ?? null,
    removeItem: (k) => void m.delete(k),
    setItem: (k, v) => void m.set(k, String(v)),
  };
}

describe("offline places", () => {
  afterEach(() => vi.useRealTimers());
  const path = "/home/api/v1/users/reading-place/wt%201";
  const offline = () => Promise.reject(new HttpError("network", 0, 0, "offline"));

  it("queues a save that failed and sends it, with its device time, when back online", async () => {
    vi.useFakeTimers();
    const store = memStore();
    const put = vi.fn(offline);
    const s = placeSync("wt 1", 2000, { put, beacon: vi.fn() }, store);
    s.update({ no: 3, page: 1, ratio: 0.5, offset: 0, at: 1000 });
    await vi.advanceTimersByTimeAsync(2000);
    expect(queuedPlaces(store)).toEqual({ [path]: { vol: 3, page: 1, ratio: 0.5, offset: 0, at: 1000 } });
    // an older save queued later does not replace the newer one
    put.mockImplementation(offline);
    s.update({ no: 2, page: 0, ratio: 0, offset: 0, at: 900 });
    await vi.advanceTimersByTimeAsync(2000);
    expect(queuedPlaces(store)[path].at).toBe(1000);
    // back online: the queued save goes out as it was made, then leaves the queue
    const ok = vi.fn(() => Promise.resolve());
    expect(await sendQueued(ok, store)).toBe(1);
    expect(ok).toHaveBeenCalledWith(path, { vol: 3, page: 1, ratio: 0.5, offset: 0, at: 1000 });
    expect(queuedPlaces(store)).toEqual({});
    s.dispose();
  });

  it("keeps a save the writer could not take and drops one it refused", async () => {
    const store = memStore();
    const s = placeSync("wt 1", 2000, { put: vi.fn(offline), beacon: vi.fn() }, store);
    s.dispose();
    store.setItem("sf_place_queue_v1", JSON.stringify({ [path]: { vol: 1, page: 0, ratio: 0, offset: 0, at: 5 } }));
    expect(await sendQueued(() => Promise.reject(new HttpError("api", 503, 503, "busy")), store)).toBe(0);
    expect(Object.keys(queuedPlaces(store))).toEqual([path]);
    expect(await sendQueued(() => Promise.reject(new HttpError("api", 400, 400, "bad")), store)).toBe(0);
    expect(queuedPlaces(store)).toEqual({});
  });

  it("queues instead of a beacon when the browser is offline", () => {
    const store = memStore();
    const beacon = vi.fn();
    const s = placeSync("wt 1", 2000, { put: vi.fn(offline), beacon }, store);
    const spy = vi.spyOn(navigator, "onLine", "get").mockReturnValue(false);
    s.update({ no: 4, page: 0, ratio: 0, offset: 0, at: 7 });
    s.flush();
    spy.mockRestore();
    expect(beacon).not.toHaveBeenCalled();
    expect(queuedPlaces(store)[path].vol).toBe(4);
    s.dispose();
  });
});
