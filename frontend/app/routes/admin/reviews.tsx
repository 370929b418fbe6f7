import { Form, Link, redirect, useLoaderData, useNavigation } from "react-router";
import * as s from "~/components/admin/analytics.css";
import * as m from "~/components/admin/moderation.css";
import {
  DECISION_LABELS,
  STATE_LABELS,
  decisionsFor,
  kstTime,
  parseQueueQuery,
  queueSearch,
  reasonSummary,
  type Decision,
  type QueueQuery,
  type ReviewPage,
} from "~/components/admin/reviewQueue";
import { StaffScreen, StaffScreenError, readStaff, staffSignInAction, type Staff } from "~/components/admin/StaffSignIn";
import { http } from "~/utils/api";
import { isHttpError } from "~/utils/http";
import { pageTitle } from "~/utils/meta";

export const meta = () => [{ title: pageTitle("리뷰 신고 처리") }, { name: "robots", content: "noindex" }];

type Data = { staff: Staff | null; query: QueueQuery; page: ReviewPage | null; message?: string };

const ADMIN = "/admin/api/v1";
const DECISIONS: Decision[] = ["hide", "restore", "dismiss"];

/**
 * /admin/reviews: the queue of reported reviews (issue 31 item 4). Oldest
 * report or most reports first, 20 a page; each entry shows its reports
 * (count, reasons, when). A moderator hides a review, shows a hidden one
 * again, or dismisses the reports; the writer records each decision in the
 * audit trail and republishes the work's public review list. The hidden list
 * is where a restore starts. A moderator or a content manager signs in as
 * staff (the writer's HttpOnly session; no token in the page).
 */
export async function clientLoader({ request }: { request: Request }): Promise<Data> {
  const query = parseQueueQuery(new URL(request.url).searchParams);
  const staff = await readStaff(request.signal);
  if (!staff) return { staff: null, query, page: null };
  try {
    const page = await http<ReviewPage>(`${ADMIN}/reviews/reports?${queueSearch(query)}`, { signal: request.signal });
    return { staff, query, page };
  } catch (e) {
    if (!isHttpError(e)) throw e;
    if (e.status === 401) return { staff: null, query, page: null };
    return { staff, query, page: null, message: e.message };
  }
}

export async function clientAction({ request }: { request: Request }) {
  const form = await request.clone().formData();
  const intent = String(form.get("intent") ?? "");
  if (DECISIONS.includes(intent as Decision)) {
    const url = new URL(request.url);
    try {
      await http(`${ADMIN}/reviews/${Number(form.get("id"))}/decision`, {
        method: "POST",
        json: { decision: intent, note: String(form.get("note") ?? "").trim() },
      });
    } catch (e) {
      return { message: isHttpError(e) ? e.message : "처리하지 못했습니다." };
    }
    return redirect(url.pathname + url.search);
  }
  return staffSignInAction({ request });
}

function viewLink(q: QueueQuery, change: Partial<QueueQuery>) {
  return `?${queueSearch({ ...q, page: 1, ...change })}`;
}

export default function AdminReviews() {
  const data = useLoaderData<typeof clientLoader>();
  const busy = useNavigation().state !== "idle";
  const q = data.query;
  const page = data.page;
  return (
    <StaffScreen title="리뷰 신고 처리" staff={data.staff} message={data.message}>
        <section className={s.panel} aria-labelledby="queue-title">
          <h2 id="queue-title" className={s.h2}>
            {q.status === "open" ? "신고된 리뷰" : "숨긴 리뷰"} {page?.totalCount ?? 0}건
          </h2>
          <nav className={m.views} aria-label="보기">
            <Link to={viewLink(q, { status: "open" })} className={q.status === "open" ? m.viewCurrent : m.view} aria-current={q.status === "open" ? "page" : undefined}>
              처리할 신고
            </Link>
            <Link to={viewLink(q, { status: "hidden" })} className={q.status === "hidden" ? m.viewCurrent : m.view} aria-current={q.status === "hidden" ? "page" : undefined}>
              숨긴 리뷰
            </Link>
            <span aria-hidden="true">|</span>
            <Link to={viewLink(q, { order: "oldest" })} className={q.order === "oldest" ? m.viewCurrent : m.view} aria-current={q.order === "oldest" ? "true" : undefined}>
              오래된 신고순
            </Link>
            <Link to={viewLink(q, { order: "most" })} className={q.order === "most" ? m.viewCurrent : m.view} aria-current={q.order === "most" ? "true" : undefined}>
              신고 많은순
            </Link>
          </nav>
          {!page || page.list.length === 0 ? (
            <p className={s.muted}>{q.status === "open" ? "처리할 신고가 없습니다." : "숨긴 리뷰가 없습니다."}</p>
          ) : (
            <table className={s.table}>
              <caption className={s.caption}>
                {q.order === "oldest" ? "오래된 신고부터" : "신고가 많은 리뷰부터"} · {page.curPage}/{Math.max(page.pageCount, 1)} 페이지
              </caption>
              <thead>
                <tr>
                  <th className={s.th}>작품 · 회차</th>
                  <th className={s.th}>리뷰</th>
                  <th className={s.th}>상태</th>
                  <th className={s.th}>신고</th>
                  <th className={s.th}>처리</th>
                </tr>
              </thead>
              <tbody>
                {page.list.map((r) => (
                  <tr key={r.id} data-testid="reported-review">
                    <td className={s.td}>
                      {r.title || r.pid}
                      <span className={m.meta}>
                        {r.pid}
                        {r.vol > 0 ? ` · ${r.vol}화` : ""}
                      </span>
                    </td>
                    <td className={s.td}>
                      <div className={m.body}>{r.body}</div>
                      <span className={m.meta}>
                        {r.userName} · 별점 {r.point}
                        {r.isSpoiler ? " · 스포일러" : ""} · {kstTime(r.createdAt)}
                      </span>
                    </td>
                    <td className={s.td}>
                      <span className={m.state[r.state]}>{STATE_LABELS[r.state]}</span>
                    </td>
                    <td className={s.td}>
                      {r.reports}건{r.reportList.length > 0 ? ` (${reasonSummary(r.reportList)})` : ""}
                      <span className={m.meta}>첫 신고 {kstTime(r.firstReport)}</span>
                      {r.reportList.length > 0 && (
                        <details className={s.details}>
                          <summary className={s.summary}>신고 내역</summary>
                          <ol className={m.reports}>
                            {r.reportList.map((p, i) => (
                              <li key={i}>
                                {kstTime(p.at)} · {p.reason.trim() || "사유 없음"}
                              </li>
                            ))}
                          </ol>
                        </details>
                      )}
                    </td>
                    <td className={s.td}>
                      <Form method="post" className={m.decide}>
                        <input type="hidden" name="id" value={r.id} />
                        <label className={s.field}>
                          메모 (감사 기록에 남음)
                          <input className={s.input} name="note" maxLength={500} />
                        </label>
                        <div className={m.buttons}>
                          {decisionsFor(r, q.status).map((d) => (
                            <button key={d} type="submit" name="intent" value={d} className={d === "hide" ? s.button : s.buttonQuiet} disabled={busy}>
                              {DECISION_LABELS[d]}
                            </button>
                          ))}
                        </div>
                      </Form>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {page && page.pageCount > 1 && (
            <nav className={m.pager} aria-label="페이지">
              {q.page > 1 ? <Link to={viewLink(q, { page: q.page - 1 })}>이전</Link> : <span>이전</span>}
              <span>
                {q.page} / {page.pageCount}
              </span>
              {q.page < page.pageCount ? <Link to={viewLink(q, { page: q.page + 1 })}>다음</Link> : <span>다음</span>}
            </nav>
          )}
        </section>
    </StaffScreen>
  );
}

export function ErrorBoundary() {
  return <StaffScreenError title="리뷰 신고 처리" />;
}
