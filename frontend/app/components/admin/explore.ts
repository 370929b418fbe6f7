// The explore screen's data: retention cohorts, the analyst's funnel and the
// breakdowns, asked of analytics with the query in the address.

import type { Http } from "~/utils/http";
import { kstDay, REPORTS_API } from "./reports";

export const CHANNELS = ["AO", "AC", "AA", "AW", "IA", "IW"] as const;
export const FUNNEL_KINDS: { v: string; l: string }[] = [
  { v: "list", l: "목록" },
  { v: "detail", l: "상세" },
  { v: "viewer", l: "뷰어 열람" },
  { v: "purchase", l: "구매" },
  { v: "rental", l: "대여" },
  { v: "purchase_or_rental", l: "구매·대여" },
  { v: "signup", l: "가입" },
  { v: "login", l: "로그인" },
  { v: "charge", l: "충전" },
  { v: "dibs", l: "찜" },
  { v: "review", l: "리뷰" },
];
export const BREAKDOWNS: { v: string; l: string }[] = [
  { v: "channel", l: "채널" },
  { v: "referrer", l: "유입 사이트" },
  { v: "campaign", l: "UTM 캠페인" },
  { v: "source", l: "UTM 소스" },
  { v: "medium", l: "UTM 매체" },
];
export const kindLabel = (k: string) => FUNNEL_KINDS.find((x) => x.v === k)?.l ?? k;

export type ExploreQuery = { from: string; to: string; cohort: "first-read" | "signup"; channel: string; steps: string[]; window: string; by: string };

/** readExplore: the address's query with defaults (the last 8 weeks; detail → viewer → purchase in 1 hour; by channel). */
export function readExplore(sp: URLSearchParams, now: Date): ExploreQuery {
  const day = (s: string | null) => (s && /^\d{4}-\d{2}-\d{2}$/.test(s) ? s : null);
  const steps = (sp.get("steps") ?? "").split(",").filter((s) => FUNNEL_KINDS.some((k) => k.v === s));
  return {
    from: day(sp.get("from")) ?? kstDay(new Date(now.getTime() - 55 * 86400000)),
    to: day(sp.get("to")) ?? kstDay(now),
    cohort: sp.get("cohort") === "signup" ? "signup" : "first-read",
    channel: CHANNELS.find((c) => c === sp.get("channel")) ?? "",
    steps: steps.length >= 2 ? steps.slice(0, 8) : ["detail", "viewer", "purchase"],
    window: /^\d{1,3}[hm]$/.test(sp.get("window") ?? "") ? sp.get("window")! : "1h",
    by: BREAKDOWNS.find((b) => b.v === sp.get("by"))?.v ?? "channel",
  };
}

export type CohortRow = { week: string; channel: string; members: number; retained: number[]; elapsedWeeks: number };
export type Retention = { cohort: string; from: string; to: string; rows: CohortRow[]; totals: CohortRow[] };
export type FunnelChannel = { channel: string; reached: number[]; conversion: number[] };
export type CustomFunnel = { from: string; to: string; steps: string[]; windowSeconds: number; channels: FunnelChannel[] };
export type BreakdownRow = { key: string; visits: number; pageViews: number; contentViews: number; purchases: number; revenue: number };
export type Breakdown = { from: string; to: string; by: string; rows: BreakdownRow[] };
export type Explore = { retention: Retention; funnel: CustomFunnel; breakdown: Breakdown };

/** The parameters of each report, for its call and its CSV. */
export function exploreParams(q: ExploreQuery) {
  const range = { from: q.from, to: q.to };
  return {
    retention: { ...range, cohort: q.cohort, channel: q.channel || undefined },
    funnels: { ...range, steps: q.steps.join(","), window: q.window },
    breakdown: { ...range, by: q.by },
  };
}

export async function loadExplore(http: Http, q: ExploreQuery, signal?: AbortSignal): Promise<Explore> {
  const p = exploreParams(q);
  const query = (o: Record<string, string | undefined>) => Object.fromEntries(Object.entries(o).filter((e): e is [string, string] => !!e[1]));
  const [retention, funnel, breakdown] = await Promise.all([
    http<Retention>(`${REPORTS_API}/retention`, { query: query(p.retention), signal }),
    http<CustomFunnel>(`${REPORTS_API}/funnels`, { query: query(p.funnels), signal }),
    http<Breakdown>(`${REPORTS_API}/breakdown`, { query: query(p.breakdown), signal }),
  ]);
  return { retention, funnel, breakdown };
}

/** A key of the breakdown as the screen shows it. */
export const breakdownKey = (k: string) => (k === "(none)" ? "(없음)" : k === "(unknown)" ? "(알 수 없음)" : k);
