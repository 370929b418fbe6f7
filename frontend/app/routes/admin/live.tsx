import { useLoaderData } from "react-router";
import { AnalystSignIn } from "~/components/admin/AnalystSignIn";
import { AnalyticsNav } from "~/components/admin/AnalyticsNav";
import * as s from "~/components/admin/analytics.css";
import { loadLive, type Live } from "~/components/admin/live";
import { LiveView } from "~/components/admin/LiveView";
import { reportError } from "~/components/admin/reports";
import { http } from "~/utils/api";
import { isHttpError } from "~/utils/http";
import { pageTitle } from "~/utils/meta";

export const meta = () => [{ title: pageTitle("실시간 공개 현황") }, { name: "robots", content: "noindex" }];

type Data = { kind: "ok"; live: Live } | { kind: "signin" | "error"; message: string };

/** /admin/analytics/live: the release minute as it happens (?minutes=5). */
export async function clientLoader({ request }: { request: Request }): Promise<Data> {
  const m = Number(new URL(request.url).searchParams.get("minutes") ?? 5);
  try {
    return { kind: "ok", live: await loadLive(http, Number.isInteger(m) && m >= 1 && m <= 60 ? m : 5, request.signal) };
  } catch (e) {
    if (!isHttpError(e)) throw e;
    const err = reportError(e.status, e.message);
    return { kind: err.unauthorized ? "signin" : "error", message: err.text };
  }
}

export default function AdminLive() {
  const data = useLoaderData<typeof clientLoader>();
  return (
    <main className={s.page}>
      <div className={s.top}>
        <h1 className={s.h1}>실시간 공개 현황</h1>
      </div>
      <AnalyticsNav />
      {data.kind === "signin" && <AnalystSignIn message={data.message} />}
      {data.kind === "error" && (
        <div role="alert" className={s.alert}>
          {data.message}
        </div>
      )}
      {data.kind === "ok" && <LiveView live={data.live} />}
    </main>
  );
}
