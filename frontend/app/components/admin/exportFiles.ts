// Export of the reports: the CSV address of a report (analytics names the
// file from the query's parameters) and the PNG name of a chart, the same.

import { REPORTS_API } from "./reports";

export type ReportParams = Record<string, string | number | undefined>;

const defined = (p: ReportParams) => Object.entries(p).filter((e): e is [string, string | number] => e[1] !== undefined && e[1] !== "");

/** csvHref is the report's address with format=csv: the browser saves what analytics names. */
export function csvHref(report: string, params: ReportParams): string {
  const q = new URLSearchParams(defined(params).map(([k, v]) => [k, String(v)]));
  q.set("format", "csv");
  return `${REPORTS_API}/${report}?${q.toString()}`;
}

const safe = (s: string) => s.replace(/[^A-Za-z0-9.-]/g, "_").slice(0, 40);

/** pngName names a chart's picture like analytics names the CSV: report_key-value_... */
export function pngName(report: string, params: ReportParams): string {
  return [report, ...defined(params).map(([k, v]) => `${safe(k)}-${safe(String(v))}`)].join("_") + ".png";
}
