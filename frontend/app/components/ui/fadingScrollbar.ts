import { useCallback, useEffect, useRef, useState } from "react";
import { SCROLLBAR_HIDE_MS } from "~/shell/timing";

/**
 * A scrolling box's scrollbar that shows while it scrolls and hides
 * SCROLLBAR_HIDE_MS after the last scroll (seed §9). Spread the answer on the
 * box, together with the `fadingScrollbar` class.
 */
export function useFadingScrollbar() {
  const [scrolling, setScrolling] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const onScroll = useCallback(() => {
    setScrolling(true);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setScrolling(false), SCROLLBAR_HIDE_MS);
  }, []);
  useEffect(() => () => clearTimeout(timer.current), []);
  return { onScroll, "data-scrolling": scrolling ? "true" : undefined };
}
