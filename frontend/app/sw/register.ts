// The page's side of the service worker: registration and the update offer.
// A few hundred bytes, run once the page has loaded (UpdatePrompt): the first
// screen never waits for it. (Not a dynamic import: that would bring Vite's
// preload helper to the home, more bytes than this module.)

/** SW_URL is the worker's address: at the root, so its scope is the whole store. */
export const SW_URL = "/sw.js";

type Container = Pick<ServiceWorkerContainer, "register" | "addEventListener" | "controller">;

/**
 * registerServiceWorker registers /sw.js and calls offer when a new release's
 * worker is installed and waiting while this page runs the old one. offer's
 * argument applies it: the waiting worker takes over and this page reloads,
 * because the reader asked (the update prompt), never by itself: a reader
 * mid-volume keeps reading the old release as long as they like. A first
 * install (no worker controlled the page) offers nothing: there is nothing
 * old to replace.
 */
export async function registerServiceWorker(
  offer: (apply: () => void) => void,
  container: Container = navigator.serviceWorker,
  reload: () => void = () => window.location.reload(),
): Promise<ServiceWorkerRegistration | null> {
  let accepted = false;
  container.addEventListener("controllerchange", () => {
    // Only the tab whose reader said yes reloads; other tabs keep their page.
    if (accepted) reload();
  });
  const offerFor = (w: ServiceWorker) =>
    offer(() => {
      accepted = true;
      w.postMessage({ type: "SKIP_WAITING" });
    });
  let reg: ServiceWorkerRegistration;
  try {
    reg = await container.register(SW_URL, { scope: "/", updateViaCache: "none" });
  } catch {
    return null; // no worker (private mode, an old browser): the store works online as before
  }
  // A worker may be waiting already, or installing since before this page
  // listened: each is followed until it is installed.
  const follow = (w: ServiceWorker | null) => {
    if (!w) return;
    const check = () => w.state === "installed" && container.controller && offerFor(w);
    if (w.state === "installed") check();
    else w.addEventListener("statechange", check);
  };
  follow(reg.waiting);
  follow(reg.installing);
  reg.addEventListener("updatefound", () => follow(reg.installing));
  return reg;
}
