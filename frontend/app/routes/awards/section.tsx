import { useLoaderData, useParams } from "react-router";
import { AwardView, type Award } from "~/components/product/Awards";
import { TitleBar } from "~/components/TitleBar/TitleBar";
import { http } from "~/utils/api";
import { pageTitle } from "~/utils/meta";
import { API } from "~/utils/storeApi";
import { guard } from "~/utils/routeData";
import * as s from "~/components/product/product.css";

export const meta = () => [{ title: pageTitle("어워즈") }];

export function clientLoader({ request, params }: { request: Request; params: { section?: string } }) {
  return guard(http<{ awards: Award[] }>(`${API}/awards/${encodeURIComponent(params.section ?? "")}`, { signal: request.signal }));
}

export default function Screen() {
  const { awards } = useLoaderData<typeof clientLoader>();
  const section = useParams().section;
  const title = awards[0]?.sections.find((x) => x.key === section)?.title ?? "어워즈";
  return (
    <section aria-label={title} className={s.page}>
      <TitleBar title={title} />
      {awards.map((a) => (
        <AwardView key={a.eid} award={a} only={section} />
      ))}
    </section>
  );
}
