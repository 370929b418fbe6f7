import { Form, redirect, useLoaderData, useNavigation } from "react-router";
import * as s from "~/components/admin/analytics.css";
import { StaffScreen, StaffScreenError, readStaff, staffSignInAction, type Staff } from "~/components/admin/StaffSignIn";
import { http } from "~/utils/api";
import { isHttpError } from "~/utils/http";
import { pageTitle } from "~/utils/meta";

export const meta = () => [{ title: pageTitle("댓글 신고 처리") }, { name: "robots", content: "noindex" }];

type Reported = { id: number; pid: string; vol: number; userName: string; body: string; hidden: boolean; reports: number; reasons: string[]; createdAt: string; firstReport: string };
type Data = { staff: Staff | null; comments: Reported[]; message?: string };

const ADMIN = "/admin/api/v1";

/**
 * /admin/comments: the queue of reported episode comments (oldest report
 * first). A moderator hides a comment (every edge drops it with the next
 * head) or keeps it; both decide its reports. The creator's note and the
 * pinned comment of an episode are set below. A moderator or a content
 * manager signs in as staff (the writer's HttpOnly session; no token in the
 * page).
 */
export async function clientLoader({ request }: { request: Request }): Promise<Data> {
  const staff = await readStaff(request.signal);
  if (!staff) return { staff: null, comments: [] };
  try {
    const a = await http<{ comments: Reported[] }>(`${ADMIN}/comments/reports`, { signal: request.signal });
    return { staff, comments: a.comments };
  } catch (e) {
    if (!isHttpError(e)) throw e;
    if (e.status === 401) return { staff: null, comments: [] };
    return { staff, comments: [], message: e.message };
  }
}

export async function clientAction({ request }: { request: Request }) {
  const form = await request.clone().formData();
  const intent = String(form.get("intent") ?? "");
  const url = new URL(request.url);
  const back = () => redirect(url.pathname + url.search);
  try {
    switch (intent) {
      case "hide":
      case "keep":
        await http(`${ADMIN}/comments/${Number(form.get("id"))}/hidden`, { method: "PUT", json: { hidden: intent === "hide" } });
        return back();
      case "note":
        await http(`${ADMIN}/products/${encodeURIComponent(String(form.get("pid")))}/episodes/${Number(form.get("vol"))}/comments/note`, {
          method: "PUT",
          json: { note: String(form.get("note") ?? "") },
        });
        return back();
      case "pin":
        await http(`${ADMIN}/products/${encodeURIComponent(String(form.get("pid")))}/episodes/${Number(form.get("vol"))}/comments/pin`, {
          method: "PUT",
          json: { id: Number(form.get("id") ?? 0) },
        });
        return back();
    }
  } catch (e) {
    return { message: isHttpError(e) ? e.message : "처리하지 못했습니다." };
  }
  return staffSignInAction({ request });
}

export default function AdminComments() {
  const data = useLoaderData<typeof clientLoader>();
  const busy = useNavigation().state !== "idle";
  return (
    <StaffScreen title="댓글 신고 처리" staff={data.staff} message={data.message}>
        <>
          <section className={s.panel} aria-labelledby="queue-title">
            <h2 id="queue-title" className={s.h2}>
              신고된 댓글 {data.comments.length}건
            </h2>
            {data.comments.length === 0 ? (
              <p className={s.muted}>처리할 신고가 없습니다.</p>
            ) : (
              <table className={s.table}>
                <caption className={s.caption}>오래된 신고부터</caption>
                <thead>
                  <tr>
                    <th className={s.th}>작품 · 회차</th>
                    <th className={s.th}>작성자</th>
                    <th className={s.th}>내용</th>
                    <th className={s.th}>신고</th>
                    <th className={s.th}>처리</th>
                  </tr>
                </thead>
                <tbody>
                  {data.comments.map((c) => (
                    <tr key={c.id} data-testid="reported-comment">
                      <td className={s.td}>
                        {c.pid} · {c.vol}화
                      </td>
                      <td className={s.td}>{c.userName}</td>
                      <td className={s.td}>{c.body}</td>
                      <td className={s.td}>
                        {c.reports}건 ({c.reasons.filter(Boolean).join(", ") || "사유 없음"})
                      </td>
                      <td className={s.td}>
                        <Form method="post">
                          <input type="hidden" name="id" value={c.id} />
                          <button type="submit" name="intent" value="hide" className={s.button} disabled={busy}>
                            숨기기
                          </button>{" "}
                          <button type="submit" name="intent" value="keep" className={s.buttonQuiet} disabled={busy}>
                            유지
                          </button>
                        </Form>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
          <section className={s.panel} aria-labelledby="episode-title">
            <h2 id="episode-title" className={s.h2}>
              회차의 작가의 말 · 고정 댓글
            </h2>
            <Form method="post" className={s.form}>
              <input type="hidden" name="intent" value="note" />
              <label className={s.field}>
                작품 ID
                <input className={s.input} name="pid" required pattern="[A-Za-z0-9_\-]{1,64}" />
              </label>
              <label className={s.field}>
                회차
                <input className={s.input} name="vol" type="number" min={1} required />
              </label>
              <label className={s.field}>
                작가의 말
                <input className={s.input} name="note" maxLength={2000} />
              </label>
              <button type="submit" className={s.button} disabled={busy}>
                작가의 말 저장
              </button>
            </Form>
            <Form method="post" className={s.form}>
              <input type="hidden" name="intent" value="pin" />
              <label className={s.field}>
                작품 ID
                <input className={s.input} name="pid" required pattern="[A-Za-z0-9_\-]{1,64}" />
              </label>
              <label className={s.field}>
                회차
                <input className={s.input} name="vol" type="number" min={1} required />
              </label>
              <label className={s.field}>
                고정할 댓글 번호 (0: 해제)
                <input className={s.input} name="id" type="number" min={0} required />
              </label>
              <button type="submit" className={s.button} disabled={busy}>
                고정
              </button>
            </Form>
          </section>
        </>
    </StaffScreen>
  );
}

export function ErrorBoundary() {
  return <StaffScreenError title="댓글 신고 처리" />;
}
