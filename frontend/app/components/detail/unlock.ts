// Every way a reader can open one volume (seed §3, §4), as pure data so the
// sheet and its tests agree.
import type { CouponInfo, SalesStatus, Vol } from "~/utils/storeApi";
import { earlyOwned } from "./early";

export type UnlockKind = "free" | "owned" | "rented" | "wff" | "read" | "pass" | "jumping" | "rent" | "buy" | "ticket";
export type UnlockOption = { kind: UnlockKind; label: string; price?: number; note?: string; available: boolean };

export type UnlockContext = {
  vol: Vol;
  /** the member's entitlements, when logged in */
  status?: SalesStatus | null;
  coupons?: CouponInfo | null;
  /** volume numbers, newest last, to apply the wait-for-free exclusion of the newest volumes */
  allNos: number[];
  isRental: boolean;
  isBuy: boolean;
  isTicket: boolean;
  /** tickets that can rent this work now (the writer's ticketCount) */
  tickets: number;
  /** the work takes the jumping pass */
  jumpingWork: boolean;
  now: number;
};

export const UNDO_MS = 3000;

/** entitlement of a volume: bought beats a running rental. */
export function entitlement(no: number, status: SalesStatus | null | undefined, now: number): "owned" | "rented" | null {
  const v = status?.volList.find((x) => x.no === no);
  // An episode bought early is owned before its release, when volList does not list it yet.
  if (!v) return earlyOwned(no, status) ? "owned" : null;
  if (v.buyInfo.isAuth) return "owned";
  if (v.rentalInfo.isAuth && (!v.rentalInfo.authEndDate || Date.parse(v.rentalInfo.authEndDate) > now)) return "rented";
  return null;
}

export function unlockOptions(c: UnlockContext): UnlockOption[] {
  const { vol } = c;
  if (vol.isFree) return [{ kind: "free", label: "무료로 보기", available: true }];
  const e = entitlement(vol.no, c.status, c.now);
  if (e === "owned") return [{ kind: "owned", label: "소장한 회차", available: true }];
  if (e === "rented") return [{ kind: "rented", label: "대여 중인 회차", available: true }];
  // 미리보기: bought only, at its early price; no coupon, ticket, pass or rental opens it.
  if (vol.isEarly) return [{ kind: "buy", label: "미리보기 소장", price: vol.buyInfo.price, available: true, note: "공개 전에 먼저 보기" }];

  const out: UnlockOption[] = [];
  const w = c.coupons?.WCPInfo;
  // The newest volumes a wait-for-free work keeps out are out of a pass's reach too (the jumping pass opens them).
  const excluded = !!w && w.excludeNewest > 0 && c.allNos.slice(-w.excludeNewest).includes(vol.no);
  if (w) {
    out.push({
      kind: "wff",
      label: "기다리면 무료",
      available: !excluded && w.isAvailable && w.waitTime <= 0,
      note: excluded ? `최신 ${w.excludeNewest}화 제외` : w.waitTime > 0 ? `${Math.ceil(w.waitTime / 60)}분 후 충전` : `${w.recycle / 60}시간마다 충전`,
    });
  }
  // Only read coupons received from the gift box and usable now count (count - usedCnt holds the rest too).
  const readLeft = Math.max(0, c.coupons?.RCPInfo.usableCnt ?? 0);
  if (readLeft > 0) out.push({ kind: "read", label: "열람 쿠폰", available: true, note: `${readLeft}장 남음` });
  const p = c.coupons?.PCPInfo;
  if (p && p.passCount > 0)
    out.push({ kind: "pass", label: "이용권", available: !excluded, note: excluded ? `최신 ${w!.excludeNewest}화 제외` : `${Math.max(0, p.passCount)}장 남음` });
  if (p && p.jumpingCount > 0 && c.jumpingWork) out.push({ kind: "jumping", label: "점핑패스", available: true, note: `${Math.max(0, p.jumpingCount)}장 남음` });
  if (c.isTicket && c.tickets > 0) out.push({ kind: "ticket", label: "대여권", available: true, note: `${c.tickets}장 남음` });
  if (c.isRental && vol.rentalInfo.price > 0) out.push({ kind: "rent", label: "대여", price: vol.rentalInfo.price, available: true });
  if (c.isBuy && vol.buyInfo.price > 0) out.push({ kind: "buy", label: "소장", price: vol.buyInfo.price, available: true });
  return out;
}

/** canRead: the reader may open the full volume without another step. */
export const canRead = (opts: UnlockOption[]) => opts.length === 1 && (opts[0].kind === "free" || opts[0].kind === "owned" || opts[0].kind === "rented");

/** balanceShort is how much money is missing for a price (0 when enough). */
export const balanceShort = (balance: number, price: number) => Math.max(0, price - balance);
