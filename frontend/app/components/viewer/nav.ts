// Viewer rules as pure functions: volume navigation by the seed's direction
// codes (A all, I last view, P previous, N next) and the pages a reader may
// see. The place inside a volume is in place.ts.

import { previewNeedsLogin, type DeviceInfo } from "~/utils/device";
import type { Vol } from "~/utils/storeApi";

export type Direction = "A" | "I" | "P" | "N";

/** targetVol answers the volume a direction leads to from cur, or null (A: the list; I: lastViewed). */
export function targetVol(nos: number[], cur: number, dir: Direction, lastViewed?: number): number | null {
  const sorted = [...nos].sort((a, b) => a - b);
  const i = sorted.indexOf(cur);
  switch (dir) {
    case "P":
      return i > 0 ? sorted[i - 1] : null;
    case "N":
      return i >= 0 && i < sorted.length - 1 ? sorted[i + 1] : null;
    case "I":
      return lastViewed !== undefined && sorted.includes(lastViewed) ? lastViewed : (sorted[0] ?? null);
    case "A":
      return null;
  }
}

/** pageCount: the full volume with a content token, otherwise its preview pages. */
export const visiblePages = (full: boolean, pages: number, previewPages: number) => (full ? pages : Math.min(pages, previewPages));

/**
 * previewLoginFirst: opening this volume in an app below 6.0.0 would be a
 * preview (a paid volume whose preview is shorter than it), and such a preview
 * needs login (seed §5). A member passes the shell's member check either way;
 * browsers and app 6.0.0+ preview without login.
 */
export function previewLoginFirst(d: Pick<DeviceInfo, "isApp" | "appVersion">, vol: Pick<Vol, "isFree" | "pages" | "previewPages">): boolean {
  return previewNeedsLogin(d) && !vol.isFree && vol.previewPages < vol.pages;
}

/** spreads pairs pages two by two on wide screens (1-2, 3-4 ...), one by one otherwise. */
export function spreads(count: number, wide: boolean): number[][] {
  const out: number[][] = [];
  for (let n = 1; n <= count; n += wide ? 2 : 1) out.push(wide && n + 1 <= count ? [n, n + 1] : [n]);
  return out;
}

/**
 * Page order of a comic read right to left (prodInfo.rightToLeft): page n of
 * a spread sits on the right, the left side of the screen leads on and the
 * right side back, and so do the arrow keys. Left to right is the mirror.
 */
export const displayOrder = (group: number[], rtl: boolean) => (rtl ? [...group].reverse() : group);

/** sideTurn: the turn a tap on a side of the page makes (1 on, -1 back). */
export const sideTurn = (side: "left" | "right", rtl: boolean): 1 | -1 => ((side === "left") === rtl ? 1 : -1);

/** keyTurn: the turn an arrow key makes, 0 for any other key. */
export function keyTurn(key: string, rtl: boolean): 1 | -1 | 0 {
  if (key === "ArrowLeft") return sideTurn("left", rtl);
  if (key === "ArrowRight") return sideTurn("right", rtl);
  return 0;
}

/** The web viewer needs IntersectionObserver and fetch; otherwise '지원하지 않는 브라우저 입니다.' shows for 2 s. */
export const UNSUPPORTED = "지원하지 않는 브라우저 입니다.";
export const UNSUPPORTED_MS = 2000;
export function webViewerSupported(w: { IntersectionObserver?: unknown; fetch?: unknown }): boolean {
  return typeof w.IntersectionObserver === "function" && typeof w.fetch === "function";
}

/** The viewer's address for one volume of a work. */
export const viewerHref = (pid: string, no: number) => `/viewer?pid=${encodeURIComponent(pid)}&no=${no}`;
