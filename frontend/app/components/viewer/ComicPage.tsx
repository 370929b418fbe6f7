// The comic page viewer: its own chunk (Viewer.tsx loads it for comics
// only), with its zoom (useComicZoom.ts, zoom.ts).
import type { ReactNode } from "react";
import { fallbackWidth, pageURL, srcSet, type Manifest } from "./media";
import { displayOrder, sideTurn } from "./nav";
import { useComicZoom } from "./useComicZoom";
import { zoomed, zoomPercent, ZOOM_MAX, ZOOM_MIN } from "./zoom";
import * as s from "./viewer.css";

/**
 * Comic: the spread on screen with its tap areas, or the end panel after the
 * last. rtl: the work reads right to left (a spread's first page on the
 * right, the left side leads on). zoom: the page's zoom; while zoomed the
 * tap areas step aside so a drag moves the page.
 */
export default function ComicPage(props: {
  manifest: Manifest | null | undefined;
  groups: number[][];
  cur: number;
  token: string | null;
  turn: (d: 1 | -1) => void;
  toggleChrome: () => void;
  end: ReactNode;
  rtl: boolean;
  /** the bars are shown: so are the zoom buttons */
  chrome: boolean;
}) {
  const { manifest, groups, cur, token, turn, toggleChrome, end, rtl, chrome } = props;
  const zoom = useComicZoom(cur < groups.length, cur);
  if (cur >= groups.length) return <div className={s.endTop}>{end}</div>;
  const { z } = zoom;
  const tap = (side: "left" | "right") => () => {
    if (!zoom.wasGesture()) turn(sideTurn(side, rtl));
  };
  const spread = (groups[cur] ?? []).length === 2;
  return (
    <div className={s.pageWrap} data-testid="comic-page" data-page={cur} data-order={rtl ? "rtl" : "ltr"} data-zoom={z.s} ref={zoom.boxRef} {...zoom.handlers}>
      <div className={s.zoomLayer} style={{ transform: `translate(${z.x}px, ${z.y}px) scale(${z.s})` }}>
        {manifest &&
          displayOrder(groups[cur] ?? [], rtl).map((n) => (
            <img
              key={n}
              className={`${s.pageImg} ${s.pageFit({ spread })}`}
              srcSet={srcSet(manifest, n, token)}
              sizes={spread ? "50vw" : "100vw"}
              src={pageURL(manifest, n, fallbackWidth(manifest.pages[n - 1]), token)}
              alt={`${n}쪽`}
              width={manifest.pages[n - 1].w}
              height={manifest.pages[n - 1].h}
              draggable={false}
              data-testid="page"
            />
          ))}
      </div>
      {/* The sides turn; a double tap on the middle zooms (its single tap shows the bars, twice: unchanged). */}
      <div className={zoomed(z) ? s.tapsOff : undefined}>
        <button type="button" className={s.tapLeft} aria-label={rtl ? "다음 쪽" : "이전 쪽"} onClick={tap("left")} />
        <button type="button" className={s.tapRight} aria-label={rtl ? "이전 쪽" : "다음 쪽"} onClick={tap("right")} />
        <button type="button" className={s.tapMenu} aria-label="메뉴" onClick={() => !zoom.wasGesture() && toggleChrome()} />
      </div>
      {chrome && (
        <div className={s.zoomBar} role="group" aria-label="확대" onPointerDown={(e) => e.stopPropagation()} onDoubleClick={(e) => e.stopPropagation()}>
          <button type="button" className={s.btn} onClick={() => zoom.step(-1)} disabled={z.s <= ZOOM_MIN} aria-label="축소">
            −
          </button>
          <button type="button" className={s.btn} onClick={zoom.reset} aria-label={`원래 크기 (지금 ${zoomPercent(z)})`} data-testid="zoom-level">
            {zoomPercent(z)}
          </button>
          <button type="button" className={s.btn} onClick={() => zoom.step(1)} disabled={z.s >= ZOOM_MAX} aria-label="확대하기">
            +
          </button>
        </div>
      )}
    </div>
  );
}
