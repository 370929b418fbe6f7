import { act, renderHook, waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { detailOf, pagesOf } from "~/test/longWork";
import { useVolumeOrder } from "./useVolumeOrder";

const nos = (vols: { no: number }[]) => vols.map((v) => v.no);

describe("useVolumeOrder of a long work", () => {
  it("starts with the detail's first 100 and loads the next pages of /volumes", async () => {
    const srv = pagesOf(10_000);
    const { result } = renderHook(() => useVolumeOrder(detailOf(10_000), srv.fetchPage));
    expect(nos(result.current.vols)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(srv.calls).toEqual([]);
    await act(() => result.current.more!());
    expect(srv.calls).toEqual([{ order: "old", page: 2, size: 100 }]);
    expect(result.current.vols).toHaveLength(200);
    expect(result.current.vols[199].no).toBe(200);
    await act(() => result.current.more!());
    expect(srv.calls.at(-1)).toEqual({ order: "old", page: 3, size: 100 });
    expect(result.current.vols.at(-1)!.no).toBe(300);
  });

  it("newest first shows the detail's newest 100, then pages of order=latest", async () => {
    const srv = pagesOf(10_000);
    const { result } = renderHook(() => useVolumeOrder(detailOf(10_000), srv.fetchPage));
    await act(() => result.current.changeOrder("latest"));
    expect(result.current.vols[0].no).toBe(10_000);
    expect(result.current.vols).toHaveLength(100);
    await act(() => result.current.more!());
    expect(srv.calls).toEqual([{ order: "latest", page: 2, size: 100 }]);
    expect(result.current.vols.at(-1)!.no).toBe(9801);
    expect(nos(result.current.vols)).toEqual([...nos(result.current.vols)].sort((a, b) => b - a));
  });

  it("stops at the last page", async () => {
    const srv = pagesOf(1050);
    const { result } = renderHook(() => useVolumeOrder(detailOf(1050), srv.fetchPage));
    for (let i = 0; i < 10; i++) await act(() => result.current.more!());
    expect(result.current.vols).toHaveLength(1050);
    expect(result.current.more).toBeNull();
  });

  it("says when a page did not come", async () => {
    const { result } = renderHook(() => useVolumeOrder(detailOf(10_000), async () => Promise.reject(new Error("network"))));
    await act(() => result.current.more!());
    await waitFor(() => expect(result.current.failed).toBe(true));
    expect(result.current.vols).toHaveLength(100);
  });

  it("a work the detail lists whole has no more to load", () => {
    const srv = pagesOf(1000);
    const { result } = renderHook(() => useVolumeOrder(detailOf(1000), srv.fetchPage));
    expect(result.current.vols).toHaveLength(1000);
    expect(result.current.more).toBeNull();
    expect(srv.calls).toEqual([]);
  });
});
