// "Save for offline" (오프라인 저장): a volume the member owns or rents kept in
// Cache Storage with the answers the viewer opens it with, until the rental
// ends or the member logs out; the space it takes is counted and bounded.
// The service worker answers the viewer's marked page addresses from it
// (app/sw/sw.ts); opening without a network reads the answers from it here.
import { chunkURL, LADDER, pageURL, total, type Manifest } from "~/components/viewer/media";
import type { Detail, DownloadAuth } from "~/utils/storeApi";
import { CACHE } from "~/sw/routes";
import { dropSaved, isExpired, readSaved, writeSaved, type SavedVolume } from "./savedIndex";

/** SAVED_LIMIT_BYTES: what saved volumes may take together; the oldest saved go first to make room. */
export const SAVED_LIMIT_BYTES = 200 * 1024 * 1024;

export const SAVE_TOO_BIG = "이 회차는 오프라인 저장 한도(200MB)보다 커서 저장할 수 없습니다.";
export const SAVE_NO_SPACE = "기기의 저장 공간이 부족하여 오프라인 저장을 하지 못했습니다.";
export const SAVE_FAILED = "오프라인 저장에 실패했습니다. 잠시 후 다시 시도해 주세요.";
export const SAVE_NOT_OWNED = "구매하거나 대여한 회차만 오프라인 저장할 수 있습니다.";

export class SaveError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SaveError";
  }
}

/**
 * expiryOf is when a saved copy must go: the rental's end (R), never for a
 * volume bought (B); undefined when the answer gives no right to keep it
 * (a preview, a free volume, no token).
 */
export function expiryOf(auth: Pick<DownloadAuth, "isAuth" | "authType" | "authEndDate" | "token">): number | null | undefined {
  if (!auth.isAuth || !auth.token) return undefined;
  if (auth.authType === "B") return null;
  if (auth.authType === "R" && auth.authEndDate) {
    const t = Date.parse(auth.authEndDate);
    return Number.isNaN(t) ? undefined : t;
  }
  return undefined;
}

/**
 * planRoom says what must go for a volume of `bytes` to fit under `limit`:
 * ended rentals always, then the oldest saved first; refused (with the
 * member's message) when the volume alone is over the limit.
 */
export function planRoom(saved: SavedVolume[], bytes: number, limit: number, now: number): { evict: SavedVolume[] } | { refuse: string } {
  if (bytes > limit) return { refuse: SAVE_TOO_BIG };
  const evict = saved.filter((v) => isExpired(v, now));
  const kept = saved.filter((v) => !isExpired(v, now)).sort((a, b) => a.savedAt - b.savedAt);
  let used = kept.reduce((n, v) => n + v.bytes, 0);
  while (used + bytes > limit && kept.length > 0) {
    const v = kept.shift()!;
    evict.push(v);
    used -= v.bytes;
  }
  return { evict };
}

/** findSaved: the member's saved copy of pid/no, unless its rental ended. */
export function findSaved(uid: string, pid: string, no: number | null, now = Date.now()): SavedVolume | undefined {
  return readSaved().find((v) => v.uid === uid && v.pid === pid && (no === null || v.no === no) && !isExpired(v, now));
}

const answersKey = (pid: string, no: number) => `/__saved/${encodeURIComponent(pid)}/${no}`;

/** The answers a saved volume opens with (kept as the page verified them when saving). */
export type SavedAnswers = { detail: Detail; manifest: Manifest; auth: DownloadAuth };

/** loadSaved reads what the viewer needs to open a saved volume without a network. */
export async function loadSaved(v: SavedVolume): Promise<SavedAnswers | null> {
  const res = await (await caches.open(CACHE.saved)).match(answersKey(v.pid, v.no));
  return res ? ((await res.json()) as SavedAnswers) : null;
}

/** saveWidth: the one width of each page kept: the ladder's first at least as wide as the screen's pixels. */
export const saveWidth = (cssWidth: number, dpr: number) => LADDER.find((w) => w >= cssWidth * dpr) ?? LADDER[LADDER.length - 1];

const isQuota = (e: unknown) => e instanceof DOMException && (e.name === "QuotaExceededError" || e.code === 22);

/**
 * saveVolume keeps the volume's pages (or text chunks) at one width and the
 * answers to open it with, then makes room under the limit. On any failure
 * nothing of this volume stays.
 */
export async function saveVolume(
  a: SavedAnswers & { uid: string; no: number; width: number },
  deps: { fetch?: typeof fetch; now?: number; limit?: number; onProgress?: (done: number, of: number) => void } = {},
): Promise<SavedVolume> {
  const expiresAt = expiryOf(a.auth);
  if (expiresAt === undefined) throw new SaveError(SAVE_NOT_OWNED);
  const doFetch = deps.fetch ?? globalThis.fetch.bind(globalThis);
  const now = deps.now ?? Date.now();
  // The network's addresses: the saved mark would only send them through the saved copy first.
  const m: Manifest = { ...a.manifest, saved: false };
  const token = a.auth.token!;
  const n = total(m);
  const urls = Array.from({ length: n }, (_, i) => (m.kind === "text" ? chunkURL(m, i + 1, token) : pageURL(m, i + 1, a.width, token)));
  const cache = await caches.open(CACHE.saved);
  const key = answersKey(a.detail.prodInfo.pid, a.no);
  let bytes = 0;
  let done = 0;
  try {
    // A few at a time: a phone on a slow line, and the edge's fair share.
    const queue = [...urls];
    const worker = async () => {
      for (let u = queue.shift(); u !== undefined; u = queue.shift()) {
        const res = await doFetch(u, { credentials: "same-origin", headers: { Accept: "image/avif,image/webp,image/*,text/html;q=0.9,*/*;q=0.8" } });
        if (!res.ok) throw new SaveError(SAVE_FAILED);
        const body = await res.arrayBuffer();
        bytes += body.byteLength;
        await cache.put(u, new Response(body, { headers: { "Content-Type": res.headers.get("Content-Type") ?? "application/octet-stream" } }));
        deps.onProgress?.(++done, n);
      }
    };
    await Promise.all([worker(), worker(), worker()]);
    const answers = JSON.stringify({ detail: a.detail, manifest: m, auth: a.auth } satisfies SavedAnswers);
    bytes += answers.length;
    await cache.put(key, new Response(answers, { headers: { "Content-Type": "application/json" } }));
  } catch (e) {
    await Promise.all([...urls, key].map((u) => cache.delete(u)));
    if (e instanceof SaveError) throw e;
    throw new SaveError(isQuota(e) ? SAVE_NO_SPACE : SAVE_FAILED);
  }
  const v: SavedVolume = {
    uid: a.uid,
    pid: a.detail.prodInfo.pid,
    no: a.no,
    title: a.detail.prodInfo.title,
    volTitle: a.detail.volList.find((x) => x.no === a.no)?.title ?? "",
    savedAt: now,
    expiresAt,
    bytes,
    urls: [...urls, key],
  };
  const others = readSaved().filter((x) => !(x.uid === v.uid && x.pid === v.pid && x.no === v.no));
  const plan = planRoom(others, bytes, deps.limit ?? SAVED_LIMIT_BYTES, now);
  if ("refuse" in plan) {
    await Promise.all(v.urls.map((u) => cache.delete(u)));
    throw new SaveError(plan.refuse);
  }
  await dropSaved(plan.evict);
  writeSaved([...readSaved().filter((x) => !(x.uid === v.uid && x.pid === v.pid && x.no === v.no)), v]);
  return v;
}

/** removeSaved deletes one saved volume. */
export const removeSaved = (v: SavedVolume) => dropSaved([v]);

/** What saved volumes take: our own count, and the browser's estimate of this origin's use and quota. */
export type StorageUse = { count: number; bytes: number; limit: number; usage?: number; quota?: number };

export async function storageUse(uid: string, limit = SAVED_LIMIT_BYTES): Promise<StorageUse> {
  const mine = readSaved().filter((v) => v.uid === uid);
  const use: StorageUse = { count: mine.length, bytes: mine.reduce((n, v) => n + v.bytes, 0), limit };
  try {
    const e = await navigator.storage?.estimate?.();
    if (e) Object.assign(use, { usage: e.usage, quota: e.quota });
  } catch {
    /* no estimate in this browser: our count is shown alone */
  }
  return use;
}

/** formatBytes: 512KB, 12.3MB, 1.2GB (one decimal from MB on). */
export function formatBytes(n: number): string {
  if (n >= 1024 ** 3) return `${(n / 1024 ** 3).toFixed(1)}GB`;
  if (n >= 1024 ** 2) return `${(n / 1024 ** 2).toFixed(1)}MB`;
  return `${Math.ceil(n / 1024)}KB`;
}
