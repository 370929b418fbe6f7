// The safe-area insets (the notch, the home indicator) as numbers, for what
// the page sizes in script (the confirm popup's height). An app's web view
// may report them late (after the native view is laid out, or a rotation),
// so they are measured again at steps after start and after every resize
// (seed §9: the reservation helper, 30 updates).
import { useSyncExternalStore } from "react";
import { RESERVE, SAFE_AREA_UPDATES } from "./timing";

type Timers = { setTimeout: (f: () => void, ms: number) => unknown; clearTimeout: (t: unknown) => void };
const realTimers: Timers = {
  setTimeout: (f, ms) => setTimeout(f, ms),
  clearTimeout: (t) => clearTimeout(t as ReturnType<typeof setTimeout>),
};

/**
 * The reservation helper: runs `job` `times` times, one step apart, the first
 * one step from now. It answers a cancel; a job reserved again should cancel
 * its earlier reservation first (installSafeArea does).
 */
export function reserve(job: () => void, times: number = RESERVE.times, stepMs: number = RESERVE.stepMs, timers: Timers = realTimers): () => void {
  let left = times;
  let t: unknown;
  const next = () => {
    t = timers.setTimeout(() => {
      job();
      if (--left > 0) next();
    }, stepMs);
  };
  if (left > 0) next();
  return () => timers.clearTimeout(t);
}

export type Insets = { top: number; right: number; bottom: number; left: number };
const NONE: Insets = { top: 0, right: 0, bottom: 0, left: 0 };
let insets: Insets = NONE;
const listeners = new Set<() => void>();

/** Sets the known insets (the measurement does; tests may). */
export function setSafeArea(next: Insets) {
  if (next.top === insets.top && next.right === insets.right && next.bottom === insets.bottom && next.left === insets.left) return;
  insets = next;
  listeners.forEach((l) => l());
}
export const safeArea = (): Insets => insets;

/** The insets as the page lays them out now: env(safe-area-inset-*) read off a hidden probe. */
export function measureSafeArea(doc: Document = document): Insets {
  let probe = doc.getElementById("sf-safe-area");
  if (!probe) {
    probe = doc.createElement("div");
    probe.id = "sf-safe-area";
    probe.setAttribute("aria-hidden", "true");
    probe.style.cssText =
      "position:fixed;top:0;left:0;width:0;height:0;visibility:hidden;pointer-events:none;" +
      "padding:env(safe-area-inset-top,0px) env(safe-area-inset-right,0px) env(safe-area-inset-bottom,0px) env(safe-area-inset-left,0px)";
    doc.body.appendChild(probe);
  }
  const cs = doc.defaultView!.getComputedStyle(probe);
  const px = (v: string) => parseFloat(v) || 0;
  return { top: px(cs.paddingTop), right: px(cs.paddingRight), bottom: px(cs.paddingBottom), left: px(cs.paddingLeft) };
}

/**
 * Measures the insets now, then SAFE_AREA_UPDATES more times at the helper's
 * step; a resize or a rotation starts the updates over. Answers a detach.
 */
export function installSafeArea(win: Window = window, measure: () => Insets = () => measureSafeArea(win.document), timers: Timers = realTimers): () => void {
  const update = () => setSafeArea(measure());
  let cancel = () => {};
  const start = () => {
    cancel();
    update();
    cancel = reserve(update, SAFE_AREA_UPDATES, RESERVE.stepMs, timers);
  };
  start();
  win.addEventListener("resize", start);
  win.addEventListener("orientationchange", start);
  return () => {
    cancel();
    win.removeEventListener("resize", start);
    win.removeEventListener("orientationchange", start);
  };
}

const subscribe = (l: () => void) => {
  listeners.add(l);
  return () => listeners.delete(l);
};
/** The insets, kept up to date. */
export const useSafeArea = (): Insets => useSyncExternalStore(subscribe, safeArea, () => NONE);
