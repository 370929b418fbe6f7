import { describe, expect, it } from "vitest";
import type { Http } from "~/utils/http";
import { addZzim, ZZIM_ADDED, ZZIM_REMOVED, listZzim, removeZzim, zzimSection } from "./zzim";

describe("zzim", () => {
  it("keeps the seed's messages", () => {
    expect(ZZIM_ADDED).toBe("찜 한 작품에 추가 되었습니다.");
    expect(ZZIM_REMOVED).toBe("찜 한 작품에서 삭제 되었습니다.");
  });
  it("names the section in Korean for works", () => {
    expect(zzimSection("EB")).toBe("소설");
    expect(zzimSection("CM")).toBe("만화");
    expect(zzimSection("WT")).toBe("웹툰");
  });
  it("sends uid, type, pid and section, and answers the idx", async () => {
    const calls: unknown[] = [];
    const h = (async (path: string, o: { json?: unknown }) => {
      calls.push([path, o.json]);
      return { idx: 42 };
    }) as unknown as Http;
    expect(await addZzim("7", "prod", "wt1", "WT", h)).toBe(42);
    expect(calls[0]).toEqual(["/protocol/appapi/mb/user/info/zzim-add", { uid: "7", zzim_type: "prod", pid: "wt1", section: "웹툰" }]);
  });
  it("swallows failures silently", async () => {
    const h = (async () => {
      throw new Error("boom");
    }) as unknown as Http;
    expect(await addZzim("7", "prod", "wt1", "WT", h)).toBeNull();
    expect(await removeZzim("7", "prod", 1, h)).toBe(false);
  });
  it("zzim-list sends the seed's payload: uid, zzim_type, adultLevel, channel, section", async () => {
    const calls: unknown[] = [];
    const h = (async (path: string, o: { json?: unknown }) => {
      calls.push([path, o.json]);
      return { zzimList: [{ id: 3, pid: "wt1" }] };
    }) as unknown as Http;
    expect(await listZzim("7", "prod", { adultLevel: 2, channel: "AW" }, h)).toEqual(new Map([["wt1", 3]]));
    expect(calls[0]).toEqual(["/protocol/appapi/mb/user/info/zzim-list", { uid: "7", zzim_type: "prod", adultLevel: 2, channel: "AW", section: "all" }]);
  });
  it("a newer call cancels only a call for the same list: the work list and the author list both answer", async () => {
    // Each call waits until the test answers it or its signal aborts.
    const pending: { type: string; signal: AbortSignal; answer: (v: unknown) => void }[] = [];
    const h = ((_: string, o: { json: { zzim_type: string }; signal: AbortSignal }) =>
      new Promise((resolve, reject) => {
        o.signal.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")));
        pending.push({ type: o.json.zzim_type, signal: o.signal, answer: resolve });
      })) as unknown as Http;
    const who = { adultLevel: 0, channel: "AW" };
    const works = listZzim("7", "prod", who, h);
    const authors = listZzim("7", "author", who, h);
    expect(pending.map((p) => p.signal.aborted)).toEqual([false, false]);
    pending[0].answer({ zzimList: [{ id: 11, pid: "wt1" }] });
    pending[1].answer({ zzimList: [{ id: 12, pid: "42" }] });
    expect(await works).toEqual(new Map([["wt1", 11]]));
    expect(await authors).toEqual(new Map([["42", 12]]));

    const older = listZzim("7", "prod", who, h);
    const newer = listZzim("7", "prod", who, h);
    expect(pending[2].signal.aborted).toBe(true);
    expect(await older).toBeNull();
    pending[3].answer({ zzimList: [] });
    expect(await newer).toEqual(new Map());
  });
});
