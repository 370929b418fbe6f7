import { useEffect, useState } from "react";
import { browserAppOpenDeps, openAppFromWeb } from "~/shell/appOpen";
import { TOP_BANNER_CHECK_MS } from "~/shell/timing";
import { getCookie, setCookie } from "~/utils/cookies";
import { currentDevice } from "~/utils/device";
import { COOKIE } from "~/utils/user";
import * as s from "./TopBanner.css";

export const TOP_BANNER_HIDE_MAX_AGE = 7 * 24 * 3600;

/** Whether the new-app top banner shows: Android web only, not hidden by its cookie. */
export function topBannerActive(d: { channel: string; isAndroid: boolean }, hiddenCookie: string | undefined): boolean {
  return d.channel === "AW" && d.isAndroid && hiddenCookie !== "Y";
}

/** The top app banner (Android web only, closable). */
export function TopBanner() {
  const [show, setShow] = useState(false);
  // Its place is kept from the first render when it will show: appearing
  // 50 ms later (the seed's check delay) pushed the whole page down 72 px,
  // a layout shift of 0.077 on every page (Lighthouse CLS, issue 23).
  const [reserve, setReserve] = useState(() => topBannerActive(currentDevice(), getCookie(COOKIE.topBanner)));
  useEffect(() => {
    const t = setTimeout(() => {
      const active = topBannerActive(currentDevice(), getCookie(COOKIE.topBanner));
      setShow(active);
      setReserve(active);
    }, TOP_BANNER_CHECK_MS);
    return () => clearTimeout(t);
  }, []);
  if (!show) return reserve ? <div className={s.banner} aria-hidden="true" data-testid="top-banner-place" /> : null;
  const close = () => {
    setCookie(COOKIE.topBanner, "Y", { maxAge: TOP_BANNER_HIDE_MAX_AGE });
    setShow(false);
    setReserve(false);
  };
  // The banner shows on Android web only: the Play store is the fallback.
  const open = () => openAppFromWeb(location.pathname + location.search, currentDevice(), browserAppOpenDeps((m) => window.confirm(m)));
  return (
    <div className={s.banner} role="region" aria-label="앱 설치 안내" data-testid="top-banner">
      <svg className={s.icon} viewBox="0 0 32 32" aria-hidden="true">
        <rect width="32" height="32" rx="7" fill="#1f6fff" />
        <path d="M9 8h9a5 5 0 0 1 0 10h-5v6H9z" fill="#fff" />
      </svg>
      <p className={s.text}>
        <strong className={s.strong}>앱에서 더 편하게 보세요</strong>
        새로운 앱으로 작품을 더 빠르게 만나보세요.
      </p>
      <button type="button" className={s.open} onClick={open}>
        앱 열기
      </button>
      <button type="button" className={s.close} aria-label="배너 닫기" onClick={close}>
        ×
      </button>
    </div>
  );
}
