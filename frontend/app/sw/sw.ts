/// <reference lib="webworker" />
// The store's service worker (vite-plugin-pwa bundles it to /sw.js, injecting
// the precache list at self.__WB_MANIFEST). What it does, and why, is in
// frontend/README.md ("Installable and offline"). Other features add their
// worker code as a module of this folder imported below (e.g. Web Push:
// `import "./push";`), never a second worker: a scope has one.
import { ExpirationPlugin } from "workbox-expiration";
import { cleanupOutdatedCaches, matchPrecache, precacheAndRoute } from "workbox-precaching";
import { NavigationRoute, registerRoute } from "workbox-routing";
import { NetworkFirst } from "workbox-strategies";
import { CACHE, isListApi, isSavedMedia, LISTS_KEPT, LISTS_MAX_AGE_S, NOT_SHELL } from "./routes";
import { keepSigned } from "./signedAnswer";
// New-volume alarms by Web Push: the push and notificationclick handlers.
import "./push";

declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: Array<{ url: string; revision: string | null }> };

// The app shell: index.html, every route's code and styles, the icons.
precacheAndRoute(self.__WB_MANIFEST);
cleanupOutdatedCaches();

// Navigations go to the network first: the edge draws a page's first screen
// and its share preview, which the cached shell has not. Without a network
// the shell opens and the routes answer from what is cached (or show 40).
registerRoute(
  new NavigationRoute(
    async ({ request }) => {
      try {
        return await fetch(request);
      } catch {
        return (await matchPrecache("/index.html")) ?? Response.error();
      }
    },
    { denylist: NOT_SHELL },
  ),
);

// The last lists visited: network first, the last answer when there is none.
registerRoute(
  ({ url, request }) => isListApi(url, request.method, self.location.origin),
  new NetworkFirst({
    cacheName: CACHE.lists,
    matchOptions: { ignoreVary: true },
    plugins: [
      { cacheWillUpdate: async ({ request, response }) => keepSigned(request, response) },
      new ExpirationPlugin({ maxEntries: LISTS_KEPT, maxAgeSeconds: LISTS_MAX_AGE_S }),
    ],
  }),
);

// Pages of volumes saved for offline reading (the viewer marks them): the
// saved copy, whatever width or token the address names; the network when
// the volume is not saved (any more).
registerRoute(
  ({ url }) => isSavedMedia(url, self.location.origin),
  async ({ request }) => {
    const saved = await (await caches.open(CACHE.saved)).match(request, { ignoreSearch: true, ignoreVary: true });
    return saved ?? fetch(request);
  },
);

// A new release waits until the page says so (the update prompt): a reader
// mid-volume is never reloaded under their eyes.
self.addEventListener("message", (e) => {
  if ((e.data as { type?: string } | null)?.type === "SKIP_WAITING") void self.skipWaiting();
});
