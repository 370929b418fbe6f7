/// <reference lib="webworker" />
// Web Push of new-volume alarms (issue 19), imported by sw.ts: the writer's
// worker sends one message per volume and device (writer/README.md "Web
// Push"); this shows it and opens the viewer when it is clicked. The logic
// is in pushHandlers.ts.
import { notificationOf, openFromNotification, readPayload } from "./pushHandlers";

declare const self: ServiceWorkerGlobalScope;

self.addEventListener("push", (e) => {
  let json: unknown = null;
  try {
    json = e.data?.json();
  } catch {
    // Not JSON: shown with the fallback title, opening the home.
  }
  const [title, options] = notificationOf(readPayload(json));
  e.waitUntil(self.registration.showNotification(title, options));
});

self.addEventListener("notificationclick", (e) => {
  e.notification.close();
  const { url } = readPayload(e.notification.data);
  e.waitUntil(openFromNotification(url, self.location.origin, self.clients));
});
