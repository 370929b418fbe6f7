import { useCallback, useEffect, useRef, useState, type PointerEvent as ReactPointerEvent, type MouseEvent as ReactMouseEvent } from "react";
import { doubleTap, keyZoom, NO_ZOOM, pan, pinch, zoomAt, zoomed, ZOOM_STEP, type Size, type Zoom } from "./zoom";

type Pt = { x: number; y: number };
/** A finger that moved further than this was a gesture, not a tap. */
const TAP_SLOP = 10;

/**
 * Zoom of the comic page on screen (zoom.ts does the numbers): pinch with
 * two fingers, drag a zoomed page, double-tap, the bar's buttons and the
 * + - 0 keys. The zoom goes back to the page's size when the page turns
 * (page: the spread on screen). wasGesture tells a tap area that the
 * pointer which just lifted pinched or dragged, so it must not turn.
 */
export function useComicZoom(on: boolean, page: number) {
  const boxRef = useRef<HTMLDivElement>(null);
  const [z, setZ] = useState<Zoom>(NO_ZOOM);
  const pts = useRef(new Map<number, Pt>());
  const start = useRef<{ z: Zoom; a: Pt; b?: Pt } | null>(null);
  const gesture = useRef(false);

  useEffect(() => setZ(NO_ZOOM), [page]);

  const box = useCallback((): Size => ({ w: boxRef.current?.clientWidth || window.innerWidth, h: boxRef.current?.clientHeight || window.innerHeight }), []);
  const local = (e: { clientX: number; clientY: number }): Pt => {
    const r = boxRef.current?.getBoundingClientRect();
    return { x: e.clientX - (r?.left ?? 0), y: e.clientY - (r?.top ?? 0) };
  };

  const begin = (cur: Zoom) => {
    const [a, b] = [...pts.current.values()];
    start.current = a ? { z: cur, a, b } : null;
  };
  const onPointerDown = (e: ReactPointerEvent) => {
    if (pts.current.size === 0) gesture.current = false;
    pts.current.set(e.pointerId, local(e));
    if (pts.current.size === 2) gesture.current = true;
    begin(z);
  };
  const onPointerMove = (e: ReactPointerEvent) => {
    if (!pts.current.has(e.pointerId) || !start.current) return;
    pts.current.set(e.pointerId, local(e));
    const [c, d] = [...pts.current.values()];
    const st = start.current;
    if (st.b && d) setZ(pinch(st.z, st.a, st.b, c, d, box()));
    else if (!st.b && zoomed(st.z)) {
      const dx = c.x - st.a.x;
      const dy = c.y - st.a.y;
      if (Math.hypot(dx, dy) > TAP_SLOP) gesture.current = true;
      if (gesture.current) setZ(pan(st.z, dx, dy, box()));
    }
  };
  const onPointerEnd = (e: ReactPointerEvent) => {
    pts.current.delete(e.pointerId);
    // A finger left of a pinch: the other one drags on from here.
    setZ((cur) => {
      begin(cur);
      return cur;
    });
  };
  const onDoubleClick = (e: ReactMouseEvent) => setZ((cur) => doubleTap(cur, local(e), box()));
  const step = (dir: 1 | -1) => setZ((cur) => zoomAt(cur, dir > 0 ? ZOOM_STEP : 1 / ZOOM_STEP, { x: box().w / 2, y: box().h / 2 }, box()));
  const reset = () => setZ(NO_ZOOM);
  const wasGesture = () => gesture.current;

  useEffect(() => {
    if (!on) return;
    const k = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement | null;
      if (e.ctrlKey || e.metaKey || e.altKey || t?.closest?.("input, textarea, select")) return;
      setZ((cur) => keyZoom(cur, e.key, box()) ?? cur);
    };
    window.addEventListener("keydown", k);
    return () => window.removeEventListener("keydown", k);
  }, [on, box]);

  const handlers = { onPointerDown, onPointerMove, onPointerUp: onPointerEnd, onPointerCancel: onPointerEnd, onDoubleClick };
  return { z, boxRef, handlers, step, reset, wasGesture };
}

export type ComicZoom = ReturnType<typeof useComicZoom>;
