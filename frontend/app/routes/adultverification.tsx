import { useEffect, useId, useRef, useState } from "react";
import { useNavigate, useSearchParams } from "react-router";
import * as f from "~/components/Form/Form.css";
import { TitleBar } from "~/components/TitleBar/TitleBar";
import { useShell } from "~/shell/ShellProvider";
import { isHttpError } from "~/utils/http";
import { openCertification, redirectUrl, RETURN_PARAMS } from "~/utils/identityVerification";
import { pageTitle } from "~/utils/meta";
import { goReturn, isAdultLevel, returnTarget } from "~/utils/user";
import { startAdultVerification, useUser, verifyAdult } from "~/utils/userStore";
import * as fl from "~/components/Form/fields.css";

export const meta = () => [{ title: pageTitle("성인 인증") }];

/**
 * /adultverification[?korea=ok]: identity verification (본인인증) through the
 * provider's certification window; login first (from=adult). The provider
 * sends the reader back here with identityVerificationId, and the writer
 * reads the result from the provider: name and birth date are never typed here.
 */
export default function AdultVerification() {
  const [params] = useSearchParams();
  const korea = params.get("korea") === "ok";
  const target = returnTarget(params.get("url"));
  const user = useUser();
  const shell = useShell();
  const navigate = useNavigate();
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const errId = useId();
  const returned = params.get("identityVerificationId");
  const handled = useRef<string | null>(null);

  useEffect(() => {
    if (user.ready && (!user.isLogin || user.isGuest)) {
      shell.goLogin(window.location.pathname + window.location.search, true);
    }
  }, [user.ready, user.isLogin, user.isGuest, shell]);

  // Back from the provider: finish once, then drop its parameters from the address.
  useEffect(() => {
    if (!user.ready || !user.isLogin || user.isGuest || !returned || handled.current === returned) return;
    handled.current = returned;
    const code = params.get("code");
    const message = params.get("message");
    const clean = () => {
      const q = new URLSearchParams(window.location.search);
      for (const p of RETURN_PARAMS) q.delete(p);
      const qs = q.toString();
      navigate(`/adultverification${qs ? `?${qs}` : ""}`, { replace: true });
    };
    if (code) {
      setError(message || "본인인증이 완료되지 않았습니다. 다시 시도해 주세요.");
      clean();
      return;
    }
    setBusy(true);
    setError("");
    verifyAdult(returned, korea)
      .catch((err) => setError(isHttpError(err) ? err.message : "잠시 후 다시 시도해 주세요."))
      .finally(() => {
        setBusy(false);
        clean();
      });
  }, [user.ready, user.isLogin, user.isGuest, returned, params, korea, navigate]);

  if (!user.isLogin) return null;

  const start = async () => {
    setBusy(true);
    setError("");
    try {
      const s = await startAdultVerification();
      const res = await openCertification(s, redirectUrl(window.location));
      if (!res) return; // the browser is on its way to the provider
      if (res.code) {
        setError(res.message || "본인인증이 완료되지 않았습니다. 다시 시도해 주세요.");
      } else {
        await verifyAdult(s.identityVerificationId, korea);
      }
      setBusy(false);
    } catch (err) {
      setError(isHttpError(err) ? err.message : "본인인증 창을 열 수 없습니다. 잠시 후 다시 시도해 주세요.");
      setBusy(false);
    }
  };

  const verified = user.adultInfo.authReal;
  return (
    <>
      <TitleBar title="성인 인증" />
      <div className={f.page}>
        <h2 className={f.heading}>{korea ? "국내 본인인증" : "성인 인증"}</h2>
        <p className={f.sub}>만 19세 이상만 이용할 수 있는 작품입니다. 휴대폰 본인인증으로 이름과 생년월일을 확인합니다.</p>
        {verified && isAdultLevel(user.adultLevel) && (
          <div className={f.notice} role="status" data-testid="adult-result">
            성인 인증이 완료되었습니다.
            <button type="button" className={`${f.primary} ${fl.fullButton}`} onClick={() => goReturn(target, navigate)}>
              계속하기
            </button>
          </div>
        )}
        {verified && user.adultLevel === 1 && (
          <p className={f.notice} role="status" data-testid="adult-result">
            만 19세 미만은 성인 작품을 이용할 수 없습니다.
          </p>
        )}
        {error && (
          <p id={errId} className={f.error} role="alert">
            {error}
          </p>
        )}
        {!verified && (
          <div className={f.form} aria-describedby={error ? errId : undefined}>
            <p className={f.sub}>본인인증 기관의 인증 창이 열립니다. 인증을 마치면 이 화면으로 돌아옵니다.</p>
            <button type="button" className={f.primary} onClick={start} disabled={busy || !user.ready}>
              {busy ? "확인하는 중…" : "본인인증하기"}
            </button>
          </div>
        )}
      </div>
    </>
  );
}
