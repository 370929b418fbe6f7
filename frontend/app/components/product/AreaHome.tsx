// The home of one area (webtoon, comic, novel): its tabs, banners and shelves.
// The three route modules only name their area and hand over here.
import { HomeShelves } from "~/components/product/HomeShelves";
import { Tabs } from "~/components/product/Tabs";
import { http } from "~/utils/api";
import { loadHome, type HomeAnswer } from "~/utils/home";
import { pageTitle } from "~/utils/meta";
import { AREA_TABS, guard } from "~/utils/routeData";

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
      <HomeShelves home={home} />
    </div>
  );
}
