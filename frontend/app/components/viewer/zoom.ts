// Zoom of a comic page as pure numbers: the layer showing the page is
// scaled by s from its top-left corner and moved by (x, y), so a point q of
// the page is on screen at (x + s*qx, y + s*qy). The viewer's pinch,
// double-tap, buttons and keys all go through zoomAt and pan, which keep the
// page covering its box (no empty band beside a zoomed page).

export type Zoom = { s: number; x: number; y: number };
export type Size = { w: number; h: number };

export const ZOOM_MIN = 1;
export const ZOOM_MAX = 4;
/** One button press or key: ×1.5 (so 1 → 1.5 → 2.25 → 3.38 → 4). */
export const ZOOM_STEP = 1.5;
/** A double tap on a page at its size doubles it. */
export const DOUBLE_TAP = 2;

export const NO_ZOOM: Zoom = { s: 1, x: 0, y: 0 };

/** clampZoom keeps s in [ZOOM_MIN, ZOOM_MAX] and the scaled page over the whole box. */
export function clampZoom(z: Zoom, box: Size): Zoom {
  const s = Math.min(ZOOM_MAX, Math.max(ZOOM_MIN, z.s));
  const lim = (v: number, len: number) => Math.min(0, Math.max(len - s * len, v));
  return { s, x: lim(z.x, box.w), y: lim(z.y, box.h) };
}

/** zoomAt scales by factor around the screen point p (it stays over the same spot of the page). */
export function zoomAt(z: Zoom, factor: number, p: { x: number; y: number }, box: Size): Zoom {
  const s = Math.min(ZOOM_MAX, Math.max(ZOOM_MIN, z.s * factor));
  const k = s / z.s;
  return clampZoom({ s, x: p.x - (p.x - z.x) * k, y: p.y - (p.y - z.y) * k }, box);
}

/** pan moves a zoomed page by (dx, dy) within its box. */
export const pan = (z: Zoom, dx: number, dy: number, box: Size): Zoom => clampZoom({ s: z.s, x: z.x + dx, y: z.y + dy }, box);

/**
 * pinch: from the zoom when two fingers came down (start, a and b), where
 * they are now (c and d): scaled by how far apart they moved, around where
 * they started, and moved with their midpoint.
 */
export function pinch(start: Zoom, a: Pt, b: Pt, c: Pt, d: Pt, box: Size): Zoom {
  const d0 = Math.hypot(b.x - a.x, b.y - a.y);
  const d1 = Math.hypot(d.x - c.x, d.y - c.y);
  if (d0 < 1) return start;
  const m0 = mid(a, b);
  const m1 = mid(c, d);
  return pan(zoomAt(start, d1 / d0, m0, box), m1.x - m0.x, m1.y - m0.y, box);
}

type Pt = { x: number; y: number };
const mid = (a: Pt, b: Pt): Pt => ({ x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 });

/** doubleTap: a page at its size doubles around the tap, a zoomed one goes back. */
export const doubleTap = (z: Zoom, p: Pt, box: Size): Zoom => (z.s > ZOOM_MIN ? NO_ZOOM : zoomAt(z, DOUBLE_TAP, p, box));

/** keyZoom: + (or =) zooms in and - out around the box's centre, 0 goes back; null for other keys. */
export function keyZoom(z: Zoom, key: string, box: Size): Zoom | null {
  const c = { x: box.w / 2, y: box.h / 2 };
  if (key === "+" || key === "=") return zoomAt(z, ZOOM_STEP, c, box);
  if (key === "-") return zoomAt(z, 1 / ZOOM_STEP, c, box);
  if (key === "0") return NO_ZOOM;
  return null;
}

export const zoomed = (z: Zoom) => z.s > ZOOM_MIN;
export const zoomPercent = (z: Zoom) => `${Math.round(z.s * 100)}%`;
