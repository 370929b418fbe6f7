// The live release view's data: the live report of analytics (rollups of the
// last minutes) and what the screen derives from it.

import type { Http } from "~/utils/http";
import { REPORTS_API } from "./reports";

export type LiveSecond = { t: string; pageViews: number; contentViews: number; opens: number; purchases: number; revenue: number };
export type LiveWork = { pid: string; views: number; opens: number; purchases: number; revenue: number };
export type LiveVolume = { pid: string; no: number; opens: number; new: boolean; releasedAt?: string };
export type Live = {
  now: string;
  minutes: number;
  seconds: LiveSecond[];
  totals: LiveSecond;
  topWorks: LiveWork[];
  topVolumes: LiveVolume[];
  newVolumeOpens: number;
};

/** How often the screen asks again. */
export const LIVE_REFRESH_MS = 3000;
/** Readers per second are averaged over the last seconds, the newest being still in flight. */
export const RATE_SECONDS = 10;

export const loadLive = (http: Http, minutes: number, signal?: AbortSignal) => http<Live>(`${REPORTS_API}/live`, { query: { minutes }, signal });

/** readersPerSecond: page and detail views per second over the RATE_SECONDS before the newest two. */
export function readersPerSecond(l: Live): number {
  const s = l.seconds.slice(-(RATE_SECONDS + 2), -2);
  if (s.length === 0) return 0;
  return s.reduce((n, x) => n + x.pageViews + x.contentViews, 0) / s.length;
}

/** series buckets the seconds by 10 for the chart (labels HH:mm:ss in KST). */
export function liveSeries(l: Live, step = 10) {
  const labels: string[] = [];
  const readers: number[] = [];
  const opens: number[] = [];
  const purchases: number[] = [];
  for (let i = 0; i < l.seconds.length; i += step) {
    const b = l.seconds.slice(i, i + step);
    const k = new Date(new Date(b[0].t).getTime() + 9 * 3600 * 1000).toISOString();
    labels.push(k.slice(11, 19));
    readers.push(b.reduce((n, x) => n + x.pageViews + x.contentViews, 0) / b.length);
    opens.push(b.reduce((n, x) => n + x.opens, 0));
    purchases.push(b.reduce((n, x) => n + x.purchases, 0));
  }
  return { labels, readers, opens, purchases };
}
