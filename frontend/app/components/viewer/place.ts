// The reader's place inside a volume, in numbers that do not depend on the
// screen: another device (other width, other font size) lands on the same
// panel or line. page is the 0-based page at the top of the screen (a
// webtoon strip image or the first page of a comic spread), ratio how far
// into that page (0..1), offset the character at the top of a novel's text.
// The writer keeps it per member and work (/users/reading-place/{pid}); this
// device keeps it too, for visitors and as the newest copy while a save is
// on its way.

import { http } from "~/utils/api";
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

const body = (p: Place) => ({ vol: p.no, page: p.page, ratio: p.ratio, offset: p.offset });

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
 * interval (trailing, so the last place always goes out).
 */
export function placeSync(pid: string, intervalMs = 2000, send: Senders = defaultSenders): PlaceSync {
  let pending: Place | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const path = placePath(pid);
  const fire = () => {
    timer = undefined;
    if (!pending) return;
    const p = pending;
    pending = null;
    send.put(path, body(p)).catch(() => {});
  };
  return {
    update(p) {
      pending = p;
      if (timer === undefined) timer = setTimeout(fire, intervalMs);
    },
    flush() {
      clearTimeout(timer);
      timer = undefined;
      if (!pending) return;
      const p = pending;
      pending = null;
      send.beacon(path, body(p));
    },
    dispose() {
      clearTimeout(timer);
      timer = undefined;
      pending = null;
    },
  };
}
