// The shell's numbers (seed §2, §4, §9) in one place.
export const FLOATING_MESSAGE_MS = 3000;
export const ZZIM_TOAST_MS = 1500;
export const SNACK_SWITCH_MS = 350;
export const LOADER = { zIndex: 993, size: 40, speedMs: 1300 } as const;
export const LOADING_BAR = { delayMs: 100, stepPercent: 10, stepUntilAbove: 70, tickMs: 300, hideAfterMs: 500 } as const;
export const POPUP = { maxWidth: 320, heightRatio: 0.7, minus: 70, titleExtra: 55.5 } as const;
export const CHUNK_RELOAD_WINDOW_MS = 60_000;
export const APP_VERSION = 24;
export const TOP_BANNER_CHECK_MS = 50;
/** A loading placeholder shows only once loading has lasted this long: a quick answer never flashes it. */
export const SKELETON_DELAY_MS = 100;
/** The reservation helper's default: a job run 10 times, 200 ms apart. */
export const RESERVE = { times: 10, stepMs: 200 } as const;
/** The safe-area insets are measured again this many times (at the helper's step) after start, a resize or a rotation. */
export const SAFE_AREA_UPDATES = 30;
/** The promotion library's version, sent as its script's `v` query so a new one is never served from a cache. */
export const PROMOTION_LIB_VERSION = "20250611";
/** A scrolling box's scrollbar hides this long after the scrolling stops. */
export const SCROLLBAR_HIDE_MS = 1000;
/** Popup windows a desktop browser opens (a mobile browser or the app opens the page itself). */
export const DESKTOP_POPUP = { width: 350, height: 510 } as const;

/** The confirm popup's content max height: 70% of the window minus 70, and 55.5 more with a title. */
export function popupMaxHeight(windowHeight: number, hasTitle: boolean): number {
  return windowHeight * POPUP.heightRatio - POPUP.minus - (hasTitle ? POPUP.titleExtra : 0);
}
