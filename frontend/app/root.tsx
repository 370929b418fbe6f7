import { useEffect, useRef } from "react";
import { Links, Meta, Outlet, Scripts, ScrollRestoration, useLocation, useNavigate, useNavigation, useRouteError } from "react-router";
import { ErrorPage } from "~/components/ErrorPage/ErrorPage";
import { Skeleton } from "~/components/ui/Skeleton";
import { UpdatePrompt } from "~/components/UpdatePrompt/UpdatePrompt";
import { installChunkReload, isChunkLoadError, reloadOnce } from "~/shell/chunkReload";
import { dropFirstScreen } from "~/shell/firstScreen";
import { installSafeArea } from "~/shell/safeArea";
import { tracker, versionCheck } from "~/shell/services";
import { ShellProvider, useShell } from "~/shell/ShellProvider";
import { ThemeProvider } from "~/shell/theme";
import { app } from "~/utils/bridge";
import { currentDevice } from "~/utils/device";
import { describeError, OFFLINE, PageError } from "~/utils/errors";
import { appTitle, PRODUCT_NAME } from "~/utils/meta";
import { THEME_BOOT_SCRIPT } from "~/utils/theme";
import { STORAGE } from "~/utils/user";
import { OfflineError, startup } from "~/utils/userStore";
import "~/styles/global.css";

export function Layout({ children }: { children: React.ReactNode }) {
  // data-theme is set by the boot script before React hydrates, hence the
  // suppressed warning on <html>.
  return (
    <html lang="ko" data-theme="light" suppressHydrationWarning>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover" />
        <script dangerouslySetInnerHTML={{ __html: THEME_BOOT_SCRIPT }} />
        <Meta />
        <Links />
      </head>
      <body>
        {children}
        <ScrollRestoration />
        <Scripts />
      </body>
    </html>
  );
}

export const links = () => [
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
  { rel: "manifest", href: "/manifest.webmanifest" },
];
export const meta = () => [{ title: PRODUCT_NAME }];

/** The startup user resolution runs once, before the first screen. */
export async function clientLoader() {
  try {
    if ((await startup()) === "redirect") {
      // Leaving for the auto-login page: keep the fallback up until the browser goes.
      await new Promise(() => {});
    }
  } catch (e) {
    if (e instanceof OfflineError) throw new PageError(OFFLINE, e.message);
    throw e;
  }
  return null;
}
export const shouldRevalidate = () => false;

export default function App() {
  // The router renders App once the first route's data is in: its screen is drawn.
  useEffect(dropFirstScreen, []);
  return (
    <ThemeProvider>
      <ShellProvider>
        <RouteEffects />
        <Outlet />
        <UpdatePrompt />
      </ShellProvider>
    </ThemeProvider>
  );
}

/**
 * Route change effects (seed §4): cancel the pending version check, clear the
 * modal stack and scroll lock, close the dim, send a page view (not on product
 * detail), tell the app the URL changed and the page's title (its title bar);
 * the loading bar follows navigation.
 */
function RouteEffects() {
  const location = useLocation();
  const navigation = useNavigation();
  const navigate = useNavigate();
  const shell = useShell();
  const prev = useRef<string | undefined>(undefined);
  const url = location.pathname + location.search;

  useEffect(() => {
    versionCheck.cancel();
    shell.resetForRoute();
    const d = currentDevice();
    tracker.pageView(url, prev.current ?? (document.referrer || undefined), d.channel);
    if (d.isApp && prev.current !== undefined) app.urlChanged(url);
    // The <title> of this route is committed with it: the app's bar shows it, from the first page on.
    if (d.isApp) app.setTitle(appTitle(document.title));
    prev.current = url;
  }, [url, shell]);

  useEffect(() => {
    if (navigation.state === "idle") shell.finishBar();
    else shell.startBar();
  }, [navigation.state, shell]);

  useEffect(() => {
    const detachTracker = tracker.attach();
    const detachChunk = installChunkReload();
    const detachSafeArea = installSafeArea();
    const onVisible = () => document.visibilityState === "visible" && versionCheck.schedule();
    document.addEventListener("visibilitychange", onVisible);
    // Logout in another tab: forget the quick-view setting and go to /logout/.
    const onStorage = (e: StorageEvent) => {
      if (e.key !== STORAGE.logout || e.newValue === null) return;
      localStorage.removeItem(STORAGE.quickView);
      navigate("/logout/");
    };
    window.addEventListener("storage", onStorage);
    return () => {
      detachTracker();
      detachChunk();
      detachSafeArea();
      document.removeEventListener("visibilitychange", onVisible);
      window.removeEventListener("storage", onStorage);
    };
  }, [navigate]);
  return null;
}

/** The first screen while the user and the route load: blank, then the skeleton once that takes SKELETON_DELAY_MS. */
export function HydrateFallback() {
  return (
    <div aria-busy="true" style={{ minHeight: "100vh" }}>
      <Skeleton rows={8} />
    </div>
  );
}

export function ErrorBoundary() {
  const error = useRouteError();
  if (isChunkLoadError(error) && typeof window !== "undefined") reloadOnce(window.sessionStorage, () => window.location.reload());
  const { status, message } = describeError(error);
  useEffect(dropFirstScreen, []);
  return <ErrorPage status={status} message={message} />;
}
