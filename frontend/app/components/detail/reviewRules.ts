// Review rules of seed §4.
import type { Review } from "~/utils/storeApi";

/** A like toggles isMyLike and moves likeCnt by one, never below 0. */
export function applyLike<T extends Pick<Review, "isMyLike" | "likeCnt">>(r: T): T {
  return { ...r, isMyLike: !r.isMyLike, likeCnt: Math.max(0, r.likeCnt + (r.isMyLike ? -1 : 1)) };
}
