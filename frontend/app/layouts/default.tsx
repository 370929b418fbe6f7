import { useCallback, useState } from "react";
import { Outlet, useRouteError } from "react-router";
import { ErrorPage } from "~/components/ErrorPage/ErrorPage";
import { Footer } from "~/components/Footer/Footer";
import { Header } from "~/components/Header/Header";
import { InterestsSheet } from "~/components/InterestsSheet/InterestsSheet";
import { Sidebar } from "~/components/Sidebar/Sidebar";
import { TopBanner } from "~/components/TopBanner/TopBanner";
import { currentDevice } from "~/utils/device";
import { describeError } from "~/utils/errors";
import { useUser } from "~/utils/userStore";
import * as s from "./default.css";

/** Whether the interests sheet may show: web only, logged in (not a guest). */
export const INTERESTS_SHEET = true;

function Chrome({ children }: { children: React.ReactNode }) {
  const device = currentDevice();
  const user = useUser();
  const [menu, setMenu] = useState(false);
  const close = useCallback(() => setMenu(false), []);
  const web = !device.isApp;
  return (
    <div className={s.shell}>
      {web && <TopBanner />}
      <Header onMenu={web ? () => setMenu(true) : undefined} />
      <main className={s.main} id="main">
        {children}
      </main>
      {web && <Footer />}
      {web && menu && <Sidebar onClose={close} />}
      {web && INTERESTS_SHEET && user.isLogin && !user.isGuest && <InterestsSheet key={user.authInfo?.uid} />}
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
