import { Form, redirect } from "react-router";
import * as s from "./analytics.css";

/** The admin token lives for the tab only: never a cookie, never local storage. */
export const TOKEN_KEY = "sf_admin_token";

/**
 * The admin token of the catalog admin screens (/admin/media; the reports
 * take the analyst's login instead): kept
 * in this tab's session storage only and sent as a bearer token. One reader,
 * one action and one form, so every admin screen keeps and forgets it alike.
 */
export const readAdminToken = () => {
  try {
    return sessionStorage.getItem(TOKEN_KEY) ?? "";
  } catch {
    return "";
  }
};

/** The clientAction of an admin screen: saves the posted token, or forgets it (intent=forget), and reloads the screen. */
export async function adminTokenAction({ request }: { request: Request }) {
  const form = await request.formData();
  if (form.get("intent") === "forget") sessionStorage.removeItem(TOKEN_KEY);
  else {
    const token = String(form.get("token") ?? "").trim();
    if (token) sessionStorage.setItem(TOKEN_KEY, token);
  }
  const url = new URL(request.url);
  return redirect(url.pathname + url.search);
}

/** The sign-in form of an admin screen, with the refusal of the last token if any. */
export function AdminTokenForm({ message }: { message?: string }) {
  return (
    <section className={s.panel} aria-labelledby="token-title">
      <h2 id="token-title" className={s.h2}>
        관리자 인증
      </h2>
      {message && (
        <div role="alert" className={s.alert}>
          {message}
        </div>
      )}
      <Form method="post" className={s.form}>
        <label className={s.field}>
          관리자 토큰
          <input
            className={s.input}
            type="password"
            name="token"
            autoComplete="off"
            required
          />
        </label>
        <button type="submit" className={s.button}>
          확인
        </button>
      </Form>
      <p className={s.aside}>
        토큰은 이 탭의 세션 저장소에만 보관되며 탭을 닫으면 지워집니다.
      </p>
    </section>
  );
}
