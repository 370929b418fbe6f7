import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";
import { Link, useLocation } from "react-router";
import { TitleBar } from "~/components/TitleBar/TitleBar";
import { usePromotionLib } from "~/shell/promotion";
import type { ListAnswer } from "~/utils/storeApi";
import { useFirstLoadSteps } from "~/utils/firstLoadSteps";
import { listPlace, saveListPlace } from "~/utils/prefs";
import { ProductGrid, ProductRows } from "./ProductGrid";
import { Tabs, type Tab } from "./Tabs";
import * as s from "./product.css";

export type ListScreenProps = {
  title: string;
  initial: ListAnswer;
  /** loads a further page of the same list */
  load: (page: number) => Promise<ListAnswer>;
  tabs?: Tab[];
  tabsLabel?: string;
  controls?: React.ReactNode;
  listStyle?: "grid" | "list";
  back?: boolean;
  children?: React.ReactNode;
};

/**
 * A titled, paged product list. When the reader opens a work and comes back,
 * the pages loaded and the scroll position come back too (session keys list
 * scroll and list index, seed §3).
 */
export function ListScreen({ title, initial, load, tabs, tabsLabel, controls, listStyle = "grid", back = true, children }: ListScreenProps) {
  const location = useLocation();
  const url = location.pathname + location.search;
  const [pages, setPages] = useState<ListAnswer[]>([initial]);
  const [busy, setBusy] = useState(false);
  const restored = useRef(false);
  // The scroll to restore once the restored pages are in the document: set
  // with the pages, used by the layout effect after React committed them.
  const pendingScroll = useRef<number | null>(null);

  useEffect(() => {
    setPages([initial]);
  }, [initial]);

  const last = pages[pages.length - 1];
  const hasMore = last.paging && last.paging.curPage < last.paging.pageCount;

  const more = useCallback(async () => {
    if (busy) return;
    setBusy(true);
    try {
      const next = await load((last.paging?.curPage ?? 1) + 1);
      setPages((p) => [...p, next]);
    } catch {
      /* the button stays; a retry is one tap */
    } finally {
      setBusy(false);
    }
  }, [busy, load, last]);

  // Restore the place once, after loading as many pages as the reader had.
  useEffect(() => {
    if (restored.current) return;
    restored.current = true;
    const place = listPlace(url);
    if (!place) return;
    let cancelled = false;
    (async () => {
      const extra: ListAnswer[] = [];
      for (let p = 2; p <= place.index; p++) {
        try {
          extra.push(await load(p));
        } catch {
          break;
        }
      }
      if (cancelled) return;
      pendingScroll.current = place.scroll;
      setPages((ps) => [...ps, ...extra]);
    })();
    return () => {
      cancelled = true;
    };
  }, [url, load]);

  useLayoutEffect(() => {
    if (pendingScroll.current === null) return;
    window.scrollTo(0, pendingScroll.current);
    pendingScroll.current = null;
  }, [pages]);

  const onOpen = useCallback(() => saveListPlace({ url, scroll: window.scrollY, index: pages.length }), [url, pages.length]);
  const all = pages.flatMap((p) => p.list);
  // A phone's first screen and more with the page (twelve covers: with six the
  // footer was in view and each step moved it, CLS 0.018-0.032), six more per
  // step; everything at once when a place is to be restored.
  const [restoring] = useState(() => listPlace(url) !== null);
  const shown = useFirstLoadSteps("list", all.length, 12, 6, restoring);
  const items = all.slice(0, shown);
  const total = initial.paging?.totalCount ?? all.length;

  return (
    <section aria-label={title} className={s.page}>
      <TitleBar title={title} back={back} />
      {tabs && tabs.length > 0 && <Tabs tabs={tabs} label={tabsLabel ?? `${title} 분류`} />}
      {children}
      {(controls || total > 0) && (
        <div className={s.controls}>
          <span className={s.count}>총 {total.toLocaleString("en-US")}작품</span>
          {controls}
        </div>
      )}
      {items.length === 0 ? (
        <p className={s.empty}>표시할 작품이 없습니다.</p>
      ) : listStyle === "list" ? (
        <ProductRows items={items} label={title} onOpen={onOpen} />
      ) : (
        <ProductGrid items={items} label={title} onOpen={onOpen} eager={6} />
      )}
      {hasMore && shown === all.length && (
        <button type="button" className={s.more} onClick={more} disabled={busy} data-testid="list-more">
          {busy ? "불러오는 중…" : "더 보기"}
        </button>
      )}
    </section>
  );
}

export function EventBlock({ ev, heading = "h2", link }: { ev: { eid: number; title: string; body: string; bannerUrl: string; startAt: string; endAt: string; coupons?: number; isPreview?: boolean; list: ListAnswer["list"] }; heading?: "h1" | "h2"; link?: string }) {
  const H = heading;
  // Where an event is shown, the promotion library is on the page (once).
  usePromotionLib();
  const fmt = (d: string) => new Date(d).toLocaleDateString("ko-KR", { month: "long", day: "numeric" });
  const banner = <img src={ev.bannerUrl} alt="" width={328} height={164} loading="lazy" />;
  return (
    <article className={s.eventBox} aria-label={ev.title} data-testid="event">
      {link ? (
        <Link to={link} className={s.eventBanner}>
          {banner}
        </Link>
      ) : (
        <div className={s.eventBanner}>{banner}</div>
      )}
      <div className={s.eventText}>
        <H className={s.eventTitle}>
          {ev.isPreview && <span className={`${s.chip} ${s.chipAccent}`}>오픈 예정</span>} {ev.title}
        </H>
        <p className={s.eventBody}>{ev.body}</p>
        <p className={s.eventPeriod}>
          {fmt(ev.startAt)} ~ {fmt(ev.endAt)}
          {ev.coupons ? ` · 쿠폰 ${ev.coupons}장` : ""}
        </p>
      </div>
      <ProductGrid items={ev.list} label={`${ev.title} 작품`} />
    </article>
  );
}
