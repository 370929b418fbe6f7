import { useCallback, useEffect, useMemo, useState } from "react";
import { srcSet, type Manifest } from "./media";
import { keyTurn, spreads } from "./nav";

/** Wide screens show comic spreads. */
export function useWideScreen() {
  const [wide, setWide] = useState(false);
  useEffect(() => {
    const mq = window.matchMedia("(min-width: 720px) and (orientation: landscape)");
    const on = () => setWide(mq.matches);
    on();
    mq.addEventListener("change", on);
    return () => mq.removeEventListener("change", on);
  }, []);
  return wide;
}

/**
 * Comic page turning. at: the first page (1-based) on screen; spreads are
 * derived from it, so turning the phone keeps the page. count + 1 is the end
 * panel. The arrow keys turn (mirrored for a work read right to left, rtl),
 * and the next two spreads preload.
 */
export function useComicPages(comic: boolean, startAt: () => number, count: number, wide: boolean, manifest: Manifest | null | undefined, token: string | null, rtl = false) {
  const [at, setAt] = useState(startAt);
  const groups = useMemo(() => spreads(count, wide), [count, wide]);
  const found = groups.findIndex((g) => g.includes(at));
  const cur = found >= 0 ? found : groups.length;
  const turn = useCallback(
    (d: 1 | -1) =>
      setAt((a) => {
        const i = groups.findIndex((g) => g.includes(a));
        const from = i >= 0 ? i : groups.length;
        const to = Math.min(Math.max(from + d, 0), groups.length);
        return to < groups.length ? groups[to][0] : count + 1;
      }),
    [groups, count],
  );
  useEffect(() => {
    if (!comic) return;
    for (const n of manifest ? groups.slice(cur + 1, cur + 3).flat() : []) {
      const img = new Image();
      img.sizes = wide ? "50vw" : "100vw";
      img.srcset = srcSet(manifest!, n, token);
    }
    const k = (e: KeyboardEvent) => {
      const d = keyTurn(e.key, rtl);
      if (d) turn(d);
    };
    window.addEventListener("keydown", k);
    return () => window.removeEventListener("keydown", k);
  }, [comic, groups, cur, turn, manifest, token, wide, rtl]);
  return { at, groups, cur, turn };
}
