import { describe, expect, it } from "vitest";
import type { CouponInfo, SalesStatus, Vol } from "~/utils/storeApi";
import { balanceShort, canRead, entitlement, unlockOptions } from "./unlock";

const vol = (no: number, o: Partial<Vol> = {}): Vol => ({
  no,
  title: `${no}화`,
  releaseAt: "",
  isFree: false,
  isPreView: true,
  pages: 5,
  previewPages: 2,
  contentBase: "",
  rentalInfo: { isAuth: false, price: 100, price_org: 100 },
  buyInfo: { isAuth: false, price: 200, price_org: 200 },
  ...o,
});
const status = (vols: SalesStatus["volList"]): SalesStatus => ({ isBuy: false, isRental: false, buyLeftPrice: 0, buyLeftCount: 0, rentLeftPrice: 0, rentLeftCount: 0, volList: vols });
const coupons = (o: Partial<CouponInfo> = {}): CouponInfo => ({
  RCPInfo: { count: 0, usedCnt: 0, isRecv: true },
  PCPInfo: { passCount: 0, jumpingCount: 0, jumpingExpireDates: [] },
  ...o,
});
const base = { allNos: [1, 2, 3, 4, 5], isRental: true, isBuy: true, isTicket: false, tickets: 0, jumpingWork: true, now: Date.parse("2026-11-22T00:00:00Z") };

describe("unlockOptions", () => {
  it("free volumes are read directly", () => {
    const o = unlockOptions({ ...base, vol: vol(1, { isFree: true }) });
    expect(o.map((x) => x.kind)).toEqual(["free"]);
    expect(canRead(o)).toBe(true);
  });
  it("bought beats rented, an expired rental does not count", () => {
    const auth = (b: boolean, r: boolean, end?: string) => ({ no: 3, buyInfo: { isAuth: b, price: 200, price_org: 200 }, rentalInfo: { isAuth: r, authEndDate: end, price: 100, price_org: 100 } });
    expect(entitlement(3, status([auth(true, true)]), base.now)).toBe("owned");
    expect(entitlement(3, status([auth(false, true, "2026-11-23T00:00:00Z")]), base.now)).toBe("rented");
    expect(entitlement(3, status([auth(false, true, "2026-11-21T00:00:00Z")]), base.now)).toBeNull();
    expect(canRead(unlockOptions({ ...base, vol: vol(3), status: status([auth(false, true, "2026-11-23T00:00:00Z")]) }))).toBe(true);
  });
  it("lists every way in order: wait-for-free, read coupon, pass, jumping, ticket, rent, buy", () => {
    const o = unlockOptions({
      ...base,
      isTicket: true,
      tickets: 2,
      vol: vol(3),
      coupons: coupons({
        WCPInfo: { recycle: 180, isAvailable: true, waitTime: 0, excludeNewest: 1 },
        RCPInfo: { count: 3, usedCnt: 1, usableCnt: 2, isRecv: true },
        PCPInfo: { passCount: 1, jumpingCount: 2, jumpingExpireDates: [] },
      }),
    });
    expect(o.map((x) => x.kind)).toEqual(["wff", "read", "pass", "jumping", "ticket", "rent", "buy"]);
    expect(o.find((x) => x.kind === "read")!.note).toBe("2장 남음");
    expect(o.find((x) => x.kind === "rent")!.price).toBe(100);
    expect(canRead(o)).toBe(false);
  });
  it("wait-for-free waits while its wait time is above 0 and skips the newest volumes", () => {
    const waiting = unlockOptions({ ...base, vol: vol(3), coupons: coupons({ WCPInfo: { recycle: 180, isAvailable: false, waitTime: 600, excludeNewest: 1 } }) });
    expect(waiting[0]).toMatchObject({ kind: "wff", available: false, note: "10분 후 충전" });
    const newest = unlockOptions({ ...base, vol: vol(5), coupons: coupons({ WCPInfo: { recycle: 180, isAvailable: true, waitTime: 0, excludeNewest: 1 } }) });
    expect(newest[0]).toMatchObject({ kind: "wff", available: false, note: "최신 1화 제외" });
  });
  it("offers read coupons only once received and usable, whatever count - usedCnt says", () => {
    const inGiftBox = unlockOptions({ ...base, vol: vol(3), coupons: coupons({ RCPInfo: { count: 2, usedCnt: 0, usableCnt: 0, isRecv: false } }) });
    expect(inGiftBox.map((x) => x.kind)).toEqual(["rent", "buy"]);
    const ready = unlockOptions({ ...base, vol: vol(3), coupons: coupons({ RCPInfo: { count: 3, usedCnt: 0, usableCnt: 1, isRecv: false } }) });
    expect(ready[0]).toMatchObject({ kind: "read", available: true, note: "1장 남음" });
  });
  it("a pass cannot open the newest volumes a wait-for-free work keeps out; the jumping pass can, on its works only", () => {
    const c = coupons({
      WCPInfo: { recycle: 180, isAvailable: true, waitTime: 0, excludeNewest: 2 },
      PCPInfo: { passCount: 1, jumpingCount: 1, jumpingExpireDates: [] },
    });
    const newest = unlockOptions({ ...base, vol: vol(4), coupons: c });
    expect(newest.find((x) => x.kind === "pass")).toMatchObject({ available: false, note: "최신 2화 제외" });
    expect(newest.find((x) => x.kind === "jumping")).toMatchObject({ available: true });
    expect(unlockOptions({ ...base, vol: vol(3), coupons: c }).find((x) => x.kind === "pass")).toMatchObject({ available: true, note: "1장 남음" });
    expect(unlockOptions({ ...base, jumpingWork: false, vol: vol(4), coupons: c }).some((x) => x.kind === "jumping")).toBe(false);
  });
  it("tickets are the work's own count", () => {
    expect(unlockOptions({ ...base, isTicket: true, tickets: 0, vol: vol(3) }).some((x) => x.kind === "ticket")).toBe(false);
    expect(unlockOptions({ ...base, isTicket: true, tickets: 1, vol: vol(3) }).find((x) => x.kind === "ticket")).toMatchObject({ note: "1장 남음" });
  });
  it("hides rent and buy when the work is not sold that way", () => {
    const o = unlockOptions({ ...base, isRental: false, vol: vol(3) });
    expect(o.map((x) => x.kind)).toEqual(["buy"]);
  });
});

it("balanceShort tells what is missing", () => {
  expect(balanceShort(100, 200)).toBe(100);
  expect(balanceShort(300, 200)).toBe(0);
});
