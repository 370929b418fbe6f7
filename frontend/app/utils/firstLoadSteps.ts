// A long list drawn in steps the first time a screen shows it, so the first
// paint commits only what the reader sees first (issue 37: the genre list's
// and the detail's Total Blocking Time). React renders a transition in short
// slices that yield to the browser, and each step commits a few more nodes,
// as the home's shelves do (HomeShelves). Once a screen has shown all of its
// list, later renders draw it at once, so scroll restoration finds the page
// as tall as it was.
import { startTransition, useEffect, useState } from "react";

const shownOnce = new Set<string>();

/**
 * useFirstLoadSteps says how many of total parts to render: on the first show
 * of `screen` in this page's life, `first` with the page and `perStep` more
 * per transition step; afterwards (or with all=true, e.g. a place to restore)
 * every one at once.
 */
export function useFirstLoadSteps(screen: string, total: number, first: number, perStep: number, all = false): number {
  const [shown, setShown] = useState(() => (all || shownOnce.has(screen) ? Infinity : first));
  // Whole once: what comes later (a further page) is drawn at once.
  const whole = shown >= total || shownOnce.has(screen);
  useEffect(() => {
    if (whole) {
      shownOnce.add(screen);
      return;
    }
    startTransition(() => setShown((n) => n + perStep));
  }, [screen, whole, shown, perStep]);
  return whole ? total : shown;
}
