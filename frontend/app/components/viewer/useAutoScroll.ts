import { useEffect } from "react";

export const AUTO_SPEEDS = [0, 40, 80, 140, 220]; // px per second

/** Auto-scroll in webtoon mode: speed is an index into AUTO_SPEEDS. */
export function useAutoScroll(speed: number, on: boolean) {
  useEffect(() => {
    const v = AUTO_SPEEDS[speed];
    if (!v || !on) return;
    let last = performance.now();
    let raf = 0;
    const step = (t: number) => {
      window.scrollBy(0, (v * (t - last)) / 1000);
      last = t;
      raf = requestAnimationFrame(step);
    };
    raf = requestAnimationFrame(step);
    return () => cancelAnimationFrame(raf);
  }, [speed, on]);
}
