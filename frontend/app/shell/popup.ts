// Popup windows (seed §9: desktop popups 350x510). A desktop browser opens
// small screens (the chat) beside the store in a window of the seed's size;
// a mobile browser or the app has no windows to spare and opens the page
// itself.
import { isDesktop } from "~/utils/device";
import { DESKTOP_POPUP } from "./timing";

export const DESKTOP_POPUP_FEATURES = `popup,width=${DESKTOP_POPUP.width},height=${DESKTOP_POPUP.height}`;

/**
 * Opens `url` in a desktop popup window named `name` (the same name reuses
 * its window). Answers false where the page should open it itself: not a
 * desktop, or the browser blocked the popup.
 */
export function openDesktopPopup(url: string, name: string, device: Parameters<typeof isDesktop>[0], win: Pick<Window, "open"> = window): boolean {
  if (!isDesktop(device)) return false;
  const w = win.open(url, name, DESKTOP_POPUP_FEATURES);
  if (!w) return false;
  w.focus?.();
  return true;
}
