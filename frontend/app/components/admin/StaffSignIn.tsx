import type { ReactNode } from "react";
import { Form, redirect, useActionData, useNavigation } from "react-router";
import { http } from "~/utils/api";
import { isHttpError } from "~/utils/http";
import * as s from "./analytics.css";

/** The writer's staff API (writer/staff): sign-in, the audit trail, accounts. */
export const STAFF_API = "/admin/api/v1";

export type Staff = {
  id: number;
  login: string;
  name: string;
  role: string;
  providerId?: string;
  permissions: string[];
};

export const ROLE_NAMES: Record<string, string> = {
  operator: "운영자",
  content: "콘텐츠 담당",
  provider: "제공사",
  moderator: "모니터링 담당",
  analyst: "분석가",
  machine: "기계 토큰",
  command: "명령줄",
};

/**
 * Who is signed in on this browser as staff, or null. The session is the
 * writer's HttpOnly sf_staff cookie: the screens never see or keep a token.
 */
export async function readStaff(signal?: AbortSignal): Promise<Staff | null> {
  try {
    return (await http<{ staff: Staff }>(`${STAFF_API}/session`, { signal }))
      .staff;
  } catch (e) {
    if (isHttpError(e) && e.status === 401) return null;
    throw e;
  }
}

/**
 * The clientAction of a staff screen: signs in (password and the
 * authenticator app's code) or out (intent=signout), then reloads the screen.
 * A refusal comes back as the writer's Korean message.
 */
export async function staffSignInAction({ request }: { request: Request }) {
  const form = await request.formData();
  const url = new URL(request.url);
  try {
    if (form.get("intent") === "signout") {
      await http(`${STAFF_API}/session`, { method: "DELETE" });
    } else {
      await http(`${STAFF_API}/session`, {
        method: "POST",
        json: {
          login: String(form.get("login") ?? ""),
          password: String(form.get("password") ?? ""),
          code: String(form.get("code") ?? ""),
        },
      });
    }
  } catch (e) {
    if (isHttpError(e) && e.status >= 400 && e.status < 500)
      return { message: e.message };
    throw e;
  }
  return redirect(url.pathname + url.search);
}

/** The staff sign-in form, with the last refusal if any. */
export function StaffSignInForm({ message }: { message?: string }) {
  return (
    <section className={s.panel} aria-labelledby="staff-signin-title">
      <h2 id="staff-signin-title" className={s.h2}>
        직원 로그인
      </h2>
      {message && (
        <div role="alert" className={s.alert}>
          {message}
        </div>
      )}
      <Form method="post" className={s.form}>
        <label className={s.field}>
          아이디
          <input
            className={s.input}
            name="login"
            autoComplete="username"
            required
          />
        </label>
        <label className={s.field}>
          비밀번호
          <input
            className={s.input}
            type="password"
            name="password"
            autoComplete="current-password"
            required
          />
        </label>
        <label className={s.field}>
          인증 코드
          <input
            className={s.input}
            name="code"
            inputMode="numeric"
            autoComplete="one-time-code"
            pattern="[0-9]{6}"
            required
          />
        </label>
        <button type="submit" className={s.button}>
          로그인
        </button>
      </Form>
      <p className={s.aside}>
        인증 앱(OTP)에 표시된 6자리 코드를 입력하세요. 15분 동안 사용하지 않으면
        로그아웃됩니다.
      </p>
    </section>
  );
}

/** Who is signed in, and the sign-out button. */
export function StaffBar({ staff }: { staff: Staff }) {
  return (
    <Form method="post" className={s.form}>
      <span className={s.muted}>
        {staff.name} ({ROLE_NAMES[staff.role] ?? staff.role})
      </span>
      <input type="hidden" name="intent" value="signout" />
      <button type="submit" className={s.buttonQuiet}>
        로그아웃
      </button>
    </Form>
  );
}

/**
 * The frame of every staff screen: its title, who is signed in with the
 * sign-out button, the sign-in form while nobody is, and above the content
 * the screen's refusal: the loader's message, else a refused decision of
 * its clientAction (a refused sign-in shows in the sign-in form).
 */
export function StaffScreen({
  title,
  staff,
  message,
  alertId,
  children,
}: {
  title: string;
  staff: Staff | null;
  message?: string;
  /** id of the refusal's element, for fields that name it in aria-describedby */
  alertId?: string;
  children: ReactNode;
}) {
  const refused = useActionData<{ message?: string }>();
  const busy = useNavigation().state !== "idle";
  const alert = message ?? (staff ? refused?.message : undefined);
  return (
    <main className={s.page} aria-busy={busy}>
      <div className={s.top}>
        <h1 className={s.h1}>{title}</h1>
        {staff && <StaffBar staff={staff} />}
      </div>
      {alert && (
        <div role="alert" id={alertId} className={s.alert}>
          {alert}
        </div>
      )}
      {!staff ? <StaffSignInForm message={refused?.message} /> : children}
    </main>
  );
}

/** What a staff screen shows when its loader threw (the writer unreachable). */
export function StaffScreenError({ title }: { title: string }) {
  return (
    <main className={s.page}>
      <h1 className={s.h1}>{title}</h1>
      <div role="alert" className={s.alert}>
        불러오지 못했습니다. 잠시 후 다시 시도해 주세요.
      </div>
    </main>
  );
}
