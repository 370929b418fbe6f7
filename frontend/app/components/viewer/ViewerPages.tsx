import type { ReactNode, RefObject } from "react";
import { eagerUntil, fallbackWidth, pageURL, srcSet, type Manifest } from "./media";
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

/** Comic: the spread on screen with its tap areas, or the end panel after the last. */
export function ComicPage(props: {
  manifest: Manifest | null | undefined;
  groups: number[][];
  cur: number;
  token: string | null;
  turn: (d: 1 | -1) => void;
  toggleChrome: () => void;
  end: ReactNode;
}) {
  const { manifest, groups, cur, token, turn, toggleChrome, end } = props;
  if (cur >= groups.length) return <div className={s.endTop}>{end}</div>;
  return (
    <div className={s.pageWrap} data-testid="comic-page" data-page={cur}>
      {manifest &&
        (groups[cur] ?? []).map((n) => (
          <img
            key={n}
            className={`${s.pageImg} ${s.pageFit({ spread: groups[cur].length === 2 })}`}
            srcSet={srcSet(manifest, n, token)}
            sizes={groups[cur].length === 2 ? "50vw" : "100vw"}
            src={pageURL(manifest, n, fallbackWidth(manifest.pages[n - 1]), token)}
            alt={`${n}쪽`}
            width={manifest.pages[n - 1].w}
            height={manifest.pages[n - 1].h}
            data-testid="page"
          />
        ))}
      <button type="button" className={s.tapLeft} aria-label="이전 쪽" onClick={() => turn(-1)} />
      <button type="button" className={s.tapRight} aria-label="다음 쪽" onClick={() => turn(1)} />
      <button type="button" className={s.tapMenu} aria-label="메뉴" onClick={toggleChrome} />
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
