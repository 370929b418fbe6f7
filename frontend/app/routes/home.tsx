import { Link, useLoaderData } from "react-router";
import { AppUpdateGate } from "~/components/AppUpdate/AppUpdate";
import { ProductGrid } from "~/components/product/ProductGrid";
import { Section } from "~/components/Section/Section";
import { http } from "~/utils/api";
import { currentDevice, supportsFeature } from "~/utils/device";
import { homeTab, loadHomeTab } from "~/utils/home";
import { pageTitle } from "~/utils/meta";
import { routeError } from "~/utils/routeError";
import * as s from "./home.css";

export const meta = () => [{ title: pageTitle() }];

export async function clientLoader({ request }: { request: Request }) {
  // An app below the product home's minimum version shows the update notice: nothing to load.
  if (!supportsFeature(currentDevice(), "productHome")) return null;
  try {
    return await loadHomeTab(http, homeTab(new URL(request.url).searchParams), request.signal);
  } catch (e) {
    throw routeError(e);
  }
}

export default function Home() {
  const home = useLoaderData<typeof clientLoader>();
  return <AppUpdateGate feature="productHome">{home && <HomeContent home={home} />}</AppUpdateGate>;
}

function HomeContent({ home }: { home: NonNullable<Awaited<ReturnType<typeof clientLoader>>> }) {
  return (
    <div>
      <h1 className="visually-hidden">홈</h1>
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
        <Section key={`${home.area}-${sec.key}`} title={sec.title} moreUrl={sec.moreUrl}>
          <ProductGrid items={sec.list} label={sec.title} eager={i === 0 ? 6 : 0} />
        </Section>
      ))}
    </div>
  );
}
