// Early access (미리보기, issue 32): the episodes a work sells before their
// release. The edge's detail lists them apart (earlyList), with the early
// price as buyInfo.price; the member's status says which are bought. They
// are bought, never rented, and no coupon, ticket or pass opens them.
import type { SalesStatus, Vol } from "~/utils/storeApi";
import { won } from "~/utils/format";

/** The badge an early episode carries in the list. */
export const EARLY_BADGE = "미리보기";

/** earlyOwned: the member bought volume no early (their status's earlyList). */
export function earlyOwned(no: number, status: SalesStatus | null | undefined): boolean {
  return !!status?.earlyList?.some((e) => e.no === no && e.isAuth);
}

/**
 * earlyVols is what the list shows of the early episodes: the edge's
 * earlyList, minus any volume the list already has as released (an edge
 * whose clock passed a release before its detail was reloaded).
 */
export function earlyVols(early: Vol[] | undefined, released: Vol[]): Vol[] {
  if (!early?.length) return [];
  const have = new Set(released.map((v) => v.no));
  return early.filter((v) => v.isEarly && !have.has(v.no));
}

/** earlyState is the right-hand label of an early episode: 소장 once bought, else its early price. */
export function earlyState(v: Vol, status: SalesStatus | null | undefined): { owned: boolean; label: string } {
  if (earlyOwned(v.no, status)) return { owned: true, label: "소장" };
  return { owned: false, label: `소장 ${won(v.buyInfo.price)}` };
}

/** earlyReleaseLabel: when it comes out for everyone, in KST ("3월 5일 23:00 공개"). */
export function earlyReleaseLabel(v: Vol): string {
  const d = new Date(v.releaseAt);
  const f = new Intl.DateTimeFormat("ko-KR", { timeZone: "Asia/Seoul", month: "long", day: "numeric", hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
  return `${f.format(d)} 공개`;
}
