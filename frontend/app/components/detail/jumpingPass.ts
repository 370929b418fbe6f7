// The jumping pass (seed §3 PCPInfo, §4): bought on /jumpingpass from the
// writer, spent on the detail page like any coupon. Pure shapes and the calls.
import { http as defaultHttp } from "~/utils/api";
import type { Http } from "~/utils/http";
import { API, getCoupons, idemKey, type CouponInfo, type Wallet } from "~/utils/storeApi";

export const JUMPING_PASS_BUY = `${API}/coupons/jumping-pass`;

/** The writer's answer to a purchase (writer/money JumpingPassResult). */
export type JumpingPassBought = { jcpId: number; amount: number; paid: Record<string, number>; expiresAt: string; wallet: Wallet };

/** buyJumpingPass buys one pass; the key makes a retried call count once. A short balance is 402. */
export const buyJumpingPass = (key = idemKey(), http: Http = defaultHttp) =>
  http<JumpingPassBought>(JUMPING_PASS_BUY, { method: "POST", json: {}, headers: { "Idempotency-Key": key } });

/** The reader's passes: how many are left and when each ends, earliest first. */
export type Passes = { count: number; expires: string[] };

export const passesOf = (pcp: CouponInfo["PCPInfo"]): Passes => ({ count: Math.max(0, pcp.jumpingCount), expires: [...pcp.jumpingExpireDates] });

/**
 * loadPasses reads the reader's passes. The writer answers them with a work's
 * coupons (the passes are the member's, not the work's), so any work on the
 * page will do; null when there is none or the call failed.
 */
export async function loadPasses(pid: string | undefined, coupons: (pid: string) => Promise<CouponInfo> = getCoupons): Promise<Passes | null> {
  if (!pid) return null;
  try {
    return passesOf((await coupons(pid)).PCPInfo);
  } catch {
    return null;
  }
}

/** afterPurchase: what is known without reading again: the pass just bought added to the passes known before. */
export function afterPurchase(before: Passes | null, bought: Pick<JumpingPassBought, "expiresAt">): Passes {
  const expires = [...(before?.expires ?? []), bought.expiresAt].sort((a, b) => Date.parse(a) - Date.parse(b));
  return { count: (before?.count ?? 0) + 1, expires };
}

const KST_MS = 32_400_000; // seed §9: Korean time is UTC+9

/** kstDateTime shows an instant as the reader's (Korean) wall time: 2026.12.21 14:05. */
export function kstDateTime(iso: string): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return "";
  const k = new Date(t + KST_MS);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${k.getUTCFullYear()}.${p(k.getUTCMonth() + 1)}.${p(k.getUTCDate())} ${p(k.getUTCHours())}:${p(k.getUTCMinutes())}`;
}
