import { describe, expect, it } from "vitest";
import { clampZoom, doubleTap, keyZoom, NO_ZOOM, pan, pinch, ZOOM_MAX, zoomAt, zoomPercent } from "./zoom";

const box = { w: 400, h: 800 };
// Where page point q is on screen under zoom z.
const onScreen = (z: { s: number; x: number; y: number }, q: { x: number; y: number }) => ({ x: z.x + z.s * q.x, y: z.y + z.s * q.y });

describe("comic zoom", () => {
  it("zooms around the point: the spot under the finger stays under it", () => {
    const z = zoomAt(NO_ZOOM, 2, { x: 100, y: 300 }, box);
    expect(z.s).toBe(2);
    expect(onScreen(z, { x: 100, y: 300 })).toEqual({ x: 100, y: 300 });
  });
  it("keeps the scale within 1..4 and the page over its whole box", () => {
    expect(zoomAt(NO_ZOOM, 10, { x: 0, y: 0 }, box).s).toBe(ZOOM_MAX);
    expect(zoomAt(NO_ZOOM, 0.2, { x: 0, y: 0 }, box)).toEqual(NO_ZOOM);
    // zoomed at a corner: no band left of or above the page
    const z = zoomAt(NO_ZOOM, 2, { x: 0, y: 0 }, box);
    expect(z).toEqual({ s: 2, x: 0, y: 0 });
    // panned too far: held at the page's far edge
    expect(pan(z, -5000, 5000, box)).toEqual({ s: 2, x: -400, y: 0 });
    expect(clampZoom({ s: 1, x: -30, y: 20 }, box)).toEqual(NO_ZOOM);
  });
  it("pinches by how far the fingers move apart, around where they started", () => {
    const a = { x: 150, y: 400 };
    const b = { x: 250, y: 400 };
    const z = pinch(NO_ZOOM, a, b, { x: 100, y: 400 }, { x: 300, y: 400 }, box);
    expect(z.s).toBe(2);
    expect(onScreen(z, { x: 200, y: 400 })).toEqual({ x: 200, y: 400 });
    // fingers moved together: the zoom follows their midpoint
    const moved = pinch(NO_ZOOM, a, b, { x: 80, y: 380 }, { x: 280, y: 380 }, box);
    expect(onScreen(moved, { x: 200, y: 400 })).toEqual({ x: 180, y: 380 });
  });
  it("double tap doubles a page at its size and brings a zoomed one back", () => {
    const z = doubleTap(NO_ZOOM, { x: 200, y: 400 }, box);
    expect(z.s).toBe(2);
    expect(doubleTap(z, { x: 10, y: 10 }, box)).toEqual(NO_ZOOM);
  });
  it("keys: + and - step around the centre, 0 goes back, others are not zoom keys", () => {
    const z = keyZoom(NO_ZOOM, "+", box)!;
    expect(z.s).toBe(1.5);
    expect(onScreen(z, { x: 200, y: 400 })).toEqual({ x: 200, y: 400 });
    expect(keyZoom(z, "-", box)).toEqual(NO_ZOOM);
    expect(keyZoom(z, "0", box)).toEqual(NO_ZOOM);
    expect(keyZoom(z, "a", box)).toBeNull();
    expect(zoomPercent(z)).toBe("150%");
  });
});
