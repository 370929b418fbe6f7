import { lazy, Suspense, useCallback, useState } from "react";
import { Outlet, useRouteError } from "react-router";
import { ErrorPage } from "~/components/ErrorPage/ErrorPage";
import { Footer } from "~/components/Footer/Footer";
import { Header } from "~/components/Header/Header";
import { TopBanner } from "~/components/TopBanner/TopBanner";
import { currentDevice } from "~/utils/device";
import { describeError } from "~/utils/errors";
import { useUser } from "~/utils/userStore";
import * as s from "./default.css";

/** Whether the interests sheet may show: web only, logged in (not a guest). */
export const INTERESTS_SHEET = true;

// The sidebar opens on the menu button and the interests sheet is a member's:
// a visitor's first screen needs neither, so they are chunks of their own,
// off the home's JavaScript budget (issue 23; README "What the phone loads").
const loadSidebar = () => import("~/components/Sidebar/Sidebar");
const Sidebar = lazy(() => loadSidebar().then((m) => ({ default: m.Sidebar })));
const InterestsSheet = lazy(() => import("~/components/InterestsSheet/InterestsSheet").then((m) => ({ default: m.InterestsSheet })));

function Chrome({ children }: { children: React.ReactNode }) {
  const device = currentDevice();
  const user = useUser();
  const [menu, setMenu] = useState(false);
  const close = useCallback(() => setMenu(false), []);
  const open = useCallback(() => {
    // The chunk starts loading with the state change, not after the render that suspends.
    void loadSidebar();
    setMenu(true);
  }, []);
  const web = !device.isApp;
  return (
    <div className={s.shell}>
      {web && <TopBanner />}
      <Header onMenu={web ? open : undefined} />
      <main className={s.main} id="main">
        {children}
      </main>
      {web && <Footer />}
      {web && menu && (
        <Suspense fallback={null}>
          <Sidebar onClose={close} />
        </Suspense>
      )}
      {web && INTERESTS_SHEET && user.isLogin && !user.isGuest && (
        <Suspense fallback={null}>
          <InterestsSheet key={user.authInfo?.uid} />
        </Suspense>
      )}
    </div>
  );
}

/** The default layout (seed §2): top banner, header, sidebar, interests sheet, footer. */
export default function DefaultLayout() {
  return (
    <Chrome>
      <Outlet />
    </Chrome>
  );
}

export function ErrorBoundary() {
  const { status, message } = describeError(useRouteError());
  return (
    <Chrome>
      <ErrorPage status={status} message={message} />
    </Chrome>
  );
}
