import { useEffect, useId, useState } from "react";
import { useNavigate, useSearchParams } from "react-router";
import * as f from "~/components/Form/Form.css";
import { TitleBar } from "~/components/TitleBar/TitleBar";
import { useShell } from "~/shell/ShellProvider";
import { isHttpError } from "~/utils/http";
import { pageTitle } from "~/utils/meta";
import { goReturn, isAdultLevel, returnTarget } from "~/utils/user";
import { useUser, verifyAdult } from "~/utils/userStore";
import * as fl from "~/components/Form/fields.css";

export const meta = () => [{ title: pageTitle("성인 인증") }];

/** /adultverification[?korea=ok]: real-name verification; login first (from=adult). */
export default function AdultVerification() {
  const [params] = useSearchParams();
  const korea = params.get("korea") === "ok";
  const target = returnTarget(params.get("url"));
  const user = useUser();
  const shell = useShell();
  const navigate = useNavigate();
  const [name, setName] = useState("");
  const [birthDate, setBirthDate] = useState("");
  const [gender, setGender] = useState<"M" | "F" | "">("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const errId = useId();

  useEffect(() => {
    if (user.ready && (!user.isLogin || user.isGuest)) {
      shell.goLogin(window.location.pathname + window.location.search, true);
    }
  }, [user.ready, user.isLogin, user.isGuest, shell]);

  if (!user.isLogin) return null;

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    if (!name.trim() || !/^\d{4}-\d{2}-\d{2}$/.test(birthDate)) {
      setError("이름과 생년월일을 입력해 주세요.");
      return;
    }
    setBusy(true);
    setError("");
    try {
      await verifyAdult({ name: name.trim(), birthDate, gender }, korea);
    } catch (err) {
      setError(isHttpError(err) ? err.message : "잠시 후 다시 시도해 주세요.");
    } finally {
      setBusy(false);
    }
  };

  const verified = user.adultInfo.authReal;
  return (
    <>
      <TitleBar title="성인 인증" />
      <div className={f.page}>
        <h2 className={f.heading}>{korea ? "국내 본인인증" : "성인 인증"}</h2>
        <p className={f.sub}>만 19세 이상만 이용할 수 있는 작품입니다. 본인 확인을 위해 정보를 입력해 주세요.</p>
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
        {!verified && (
          <form className={f.form} onSubmit={submit} noValidate aria-describedby={error ? errId : undefined}>
            <label className={f.label}>
              이름
              <input className={f.input} name="name" autoComplete="name" value={name} onChange={(e) => setName(e.target.value)} required />
            </label>
            <label className={f.label}>
              생년월일
              <input className={f.input} type="date" name="birthDate" value={birthDate} onChange={(e) => setBirthDate(e.target.value)} required />
            </label>
            <fieldset className={`${f.label} ${fl.bareFieldset}`}>
              <legend className={fl.legend}>성별</legend>
              <div className={f.radios}>
                <label>
                  <input type="radio" name="gender" checked={gender === "M"} onChange={() => setGender("M")} /> 남성
                </label>
                <label>
                  <input type="radio" name="gender" checked={gender === "F"} onChange={() => setGender("F")} /> 여성
                </label>
              </div>
            </fieldset>
            {error && (
              <p id={errId} className={f.error} role="alert">
                {error}
              </p>
            )}
            <button type="submit" className={f.primary} disabled={busy}>
              인증하기
            </button>
          </form>
        )}
      </div>
    </>
  );
}
