/**
 * Early access (미리보기, issue 32) of a work as the admin work editor sets it:
 * the form's two fields checked by the writer's own rules
 * (writer/catalog/products.go Normalize) before anything is sent, and the
 * PATCH body. The body always carries both fields: the writer merges it into
 * the stored work, so {earlyCount: 0} alone would keep a set price and be
 * refused.
 */

// The writer's bounds (catalog.MaxEarlyCount, MinEarlyPrice, MaxEarlyPrice).
export const MAX_EARLY_COUNT = 50;
export const MIN_EARLY_PRICE = 100;
export const MAX_EARLY_PRICE = 1_000_000;
export const EARLY_PRICE_STEP = 100;

export type EarlyAccess = { earlyCount: number; earlyPrice: number };

export type EarlyCheck = { ok: true; payload: EarlyAccess } | { ok: false; field: "earlyCount" | "earlyPrice"; message: string };

export const COUNT_MESSAGE = `미리보기 회차 수는 0부터 ${MAX_EARLY_COUNT}까지의 정수로 정해 주세요.`;
export const PRICE_MESSAGE = `미리보기 가격은 ${MIN_EARLY_PRICE.toLocaleString("ko-KR")}원부터 ${MAX_EARLY_PRICE.toLocaleString("ko-KR")}원까지, ${EARLY_PRICE_STEP}원 단위로 정해 주세요.`;

/** A whole number written with digits (thousands commas and spaces allowed), or null. */
function wholeNumber(raw: string): number | null {
  const s = raw.replace(/[,\s]/g, "");
  if (!/^\d{1,9}$/.test(s)) return null;
  return Number(s);
}

/**
 * Checks the form's fields and makes the body of PATCH works/{pid}. An empty
 * count is 0. A count of 0 turns early access off and sends price 0 whatever
 * the price field says (the writer refuses a price without a count).
 */
export function checkEarlyAccess(countRaw: string, priceRaw: string): EarlyCheck {
  const count = countRaw.trim() === "" ? 0 : wholeNumber(countRaw);
  if (count === null || count > MAX_EARLY_COUNT) return { ok: false, field: "earlyCount", message: COUNT_MESSAGE };
  if (count === 0) return { ok: true, payload: { earlyCount: 0, earlyPrice: 0 } };
  const price = wholeNumber(priceRaw);
  if (price === null || price < MIN_EARLY_PRICE || price > MAX_EARLY_PRICE || price % EARLY_PRICE_STEP !== 0)
    return { ok: false, field: "earlyPrice", message: PRICE_MESSAGE };
  return { ok: true, payload: { earlyCount: count, earlyPrice: price } };
}

/** The stored setting of a work document (the writer omits zero fields). */
export function earlyOf(p: { earlyCount?: number; earlyPrice?: number }): EarlyAccess {
  return { earlyCount: p.earlyCount ?? 0, earlyPrice: p.earlyPrice ?? 0 };
}
