// A chunk that fails to load (a deploy replaced the hashed files) reloads the
// page, at most once per 60 s (session stamp), so a real outage cannot loop.
import { CHUNK_RELOAD_WINDOW_MS } from "./timing";

export const RELOAD_STAMP = "sf_reload_at";

export function isChunkLoadError(e: unknown): boolean {
  const msg = e instanceof Error ? `${e.name} ${e.message}` : typeof e === "string" ? e : "";
  return /Failed to fetch dynamically imported module|error loading dynamically imported module|Importing a module script failed|ChunkLoadError|Loading chunk [\w-]+ failed|Unable to preload CSS/i.test(msg);
}

export function reloadOnce(storage: Storage, reload: () => void, now = Date.now()): boolean {
  const last = Number(storage.getItem(RELOAD_STAMP) ?? 0);
  if (last && now - last < CHUNK_RELOAD_WINDOW_MS) return false;
  storage.setItem(RELOAD_STAMP, String(now));
  reload();
  return true;
}

/** installChunkReload listens for Vite's preload errors and failed dynamic imports. */
export function installChunkReload(win: Window = window): () => void {
  const reload = () => win.location.reload();
  const onPreload = (e: Event) => {
    if (reloadOnce(win.sessionStorage, reload)) e.preventDefault();
  };
  const onRejection = (e: PromiseRejectionEvent) => {
    if (isChunkLoadError(e.reason)) reloadOnce(win.sessionStorage, reload);
  };
  win.addEventListener("vite:preloadError", onPreload);
  win.addEventListener("unhandledrejection", onRejection);
  return () => {
    win.removeEventListener("vite:preloadError", onPreload);
    win.removeEventListener("unhandledrejection", onRejection);
  };
}
