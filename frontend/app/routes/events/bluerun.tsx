import { useLoaderData } from "react-router";
import { EventBlock } from "~/components/product/ListScreen";
import { TitleBar } from "~/components/TitleBar/TitleBar";
import { pageTitle } from "~/utils/meta";
import { getEvent, getEvents, type EventT } from "~/utils/storeApi";
import { guard } from "~/utils/routeData";
import * as s from "~/components/product/product.css";

export const meta = () => [{ title: pageTitle("블루런") }];

export async function clientLoader({ request, params }: { request: Request; params: { eid?: string } }) {
  if (params.eid) return [(await guard(getEvent(`/events/bluerun/${encodeURIComponent(params.eid)}`, request.signal))).event];
  return (await guard(getEvents("/events/bluerun", request.signal))).events;
}

export default function Screen() {
  const events = useLoaderData<typeof clientLoader>() as EventT[];
  return (
    <section aria-label="블루런" className={s.page}>
      <TitleBar title={events.length === 1 ? events[0].title : "블루런"} />
      {events.length === 0 && <p className={s.empty}>진행 중인 이벤트가 없습니다.</p>}
      {events.map((ev) => (
        <EventBlock key={ev.eid} ev={ev} link={events.length > 1 ? `/bluerun/${ev.eid}` : undefined} />
      ))}
    </section>
  );
}
