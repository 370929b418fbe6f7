// The home of one area (webtoon, comic, novel): its tabs, banners and shelves.
// The three route modules only name their area and hand over here.
import { Link } from "react-router";
import { ProductGrid } from "~/components/product/ProductGrid";
import { Tabs } from "~/components/product/Tabs";
import { Section } from "~/components/Section/Section";
import { http } from "~/utils/api";
import { loadHome, type HomeAnswer } from "~/utils/home";
import { pageTitle } from "~/utils/meta";
import { AREA_TABS, guard } from "~/utils/routeData";
import * as s from "~/routes/home.css";

export type Area = keyof typeof AREAS;

/** Each area's code in the home call and its name on screen. */
const AREAS = {
  webtoon: { code: "wt", name: "웹툰" },
  comic: { code: "cm", name: "만화" },
  novel: { code: "eb", name: "소설" },
} as const;

export const areaMeta = (area: Area) => () => [{ title: pageTitle(AREAS[area].name) }];

export const areaLoader =
  (area: Area) =>
  ({ request }: { request: Request }) =>
    guard(loadHome(http, AREAS[area].code, request.signal));

export function AreaHome({ area, home }: { area: Area; home: HomeAnswer }) {
  const name = AREAS[area].name;
  return (
    <div>
      <h1 className="visually-hidden">{name}</h1>
      <Tabs tabs={AREA_TABS[area]} label={`${name} 메뉴`} />
      {home.banners.length > 0 && (
        <div className={s.banners} role="region" aria-label="배너">
          {home.banners.map((b, i) => (
            <Link key={b.id} to={b.linkUrl} className={s.banner}>
              <img className={s.bannerImg} src={b.imageUrl} alt={b.title} width={320} height={160} loading={i === 0 ? "eager" : "lazy"} />
            </Link>
          ))}
        </div>
      )}
      {home.sections.length === 0 && <p className={s.empty}>표시할 작품이 없습니다.</p>}
      {home.sections.map((sec, i) => (
        <Section key={sec.key} title={sec.title} moreUrl={sec.moreUrl}>
          <ProductGrid items={sec.list} label={sec.title} eager={i === 0 ? 6 : 0} />
        </Section>
      ))}
    </div>
  );
}
