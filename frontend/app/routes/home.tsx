import { Suspense } from "react";
import { Await, useLoaderData } from "react-router";
import { ContinueShelf } from "~/components/library/ShelfList";
import { AppUpdateGate } from "~/components/AppUpdate/AppUpdate";
import { HomeShelves } from "~/components/product/HomeShelves";
import { http } from "~/utils/api";
import { currentDevice, supportsFeature } from "~/utils/device";
import { homeTab, loadHomeTab } from "~/utils/home";
import { loadShelf } from "~/utils/library";
import { pageTitle } from "~/utils/meta";
import { routeError } from "~/utils/routeError";

export const meta = () => [{ title: pageTitle() }];

export async function clientLoader({ request }: { request: Request }) {
  // An app below the product home's minimum version shows the update notice: nothing to load.
  if (!supportsFeature(currentDevice(), "productHome")) return null;
  // 이어보기 is not awaited: the home's shelves paint first, and a failed
  // call (visitor, writer down) only leaves the shelf out.
  const continueReading = loadShelf("reading", "read", 1, request.signal).then(
    (a) => a.list.slice(0, 10),
    () => [],
  );
  try {
    const home = await loadHomeTab(http, homeTab(new URL(request.url).searchParams), request.signal);
    return { ...home, continueReading };
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
      <Suspense fallback={null}>
        <Await resolve={home.continueReading}>{(items) => <ContinueShelf items={items} />}</Await>
      </Suspense>
      <HomeShelves key={home.area} home={home} />
    </div>
  );
}
