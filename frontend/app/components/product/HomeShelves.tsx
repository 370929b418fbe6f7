// A home's banners and shelves, shared by the store's home and the area homes.
//
// On the app's first load the first shelves render with the page and the rest
// follow two at a time, each step in a transition: React renders a transition
// in short slices that yield to the browser, and each step commits fewer
// nodes. Eight shelves rendered at once were one long task that kept the
// home's Total Blocking Time at its 200 ms budget (Lighthouse at 4x CPU:
// 214-240 ms). Later visits (a tab switch, coming back from a work) render
// everything at once, so scroll restoration finds the page as tall as it was.
import { startTransition, useEffect, useState } from "react";
import { Link } from "react-router";
import { ProductGrid } from "~/components/product/ProductGrid";
import { Section } from "~/components/Section/Section";
import type { HomeAnswer } from "~/utils/home";
import * as s from "~/routes/home.css";

const FIRST_SHELVES = 2;
const SHELVES_PER_STEP = 1;

let firstLoad = true;

export function HomeShelves({ home }: { home: Pick<HomeAnswer, "banners" | "sections"> }) {
  const total = home.sections.length;
  const [shown, setShown] = useState(() => (firstLoad ? Math.min(FIRST_SHELVES, total) : total));
  useEffect(() => {
    if (shown >= total) {
      firstLoad = false;
      return;
    }
    startTransition(() => setShown((n) => Math.min(n + SHELVES_PER_STEP, total)));
  }, [shown, total]);
  return (
    <>
      {home.banners.length > 0 && (
        <div className={s.banners} role="region" aria-label="배너">
          {home.banners.map((b, i) => (
            <Link key={b.id} to={b.linkUrl} className={s.banner}>
              <img className={s.bannerImg} src={b.imageUrl} alt={b.title} width={320} height={160} loading={i === 0 ? "eager" : "lazy"} />
            </Link>
          ))}
        </div>
      )}
      {total === 0 && <p className={s.empty}>표시할 작품이 없습니다.</p>}
      {home.sections.slice(0, shown).map((sec, i) => (
        <Section key={sec.key} title={sec.title} moreUrl={sec.moreUrl}>
          <ProductGrid items={sec.list} label={sec.title} eager={i === 0 ? 6 : 0} />
        </Section>
      ))}
    </>
  );
}
