import { describe, expect, it } from "vitest";
import { detailOf, pagesOf, vol } from "~/test/longWork";
import { findVolume, mergeVols, pageOf, trimmed, withVolume } from "./volumes";

describe("a long work's volumes", () => {
  it("knows a trimmed detail by volCnt", () => {
    expect(trimmed(detailOf(10_000))).toBe(true);
    expect(trimmed(detailOf(1000))).toBe(false);
  });

  it("finds the page of a volume, oldest first", () => {
    expect(pageOf(1, 100)).toBe(1);
    expect(pageOf(100, 100)).toBe(1);
    expect(pageOf(101, 100)).toBe(2);
    expect(pageOf(500, 100)).toBe(5);
    expect(pageOf(7, 5, 3)).toBe(1);
  });

  it("episode 450 of 10,000 comes from page 5 of /volumes, with its neighbours", async () => {
    const srv = pagesOf(10_000);
    const d = await withVolume(detailOf(10_000), 450, undefined, srv.fetchPage);
    expect(srv.calls).toEqual([{ order: "old", page: 5, size: 100 }]);
    const nos = d.volList.map((v) => v.no);
    expect(nos).toEqual(expect.arrayContaining([449, 450, 451]));
    expect(nos).toEqual([...nos].sort((a, b) => a - b));
    expect(new Set(nos).size).toBe(nos.length);
  });

  it("a page's last episode brings the next page too, so the next episode is known", async () => {
    const srv = pagesOf(10_000);
    const d = await withVolume(detailOf(10_000), 500, undefined, srv.fetchPage);
    expect(srv.calls.map((c) => c.page).sort()).toEqual([5, 6]);
    expect(d.volList.map((v) => v.no)).toEqual(expect.arrayContaining([499, 500, 501]));
  });

  it("the last of the detail's first 100 brings page 2 (no jump to the newest)", async () => {
    const srv = pagesOf(10_000);
    const d = await withVolume(detailOf(10_000), 100, undefined, srv.fetchPage);
    expect(srv.calls).toEqual([{ order: "old", page: 2, size: 100 }]);
    expect(d.volList.some((v) => v.no === 101)).toBe(true);
  });

  it("asks nothing for a volume the detail lists with its neighbours, for a whole detail, or outside the work", async () => {
    const srv = pagesOf(10_000);
    const long = detailOf(10_000);
    expect(await withVolume(long, 50, undefined, srv.fetchPage)).toBe(long);
    expect(await withVolume(long, 9950, undefined, srv.fetchPage)).toBe(long);
    expect(await withVolume(long, 10_001, undefined, srv.fetchPage)).toBe(long);
    expect(await withVolume(long, Number.NaN, undefined, srv.fetchPage)).toBe(long);
    const whole = detailOf(1000);
    expect(await withVolume(whole, 700, undefined, srv.fetchPage)).toBe(whole);
    expect(await findVolume(whole, 1001, undefined, srv.fetchPage)).toBeUndefined();
    expect(srv.calls).toEqual([]);
  });

  it("findVolume answers the volume itself", async () => {
    const srv = pagesOf(10_000);
    expect((await findVolume(detailOf(10_000), 7000, undefined, srv.fetchPage))?.title).toBe("7000화");
    expect(srv.calls).toEqual([{ order: "old", page: 70, size: 100 }, { order: "old", page: 71, size: 100 }]);
  });

  it("mergeVols keeps each number once, oldest first", () => {
    expect(mergeVols([vol(3), vol(1)], [vol(2), vol(3)]).map((v) => v.no)).toEqual([1, 2, 3]);
  });
});
