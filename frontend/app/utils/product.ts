// The product list item of seed §3, as the edge renders it.
import { sectionPath } from "./layout";

export type Author = {
  authorId: number;
  authorName: string;
  isWriter: boolean;
  isPainter: boolean;
  isOriginalWriter: boolean;
};

export type ProductItem = {
  pid: string;
  section: "WT" | "CM" | "EB" | string;
  thumbnail: string;
  title: string;
  authors: Author[];
  isAdult: boolean;
  waitForFree?: boolean;
  gift?: boolean;
  jumpingPass?: boolean;
  isSpecialPriceSet?: boolean;
  lastUpdate?: string;
  genre?: string;
  summary?: string;
  originalLabel?: string;
  endFlag?: "Y" | "N" | string;
  freeVolCnt?: number;
  cashback?: number;
  discount?: number;
  eventDeadline?: string;
  deadlineToday?: boolean;
  deadlineSoon?: boolean;
  badge?: "NONE" | "UP" | "NEW" | string;
};

/** authorLine joins distinct author names in order. */
export function authorLine(authors: Author[] | undefined): string {
  const seen = new Set<string>();
  const names: string[] = [];
  for (const a of authors ?? []) {
    if (a.authorName && !seen.has(a.authorName)) {
      seen.add(a.authorName);
      names.push(a.authorName);
    }
  }
  return names.join(", ");
}

export function detailHref(item: Pick<ProductItem, "section" | "pid">): string {
  return `/${sectionPath(item.section)}/detail/${encodeURIComponent(item.pid)}`;
}

/** The deadline badge of an item: today beats coming. */
export function deadlineBadge(item: Pick<ProductItem, "deadlineToday" | "deadlineSoon">): "today" | "soon" | null {
  if (item.deadlineToday) return "today";
  if (item.deadlineSoon) return "soon";
  return null;
}
