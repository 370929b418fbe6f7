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
