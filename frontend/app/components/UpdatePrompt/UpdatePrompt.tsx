// The update prompt: a new release of the store is installed and waits. The
// reader chooses when it takes over (seed-compatible: no silent reload, and in
// the viewer never one under the reader's eyes).
import { useEffect, useState } from "react";
import { pruneExpired } from "~/offline/savedIndex";
import { registerServiceWorker } from "~/sw/register";
import * as s from "./UpdatePrompt.css";

export const UPDATE_TEXT = "새 버전이 있습니다. 새로고침하면 적용됩니다.";
export const UPDATE_APPLY = "새로고침";
export const UPDATE_LATER = "나중에";

/** When the page has loaded (the worker is no part of the first screen). */
function afterLoad(fn: () => void): () => void {
  if (document.readyState === "complete") {
    const t = setTimeout(fn, 0);
    return () => clearTimeout(t);
  }
  window.addEventListener("load", fn, { once: true });
  return () => window.removeEventListener("load", fn);
}

export function UpdatePrompt() {
  const [apply, setApply] = useState<(() => void) | null>(null);
  useEffect(() => {
    if (import.meta.env.DEV || !("serviceWorker" in navigator)) return;
    return afterLoad(() => {
      void registerServiceWorker((a) => setApply(() => a));
      // Saved volumes whose rental has ended go, even if the reader never opens them again.
      void pruneExpired().catch(() => {});
    });
  }, []);
  if (!apply) return null;
  return (
    <div className={s.bar} role="status" data-testid="update-prompt">
      <span className={s.text}>{UPDATE_TEXT}</span>
      <button type="button" className={s.apply} onClick={apply}>
        {UPDATE_APPLY}
      </button>
      <button type="button" className={s.later} onClick={() => setApply(null)}>
        {UPDATE_LATER}
      </button>
    </div>
  );
}
