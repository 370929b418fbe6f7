// The search screen's logic, kept out of React so that it can be tested with
// fake timers: results as the reader types (debounced, each new keystroke
// cancelling the request before it) and the recent searches kept on the device.
import { API, type ListAnswer } from "~/utils/storeApi";
import { http } from "~/utils/api";
import { isHttpError } from "~/utils/http";
import { getLocal, setLocal } from "~/utils/prefs";

/** The edge refuses longer queries (edge/server/routes_site.go). */
export const MAX_QUERY = 50;
/** Quiet time after a keystroke before the edge is asked. */
export const SEARCH_DELAY_MS = 200;
export const RECENT_KEY = "sf_recent_searches";
export const RECENT_MAX = 10;

/** The query as sent: trimmed, at most MAX_QUERY characters (code points). */
export function cleanQuery(q: string): string {
  return Array.from(q.trim()).slice(0, MAX_QUERY).join("").trim();
}

export const searchWorks = (q: string, signal: AbortSignal) =>
  http<ListAnswer>(`${API}/search`, { query: { q, size: 30 }, signal });

export type LiveState<T> =
  | { status: "idle"; q: "" }
  | { status: "loading"; q: string; result?: T }
  | { status: "done"; q: string; result: T }
  | { status: "error"; q: string; error: unknown };

/**
 * Live search: input(q) waits delayMs of quiet, then runs the search with a
 * fresh AbortController, aborting the one before; an answer that arrives for a
 * query no longer typed is dropped. While a new query waits, the last result
 * stays in the state so the list does not flash empty.
 */
export function createLiveSearch<T>(run: (q: string, signal: AbortSignal) => Promise<T>, onState: (s: LiveState<T>) => void, delayMs = SEARCH_DELAY_MS) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let ctrl: AbortController | null = null;
  let last: T | undefined;
  const stop = () => {
    clearTimeout(timer);
    ctrl?.abort();
    ctrl = null;
  };
  return {
    input(raw: string) {
      stop();
      const q = cleanQuery(raw);
      if (!q) {
        last = undefined;
        onState({ status: "idle", q: "" });
        return;
      }
      onState({ status: "loading", q, result: last });
      timer = setTimeout(() => {
        const c = new AbortController();
        ctrl = c;
        run(q, c.signal).then(
          (result) => {
            if (c.signal.aborted) return;
            last = result;
            onState({ status: "done", q, result });
          },
          (error) => {
            if (!c.signal.aborted) onState({ status: "error", q, error });
          },
        );
      }, delayMs);
    },
    dispose: stop,
  };
}

/** Recent searches, newest first, without duplicates. */
export function recentSearches(store?: Storage): string[] {
  try {
    const v = JSON.parse(getLocal(RECENT_KEY, store) ?? "[]");
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string" && x !== "").slice(0, RECENT_MAX) : [];
  } catch {
    return [];
  }
}
const save = (list: string[], store?: Storage) => {
  setLocal(RECENT_KEY, JSON.stringify(list), store);
  return list;
};
export function addRecent(q: string, store?: Storage): string[] {
  const k = cleanQuery(q);
  const list = recentSearches(store);
  if (!k) return list;
  return save([k, ...list.filter((x) => x !== k)].slice(0, RECENT_MAX), store);
}
export const removeRecent = (q: string, store?: Storage) => save(recentSearches(store).filter((x) => x !== q), store);
export const clearRecent = (store?: Storage) => save([], store);

/** What to tell the reader when a search fails: the edge's own Korean message for a refused query. */
export function searchErrorText(e: unknown): string {
  if (isHttpError(e)) {
    if (e.kind === "network") return "네트워크 연결을 확인해 주세요.";
    if (e.status === 400 && /[가-힣]/.test(e.message)) return e.message;
  }
  return "검색하지 못했습니다. 잠시 후 다시 시도해 주세요.";
}

export type PopularSearch = { rank: number; keyword: string };

/**
 * popularSearches: the keywords most readers searched lately (analytics
 * counts settled searches; the edge leaves out adult ones for audiences that
 * may not see adult works). [] when there are none or the call failed: the
 * list is a suggestion, never an error on the screen.
 */
export async function popularSearches(signal?: AbortSignal): Promise<PopularSearch[]> {
  try {
    const a = await http<{ list?: PopularSearch[] }>(`${API}/search/popular`, { signal });
    return Array.isArray(a.list) ? a.list : [];
  } catch {
    return [];
  }
}
