// The list of volumes saved for offline reading, and what empties it. Small on
// purpose: the shell imports it (logout clears saved volumes, start-up drops
// ended rentals); saving and opening live in savedVolumes.ts, the viewer's.
import { CACHE } from "~/sw/routes";

/** SAVED_KEY: local storage key of the list (SavedVolume[]). */
export const SAVED_KEY = "sf_saved_volumes";

/** SavedVolume: one volume kept in Cache Storage (CACHE.saved). */
export type SavedVolume = {
  /** the member who saved it: another member on this browser does not see it */
  uid: string;
  pid: string;
  no: number;
  title: string;
  volTitle: string;
  savedAt: number;
  /** the rental's end (ms); null for a volume the member owns */
  expiresAt: number | null;
  /** bytes kept: pages or text chunks, and the answers the viewer opens it with */
  bytes: number;
  /** every cache key of the volume */
  urls: string[];
};

type Store = Pick<Storage, "getItem" | "setItem" | "removeItem">;
type Caches = Pick<CacheStorage, "open" | "delete">;

export function readSaved(storage: Store = localStorage): SavedVolume[] {
  try {
    const v = JSON.parse(storage.getItem(SAVED_KEY) ?? "[]");
    return Array.isArray(v) ? (v as SavedVolume[]) : [];
  } catch {
    return [];
  }
}

export function writeSaved(list: SavedVolume[], storage: Store = localStorage) {
  if (list.length === 0) storage.removeItem(SAVED_KEY);
  else storage.setItem(SAVED_KEY, JSON.stringify(list));
}

/** isExpired: a rental whose end has come; an owned volume never expires. */
export const isExpired = (v: Pick<SavedVolume, "expiresAt">, now: number) => v.expiresAt !== null && now >= v.expiresAt;

const defaultCaches = (): Caches | null => (typeof caches === "undefined" ? null : caches);

/** dropSaved deletes these volumes' cache entries and takes them off the list. */
export async function dropSaved(gone: SavedVolume[], deps: { storage?: Store; caches?: Caches | null } = {}) {
  if (gone.length === 0) return;
  const storage = deps.storage ?? localStorage;
  const key = (v: SavedVolume) => `${v.uid}/${v.pid}/${v.no}`;
  const drop = new Set(gone.map(key));
  writeSaved(
    readSaved(storage).filter((v) => !drop.has(key(v))),
    storage,
  );
  const cs = deps.caches === undefined ? defaultCaches() : deps.caches;
  if (!cs) return;
  const cache = await cs.open(CACHE.saved);
  await Promise.all(gone.flatMap((v) => v.urls.map((u) => cache.delete(u))));
}

/** pruneExpired drops the saved rentals that have ended (at start-up and before a volume opens). */
export async function pruneExpired(now = Date.now(), deps: { storage?: Store; caches?: Caches | null } = {}) {
  await dropSaved(
    readSaved(deps.storage ?? localStorage).filter((v) => isExpired(v, now)),
    deps,
  );
}

/**
 * clearSaved forgets every saved volume: the list and the whole cache. The
 * logout of this tab and of another tab (storage key 'logout') both end in
 * clearLocal, which calls it.
 */
export async function clearSaved(deps: { storage?: Store; caches?: Caches | null } = {}) {
  (deps.storage ?? localStorage).removeItem(SAVED_KEY);
  const cs = deps.caches === undefined ? defaultCaches() : deps.caches;
  await cs?.delete(CACHE.saved);
}
