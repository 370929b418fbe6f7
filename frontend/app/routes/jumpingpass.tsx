import { useLoaderData, useParams } from "react-router";
import { JumpingPassBuy } from "~/components/detail/JumpingPassBuy";
import { ProductGrid } from "~/components/product/ProductGrid";
import { Tabs } from "~/components/product/Tabs";
import { Section } from "~/components/Section/Section";
import { TitleBar } from "~/components/TitleBar/TitleBar";
import { http } from "~/utils/api";
import { pageTitle } from "~/utils/meta";
import { API, type ListAnswer } from "~/utils/storeApi";
import { won } from "~/utils/format";
import { guard } from "~/utils/routeData";
import * as s from "~/components/product/product.css";
import * as ev from "~/components/product/events.css";

export const meta = () => [{ title: pageTitle("점핑패스") }];

type Jumping = { title: string; price: number; days: number; sections: { key: string; title: string; list: ListAnswer["list"] }[] };

export function clientLoader({ request, params }: { request: Request; params: { section?: string } }) {
  const path = params.section ? `${API}/jumpingpass/${encodeURIComponent(params.section)}` : `${API}/jumpingpass`;
  return guard(http<Jumping>(path, { signal: request.signal }));
}

export default function Screen() {
  const jp = useLoaderData<typeof clientLoader>();
  const section = useParams().section;
  const tabs = [{ to: "/jumpingpass", label: "전체" }, ...jp.sections.map((x) => ({ to: `/jumpingpass/${x.key}`, label: x.title.replace(/^점핑패스\s*/, "") }))];
  return (
    <section aria-label="점핑패스" className={s.page}>
      <TitleBar title={jp.title} />
      <div className={`${s.eventText} ${ev.passHero}`}>
        <p className={ev.passTitle}>{jp.days}일 동안 정주행</p>
        <p className={ev.passSub}>
          {won(jp.price)}으로 점핑패스 작품의 다음 화를 미리 만나 보세요.
        </p>
      </div>
      <JumpingPassBuy price={jp.price} days={jp.days} anyPid={jp.sections.flatMap((x) => x.list)[0]?.pid} />
      <Tabs tabs={tabs} label="점핑패스 분류" />
      {jp.sections
        .filter((x) => !section || x.key === section)
        .map((x) => (
          <Section key={x.key} title={x.title} moreUrl={section ? undefined : `/jumpingpass/${x.key}`}>
            <ProductGrid items={x.list} label={x.title} />
          </Section>
        ))}
    </section>
  );
}
