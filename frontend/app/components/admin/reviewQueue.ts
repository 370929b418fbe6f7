import { kstLocal } from "./reports";

/** One reported review as GET /admin/api/v1/reviews/reports lists it. */
export type ReportedReview = {
  id: number;
  pid: string;
  title: string;
  vol: number;
  userName: string;
  body: string;
  point: number;
  isSpoiler: boolean;
  createdAt: string;
  state: ReviewState;
  reports: number;
  reportList: { reason: string; at: string }[];
  firstReport: string | null;
};
export type ReviewState = "visible" | "auto-hidden" | "hidden";
export type ReviewPage = { list: ReportedReview[]; curPage: number; pageCount: number; totalCount: number };
export type Decision = "hide" | "restore" | "dismiss";

/** The queue's view: open reports or hidden reviews, oldest or most reported first, a page. */
export type QueueQuery = { status: "open" | "hidden"; order: "oldest" | "most"; page: number };

/** parseQuery reads the screen's own URL; anything unknown falls back to the default view. */
export function parseQueueQuery(search: URLSearchParams): QueueQuery {
  const status = search.get("status") === "hidden" ? "hidden" : "open";
  const order = search.get("order") === "most" ? "most" : "oldest";
  const n = Number(search.get("page") ?? "1");
  const page = Number.isInteger(n) && n >= 1 && n <= 10000 ? n : 1;
  return { status, order, page };
}

/** queueSearch is the query string of a view, for the API and the screen's links alike. */
export function queueSearch(q: QueueQuery): string {
  return new URLSearchParams({ status: q.status, order: q.order, page: String(q.page) }).toString();
}

export const STATE_LABELS: Record<ReviewState, string> = {
  visible: "노출 중",
  "auto-hidden": "신고 누적으로 숨김",
  hidden: "숨김 처리됨",
};

/** decisionsFor is what a moderator may decide on a review in its state (the writer answers 409 otherwise). */
export function decisionsFor(r: Pick<ReportedReview, "state" | "reports">, status: QueueQuery["status"]): Decision[] {
  const out: Decision[] = [];
  if (r.state !== "hidden" || (status === "open" && r.reports > 0)) out.push("hide");
  if (r.state !== "visible") out.push("restore");
  if (status === "open" && r.reports > 0) out.push("dismiss");
  return out;
}

export const DECISION_LABELS: Record<Decision, string> = { hide: "숨기기", restore: "다시 노출", dismiss: "신고 기각" };

/** reasonSummary groups the reports' reasons with their counts, most frequent first ("사유 없음" for blanks). */
export function reasonSummary(reports: { reason: string }[]): string {
  const counts = new Map<string, number>();
  for (const r of reports) {
    const k = r.reason.trim() || "사유 없음";
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([k, n]) => (n > 1 ? `${k} ×${n}` : k))
    .join(", ");
}

/** kstTime shows an instant as a KST wall time ("2026-11-22 23:35"). */
export function kstTime(iso: string | null): string {
  if (!iso) return "-";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? "-" : kstLocal(d).replace("T", " ");
}
