import { Link } from "react-router";
import { fallbackWidth, pageURL, srcSet, total, type Manifest } from "~/components/viewer/media";
import * as s from "./analytics.css";
import * as m from "./media.css";

/** Preview: the processed pages a reader gets without a token (the preview), and the reader's viewer. */
export function Preview({ pid, no, manifest }: { pid: string; no: number; manifest: Manifest | null }) {
  return (
    <section className={s.panel} aria-labelledby="pv-title">
      <h2 id="pv-title" className={s.h2}>
        미리보기
      </h2>
      {!manifest ? (
        <p className={s.muted}>아직 처리된 콘텐츠가 없습니다.</p>
      ) : (
        <>
          <p className={s.muted}>
            버전 {manifest.ver} · {manifest.kind === "text" ? `${total(manifest)}개 본문 조각` : `${total(manifest)}쪽`} · 무료 미리보기 {manifest.previewPages}쪽 ·{" "}
            {manifest.formats.join(", ").toUpperCase()}{" "}
            <Link className={s.link} to={`/viewer?pid=${encodeURIComponent(pid)}&no=${no}`}>
              독자 화면으로 보기
            </Link>
          </p>
          {manifest.kind === "images" && (
            <div className={m.strip} data-testid="media-preview">
              {manifest.pages.slice(0, Math.min(manifest.previewPages, 3)).map((p, i) => (
                <img key={i} className={m.stripImg} srcSet={srcSet(manifest, i + 1)} sizes="360px" src={pageURL(manifest, i + 1, fallbackWidth(p))} width={p.w} height={p.h} alt={`${i + 1}쪽`} loading="lazy" />
              ))}
            </div>
          )}
        </>
      )}
    </section>
  );
}
