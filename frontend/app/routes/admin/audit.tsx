import { Form, useLoaderData } from "react-router";
import * as s from "~/components/admin/analytics.css";
import {
  ROLE_NAMES,
  STAFF_API,
  StaffScreen,
  StaffScreenError,
  readStaff,
  staffSignInAction,
  type Staff,
} from "~/components/admin/StaffSignIn";
import { http } from "~/utils/api";
import { isHttpError } from "~/utils/http";
import { pageTitle } from "~/utils/meta";

export const meta = () => [
  { title: pageTitle("변경 기록") },
  { name: "robots", content: "noindex" },
];

type Entry = {
  id: number;
  at: string;
  actorId: number | null;
  actorLogin: string;
  actorRole: string;
  action: string;
  target: string;
  before: unknown;
  after: unknown;
  ip: string;
  userAgent: string;
};

type Data = {
  staff: Staff | null;
  entries: Entry[];
  query: string;
  filters: Record<string, string>;
  message?: string;
};

const FILTERS = ["actor", "action", "target"] as const;

/**
 * /admin/audit?actor=&action=&target=: the audit trail of every staff change
 * (who, role, when, what, target, before and after, from where), newest
 * first, with its CSV export. Operators only; others see the refusal.
 */
export async function clientLoader({
  request,
}: {
  request: Request;
}): Promise<Data> {
  const url = new URL(request.url);
  const filters: Record<string, string> = {};
  const q = new URLSearchParams();
  for (const f of FILTERS) {
    const v = (url.searchParams.get(f) ?? "").trim();
    filters[f] = v;
    if (v) q.set(f, v);
  }
  const base: Data = { staff: null, entries: [], query: q.toString(), filters };
  const staff = await readStaff(request.signal);
  if (!staff) return base;
  try {
    const a = await http<{ entries: Entry[] }>(`${STAFF_API}/audit`, {
      query: Object.fromEntries(q),
      signal: request.signal,
    });
    return { ...base, staff, entries: a.entries };
  } catch (e) {
    if (isHttpError(e) && e.status >= 400 && e.status < 500)
      return { ...base, staff, message: e.message };
    throw e;
  }
}

export const clientAction = staffSignInAction;

const show = (v: unknown) => (v == null ? "—" : JSON.stringify(v));

export default function AdminAudit() {
  const data = useLoaderData<typeof clientLoader>();
  return (
    <StaffScreen title="변경 기록" staff={data.staff} message={data.message}>
      <>
        <section className={s.panel} aria-labelledby="audit-filter-title">
          <h2 id="audit-filter-title" className={s.h2}>
            찾기
          </h2>
          <Form method="get" className={s.form}>
            <label className={s.field}>
              직원 아이디
              <input
                className={s.input}
                name="actor"
                defaultValue={data.filters.actor}
              />
            </label>
            <label className={s.field}>
              작업
              <input
                className={s.input}
                name="action"
                defaultValue={data.filters.action}
                placeholder="PATCH works/{pid}"
              />
            </label>
            <label className={s.field}>
              대상
              <input
                className={s.input}
                name="target"
                defaultValue={data.filters.target}
                placeholder="work:P1"
              />
            </label>
            <button type="submit" className={s.button}>
              찾기
            </button>
            <a
              className={s.link}
              href={`${STAFF_API}/audit.csv${data.query ? `?${data.query}` : ""}`}
              download
            >
              CSV로 내려받기
            </a>
          </Form>
        </section>
        <table className={s.table}>
          <caption className={s.caption}>
            최근 변경 {data.entries.length}건 (최신순)
          </caption>
          <thead>
            <tr>
              <th className={s.th} scope="col">
                시각
              </th>
              <th className={s.th} scope="col">
                직원
              </th>
              <th className={s.th} scope="col">
                역할
              </th>
              <th className={s.th} scope="col">
                작업
              </th>
              <th className={s.th} scope="col">
                대상
              </th>
              <th className={s.th} scope="col">
                변경 전
              </th>
              <th className={s.th} scope="col">
                변경 후
              </th>
              <th className={s.th} scope="col">
                접속 위치
              </th>
            </tr>
          </thead>
          <tbody>
            {data.entries.map((e) => (
              <tr key={e.id} data-testid="audit-row">
                <td className={s.td}>
                  {new Date(e.at).toLocaleString("ko-KR", {
                    timeZone: "Asia/Seoul",
                  })}
                </td>
                <td className={s.td}>{e.actorLogin}</td>
                <td className={s.td}>
                  {ROLE_NAMES[e.actorRole] ?? e.actorRole}
                </td>
                <td className={s.td}>{e.action}</td>
                <td className={s.td}>{e.target}</td>
                <td className={s.td}>
                  <code>{show(e.before)}</code>
                </td>
                <td className={s.td}>
                  <code>{show(e.after)}</code>
                </td>
                <td className={s.td} title={e.userAgent}>
                  {e.ip}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </>
    </StaffScreen>
  );
}

export function ErrorBoundary() {
  return <StaffScreenError title="변경 기록" />;
}
