import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Tracker, type TrackEvent } from "./tracking";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("view_content", () => {
  it("goes in the same batch as page views, with the work and the referrer of the route change to the detail", async () => {
    const sent: TrackEvent[][] = [];
    let n = 0;
    const t = new Tracker({ send: async (e) => sent.push(e), newId: () => `id-${String(++n).padStart(16, "0")}`, flushMs: 5000 });
    t.pageView("/webtoon", "/");
    // The route change to the detail page: no page view (seed §4), but it says where the reader came from.
    expect(t.pageView("/webtoon/detail/wt1?tab=I", "/webtoon", "AW")).toBe(false);
    expect(t.viewContent({ url: "/webtoon/detail/wt1?tab=I", pid: "wt1", section: "WT", genreId: "21" }, "AW")).toBe(true);
    expect(sent).toEqual([]);
    await vi.advanceTimersByTimeAsync(5000);
    expect(sent).toEqual([
      [
        { id: "id-0000000000000001", type: "page_view", curPageUrl: "/webtoon", url: "/webtoon", referrer: "/" },
        {
          id: "id-0000000000000002",
          type: "view_content",
          curPageUrl: "/webtoon/detail/wt1?tab=I",
          url: "/webtoon/detail/wt1?tab=I",
          referrer: "/webtoon",
          pid: "wt1",
          section: "WT",
          genreId: "21",
          props: { channel: "AW" },
        },
      ],
    ]);
  });

  it("leaves out what it does not know: no genre, no volume, no referrer from another page", async () => {
    const sent: TrackEvent[][] = [];
    const t = new Tracker({ send: async (e) => sent.push(e), flushMs: 1000 });
    t.pageView("/comic/detail/cm1", "/comic");
    t.viewContent({ url: "/comic/detail/cm2", pid: "cm2", section: "CM", genreId: "", vol: 0 });
    t.viewContent({ url: "/comic/detail/cm3", pid: "cm3", section: "CM", vol: 4 });
    await vi.advanceTimersByTimeAsync(1000);
    const [a, b] = sent[0];
    expect(a).toEqual({ id: expect.any(String), type: "view_content", curPageUrl: "/comic/detail/cm2", url: "/comic/detail/cm2", pid: "cm2", section: "CM" });
    expect(b).toMatchObject({ pid: "cm3", vol: 4 });
    expect(b).not.toHaveProperty("referrer");
  });

  it("needs a work", () => {
    const t = new Tracker({ send: async () => {} });
    expect(t.viewContent({ url: "/webtoon/detail/", pid: "", section: "WT" })).toBe(false);
    expect(t.viewContent({ url: "/webtoon/detail/x", pid: "x", section: "" })).toBe(false);
    expect(t.pending).toHaveLength(0);
  });

  it("leaves by beacon on page hide with the page views, keeps its id on a retry, and never reaches the ad pixel", async () => {
    const pixels: string[] = [];
    const sent: TrackEvent[][] = [];
    let fail = true;
    const t = new Tracker({
      send: async (e) => {
        sent.push(e);
        if (fail) throw new Error("503");
        return { event_ids: e.map((x) => x.id) };
      },
      pixel: (page) => void pixels.push(page),
      flushMs: 1000,
    });
    t.viewContent({ url: "/novel/detail/eb1", pid: "eb1", section: "EB" });
    t.pageView("/novel");
    await vi.advanceTimersByTimeAsync(1000);
    fail = false;
    await vi.advanceTimersByTimeAsync(1000);
    expect(sent).toHaveLength(2);
    expect(sent[1].map((e) => e.id)).toEqual(sent[0].map((e) => e.id));
    // the page view's pixel went once (without an id, after the failure); the detail view's never
    expect(pixels).toEqual(["/novel"]);

    const bodies: string[] = [];
    const h = new Tracker({ send: async () => ({}), beacon: (_u, d) => (void d.text().then((b) => bodies.push(b)), true), pixel: (page) => void pixels.push(page) });
    h.pageView("/");
    h.viewContent({ url: "/webtoon/detail/wt9", pid: "wt9", section: "WT" });
    pixels.length = 0;
    expect(h.flushBeacon()).toBe(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(JSON.parse(bodies[0]).events.map((e: TrackEvent) => e.type)).toEqual(["page_view", "view_content"]);
    expect(pixels).toEqual(["/"]);
  });
});

describe("retries", () => {
  it("mark the events sent again, by fetch and by beacon, and only those", async () => {
    const sent: TrackEvent[][] = [];
    let fail = true;
    const bodies: string[] = [];
    const t = new Tracker({
      send: async (e) => {
        sent.push(e);
        if (fail) throw new Error("no answer");
        return { event_ids: e.map((x) => x.id) };
      },
      beacon: (_u, d) => (void d.text().then((b) => bodies.push(b)), true),
      flushMs: 1000,
    });
    t.pageView("/webtoon");
    await vi.advanceTimersByTimeAsync(1000);
    t.pageView("/comic");
    fail = false;
    await vi.advanceTimersByTimeAsync(1000);
    expect(sent).toHaveLength(2);
    expect(sent[0].map((e) => e.retry)).toEqual([undefined]);
    expect(sent[1].map((e) => [e.url, e.retry])).toEqual([["/webtoon", true], ["/comic", undefined]]);
    expect(sent[1][0].id).toBe(sent[0][0].id);

    fail = true;
    t.pageView("/novel");
    await vi.advanceTimersByTimeAsync(1000);
    t.pageView("/best");
    expect(t.flushBeacon()).toBe(true);
    await vi.advanceTimersByTimeAsync(0);
    const beaconed = JSON.parse(bodies[0]).events as TrackEvent[];
    expect(beaconed.map((e) => [e.url, e.retry])).toEqual([["/novel", true], ["/best", undefined]]);
  });
});

describe("search", () => {
  it("queues a settled search with its keyword only, and not the ad pixel; an empty keyword is no search", async () => {
    const sent: TrackEvent[][] = [];
    const pixels: string[] = [];
    const t = new Tracker({ send: async (e) => sent.push(e), pixel: (u) => pixels.push(u), newId: () => "id-0000000000000001", flushMs: 5000 });
    expect(t.search("   ", "/search")).toBe(false);
    expect(t.search("  나 혼자 ", "/search")).toBe(true);
    await vi.advanceTimersByTimeAsync(5000);
    expect(sent).toEqual([[{ id: "id-0000000000000001", type: "search", curPageUrl: "/search", url: "/search", props: { q: "나 혼자" } }]]);
    expect(pixels).toEqual([]);
  });
});
