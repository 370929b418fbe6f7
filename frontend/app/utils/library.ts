// The member's library (issue 34): shelves served by the writer's
// GET /users/library, the gift box by GET /coupons/gifts. Pure helpers here
// (labels, time left, links) so they are tested without a browser.

import { http } from "~/utils/api";
import { isHttpError } from "~/utils/http";
import { API } from "~/utils/storeApi";
import { userReady } from "~/utils/userStore";

export type Shelf = "reading" | "saved" | "owned" | "rented" | "offline";
export type LibrarySort = "read" | "update";

export const SHELVES: { shelf: Shelf | "gifts"; label: string }[] = [
  { shelf: "saved", label: "찜한 작품" },
  { shelf: "owned", label: "소장" },
  { shelf: "rented", label: "대여 중" },
  { shelf: "offline", label: "오프라인 저장" },
  { shelf: "gifts", label: "선물함" },
];

export const SORTS: { sort: LibrarySort; label: string }[] = [
  { sort: "read", label: "최근 읽은 순" },
  { sort: "update", label: "업데이트 순" },
];

export type LibraryPlace = { vol: number; page: number; ratio: number; offset: number; at: number };
export type LibraryItem = {
  pid: string;
  title: string;
  section: string;
  thumbUrl: string;
  isAdult: boolean;
  unit: string;
  lastReadAt: string | null;
  updatedAt: string | null;
  lastVol: number;
  nextVol: number;
  place: LibraryPlace | null;
  rentUntil?: string;
  rentedVols?: number;
};
export type ShelfAnswer = { list: LibraryItem[]; curPage: number; pageCount: number; totalCount: number; login: boolean };

const EMPTY: ShelfAnswer = { list: [], curPage: 1, pageCount: 1, totalCount: 0, login: false };

export const shelfOf = (v: string | undefined): Shelf | null =>
  v === "saved" || v === "owned" || v === "rented" || v === "reading" || v === "offline" ? v : v === undefined ? "saved" : null;
export const sortOf = (v: string | null): LibrarySort => (v === "update" ? "update" : "read");

/** loadShelf answers login false for visitors (no call made) and for an ended session. */
export async function loadShelf(shelf: Shelf, sort: LibrarySort, page: number, signal?: AbortSignal): Promise<ShelfAnswer> {
  if (!(await userReady()).loginFlag) return EMPTY;
  try {
    const a = await http<Omit<ShelfAnswer, "login">>(`${API}/users/library`, { query: { shelf, sort, page }, signal });
    return { ...a, login: true };
  } catch (e) {
    if (isHttpError(e) && e.status === 401) return EMPTY;
    throw e;
  }
}

const unitOf = (it: Pick<LibraryItem, "unit" | "section">) => it.unit || (it.section === "WT" ? "화" : "권");

/** viewerHref opens the next episode to read, where the member stopped. */
export const viewerHref = (it: Pick<LibraryItem, "pid" | "nextVol">) => `/viewer?pid=${encodeURIComponent(it.pid)}&no=${it.nextVol}`;

/** nextLabel names the next episode: going on, or starting. */
export function nextLabel(it: Pick<LibraryItem, "nextVol" | "place" | "unit" | "section">): string {
  if (it.nextVol <= 0) return "공개된 회차가 없어요";
  const n = `${it.nextVol}${unitOf(it)}`;
  if (!it.place) return `${n}부터 보기`;
  return it.place.vol === it.nextVol ? `${n} 이어보기` : `다음 ${n} 보기`;
}

/** timeLeft says how long a rental runs on, in the largest whole unit. */
export function timeLeft(until: string | undefined, now: number): string {
  if (!until) return "";
  const ms = Date.parse(until) - now;
  if (!(ms > 0)) return "대여 기간 만료";
  const min = Math.floor(ms / 60_000);
  if (min < 60) return `${Math.max(1, min)}분 남음`;
  const h = Math.floor(min / 60);
  if (h < 24) return `${h}시간 남음`;
  const d = Math.floor(h / 24);
  return h % 24 ? `${d}일 ${h % 24}시간 남음` : `${d}일 남음`;
}

export type Gift = { id: number; kind: string; pid?: string; section?: string; count: number; expiresAt: string; source: string };

const GIFT_KINDS: Record<string, string> = { wff: "기다리면 무료 이용권", read: "열람 쿠폰", pass: "이용권", jumping: "점핑패스", ticket: "이용권" };
export const giftLabel = (g: Pick<Gift, "kind" | "count">) => `${GIFT_KINDS[g.kind] ?? "쿠폰"} ${g.count}장`;

export async function loadGifts(signal?: AbortSignal): Promise<{ list: Gift[]; login: boolean }> {
  if (!(await userReady()).loginFlag) return { list: [], login: false };
  try {
    const a = await http<{ list: Gift[] }>(`${API}/coupons/gifts`, { signal });
    return { list: a.list, login: true };
  } catch (e) {
    if (isHttpError(e) && e.status === 401) return { list: [], login: false };
    throw e;
  }
}

export const receiveGift = (id: number) => http(`${API}/coupons/gifts/${id}/receive`, { method: "POST" });
