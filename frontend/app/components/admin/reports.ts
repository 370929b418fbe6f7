// The admin analytics screen's data: the query in the address, the calls to the
// reports API (analytics, forwarded by the edge under /analytics/api/) and the
// shaping of the answers into chart series and table rows. Pure except for
// loadReports; every time is shown in KST, the zone of releases and reports.

import type { Http } from "~/utils/http";
import { GENRE_LABELS } from "~/utils/genres";
import { sectionPath } from "~/utils/layout";

export const REPORTS_API = "/analytics/api/v1/reports";

const KST_MS = 9 * 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

export type Metric = "views" | "purchases" | "revenue";
export const METRICS: { v: Metric; l: string }[] = [
  { v: "views", l: "조회수" },
  { v: "purchases", l: "구매·대여 수" },
  { v: "revenue", l: "매출" },
];
export const STEPS = [1, 5, 15, 60] as const; // minutes
export const WINDOWS = [30, 60, 120, 180, 360, 720, 1440] as const; // minutes

/** What the screen shows; every field is in the address so a view can be shared. */
export type ReportQuery = {
  from: string; // KST day YYYY-MM-DD, inclusive
  to: string;
  at: string; // release instant, KST, YYYY-MM-DDTHH:mm (what <input type="datetime-local"> holds)
  before: number; // minutes of traffic before at
  after: number; // minutes after at
  step: number; // minutes per traffic bucket
  by: Metric;
  /** Traffic of one work only (its release), empty for all. */
  pid: string;
};

const pad = (n: number) => String(n).padStart(2, "0");

/** kstParts reads a UTC instant as KST calendar fields. */
function kstParts(d: Date) {
  const k = new Date(d.getTime() + KST_MS);
  return { y: k.getUTCFullYear(), mo: k.getUTCMonth() + 1, d: k.getUTCDate(), h: k.getUTCHours(), mi: k.getUTCMinutes() };
}

export function kstDay(d: Date): string {
  const p = kstParts(d);
  return `${p.y}-${pad(p.mo)}-${pad(p.d)}`;
}

export function kstLocal(d: Date): string {
  const p = kstParts(d);
  return `${kstDay(d)}T${pad(p.h)}:${pad(p.mi)}`;
}

/** kstToInstant turns a KST wall time (YYYY-MM-DDTHH:mm) into an RFC 3339 time; null when malformed. */
export function kstToRFC3339(local: string): string | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(local);
  if (!m) return null;
  const [, y, mo, d, h, mi] = m.map(Number);
  const t = Date.UTC(y, mo - 1, d, h, mi) - KST_MS;
  if (Number.isNaN(t) || kstLocal(new Date(t)) !== local) return null; // 2026-02-30 and such
  return `${local}:00+09:00`;
}

const validDay = (s: string) => /^\d{4}-\d{2}-\d{2}$/.test(s) && kstToRFC3339(`${s}T00:00`) !== null;

/**
 * defaultQuery: the last 7 KST days, and traffic around the start of the
 * current KST hour (an hour before, two after, 5-minute buckets): the API's
 * defaults, anchored where today's traffic is.
 */
export function defaultQuery(now: Date): ReportQuery {
  const to = kstDay(now);
  const from = kstDay(new Date(now.getTime() - 6 * DAY_MS));
  const at = kstLocal(now).slice(0, 14) + "00";
  return { from, to, at, before: 60, after: 120, step: 5, by: "views", pid: "" };
}

/** parseQuery reads the query from the address; bad values fall back to defaults and are reported. */
export function parseQuery(sp: URLSearchParams, now: Date): { q: ReportQuery; errors: string[] } {
  const q = defaultQuery(now);
  const errors: string[] = [];
  const from = sp.get("from");
  const to = sp.get("to");
  if (from) {
    if (validDay(from)) q.from = from;
    else errors.push("시작일이 올바르지 않습니다.");
  }
  if (to) {
    if (validDay(to)) q.to = to;
    else errors.push("종료일이 올바르지 않습니다.");
  }
  if (q.from > q.to) errors.push("시작일이 종료일보다 늦습니다.");
  const at = sp.get("at");
  if (at) {
    if (kstToRFC3339(at)) q.at = at;
    else errors.push("기준 시각이 올바르지 않습니다.");
  }
  const minutes = (name: "before" | "after" | "step", allowed: readonly number[]) => {
    const v = sp.get(name);
    if (v === null || v === "") return;
    const n = Number(v);
    if (allowed.includes(n)) q[name] = n;
    else errors.push(`${name} 값이 올바르지 않습니다.`);
  };
  minutes("before", WINDOWS);
  minutes("after", WINDOWS);
  minutes("step", STEPS);
  const by = sp.get("by");
  if (by) {
    if (METRICS.some((m) => m.v === by)) q.by = by as Metric;
    else errors.push("정렬 기준이 올바르지 않습니다.");
  }
  const pid = (sp.get("pid") ?? "").trim();
  if (pid) {
    if (/^[A-Za-z0-9_-]{1,64}$/.test(pid)) q.pid = pid;
    else errors.push("작품 ID가 올바르지 않습니다.");
  }
  return { q, errors };
}

// ---- The answers (analytics/reports) ----

export type TrafficPoint = { t: string; pageViews: number; contentViews: number; purchases: number; revenue: number };
export type Traffic = { at: string; stepSeconds: number; points: TrafficPoint[] };
export type WorkStat = { pid: string; section: string; genreId: string; views: number; purchases: number; rentals: number; revenue: number };
export type TopWorks = { from: string; to: string; by: string; works: WorkStat[] };
export type FunnelStepName = "list" | "detail" | "viewer" | "purchase";
export type FunnelStep = { step: FunnelStepName; reached: number; through: number; conversion: number };
export type Funnel = { from: string; to: string; steps: FunnelStep[] };
export type ChannelRevenue = {
  channel: string;
  charges: number;
  chargeAmount: number;
  purchases: number;
  purchaseAmount: number;
  rentals: number;
  rentalAmount: number;
};
export type Revenue = { from: string; to: string; channels: ChannelRevenue[] };
export type ActiveUsers = { from: string; to: string; rangeTotal: number };

export type Reports = { traffic: Traffic; top: TopWorks; funnel: Funnel; revenue: Revenue; active: ActiveUsers };

/** loadReports asks for the five reports at once; the analyst cookie goes with each call. */
export async function loadReports(http: Http, q: ReportQuery, signal?: AbortSignal): Promise<Reports> {
  const opts = (query: Record<string, string | number>) => ({ query, signal });
  const range = { from: q.from, to: q.to };
  const [traffic, top, funnel, revenue, active] = await Promise.all([
    http<Traffic>(
      `${REPORTS_API}/traffic`,
      opts({ at: kstToRFC3339(q.at) ?? "", before: `${q.before}m`, after: `${q.after}m`, step: `${q.step}m`, ...(q.pid ? { pid: q.pid } : {}) }),
    ),
    http<TopWorks>(`${REPORTS_API}/top-works`, opts({ ...range, by: q.by, limit: 10 })),
    http<Funnel>(`${REPORTS_API}/funnel`, opts(range)),
    http<Revenue>(`${REPORTS_API}/revenue`, opts(range)),
    http<ActiveUsers>(`${REPORTS_API}/active-users`, opts(range)),
  ]);
  return { traffic, top, funnel, revenue, active };
}

/** The message the screen shows for a failed load. */
export function reportError(status: number, message: string): { unauthorized: boolean; text: string } {
  if (status === 401) return { unauthorized: true, text: "분석가 계정으로 로그인해 주세요." };
  if (status === 400) return { unauthorized: false, text: `조회 조건이 올바르지 않습니다: ${message}` };
  if (status === 0 || status === 502 || status === 503) return { unauthorized: false, text: "분석 서버에 연결할 수 없습니다. 잠시 후 다시 시도해 주세요." };
  return { unauthorized: false, text: `리포트를 불러오지 못했습니다 (${status}).` };
}

// ---- Shaping ----

export const won = (n: number) => `${n.toLocaleString("ko-KR")}원`;
export const count = (n: number) => n.toLocaleString("ko-KR");
export const percent = (x: number) => `${(Math.round(x * 1000) / 10).toFixed(1)}%`;

export type TrafficSeries = {
  labels: string[];
  pageViews: number[];
  contentViews: number[];
  purchases: number[];
  revenue: number[];
  /** Index of the bucket holding the release instant, -1 when outside. */
  atIndex: number;
  totals: { pageViews: number; contentViews: number; purchases: number; revenue: number };
  /** The busiest bucket by page views (null when there was no page view). */
  peak: { label: string; pageViews: number } | null;
};

/** trafficSeries labels each bucket by its KST start (HH:mm, with the day when the window spans days). */
export function trafficSeries(t: Traffic): TrafficSeries {
  const times = t.points.map((p) => new Date(p.t));
  const days = new Set(times.map(kstDay));
  const label = (d: Date) => {
    const l = kstLocal(d);
    return days.size > 1 ? `${l.slice(5, 7)}.${l.slice(8, 10)} ${l.slice(11)}` : l.slice(11);
  };
  const at = new Date(t.at).getTime();
  const step = t.stepSeconds * 1000;
  const s: TrafficSeries = {
    labels: times.map(label),
    pageViews: t.points.map((p) => p.pageViews),
    contentViews: t.points.map((p) => p.contentViews),
    purchases: t.points.map((p) => p.purchases),
    revenue: t.points.map((p) => p.revenue),
    atIndex: times.findIndex((d) => d.getTime() <= at && at < d.getTime() + step),
    totals: { pageViews: 0, contentViews: 0, purchases: 0, revenue: 0 },
    peak: null,
  };
  t.points.forEach((p, i) => {
    s.totals.pageViews += p.pageViews;
    s.totals.contentViews += p.contentViews;
    s.totals.purchases += p.purchases;
    s.totals.revenue += p.revenue;
    if (p.pageViews > 0 && (s.peak === null || p.pageViews > s.peak.pageViews)) s.peak = { label: s.labels[i], pageViews: p.pageViews };
  });
  return s;
}

const SECTION_LABEL: Record<string, string> = { WT: "웹툰", CM: "만화", EB: "소설" };

export type WorkRow = {
  rank: number;
  pid: string;
  section: string;
  genre: string;
  href: string;
  views: number;
  sales: number; // purchases + rentals
  revenue: number;
  /** The value of the chosen metric, what the bar shows. */
  value: number;
};

export function topWorkRows(w: TopWorks, by: Metric): WorkRow[] {
  return w.works.map((x, i) => {
    const sales = x.purchases + x.rentals;
    return {
      rank: i + 1,
      pid: x.pid,
      section: SECTION_LABEL[x.section] ?? (x.section || "-"),
      genre: GENRE_LABELS[x.genreId] ?? (x.genreId || "-"),
      href: `/${sectionPath(x.section)}/detail/${encodeURIComponent(x.pid)}`,
      views: x.views,
      sales,
      revenue: x.revenue,
      value: by === "views" ? x.views : by === "purchases" ? sales : x.revenue,
    };
  });
}

export const FUNNEL_LABEL: Record<FunnelStepName, string> = { list: "목록", detail: "상세", viewer: "뷰어", purchase: "구매" };

export type FunnelRow = {
  step: FunnelStepName;
  label: string;
  reached: number;
  through: number;
  /** Of those through the previous step, the share that went on (the first step: 100%). */
  conversion: string;
  /** Of those who started the funnel (through the list step), the share that got here. */
  ofStart: string;
};

/** funnelRows keeps the seed's order list → detail → viewer → purchase whatever order the answer has. */
export function funnelRows(f: Funnel): FunnelRow[] {
  const order: FunnelStepName[] = ["list", "detail", "viewer", "purchase"];
  const byStep = new Map(f.steps.map((s) => [s.step, s]));
  const start = byStep.get("list")?.through ?? 0;
  return order.map((step, i) => {
    const s = byStep.get(step) ?? { step, reached: 0, through: 0, conversion: 0 };
    const prev = i === 0 ? s.through : (byStep.get(order[i - 1])?.through ?? 0);
    return {
      step,
      label: FUNNEL_LABEL[step],
      reached: s.reached,
      through: s.through,
      conversion: i === 0 ? percent(s.through > 0 ? 1 : 0) : percent(prev > 0 ? s.through / prev : 0),
      ofStart: percent(start > 0 ? s.through / start : 0),
    };
  });
}

/** Channel codes of seed §3. */
export const CHANNEL_LABEL: Record<string, string> = {
  AO: "원스토어 앱 (AO)",
  AC: "안드로이드 앱 완전판 (AC)",
  AA: "안드로이드 앱 (AA)",
  AW: "안드로이드 웹 (AW)",
  IA: "iOS 앱 (IA)",
  IW: "iOS 웹 (IW)",
};

export type RevenueRow = {
  channel: string;
  label: string;
  charges: number;
  chargeAmount: number;
  sales: number; // purchases + rentals
  salesAmount: number; // won spent on works
};

/** revenueRows: one row per channel, biggest spending first, and a total row. */
export function revenueRows(r: Revenue): { rows: RevenueRow[]; total: RevenueRow } {
  const rows = r.channels
    .map((c) => ({
      channel: c.channel,
      label: CHANNEL_LABEL[c.channel] ?? (c.channel ? c.channel : "알 수 없음"),
      charges: c.charges,
      chargeAmount: c.chargeAmount,
      sales: c.purchases + c.rentals,
      salesAmount: c.purchaseAmount + c.rentalAmount,
    }))
    .sort((a, b) => b.salesAmount - a.salesAmount || b.chargeAmount - a.chargeAmount || a.channel.localeCompare(b.channel));
  const total = rows.reduce<RevenueRow>(
    (t, x) => ({
      ...t,
      charges: t.charges + x.charges,
      chargeAmount: t.chargeAmount + x.chargeAmount,
      sales: t.sales + x.sales,
      salesAmount: t.salesAmount + x.salesAmount,
    }),
    { channel: "", label: "합계", charges: 0, chargeAmount: 0, sales: 0, salesAmount: 0 },
  );
  return { rows, total };
}
