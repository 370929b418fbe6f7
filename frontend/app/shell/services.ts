// The page's long-lived services, made once per page load.
import { http } from "~/utils/api";
import { currentDevice } from "~/utils/device";
import { Tracker } from "./tracking";
import { VersionCheck } from "./versionCheck";

export const tracker = new Tracker({
  send: (events) => http("/home/api/v1/tracking/events", { method: "POST", json: { events } }),
  beacon: typeof navigator !== "undefined" && navigator.sendBeacon ? (url, data) => navigator.sendBeacon(url, data) : undefined,
});

export const versionCheck = new VersionCheck(http, () => window.location.reload());

export const device = () => currentDevice();
