import { renderHook, waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { detailOf, pagesOf } from "~/test/longWork";
import { useVolume } from "./useVolume";

describe("useVolume (the detail's 이어보기 volume)", () => {
  it("a long work's volume beyond the detail comes from its page of /volumes", async () => {
    const srv = pagesOf(10_000);
    const d = detailOf(10_000);
    const { result } = renderHook(() => useVolume(d, 450, srv.fetchPage));
    await waitFor(() => expect(result.current?.no).toBe(450));
    expect(srv.calls).toEqual([{ order: "old", page: 5, size: 100 }]);
  });

  it("a volume the detail lists, or any of a work it lists whole, asks nothing", () => {
    const srv = pagesOf(10_000);
    const long = detailOf(10_000);
    const whole = detailOf(800);
    expect(renderHook(() => useVolume(long, 9990, srv.fetchPage)).result.current?.no).toBe(9990);
    expect(renderHook(() => useVolume(whole, 700, srv.fetchPage)).result.current?.no).toBe(700);
    expect(renderHook(() => useVolume(whole, undefined, srv.fetchPage)).result.current).toBeUndefined();
    expect(srv.calls).toEqual([]);
  });
});
