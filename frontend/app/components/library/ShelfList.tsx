import { Link } from "react-router";
import { sectionPath } from "~/utils/layout";
import { nextLabel, timeLeft, viewerHref, type LibraryItem } from "~/utils/library";
import * as p from "~/components/product/product.css";
import * as s from "./library.css";

const day = (v: string | null) => (v ? new Date(v).toLocaleDateString("ko-KR") : "");

/** One shelf of the library: each work with the episode to read next. */
export function ShelfList({ items, label, now, rented }: { items: LibraryItem[]; label: string; now: number; rented: boolean }) {
  return (
    <ul className={p.rows} aria-label={label}>
      {items.map((it) => (
        <li key={it.pid} className={p.row} data-testid="library-item">
          <Link to={`/${sectionPath(it.section)}/detail/${encodeURIComponent(it.pid)}`} className={p.rowThumb} aria-hidden="true" tabIndex={-1}>
            <div className={p.thumbWrap}>
              <img className={p.thumb} src={it.thumbUrl} alt="" width={64} height={85} loading="lazy" />
            </div>
          </Link>
          <div className={p.rowBody}>
            <p className={p.title}>
              <Link to={`/${sectionPath(it.section)}/detail/${encodeURIComponent(it.pid)}`}>{it.title}</Link>
            </p>
            <p className={p.meta}>
              {it.lastReadAt ? `${day(it.lastReadAt)} 읽음` : "아직 읽지 않음"}
              {it.updatedAt ? ` · ${day(it.updatedAt)} 업데이트` : ""}
            </p>
            {rented && it.rentUntil && (
              <p className={s.timeLeft} data-testid="time-left">
                {it.rentedVols ? `${it.rentedVols}개 대여 · ` : ""}
                {timeLeft(it.rentUntil, now)}
              </p>
            )}
          </div>
          {it.nextVol > 0 ? (
            <Link to={viewerHref(it)} className={`${s.action} ${s.actionPrimary}`} aria-label={`${it.title} ${nextLabel(it)}`}>
              {nextLabel(it)}
            </Link>
          ) : (
            <span className={p.meta}>{nextLabel(it)}</span>
          )}
        </li>
      ))}
    </ul>
  );
}

/** 이어보기: the member's most recent reading places, on the home page. */
export function ContinueShelf({ items }: { items: LibraryItem[] }) {
  if (items.length === 0) return null;
  return (
    <section aria-labelledby="continue-heading" data-testid="continue-shelf">
      <h2 id="continue-heading" className={s.heading}>
        이어보기
      </h2>
      <ul className={s.continueRow}>
        {items.map((it) => (
          <li key={it.pid} className={s.continueItem}>
            <Link to={viewerHref(it)} className={s.continueLink}>
              <div className={p.thumbWrap}>
                <img className={p.thumb} src={it.thumbUrl} alt="" width={104} height={138} loading="lazy" />
              </div>
              <p className={p.title}>{it.title}</p>
              <p className={s.continueNext}>{nextLabel(it)}</p>
            </Link>
          </li>
        ))}
      </ul>
    </section>
  );
}
