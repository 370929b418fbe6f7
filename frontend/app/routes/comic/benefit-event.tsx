import { useLoaderData } from "react-router";
import { EventBlock } from "~/components/product/ListScreen";
import { TitleBar } from "~/components/TitleBar/TitleBar";
import { pageTitle } from "~/utils/meta";
import { getEvent } from "~/utils/storeApi";
import { guard } from "~/utils/routeData";
import * as s from "~/components/product/product.css";

export const meta = () => [{ title: pageTitle("꿀혜택") }];

export function clientLoader({ request, params }: { request: Request; params: { event?: string } }) {
  return guard(getEvent(`/comic/benefit/${encodeURIComponent(params.event ?? "")}`, request.signal));
}

export default function Screen() {
  const { event } = useLoaderData<typeof clientLoader>();
  return (
    <section aria-label={event.title} className={s.page}>
      <TitleBar title={event.title} />
      <EventBlock ev={event} heading="h2" />
    </section>
  );
}
