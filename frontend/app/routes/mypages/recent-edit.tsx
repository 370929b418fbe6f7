import { useLoaderData } from "react-router";
import { loadRecent, RecentList } from "~/components/product/Recent";
import { TitleBar } from "~/components/TitleBar/TitleBar";
import { pageTitle } from "~/utils/meta";
import { guard } from "~/utils/routeData";
import * as s from "~/components/product/product.css";

export const meta = () => [{ title: pageTitle("최근 본 작품 편집") }];

export function clientLoader({ request }: { request: Request }) {
  return guard(loadRecent(1, request.signal));
}

export default function Screen() {
  const data = useLoaderData<typeof clientLoader>();
  return (
    <section aria-label="최근 본 작품 편집" className={s.page}>
      <TitleBar title="최근 본 작품 편집" />
      <RecentList data={data} edit />
    </section>
  );
}
