import { describe, expect, it } from "vitest";
import { canRead, unlockOptions } from "~/components/detail/unlock";
import type { CouponInfo, SalesStatus, Vol } from "~/utils/storeApi";
import { episodeAt, episodeURL, nextStep } from "./follow";

const vol = (no: number, over: Partial<Vol> = {}): Vol => ({
  no,
  title: `${no}화`,
  releaseAt: "2026-01-01T00:00:00Z",
  isFree: false,
  isPreView: true,
  pages: 10,
  previewPages: 2,
  contentBase: "",
  rentalInfo: { isAuth: false, price: 100, price_org: 100 },
  buyInfo: { isAuth: false, price: 300, price_org: 300 },
  ...over,
});
const status = (v: { no: number; buy?: boolean; rentEnd?: string }): SalesStatus =>
  ({ volList: [{ no: v.no, buyInfo: { isAuth: !!v.buy }, rentalInfo: { isAuth: !!v.rentEnd, authEndDate: v.rentEnd } }] }) as unknown as SalesStatus;
const wff = (ready: boolean): CouponInfo =>
  ({ WCPInfo: { isAvailable: true, waitTime: ready ? 0 : 600, recycle: 1440, excludeNewest: 0 }, RCPInfo: { usableCnt: 0, count: 0, usedCnt: 0 }, PCPInfo: { passCount: 0, jumpingCount: 0 } }) as unknown as CouponInfo;
const now = Date.parse("2026-06-01T00:00:00Z");
const options = (v: Vol, st?: SalesStatus | null, cp?: CouponInfo | null) =>
  unlockOptions({ vol: v, status: st, coupons: cp, allNos: [1, 2, 3], isRental: true, isBuy: true, isTicket: false, tickets: 0, jumpingWork: false, now });

const opts = (v: Vol, st?: SalesStatus | null, cp?: CouponInfo | null) => canRead(options(v, st, cp));

describe("nextStep: what follows a read episode", () => {
  it("a free, owned or rented next episode follows on scrolling", () => {
    expect(nextStep(true, true, opts(vol(2, { isFree: true })))).toBe("follow");
    expect(nextStep(true, true, opts(vol(2), status({ no: 2, buy: true })))).toBe("follow");
    expect(nextStep(true, true, opts(vol(2), status({ no: 2, rentEnd: "2026-06-02T00:00:00Z" })))).toBe("follow");
  });
  it("a locked one, or a rental that ran out, stands as the unlock sheet", () => {
    expect(nextStep(true, true, opts(vol(2)))).toBe("sheet");
    expect(nextStep(true, true, opts(vol(2), status({ no: 2, rentEnd: "2026-05-01T00:00:00Z" })))).toBe("sheet");
  });
  it("a ready wait-for-free coupon is offered in the sheet, enabled, never spent by scrolling", () => {
    expect(nextStep(true, true, opts(vol(2), null, wff(true)))).toBe("sheet");
    expect(options(vol(2), null, wff(true))[0]).toMatchObject({ kind: "wff", available: true });
    expect(options(vol(2), null, wff(false))[0]).toMatchObject({ kind: "wff", available: false });
  });
  it("nothing after a preview, after the last episode; waits while entitlements are asked", () => {
    expect(nextStep(false, true, opts(vol(2, { isFree: true })))).toBe("none");
    expect(nextStep(true, false, null)).toBe("none");
    expect(nextStep(true, true, null)).toBe("wait");
  });
});

describe("episodeAt and episodeURL", () => {
  const secs = [
    { no: 1, top: -3000 },
    { no: 2, top: 120 },
    { no: 3, top: 4000 },
  ];
  it("is the last episode starting above the reading line", () => {
    expect(episodeAt(secs, 300)).toBe(2);
    expect(episodeAt(secs, 100)).toBe(1);
    expect(episodeAt([{ no: 5, top: 50 }], 10)).toBe(5);
    expect(episodeAt([], 10)).toBeNull();
  });
  it("names the episode in the address, keeping the rest", () => {
    expect(episodeURL("https://x.test/viewer?pid=a%20b&no=1&isMobileApp=True", 2)).toBe("/viewer?pid=a+b&no=2&isMobileApp=True");
    expect(episodeURL("https://x.test/viewer?pid=p&vol=1", 3)).toBe("/viewer?pid=p&no=3");
  });
});
