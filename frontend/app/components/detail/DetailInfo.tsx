import { Link } from "react-router";
import { authorHref } from "~/utils/authors";
import { ProductGrid } from "~/components/product/ProductGrid";
import { Section } from "~/components/Section/Section";
import { useFirstLoadSteps } from "~/utils/firstLoadSteps";
import type { Detail } from "~/utils/storeApi";
import * as s from "./detail.css";

/** The work-information tab: summary, authors (each with its zzim), keywords, notices and related works. */
export function DetailInfo({ detail, authorZzim, onAuthor }: { detail: Detail; authorZzim: Map<string, number>; onAuthor: (authorId: number) => void }) {
  const p = detail.prodInfo;
  // The related works are below the fold: they follow the page, one shelf per step.
  const related = useFirstLoadSteps("detail-related", detail.related.length, 0, 1);
  return (
    <div>
      <div className={s.block}>
        <p className={s.summary}>{p.summary}</p>
      </div>
      <div className={s.block}>
        <div className={s.infoGrid}>
          <span className={s.infoKey}>작가</span>
          <span>
            {p.authors.map((a) => (
              <button
                key={a.authorId}
                type="button"
                className={`${s.small} ${s.authorZzim}`}
                onClick={() => onAuthor(a.authorId)}
                aria-pressed={authorZzim.has(String(a.authorId))}
                aria-label={`작가 ${a.authorName} 찜`}
              >
                {a.authorName} {authorZzim.has(String(a.authorId)) ? "♥" : "♡"}
              </button>
            ))}
            {p.authors.map((a) => (
              <Link key={`page-${a.authorId}`} to={authorHref(a.authorId)} className={s.small} data-testid="author-page-link">
                {a.authorName} 작가 페이지
              </Link>
            ))}
          </span>
          <span className={s.infoKey}>장르</span>
          <span>{p.category2 || p.genreCode}</span>
          <span className={s.infoKey}>출판사</span>
          <span>{p.provider}</span>
          <span className={s.infoKey}>이용가</span>
          <span>{p.age === 0 ? "전체 이용가" : `${p.age}세 이용가`}</span>
        </div>
      </div>
      {detail.keywordTag.length > 0 && (
        <div className={s.block}>
          <div className={s.chips}>
            {detail.keywordTag.map((k) =>
              k.id ? (
                <Link key={k.name} to={`/keyword?id=${k.id}`} className={s.chip}>
                  #{k.name}
                </Link>
              ) : (
                <span key={k.name} className={s.chip}>
                  #{k.name}
                </span>
              ),
            )}
          </div>
        </div>
      )}
      {detail.notices.map((n) => (
        <details key={n.id} className={s.block}>
          <summary className={s.noticeTitle}>📢 {n.title}</summary>
          <p className={s.summary}>{n.body}</p>
        </details>
      ))}
      {detail.related.slice(0, related).map((r) => (
        <Section key={r.code} title={r.title}>
          <ProductGrid items={r.list.slice(0, 6)} label={r.title} />
        </Section>
      ))}
    </div>
  );
}
