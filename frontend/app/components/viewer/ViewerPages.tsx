import type { ReactNode, RefObject } from "react";
import { eagerUntil, fallbackWidth, pageURL, srcSet, type Manifest } from "./media";
import { displayOrder, sideTurn } from "./nav";
import type { ComicZoom } from "./useComicZoom";
import { zoomed } from "./zoom";
import * as s from "./viewer.css";

/** Webtoon: one long strip of pages; the next few after the one on screen load eagerly. */
export function WebtoonStrip(props: {
  no: number;
  manifest: Manifest | null | undefined;
  shown: number;
  token: string | null;
  width: number;
  curPage: number;
  stripRef: RefObject<HTMLDivElement | null>;
  end: ReactNode;
}) {
  const { no, manifest, shown, token, width, curPage, stripRef, end } = props;
  return (
    <div className={`${s.strip} ${s.stripTop}`} style={{ width: `${width}%` }} ref={stripRef}>
      {manifest &&
        Array.from({ length: shown }, (_, i) => (
          <img
            key={`${no}-${i}`}
            className={s.stripImg}
            srcSet={srcSet(manifest, i + 1, token)}
            sizes={`${width}vw`}
            src={pageURL(manifest, i + 1, fallbackWidth(manifest.pages[i]), token)}
            alt={`${i + 1}쪽`}
            width={manifest.pages[i].w}
            height={manifest.pages[i].h}
            loading={i + 1 <= eagerUntil(curPage, shown) ? "eager" : "lazy"}
            fetchPriority={i === 0 ? "high" : undefined}
            data-testid="page"
          />
        ))}
      {end}
    </div>
  );
}

/**
 * Comic: the spread on screen with its tap areas, or the end panel after the
 * last. rtl: the work reads right to left (a spread's first page on the
 * right, the left side leads on). zoom: the page's zoom; while zoomed the
 * tap areas step aside so a drag moves the page.
 */
export function ComicPage(props: {
  manifest: Manifest | null | undefined;
  groups: number[][];
  cur: number;
  token: string | null;
  turn: (d: 1 | -1) => void;
  toggleChrome: () => void;
  end: ReactNode;
  rtl: boolean;
  zoom: ComicZoom;
}) {
  const { manifest, groups, cur, token, turn, toggleChrome, end, rtl, zoom } = props;
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
    </div>
  );
}

/** Novel: the text chunks in the reader's font. */
export function NovelText(props: { texts: string[]; font: { size: number; line: number }; textRef: RefObject<HTMLDivElement | null>; end: ReactNode }) {
  const { texts, font, textRef, end } = props;
  return (
    <div className={s.text} style={{ fontSize: font.size, lineHeight: font.line }} data-testid="novel-text" ref={textRef}>
      {texts.map((t, i) => (
        // sanitized twice: by the writer (bluemonday) and by sanitizeChunk here
        <div key={i} className={s.chunk} data-testid="chunk" dangerouslySetInnerHTML={{ __html: t }} />
      ))}
      {end}
    </div>
  );
}
