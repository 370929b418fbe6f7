import { useEffect, useId, useMemo, useState } from "react";
import { useNavigate, useSearchParams } from "react-router";
import * as f from "~/components/Form/Form.css";
import { TitleBar } from "~/components/TitleBar/TitleBar";
import { http } from "~/utils/api";
import { isHttpError } from "~/utils/http";
import { pageTitle } from "~/utils/meta";
import { goReturn, isAdultLevel, returnTarget, validEmail } from "~/utils/user";
import { AUTH_API, applyMe, login, useUser, type MeAnswer } from "~/utils/userStore";
import * as fl from "~/components/Form/fields.css";

export const meta = () => [{ title: pageTitle("로그인") }];

/** Where a successful login goes: the return target, or adult verification first when from=adult. */
export function afterLoginTarget(ret: string, fromAdult: boolean, adultLevel: number): string {
  if (fromAdult && !isAdultLevel(adultLevel) && !ret.startsWith("/adultverification")) return `/adultverification?url=${encodeURIComponent(ret)}`;
  return ret;
}

/** The login entry (seed §2): email and the two social logins; url = return target; from=adult. */
export default function Login() {
  const [params] = useSearchParams();
  // A path of this app, or the store's own host by a full replace (seed §8); anything else is "/".
  const rawUrl = params.get("url");
  const target = useMemo(() => returnTarget(rawUrl), [rawUrl]);
  const ret = target.kind === "local" ? target.path : target.href;
  const fromAdult = params.get("from") === "adult";
  const navigate = useNavigate();
  const user = useUser();
  const [mode, setMode] = useState<"login" | "signup">("login");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [save, setSave] = useState(false);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const errId = useId();

  useEffect(() => {
    if (!user.isLogin || user.isGuest) return;
    const next = afterLoginTarget(ret, fromAdult, user.adultLevel);
    goReturn(next === ret ? target : { kind: "local", path: next }, navigate);
  }, [user.isLogin, user.isGuest, user.adultLevel, ret, target, fromAdult, navigate]);

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    const em = email.trim();
    if (!validEmail(em)) {
      setError("이메일 형식이 올바르지 않습니다.");
      return;
    }
    if (mode === "signup" && password.length < 8) {
      setError("비밀번호는 8자 이상이어야 합니다.");
      return;
    }
    if (!password) {
      setError("비밀번호를 입력해 주세요.");
      return;
    }
    setError("");
    setBusy(true);
    try {
      if (mode === "login") await login(em, password, save);
      else applyMe(await http<MeAnswer>(`${AUTH_API}/signup`, { method: "POST", json: { email: em, password }, expect: [201] }));
    } catch (err) {
      if (isHttpError(err) && err.kind === "api") {
        setError(err.code === 409 ? "이미 가입된 이메일입니다." : err.message);
      } else {
        setError("네트워크 연결을 확인해 주세요.");
      }
    } finally {
      setBusy(false);
    }
  };

  const social = (provider: "kakao" | "naver") => `${AUTH_API}/oauth/${provider}/start?url=${encodeURIComponent(ret)}`;

  return (
    <>
      <TitleBar title={mode === "login" ? "로그인" : "회원가입"} />
      <div className={f.page}>
        {fromAdult && (
          <p className={f.notice} role="note">
            성인 인증이 필요한 작품입니다. 로그인 후 성인 인증을 진행해 주세요.
          </p>
        )}
        <form className={f.form} onSubmit={submit} noValidate aria-describedby={error ? errId : undefined}>
          <label className={f.label}>
            이메일
            <input className={f.input} type="email" name="email" autoComplete="username" value={email} onChange={(e) => setEmail(e.target.value)} required />
          </label>
          <label className={f.label}>
            비밀번호
            <input
              className={f.input}
              type="password"
              name="password"
              autoComplete={mode === "login" ? "current-password" : "new-password"}
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              required
            />
          </label>
          {mode === "login" && (
            <label className={f.check}>
              <input type="checkbox" checked={save} onChange={(e) => setSave(e.target.checked)} /> 로그인 상태 유지
            </label>
          )}
          {error && (
            <p id={errId} className={f.error} role="alert">
              {error}
            </p>
          )}
          <button type="submit" className={f.primary} disabled={busy}>
            {mode === "login" ? "이메일로 로그인" : "이메일로 가입하기"}
          </button>
        </form>
        <div className={f.divider} aria-hidden="true">
          <span className={fl.rule} />
          또는
          <span className={fl.rule} />
        </div>
        <a className={`${f.social} ${f.kakao}`} href={social("kakao")}>
          카카오로 시작하기
        </a>
        <a className={`${f.social} ${f.naver}`} href={social("naver")}>
          네이버로 시작하기
        </a>
        <div className={f.footerRow}>
          <button type="button" className={f.link} onClick={() => { setMode(mode === "login" ? "signup" : "login"); setError(""); }}>
            {mode === "login" ? "이메일로 회원가입" : "이미 계정이 있어요 (로그인)"}
          </button>
        </div>
      </div>
    </>
  );
}
