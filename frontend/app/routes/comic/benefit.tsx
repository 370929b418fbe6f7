import { useLoaderData } from "react-router";
import { EventBlock } from "~/components/product/ListScreen";
import { Tabs } from "~/components/product/Tabs";
import { TitleBar } from "~/components/TitleBar/TitleBar";
import { pageTitle } from "~/utils/meta";
import { getEvents } from "~/utils/storeApi";
import { AREA_TABS, guard } from "~/utils/routeData";
import * as s from "~/components/product/product.css";

export const meta = () => [{ title: pageTitle("꿀혜택") }];

export function clientLoader({ request }: { request: Request }) {
  return guard(getEvents("/comic/benefit", request.signal));
}

export default function Screen() {
  const data = useLoaderData<typeof clientLoader>();
  return (
    <section aria-label="꿀혜택" className={s.page}>
      <TitleBar title="만화 꿀혜택" />
      <Tabs tabs={AREA_TABS.comic} label="만화 메뉴" />
      {data.events.length === 0 && <p className={s.empty}>진행 중인 혜택이 없습니다.</p>}
      {data.events.map((ev) => (
        <EventBlock key={ev.eid} ev={ev} link={`/comic/benefit/${ev.eid}`} />
      ))}
    </section>
  );
}
