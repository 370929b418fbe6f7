// The reader's place inside a volume, in numbers that do not depend on the
// screen: another device (other width, other font size) lands on the same
// panel or line. page is the 0-based page at the top of the screen (a
// webtoon strip image or the first page of a comic spread), ratio how far
// into that page (0..1), offset the character at the top of a novel's text.
// The writer keeps it per member and work (/users/reading-place/{pid}); this
// device keeps it too, for visitors and as the newest copy while a save is
// on its way.

import { http } from "~/utils/api";
import { isHttpError } from "~/utils/http";
import { API } from "~/utils/storeApi";

export type Place = { no: number; page: number; ratio: number; offset: number; at: number };

const KEY = (pid: string) => `sf_place_v2_${pid}`;

export function savePlace(pid: string, p: Place, store: Storage | undefined = globalThis.localStorage) {
  try {
    store?.setItem(KEY(pid), JSON.stringify(p));
  } catch {
    /* storage blocked */
  }
}

export function loadPlace(pid: string, store: Storage | undefined = globalThis.localStorage): Place | null {
  try {
    return asPlace(JSON.parse(store?.getItem(KEY(pid)) ?? "null"));
  } catch {
    return null;
  }
}

function asPlace(v: unknown): Place | null {
  if (!v || typeof v !== "object") return null;
  const o = v as Record<string, unknown>;
  const num = (x: unknown, d = 0) => (typeof x === "number" && Number.isFinite(x) ? x : d);
  if (typeof o.no !== "number" || o.no <= 0) return null;
  return { no: o.no, page: Math.max(0, Math.floor(num(o.page))), ratio: Math.min(1, Math.max(0, num(o.ratio))), offset: Math.max(0, Math.floor(num(o.offset))), at: num(o.at) };
}

/** The writer's answer. */
export type ServerPlace = { pid: string; vol: number; page: number; ratio: number; offset: number; updatedAt: string };

export const fromServer = (p: ServerPlace | null | undefined): Place | null =>
  p ? asPlace({ no: p.vol, page: p.page, ratio: p.ratio, offset: p.offset, at: Date.parse(p.updatedAt) || 0 }) : null;

/** newest of the places given (the one saved last, wherever). */
export function newest(...ps: (Place | null | undefined)[]): Place | null {
  let best: Place | null = null;
  for (const p of ps) if (p && (!best || p.at > best.at)) best = p;
  return best;
}

export const placePath = (pid: string) => `${API}/users/reading-place/${encodeURIComponent(pid)}`;

export async function getServerPlace(pid: string, signal?: AbortSignal): Promise<Place | null> {
  const a = await http<{ place: ServerPlace | null }>(placePath(pid), { signal });
  return fromServer(a.place);
}

// at is the device's time of the save: the writer keeps the save with the
// newest at, so one sent late (queued offline) never moves the reader back.
const body = (p: Place) => ({ vol: p.no, page: p.page, ratio: p.ratio, offset: p.offset, at: Math.max(1, Math.round(p.at)) });

type PlaceBody = ReturnType<typeof body>;

// Saves the writer has not taken yet, by path (one per work: the newest).
const QUEUE_KEY = "sf_place_queue_v1";

export function queuedPlaces(store: Storage | undefined = globalThis.localStorage): Record<string, PlaceBody> {
  try {
    const v = JSON.parse(store?.getItem(QUEUE_KEY) ?? "{}") as unknown;
    return v && typeof v === "object" ? (v as Record<string, PlaceBody>) : {};
  } catch {
    return {};
  }
}

function writeQueue(q: Record<string, PlaceBody>, store: Storage | undefined) {
  try {
    if (Object.keys(q).length === 0) store?.removeItem(QUEUE_KEY);
    else store?.setItem(QUEUE_KEY, JSON.stringify(q));
  } catch {
    /* storage blocked or full: the place stays in this device's own copy */
  }
}

/** queuePlace keeps a save for later; an older save never replaces a newer one. */
export function queuePlace(path: string, b: PlaceBody, store: Storage | undefined = globalThis.localStorage) {
  const q = queuedPlaces(store);
  if (!q[path] || q[path].at <= b.at) q[path] = b;
  writeQueue(q, store);
}

/**
 * A failed save is worth another try when the writer never answered or
 * answered 5xx or 429; a 4xx answer would be refused again, so it is dropped.
 */
export const retryable = (e: unknown) => !isHttpError(e) || e.kind !== "api" || e.status >= 500 || e.status === 429 || e.status === 0;

/**
 * sendQueued sends every queued save, each with its own device time. One the
 * writer took (or refused for good) leaves the queue unless a newer one for
 * the same work was queued meanwhile; the others stay for the next try.
 */
export async function sendQueued(put: Senders["put"], store: Storage | undefined = globalThis.localStorage): Promise<number> {
  const q = queuedPlaces(store);
  let sent = 0;
  await Promise.all(
    Object.entries(q).map(async ([path, b]) => {
      try {
        await put(path, b);
        sent++;
      } catch (e) {
        if (retryable(e)) return;
      }
      const now = queuedPlaces(store);
      if (now[path] && now[path].at === b.at) {
        delete now[path];
        writeQueue(now, store);
      }
    }),
  );
  return sent;
}

const offline = () => typeof navigator !== "undefined" && navigator.onLine === false;

/** Boxes in document coordinates (top and height in px). */
export type Box = { top: number; height: number };

/** stripPlace: the page whose box holds the line y, and how far into it. */
export function stripPlace(boxes: Box[], y: number): { page: number; ratio: number } {
  if (boxes.length === 0 || y <= boxes[0].top) return { page: 0, ratio: 0 };
  for (let i = 0; i < boxes.length; i++) {
    const b = boxes[i];
    if (y < b.top + b.height) return { page: i, ratio: b.height > 0 ? Math.min(1, Math.max(0, (y - b.top) / b.height)) : 0 };
  }
  return { page: boxes.length - 1, ratio: 1 };
}

/** stripY is the inverse of stripPlace: the line that shows page at ratio. */
export function stripY(boxes: Box[], page: number, ratio: number): number {
  if (boxes.length === 0) return 0;
  const b = boxes[Math.min(Math.max(0, page), boxes.length - 1)];
  return b.top + ratio * b.height;
}

/**
 * textOffset finds the first character whose line ends below y. lengths are
 * the paragraphs' text lengths; bottom(i, k) measures character k of
 * paragraph i (document coordinates). Binary search: a few measurements per
 * save even in a long chapter.
 */
export function textOffset(lengths: number[], paraBoxes: Box[], y: number, bottom: (i: number, k: number) => number): number {
  let before = 0;
  for (let i = 0; i < lengths.length; i++) {
    const b = paraBoxes[i];
    if (b && y < b.top + b.height && lengths[i] > 0) {
      let lo = 0;
      let hi = lengths[i] - 1;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (bottom(i, mid) > y) hi = mid;
        else lo = mid + 1;
      }
      return before + lo;
    }
    before += lengths[i];
  }
  return before;
}

/** textTarget maps a global character offset to paragraph i and character k. */
export function textTarget(lengths: number[], offset: number): { i: number; k: number } | null {
  let left = offset;
  for (let i = 0; i < lengths.length; i++) {
    if (left < lengths[i]) return { i, k: left };
    left -= lengths[i];
  }
  return null;
}

export type PlaceSync = {
  /** update records the newest place; the writer gets it at most once per interval. */
  update(p: Place): void;
  /** flush sends what is pending now, in a way that survives the page going away. */
  flush(): void;
  dispose(): void;
};

export type Senders = { put: (path: string, json: unknown) => Promise<unknown>; beacon: (path: string, json: unknown) => void };

const defaultSenders: Senders = {
  put: (path, json) => http(path, { method: "PUT", json }),
  beacon: (path, json) => {
    const data = JSON.stringify(json);
    const sent = typeof navigator !== "undefined" && typeof navigator.sendBeacon === "function" && navigator.sendBeacon(path, new Blob([data], { type: "application/json" }));
    // A refused beacon (queue full) still leaves with the page as a keepalive fetch.
    if (!sent) void fetch(path, { method: "PUT", keepalive: true, credentials: "same-origin", headers: { "Content-Type": "application/json" }, body: data }).catch(() => {});
  },
};

/**
 * placeSync throttles the saves of one work's place to the writer: a reader
 * scrolling a strip makes many places a second, the writer gets one per
 * interval (trailing, so the last place always goes out). A save that fails
 * (offline, writer down) is queued on the device and sent again when the
 * browser is back online, at the next save and when a viewer opens.
 */
export function placeSync(pid: string, intervalMs = 2000, send: Senders = defaultSenders, store: Storage | undefined = globalThis.localStorage): PlaceSync {
  let pending: Place | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const path = placePath(pid);
  const retry = () => void sendQueued(send.put, store);
  const fire = () => {
    timer = undefined;
    if (!pending) return;
    const b = body(pending);
    pending = null;
    send.put(path, b).then(retry, (e: unknown) => {
      if (retryable(e)) queuePlace(path, b, store);
    });
  };
  if (typeof window !== "undefined") window.addEventListener("online", retry);
  retry();
  return {
    update(p) {
      pending = p;
      if (timer === undefined) timer = setTimeout(fire, intervalMs);
    },
    flush() {
      clearTimeout(timer);
      timer = undefined;
      if (!pending) return;
      const b = body(pending);
      pending = null;
      // A beacon sent offline is accepted by the browser and then lost.
      if (offline()) queuePlace(path, b, store);
      else send.beacon(path, b);
    },
    dispose() {
      clearTimeout(timer);
      timer = undefined;
      pending = null;
      if (typeof window !== "undefined") window.removeEventListener("online", retry);
    },
  };
}
