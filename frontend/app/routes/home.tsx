import { useLoaderData } from "react-router";
import { AppUpdateGate } from "~/components/AppUpdate/AppUpdate";
import { HomeShelves } from "~/components/product/HomeShelves";
import { http } from "~/utils/api";
import { currentDevice, supportsFeature } from "~/utils/device";
import { homeTab, loadHomeTab } from "~/utils/home";
import { pageTitle } from "~/utils/meta";
import { routeError } from "~/utils/routeError";

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
      <HomeShelves key={home.area} home={home} />
    </div>
  );
}
