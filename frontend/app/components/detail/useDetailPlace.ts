// Returning to a work keeps its tab and scroll (session key detailContext);
// another work is left to the router (detailArrival). The place is kept as
// the reader scrolls or switches tabs.
import { useLayoutEffect, useRef } from "react";
import type { SetURLSearchParams } from "react-router";
import { detailArrival, detailContext, saveDetailContext } from "~/utils/prefs";

/** useDetailPlace restores and keeps the reader's place on one work; the ref goes on the detail's root. */
export function useDetailPlace(pid: string, tab: string, named: string | null, keys: readonly string[], sp: URLSearchParams, setSp: SetURLSearchParams) {
  const restore = useRef(detailContext(pid));
  // The place is kept from the detail's own top, not the document's: the top
  // banner above it (Android web) comes 50 ms after the layout mounts, as on
  // the way back from the viewer, and may come after the restore.
  const root = useRef<HTMLElement>(null);
  const pageTop = () => (root.current ? root.current.getBoundingClientRect().top + window.scrollY : 0);
  useLayoutEffect(() => {
    const arrival = detailArrival(restore.current, named, keys);
    if (!arrival) {
      restore.current = null;
      return;
    }
    if ("tab" in arrival) {
      const n = new URLSearchParams(sp);
      n.set("tab", arrival.tab);
      setSp(n, { replace: true, preventScrollReset: true });
      return; // scrolled once the tab is drawn
    }
    // The page may still grow (pictures, the member's status): scroll once it
    // is tall enough, trying for about a second; the router's own reset to
    // the top on arrival comes first.
    let tries = 0;
    let frame = 0;
    const step = () => {
      const y = Math.max(0, pageTop() + arrival.scroll);
      const room = document.documentElement.scrollHeight - window.innerHeight;
      if (room >= y || ++tries > 60) {
        restore.current = null;
        window.scrollTo(0, y);
        return;
      }
      frame = requestAnimationFrame(step);
    };
    frame = requestAnimationFrame(step);
    return () => cancelAnimationFrame(frame);
  }, [named, sp, setSp]);
  // A layout effect, so the listener goes in the commit that takes the page
  // away: the router scrolls the next page (the viewer) to the top in that
  // commit's layout effects, and a passive listener still attached then
  // saved that top as this work's place (the restore then "worked", to 0).
  useLayoutEffect(() => {
    let frame = 0;
    const save = () => {
      if (restore.current) return; // not the reader's scroll yet
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => saveDetailContext(pid, { tab, scroll: window.scrollY - pageTop() }));
    };
    if (!restore.current) save();
    window.addEventListener("scroll", save, { passive: true });
    return () => {
      cancelAnimationFrame(frame);
      window.removeEventListener("scroll", save);
    };
  }, [pid, tab]);
  return root;
}
