import { useLoaderData } from "react-router";
import { AwardView, type Award } from "~/components/product/Awards";
import { TitleBar } from "~/components/TitleBar/TitleBar";
import { http } from "~/utils/api";
import { pageTitle } from "~/utils/meta";
import { API } from "~/utils/storeApi";
import { guard } from "~/utils/routeData";
import * as s from "~/components/product/product.css";

export const meta = () => [{ title: pageTitle("어워즈") }];

export function clientLoader({ request }: { request: Request }) {
  return guard(http<{ awards: Award[] }>(`${API}/awards`, { signal: request.signal }));
}

export default function Screen() {
  const { awards } = useLoaderData<typeof clientLoader>();
  return (
    <section aria-label="어워즈" className={s.page}>
      <TitleBar title={awards[0]?.title ?? "어워즈"} />
      {awards.length === 0 && <p className={s.empty}>진행 중인 어워즈가 없습니다.</p>}
      {awards.map((a) => (
        <AwardView key={a.eid} award={a} />
      ))}
    </section>
  );
}
