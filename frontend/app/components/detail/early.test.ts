import { describe, expect, it } from "vitest";
import type { CouponInfo, SalesStatus, Vol } from "~/utils/storeApi";
import { withVolume } from "~/utils/volumes";
import type { Detail } from "~/utils/storeApi";
import { EARLY_BADGE, earlyOwned, earlyReleaseLabel, earlyState, earlyVols } from "./early";
import { canRead, entitlement, unlockOptions } from "./unlock";

const vol = (no: number, o: Partial<Vol> = {}): Vol => ({
  no,
  title: `${no}화`,
  releaseAt: "2026-03-05T14:00:00Z",
  isFree: false,
  isPreView: false,
  pages: 0,
  previewPages: 0,
  contentBase: "",
  rentalInfo: { isAuth: false, price: 0, price_org: 0 },
  buyInfo: { isAuth: false, price: 500, price_org: 500 },
  ...o,
});
const early = (no: number) => vol(no, { isEarly: true });
const status = (earlyList: SalesStatus["earlyList"]): SalesStatus => ({
  isBuy: false,
  isRental: false,
  buyLeftPrice: 0,
  buyLeftCount: 0,
  rentLeftPrice: 0,
  rentLeftCount: 0,
  volList: [],
  earlyList,
});
// Every coupon, pass and ticket a member can hold: none may open an early episode.
const coupons: CouponInfo = {
  WCPInfo: { recycle: 60, isAvailable: true, waitTime: 0, excludeNewest: 0 },
  RCPInfo: { count: 3, usedCnt: 0, usableCnt: 3, isRecv: true },
  PCPInfo: { passCount: 2, jumpingCount: 2, jumpingExpireDates: [] },
};
const base = { allNos: [1, 2, 3], isRental: true, isBuy: true, isTicket: true, tickets: 5, jumpingWork: true, now: Date.parse("2026-03-02T03:00:00Z") };

describe("early episodes (미리보기)", () => {
  it("show the badge and the early price until bought, then 소장", () => {
    expect(EARLY_BADGE).toBe("미리보기");
    expect(earlyState(early(4), null)).toEqual({ owned: false, label: "소장 500원" });
    const st = status([{ no: 4, releaseAt: "", price: 500, isAuth: true }]);
    expect(earlyState(early(4), st)).toEqual({ owned: true, label: "소장" });
    expect(earlyOwned(5, st)).toBe(false);
  });

  it("say when they come out for everyone, in KST", () => {
    expect(earlyReleaseLabel(early(4))).toBe("3월 5일 23:00 공개");
  });

  it("leave the list once released, and take only what the edge marks early", () => {
    expect(earlyVols([early(4), early(5)], [vol(3), vol(4)]).map((v) => v.no)).toEqual([5]);
    expect(earlyVols([vol(6)], [])).toEqual([]);
    expect(earlyVols(undefined, [])).toEqual([]);
  });

  it("are only bought: no wait-for-free, coupon, pass, ticket or rental", () => {
    const o = unlockOptions({ ...base, vol: early(4), coupons, status: status([{ no: 4, releaseAt: "", price: 500, isAuth: false }]) });
    expect(o).toEqual([{ kind: "buy", label: "미리보기 소장", price: 500, available: true, note: "공개 전에 먼저 보기" }]);
    expect(canRead(o)).toBe(false);
  });

  it("open directly once bought, before volList lists them", () => {
    const st = status([{ no: 4, releaseAt: "", price: 500, isAuth: true }]);
    expect(entitlement(4, st, base.now)).toBe("owned");
    expect(canRead(unlockOptions({ ...base, vol: early(4), coupons, status: st }))).toBe(true);
  });

  it("are found by the viewer although the detail lists them apart", async () => {
    const d = { prodInfo: { pid: "w", volCnt: 3 }, volList: [vol(1), vol(2), vol(3)], earlyList: [early(4)] } as unknown as Detail;
    const got = await withVolume(d, 4, undefined, () => Promise.reject(new Error("no page is asked")));
    expect(got.volList.map((v) => v.no)).toEqual([1, 2, 3, 4]);
    expect(got.volList[3].isEarly).toBe(true);
  });
});
