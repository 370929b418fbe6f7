// The shell's numbers (seed §2, §4, §9) in one place.
export const FLOATING_MESSAGE_MS = 3000;
export const DIBS_TOAST_MS = 1500;
export const SNACK_SWITCH_MS = 350;
export const LOADER = { zIndex: 993, size: 40, speedMs: 1300 } as const;
export const LOADING_BAR = { delayMs: 100, stepPercent: 10, stepUntilAbove: 70, tickMs: 300, hideAfterMs: 500 } as const;
export const POPUP = { maxWidth: 320, heightRatio: 0.7, minus: 70, titleExtra: 55.5 } as const;
export const CHUNK_RELOAD_WINDOW_MS = 60_000;
export const APP_VERSION = 24;
export const TOP_BANNER_CHECK_MS = 50;

/** The confirm popup's content max height: 70% of the window minus 70, and 55.5 more with a title. */
export function popupMaxHeight(windowHeight: number, hasTitle: boolean): number {
  return windowHeight * POPUP.heightRatio - POPUP.minus - (hasTitle ? POPUP.titleExtra : 0);
}
