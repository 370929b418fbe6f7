// Number and text rules of the screens (seed §5, §4).

export const VIEW_COUNT_MAX = 999_990_000_000; // '9,999.9억'

function ceilTo(n: number, step: number): number {
  return Math.ceil(n / step) * step;
}

function trim(n: number): string {
  // one decimal at most, thousands separated, no trailing ".0"
  const fixed = Math.round(n * 10) / 10;
  return fixed.toLocaleString("en-US", { maximumFractionDigits: 1 });
}

/**
 * viewCount formats a view count the seed's way: '1천' at 1000 or less,
 * '9,999.9억' at the maximum, otherwise rounded up in steps of 100 (shown in
 * 천), 1,000 (in 만) or 10 million (in 억).
 */
export function viewCount(n: number): string {
  if (!Number.isFinite(n) || n <= 1000) return "1천";
  if (n >= VIEW_COUNT_MAX) return "9,999.9억";
  if (n < 10_000) {
    const v = ceilTo(n, 100);
    return v >= 10_000 ? "1만" : `${trim(v / 1000)}천`;
  }
  if (n < 100_000_000) {
    const v = ceilTo(n, 1000);
    if (v >= 100_000_000) return "1억";
    return `${trim(v / 10_000)}만`;
  }
  return `${trim(Math.min(ceilTo(n, 10_000_000), VIEW_COUNT_MAX) / 100_000_000)}억`;
}

/** won formats an amount of money: 1,200원. */
export const won = (n: number) => `${Math.max(0, Math.round(n)).toLocaleString("en-US")}원`;

export type BenefitInput = {
  freeCoupon?: boolean; // wait-for-free or gift
  freeVolCnt?: number;
  cashbackRate?: number;
  discountRate?: number;
  limitedRental?: boolean;
};

/** benefitLine: at most 2 of free coupon, free volume, cashback, discount, limited rental, in that order. */
export function benefitLine(b: BenefitInput): string[] {
  const out: string[] = [];
  if (b.freeCoupon) out.push("기다리면 무료");
  if ((b.freeVolCnt ?? 0) > 0) out.push(`${b.freeVolCnt}화 무료`);
  if ((b.cashbackRate ?? 0) > 0) out.push(`${b.cashbackRate}% 캐시백`);
  if ((b.discountRate ?? 0) > 0) out.push(`${b.discountRate}% 할인`);
  if (b.limitedRental) out.push("기간한정 대여");
  return out.slice(0, 2);
}

/** countdown shows the seconds left until a wait-for-free coupon: "2시간 5분", "3분 10초", "곧". */
export function countdown(seconds: number): string {
  if (seconds <= 0) return "지금";
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = Math.floor(seconds % 60);
  if (h > 0) return `${h}시간 ${m}분`;
  if (m > 0) return `${m}분 ${s}초`;
  return `${s}초`;
}

/** Wait-for-free wait is recycle minutes × 60 seconds (seed §9). */
export const wffWaitSeconds = (recycleMinutes: number) => recycleMinutes * 60;
/** A wait-for-free coupon is available when its wait time is 0 or less. */
export const wffAvailable = (waitTime: number) => waitTime <= 0;
