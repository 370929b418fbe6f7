import { Link } from "react-router";
import { authorLine, deadlineBadge, detailHref, type ProductItem } from "~/utils/product";
import * as s from "./product.css";

/**
 * The seed's product list: thumbnail (lazy, size reserved), title clamped to 2
 * lines, authors; three columns of at least 96px. onOpen tells the list which
 * item was opened so that it can restore its place.
 */
export function ProductGrid({ items, label, onOpen, eager = 0 }: { items: ProductItem[]; label?: string; onOpen?: (index: number) => void; eager?: number }) {
  return (
    <ul className={s.grid} aria-label={label}>
      {items.map((it, i) => (
        <li key={`${it.pid}-${i}`} className={s.item} data-testid="product-item" data-index={i}>
          <ProductCard item={it} onOpen={onOpen ? () => onOpen(i) : undefined} eager={i < eager} />
        </li>
      ))}
    </ul>
  );
}

export function ProductCard({ item, onOpen, eager }: { item: ProductItem; onOpen?: () => void; eager?: boolean }) {
  const deadline = deadlineBadge(item);
  const authors = authorLine(item.authors);
  return (
    <Link to={detailHref(item)} className={s.link} onClick={onOpen}>
      <Thumb item={item} eager={eager} />
      <p className={s.title} data-testid="product-title">
        {item.title}
      </p>
      {authors && <p className={s.authors}>{authors}</p>}
      {deadline && (
        <span className="visually-hidden">{deadline === "today" ? "오늘 마감" : "마감 임박"}</span>
      )}
    </Link>
  );
}

export function Thumb({ item, eager }: { item: ProductItem; eager?: boolean }) {
  const deadline = deadlineBadge(item);
  return (
    <div className={s.thumbWrap}>
      <img
        className={s.thumb}
        src={item.thumbnail}
        alt=""
        loading={eager ? "eager" : "lazy"}
        decoding="async"
        width={96}
        height={128}
      />
      <span className={s.badges}>
        {item.badge === "UP" && <span className={`${s.badge} ${s.badgeUp}`}>UP</span>}
        {item.badge === "NEW" && <span className={s.badge}>NEW</span>}
        {item.waitForFree && <span className={`${s.badge} ${s.badgeWff}`}>기다무</span>}
      </span>
      {item.isAdult && (
        <span className={`${s.badge} ${s.badgeAdult}`} aria-label="19세 이용가">
          19
        </span>
      )}
      {deadline && (
        <span className={`${s.badge} ${s.badgeDeadline} ${deadline === "soon" ? s.badgeSoon : ""}`} data-testid={`badge-${deadline}`} aria-hidden="true">
          {deadline === "today" ? "오늘 마감" : "마감 임박"}
        </span>
      )}
    </div>
  );
}

/** List style: thumbnail on the left, title, authors and summary on the right. */
export function ProductRows({ items, label, onOpen, rank }: { items: ProductItem[]; label?: string; onOpen?: (i: number) => void; rank?: { rank: number; delta: number }[] }) {
  return (
    <ul className={s.rows} aria-label={label}>
      {items.map((it, i) => (
        <li key={`${it.pid}-${i}`} data-testid="product-item" data-index={i}>
          <Link to={detailHref(it)} className={s.row} onClick={() => onOpen?.(i)}>
            {rank && (
              <span className={s.rank} data-testid="rank">
                {rank[i].rank}
                <span className={`${s.delta} ${rank[i].delta > 0 ? s.deltaUp : rank[i].delta < 0 ? s.deltaDown : ""}`}>
                  {rank[i].delta > 0 ? `▲${rank[i].delta}` : rank[i].delta < 0 ? `▼${-rank[i].delta}` : "-"}
                </span>
              </span>
            )}
            <div className={s.rowThumb}>
              <Thumb item={it} />
            </div>
            <div className={s.rowBody}>
              <p className={s.title} data-testid="product-title">
                {it.title}
              </p>
              <p className={s.authors}>{authorLine(it.authors)}</p>
              {it.summary && <p className={s.rowSummary}>{it.summary}</p>}
            </div>
          </Link>
        </li>
      ))}
    </ul>
  );
}
