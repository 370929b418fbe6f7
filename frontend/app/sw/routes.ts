// What the service worker answers, by address. Pure, so vitest checks the
// lists (routes.test.ts) without a worker.

/**
 * LIST_API is the API GETs the store's lists are made of: the home and its
 * tabs, the areas' lists (webtoon, comic, novel: best, genre, weekday, ...),
 * keywords, rankings, the genres. Public reads of the edge: the same answer
 * for every reader of a channel. Member answers (/users/, wallet, purchases)
 * are not kept: a list is what the reader browsed, not what they own.
 */
export const LIST_API = /^\/home\/api\/v1\/(home|genres|quick-links|rankings|webtoon|comic|novel|keywords)(\/|$)/;

/** isListApi: a same-origin GET of a list, kept network-first with the last answer as the fallback. */
export function isListApi(url: URL, method: string, origin: string): boolean {
  return method === "GET" && url.origin === origin && LIST_API.test(url.pathname);
}

/**
 * SAVED_MARK is the query parameter the viewer adds to a page of a volume
 * saved for offline reading. The worker must decide synchronously whether it
 * answers a request; the mark says "look in the saved volumes first" without
 * the worker keeping a list. The edge ignores the parameter.
 */
export const SAVED_MARK = "sfo";

/** isSavedMedia: a same-origin page or chunk of a saved volume (the viewer marked it). */
export function isSavedMedia(url: URL, origin: string): boolean {
  return url.origin === origin && url.searchParams.has(SAVED_MARK) && /^\/(media|content)\//.test(url.pathname);
}

/**
 * NOT_SHELL are the paths a navigation goes to the server for, never to the
 * cached app shell: the API, the writer's server pages (auto-login lives
 * under /api/), media and the worker's own files.
 */
export const NOT_SHELL = [/^\/home\/api\//, /^\/protocol\//, /^\/api\//, /^\/iam\//, /^\/img\//, /^\/media\//, /^\/content\//, /^\/admin\/api\//, /^\/analytics\/api\//, /^\/pc\/api\//, /^\/sw\.js$/, /^\/manifest\.webmanifest$/];

/** Cache Storage names the store uses besides Workbox's precache. */
export const CACHE = {
  /** the last list answers (runtime, network-first) */
  lists: "sf-lists",
  /** volumes saved for offline reading (the page writes it, the worker reads it) */
  saved: "sf-saved",
} as const;

/** LISTS_KEPT: how many list answers stay (the oldest used goes first). */
export const LISTS_KEPT = 80;
/** LISTS_MAX_AGE_S: a list older than a week is not shown offline. */
export const LISTS_MAX_AGE_S = 7 * 24 * 3600;
