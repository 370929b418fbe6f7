import { useEffect, useState } from "react";
import { SKELETON_DELAY_MS } from "~/shell/timing";
import * as s from "./ui.css";

/** Whether `ms` have passed since the component mounted. */
function useElapsed(ms: number): boolean {
  const [done, setDone] = useState(false);
  useEffect(() => {
    const t = setTimeout(() => setDone(true), ms);
    return () => clearTimeout(t);
  }, [ms]);
  return done;
}

/**
 * The loading placeholder (seed §9's skeleton loading): drawn only once the
 * loading has lasted SKELETON_DELAY_MS, so a quick answer goes straight from
 * nothing to the content without a flash of grey. Mount it while loading.
 */
export function Skeleton({ rows = 3, label = "불러오는 중" }: { rows?: number; label?: string }) {
  const shown = useElapsed(SKELETON_DELAY_MS);
  if (!shown) return null;
  return (
    <div className={s.skeleton} role="status" aria-label={label} aria-busy="true" data-testid="skeleton">
      {Array.from({ length: rows }, (_, i) => (
        <span key={i} className={s.skeletonRow} />
      ))}
    </div>
  );
}
