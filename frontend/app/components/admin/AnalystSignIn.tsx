import { useLocation } from "react-router";
import * as s from "./analytics.css";

/**
 * Shown when the reports refuse the visitor: analysts sign in with their own
 * member account (the admin gives it the analyst role); the reports then
 * trust the writer's signed analyst cookie, never a token typed here.
 */
export function AnalystSignIn({ message }: { message: string }) {
  const { pathname, search } = useLocation();
  return (
    <section className={s.panel} aria-labelledby="signin-title">
      <h2 id="signin-title" className={s.h2}>
        분석가 로그인
      </h2>
      <div role="alert" className={s.alert}>
        {message}
      </div>
      <p className={s.aside}>
        분석가 권한이 있는 계정으로 로그인하면 모든 리포트를 볼 수 있습니다. 조회 기록은 계정별로 남습니다.
      </p>
      <a className={s.button} href={`/nuxgin?url=${encodeURIComponent(pathname + search)}`}>
        로그인
      </a>
    </section>
  );
}
