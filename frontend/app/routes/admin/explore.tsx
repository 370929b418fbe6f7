import { useLoaderData } from "react-router";
import { AnalystSignIn } from "~/components/admin/AnalystSignIn";
import { AnalyticsNav } from "~/components/admin/AnalyticsNav";
import * as s from "~/components/admin/analytics.css";
import { loadExplore, readExplore, type Explore, type ExploreQuery } from "~/components/admin/explore";
import { ExploreFilters } from "~/components/admin/ExploreFilters";
import { BreakdownPanel, FunnelPanel, RetentionPanel } from "~/components/admin/ExplorePanels";
import { reportError } from "~/components/admin/reports";
import { http } from "~/utils/api";
import { isHttpError } from "~/utils/http";
import { pageTitle } from "~/utils/meta";

export const meta = () => [{ title: pageTitle("리텐션 · 퍼널 · 유입") }, { name: "robots", content: "noindex" }];

type Data = { q: ExploreQuery } & ({ kind: "ok"; r: Explore } | { kind: "signin" | "error"; message: string });

/** /admin/analytics/explore: retention cohorts, the analyst's funnel and breakdowns. */
export async function clientLoader({ request }: { request: Request }): Promise<Data> {
  const q = readExplore(new URL(request.url).searchParams, new Date());
  try {
    return { q, kind: "ok", r: await loadExplore(http, q, request.signal) };
  } catch (e) {
    if (!isHttpError(e)) throw e;
    const err = reportError(e.status, e.message);
    return { q, kind: err.unauthorized ? "signin" : "error", message: err.text };
  }
}

export default function AdminExplore() {
  const data = useLoaderData<typeof clientLoader>();
  return (
    <main className={s.page}>
      <div className={s.top}>
        <h1 className={s.h1}>리텐션 · 퍼널 · 유입</h1>
      </div>
      <AnalyticsNav />
      {data.kind === "signin" && <AnalystSignIn message={data.message} />}
      <ExploreFilters q={data.q} />
      {data.kind === "error" && (
        <div role="alert" className={s.alert}>
          {data.message}
        </div>
      )}
      {data.kind === "ok" && (
        <div className={s.grid}>
          <RetentionPanel q={data.q} r={data.r.retention} />
          <FunnelPanel q={data.q} f={data.r.funnel} />
          <BreakdownPanel q={data.q} b={data.r.breakdown} />
        </div>
      )}
    </main>
  );
}
