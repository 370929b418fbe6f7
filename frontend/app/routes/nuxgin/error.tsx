import { Link, useParams } from "react-router";
import { ErrorPage } from "~/components/ErrorPage/ErrorPage";
import * as s from "~/components/ErrorPage/ErrorPage.css";
import * as f from "~/components/Form/Form.css";
import { NOT_FOUND_TEXT } from "~/utils/errors";
import { pageTitle } from "~/utils/meta";

export const LOGIN_ERROR_CODES = [400, 403, 404, 500, 501] as const;

export const meta = () => [{ title: pageTitle("로그인 오류") }];

/** /nuxgin/error/400|403|404|500|501: login failures shown as the error page of that status. */
export default function LoginError() {
  const code = Number(useParams().code);
  if (!(LOGIN_ERROR_CODES as readonly number[]).includes(code)) return <ErrorPage status={404} message={NOT_FOUND_TEXT} />;
  return (
    <ErrorPage status={code} message="로그인 중 문제가 발생했습니다.">
      <p className={s.again}>
        <Link className={f.link} to="/nuxgin" data-testid="login-again">
          다시 로그인하기
        </Link>
      </p>
    </ErrorPage>
  );
}
