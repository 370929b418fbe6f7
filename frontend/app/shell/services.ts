// The page's long-lived services, made once per page load.
import { http } from "~/utils/api";
import { currentDevice } from "~/utils/device";
import { Tracker } from "./tracking";
import { VersionCheck } from "./versionCheck";

export const tracker = new Tracker({
  send: (events) => http("/home/api/v1/tracking/events", { method: "POST", json: { events } }),
  beacon: typeof navigator !== "undefined" && navigator.sendBeacon ? (url, data) => navigator.sendBeacon(url, data) : undefined,
  pixel: adPixel(),
});

/**
 * adPixel returns the ad network's page-view pixel, or nothing when no pixel
 * URL is configured: at build time (VITE_AD_PIXEL_URL) or by the page that
 * hosts the app (window.SF_AD_PIXEL_URL, set before the app starts).
 */
function adPixel(): ((page: string, eventId?: string) => void) | undefined {
  const base = (globalThis as { SF_AD_PIXEL_URL?: string }).SF_AD_PIXEL_URL ?? import.meta.env.VITE_AD_PIXEL_URL;
  if (typeof base !== "string" || base === "" || typeof Image === "undefined") return undefined;
  return (page, eventId) => {
    const u = new URL(base, window.location.href);
    u.searchParams.set("ev", "PageView");
    u.searchParams.set("dl", new URL(page, window.location.href).href);
    if (eventId) u.searchParams.set("eid", eventId);
    const img = new Image(1, 1);
    img.src = u.href;
  };
}

export const versionCheck = new VersionCheck(http, () => window.location.reload());

export const device = () => currentDevice();
