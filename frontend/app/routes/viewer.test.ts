import { beforeEach, describe, expect, it, vi } from "vitest";
import { savePlace } from "~/components/viewer/place";
import { targetVol } from "~/components/viewer/nav";
import { detailOf, pagesOf } from "~/test/longWork";
import type { Detail } from "~/utils/storeApi";

// The loader's calls to the edge: the detail and the pages of /volumes.
const edge = vi.hoisted(() => ({ detail: null as Detail | null, getVolumePage: null as unknown }));
vi.mock("~/utils/storeApi", async (orig) => ({
  ...(await orig<typeof import("~/utils/storeApi")>()),
  getDetail: async () => edge.detail!,
  getVolumePage: (...a: unknown[]) => (edge.getVolumePage as (...a: unknown[]) => unknown)(...a),
}));
// A visitor: no server place, no recently viewed list, no saved copies.
vi.mock("~/utils/userStore", async (orig) => ({
  ...(await orig<typeof import("~/utils/userStore")>()),
  userReady: async () => ({ ready: true }),
  viewOf: () => ({ isLogin: false }),
}));

const { clientLoader } = await import("./viewer");
const open = (q: string) => clientLoader({ request: new Request(`http://store.test/viewer?${q}`) });

describe("the viewer's volume of a long work", () => {
  let srv: ReturnType<typeof pagesOf>;
  const serve = (count: number) => {
    srv = pagesOf(count);
    edge.detail = detailOf(count);
    edge.getVolumePage = srv.fetchPage;
  };
  beforeEach(() => serve(10_000));

  it("episode 450 of 10,000 is looked up in page 5 of /volumes, not replaced by episode 1", async () => {
    const a = await open("pid=P1&no=450");
    expect(a.no).toBe(450);
    expect(srv.calls).toEqual([{ order: "old", page: 5, size: 100 }]);
    const nos = a.detail.volList.map((v) => v.no);
    expect(a.detail.volList.find((v) => v.no === 450)?.title).toBe("450화");
    // The viewer's previous and next episode are the neighbours, not the detail's newest.
    expect(targetVol(nos, 450, "P")).toBe(449);
    expect(targetVol(nos, 450, "N")).toBe(451);
  });

  it("episode 500, a page's last, knows 501 as its next", async () => {
    const a = await open("pid=P1&no=500");
    expect(a.no).toBe(500);
    expect(srv.calls.map((c) => c.page).sort()).toEqual([5, 6]);
    expect(targetVol(a.detail.volList.map((v) => v.no), 500, "N")).toBe(501);
  });

  it("without a number the reader resumes this device's place, from its page", async () => {
    savePlace("P1", { no: 650, page: 3, ratio: 0, offset: 0, at: Date.now() });
    const a = await open("pid=P1");
    expect(a.no).toBe(650);
    expect(a.place?.no).toBe(650);
    expect(srv.calls).toEqual([{ order: "old", page: 7, size: 100 }]);
  });

  it("a work of at most 1,000 episodes asks nothing beyond its detail", async () => {
    serve(1000);
    const a = await open("pid=P1&no=700");
    expect(a.no).toBe(700);
    await open("pid=P1&no=1200");
    expect(srv.calls).toEqual([]);
  });
});
