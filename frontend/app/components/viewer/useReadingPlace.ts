import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { placeSync, savePlace, stripPlace, stripY, textOffset, textTarget, type Box, type Place } from "./place";

type Args = {
  pid: string;
  no: number;
  section: string;
  /** comic: the first page (1-based) on screen */
  at: number;
  /** the pages are laid out (novel: its text has come) */
  laidOut: boolean;
  /** where to open, when it is this volume's */
  place?: Place | null;
  isLogin: boolean;
  /**
   * webtoon: the episode the reader is in and its strip, when episodes
   * followed the one opened (FollowOn.tsx); the place is that episode's.
   */
  segment?: () => { no: number; el: Element | null } | null;
};

/**
 * The reader's place: measured from the screen, kept on this device and
 * sent to the writer (throttled; by beacon when the page goes away), and
 * restored once the pages are laid out. Nothing is saved before the
 * restore, so opening a volume never overwrites another device's place.
 */
export function useReadingPlace({ pid, no, section, at, laidOut, place, isLogin, segment }: Args) {
  const stripRef = useRef<HTMLDivElement>(null);
  const textRef = useRef<HTMLDivElement>(null);
  // The page at the top of the screen (from 1): the next few load ahead.
  const [curPage, setCurPage] = useState(1);
  const [restored, setRestored] = useState(false);
  const sync = useMemo(() => placeSync(pid), [pid]);
  const measure = useCallback((): Place => {
    const y = window.scrollY;
    const box = (el: Element): Box => {
      const r = el.getBoundingClientRect();
      return { top: r.top + y, height: r.height };
    };
    const seg = section === "WT" ? segment?.() : null;
    const base = { no: seg?.no ?? no, page: 0, ratio: 0, offset: 0, at: Date.now() };
    if (section === "CM") return { ...base, page: Math.max(0, at - 1) };
    if (section === "WT") {
      const imgs = Array.from((seg ? seg.el : stripRef.current)?.querySelectorAll("[data-testid=page]") ?? []);
      return { ...base, ...stripPlace(imgs.map(box), y) };
    }
    const paras = Array.from(textRef.current?.querySelectorAll("p") ?? []);
    const lengths = paras.map((el) => el.firstChild?.textContent?.length ?? 0);
    const range = document.createRange();
    const bottom = (i: number, k: number) => {
      const t = paras[i].firstChild!;
      range.setStart(t, k);
      range.setEnd(t, k + 1);
      return range.getBoundingClientRect().bottom + y;
    };
    const h = document.documentElement.scrollHeight - window.innerHeight;
    return { ...base, offset: textOffset(lengths, paras.map(box), y, bottom), ratio: h > 0 ? Math.min(1, y / h) : 0 };
  }, [no, section, at, segment]);
  const record = useCallback(() => {
    const pl = measure();
    setCurPage(pl.page + 1);
    savePlace(pid, pl);
    if (isLogin) sync.update(pl);
  }, [measure, pid, isLogin, sync]);
  const restore = useCallback(
    (pl: Place) => {
      const y = window.scrollY;
      if (section === "WT") {
        const imgs = Array.from(stripRef.current?.querySelectorAll("[data-testid=page]") ?? []);
        const boxes = imgs.map((el) => {
          const r = el.getBoundingClientRect();
          return { top: r.top + y, height: r.height };
        });
        window.scrollTo(0, stripY(boxes, pl.page, pl.ratio));
      } else if (section === "EB") {
        const paras = Array.from(textRef.current?.querySelectorAll("p") ?? []);
        const t = textTarget(paras.map((el) => el.firstChild?.textContent?.length ?? 0), pl.offset);
        if (t) {
          const range = document.createRange();
          range.setStart(paras[t.i].firstChild!, t.k);
          range.setEnd(paras[t.i].firstChild!, t.k + 1);
          window.scrollTo(0, range.getBoundingClientRect().top + y);
        } else {
          window.scrollTo(0, pl.ratio * (document.documentElement.scrollHeight - window.innerHeight));
        }
      }
    },
    [section],
  );
  useEffect(() => {
    if (restored || !laidOut) return;
    const pl = place && place.no === no ? place : null;
    if (!pl || section === "CM") {
      setRestored(true);
      return;
    }
    // after React committed the pages and the browser laid them out
    const raf = requestAnimationFrame(() => {
      restore(pl);
      setRestored(true);
    });
    return () => cancelAnimationFrame(raf);
  }, [restored, laidOut, place, no, section, restore]);
  useEffect(() => {
    if (!restored) return;
    record();
    let raf = 0;
    const onScroll = () => {
      if (!raf)
        raf = requestAnimationFrame(() => {
          raf = 0;
          record();
        });
    };
    const away = () => {
      if (document.visibilityState === "hidden") sync.flush();
    };
    const hide = () => sync.flush();
    window.addEventListener("scroll", onScroll, { passive: true });
    window.addEventListener("pagehide", hide);
    document.addEventListener("visibilitychange", away);
    return () => {
      cancelAnimationFrame(raf);
      window.removeEventListener("scroll", onScroll);
      window.removeEventListener("pagehide", hide);
      document.removeEventListener("visibilitychange", away);
    };
  }, [restored, record, sync]);
  // Leaving the volume (next volume, the list) sends what is pending.
  useEffect(() => () => sync.flush(), [sync]);
  return { stripRef, textRef, curPage, measure, restore };
}
