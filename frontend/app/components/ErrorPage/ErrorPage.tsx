import { app } from "~/utils/bridge";
import { currentDevice } from "~/utils/device";
import { errorContent } from "~/utils/errors";
import * as s from "./ErrorPage.css";

const WifiOff = () => (
  <svg width="72" height="72" viewBox="0 0 24 24" aria-hidden="true" data-testid="wifi-off">
    <g fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round">
      <path d="M2 8.8a15 15 0 0 1 4.2-2.6M9.5 5.2A15 15 0 0 1 22 8.8" />
      <path d="M5 12.5a10 10 0 0 1 3.4-2.1M13.4 9.9A10 10 0 0 1 19 12.5" />
      <path d="M8.5 16a5 5 0 0 1 7 0" />
      <circle cx="12" cy="19.5" r="0.8" fill="currentColor" />
      <path d="M3 3l18 18" />
    </g>
  </svg>
);

/**
 * The error page by status (seed §2): texts, CS link, home / refresh / retry.
 * children are a page's own ways on (the login error's "다시 로그인하기"): they
 * sit in the error block, under its links. Placed after the page, they fell
 * below its 60vh centred box, about 150 px away from it (issue 24).
 */
export function ErrorPage({ status, message, children }: { status: number; message?: string; children?: React.ReactNode }) {
  const c = errorContent(status);
  const device = currentDevice();
  const goHome = () => {
    if (device.isApp && app.goSubMainHome()) return;
    window.location.assign("/");
  };
  const openCs = (e: React.MouseEvent) => {
    if (device.isApp && app.goPage("/cs/")) e.preventDefault();
  };
  return (
    <section className={s.page} aria-labelledby="error-title" data-status={status} data-testid="error-page">
      {c.wifiOff && (
        <div className={s.icon}>
          <WifiOff />
        </div>
      )}
      <p className={s.code}>{status}</p>
      <h1 id="error-title" className={s.title}>
        {c.title}
      </h1>
      <p className={s.desc}>{c.description}</p>
      {message && <p className={s.detail}>{message}</p>}
      <div className={s.actions}>
        {c.action === "home" && (
          <button type="button" className={`${s.button} ${s.primary}`} onClick={goHome}>
            홈으로
          </button>
        )}
        {c.action === "refresh" && (
          <button type="button" className={`${s.button} ${s.primary}`} onClick={() => window.location.reload()}>
            새로고침
          </button>
        )}
        {c.action === "retry" && (
          <button type="button" className={`${s.button} ${s.primary}`} onClick={() => window.location.reload()}>
            다시 시도
          </button>
        )}
      </div>
      {c.showCs && (
        <a className={s.cs} href="/cs/" onClick={openCs}>
          고객센터 문의하기
        </a>
      )}
      {children}
    </section>
  );
}
