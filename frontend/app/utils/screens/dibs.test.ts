import { describe, expect, it } from "vitest";
import type { Http } from "~/utils/http";
import { addDibs, DIBS_ADDED, DIBS_REMOVED, removeDibs, zzimSection } from "./dibs";

describe("dibs", () => {
  it("keeps the seed's messages", () => {
    expect(DIBS_ADDED).toBe("찜 한 작품에 추가 되었습니다.");
    expect(DIBS_REMOVED).toBe("찜 한 작품에서 삭제 되었습니다.");
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
    expect(await addDibs("7", "prod", "wt1", "WT", h)).toBe(42);
    expect(calls[0]).toEqual(["/protocol/appapi/mb/user/info/zzim-add", { uid: "7", zzim_type: "prod", pid: "wt1", section: "웹툰" }]);
  });
  it("swallows failures silently", async () => {
    const h = (async () => {
      throw new Error("boom");
    }) as unknown as Http;
    expect(await addDibs("7", "prod", "wt1", "WT", h)).toBeNull();
    expect(await removeDibs("7", "prod", 1, h)).toBe(false);
  });
});
