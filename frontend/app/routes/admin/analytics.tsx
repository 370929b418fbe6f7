import { useLoaderData, useNavigation } from "react-router";
import { AnalystSignIn } from "~/components/admin/AnalystSignIn";
import { AnalyticsNav } from "~/components/admin/AnalyticsNav";
import * as s from "~/components/admin/analytics.css";
import { ReportFilters } from "~/components/admin/ReportFilters";
import { loadReports, parseQuery, reportError, type ReportQuery, type Reports } from "~/components/admin/reports";
import { ReportsDashboard } from "~/components/admin/ReportsDashboard";
import { http } from "~/utils/api";
import { isHttpError } from "~/utils/http";
import { pageTitle } from "~/utils/meta";

export const meta = () => [{ title: pageTitle("분석 리포트") }, { name: "robots", content: "noindex" }];

type Data =
  | { kind: "signin"; q: ReportQuery; errors: string[]; message: string }
  | { kind: "error"; q: ReportQuery; errors: string[]; message: string }
  | { kind: "ok"; q: ReportQuery; errors: string[]; reports: Reports };

/**
 * /admin/analytics: the analysts' reports. The analyst's own login opens them
 * (the writer's analyst cookie, sent with every same-origin call); the
 * reports come from analytics through the edge.
 */
export async function clientLoader({ request }: { request: Request }): Promise<Data> {
  const { q, errors } = parseQuery(new URL(request.url).searchParams, new Date());
  try {
    return { kind: "ok", q, errors, reports: await loadReports(http, q, request.signal) };
  } catch (e) {
    if (!isHttpError(e)) throw e;
    const err = reportError(e.status, e.message);
    if (err.unauthorized) return { kind: "signin", q, errors, message: err.text };
    return { kind: "error", q, errors, message: err.text };
  }
}

export default function AdminAnalytics() {
  const data = useLoaderData<typeof clientLoader>();
  const busy = useNavigation().state !== "idle";
  return (
    <main className={s.page} aria-busy={busy}>
      <div className={s.top}>
        <h1 className={s.h1}>분석 리포트</h1>
      </div>
      <AnalyticsNav />
      {data.kind === "signin" && <AnalystSignIn message={data.message} />}
      <ReportFilters q={data.q} busy={busy} />
      {data.errors.length > 0 && (
        <div role="alert" className={s.alert}>
          {data.errors.join(" ")} 기본값으로 조회했습니다.
        </div>
      )}
      {data.kind === "error" && (
        <div role="alert" className={s.alert}>
          {data.message}
        </div>
      )}
      {data.kind === "ok" && <ReportsDashboard q={data.q} r={data.reports} />}
    </main>
  );
}
