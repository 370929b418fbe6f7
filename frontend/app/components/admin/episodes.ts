/**
 * The partner portal's episode form (issue 31 item 3): what a provider or a
 * content manager types, checked and turned into the writer's volume fields.
 * Release times are typed in Korean time (datetime-local has no zone): the
 * store releases at KST hours whatever the browser's zone.
 */

/** A volume as the writer's work document holds it (contract.Volume). */
export type Episode = {
  no: number;
  title: string;
  releaseAt: string;
  isFree: boolean;
  buyPrice: number;
  rentPrice: number;
  pages: number;
  contentVer?: string;
  [field: string]: unknown;
};

/** A provider's contract limits (null: none). */
export type Limits = { minPrice: number | null; maxPrice: number | null; maxFree: number | null };

const KST_MS = 9 * 60 * 60 * 1000;

/** "YYYY-MM-DDTHH:mm" in Korean time, for a datetime-local field. */
export function kstInput(iso: string): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t) || t <= 0) return "";
  return new Date(t + KST_MS).toISOString().slice(0, 16);
}

/** The instant a datetime-local value names in Korean time, as RFC 3339; null if it is not one. */
export function fromKstInput(v: string): string | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(v)) return null;
  const t = Date.parse(`${v}:00+09:00`);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

export const PRICE_MESSAGE = "가격은 0 이상의 정수(원)로 입력해 주세요.";
export const RELEASE_MESSAGE = "공개 시각을 입력해 주세요 (한국 시간).";
export const TITLE_MESSAGE = "회차 제목은 1~100자로 입력해 주세요.";

export type EpisodeFields = Pick<Episode, "title" | "releaseAt" | "isFree" | "buyPrice" | "rentPrice">;

function won(v: string): number | null {
  const s = v.trim().replaceAll(",", "");
  if (s === "") return 0;
  return /^\d{1,7}$/.test(s) ? Number(s) : null;
}

/**
 * The form's fields as the writer's, or the first refusal. The contract's
 * limits are the writer's to enforce (it refuses in Korean); this checks
 * only what can be read at all.
 */
export function readEpisode(form: FormData): { ok: true; fields: EpisodeFields } | { ok: false; message: string } {
  const title = String(form.get("title") ?? "").trim();
  if (title.length < 1 || title.length > 100) return { ok: false, message: TITLE_MESSAGE };
  const releaseAt = fromKstInput(String(form.get("releaseAt") ?? ""));
  if (!releaseAt) return { ok: false, message: RELEASE_MESSAGE };
  const buyPrice = won(String(form.get("buyPrice") ?? ""));
  const rentPrice = won(String(form.get("rentPrice") ?? ""));
  if (buyPrice === null || rentPrice === null) return { ok: false, message: PRICE_MESSAGE };
  return { ok: true, fields: { title, releaseAt, isFree: form.get("isFree") === "on", buyPrice, rentPrice } };
}

/** The contract's limits as a sentence, or null when there are none. */
export function limitsText(l: Limits | null | undefined): string | null {
  if (!l) return null;
  const parts: string[] = [];
  const n = (v: number) => `${v.toLocaleString("ko-KR")}원`;
  if (l.minPrice !== null && l.maxPrice !== null) parts.push(`유료 회차 가격 ${n(l.minPrice)}~${n(l.maxPrice)}`);
  else if (l.minPrice !== null) parts.push(`유료 회차 가격 ${n(l.minPrice)} 이상`);
  else if (l.maxPrice !== null) parts.push(`유료 회차 가격 ${n(l.maxPrice)} 이하`);
  if (l.maxFree !== null) parts.push(`무료 회차 작품당 ${l.maxFree}개까지`);
  return parts.length ? parts.join(", ") : null;
}
