import { useLoaderData } from "react-router";
import { EventBlock } from "~/components/product/ListScreen";
import { Tabs } from "~/components/product/Tabs";
import { TitleBar } from "~/components/TitleBar/TitleBar";
import { pageTitle } from "~/utils/meta";
import { getEvents } from "~/utils/storeApi";
import { AREA_TABS, guard } from "~/utils/routeData";
import * as s from "~/components/product/product.css";

export const meta = () => [{ title: pageTitle("작가전") }];

export function clientLoader({ request }: { request: Request }) {
  return guard(getEvents("/contents/comic/heroism/coupons", request.signal));
}

export default function Screen() {
  const data = useLoaderData<typeof clientLoader>();
  return (
    <section aria-label="작가전" className={s.page}>
      <TitleBar title="만화 작가전" />
      <Tabs tabs={AREA_TABS.comic} label="만화 메뉴" />
      {data.events.length === 0 && <p className={s.empty}>진행 중인 작가전이 없습니다.</p>}
      {data.events.map((ev) => (
        <EventBlock key={ev.eid} ev={ev} link={ev.writer ? `/comic/heroism/${ev.writer}` : undefined} />
      ))}
    </section>
  );
}
