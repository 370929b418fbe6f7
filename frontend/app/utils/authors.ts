// Author pages and the notification inbox (issue 34 item 3). An author's
// works come from the edge (GET /authors/{id}/works, audience-filtered like
// every list); following is the author zzim the detail page already makes
// (utils/zzim.ts); the inbox is the writer's (GET /users/inbox and friends),
// filled by its push worker when a followed author's work or episode is
// released. Pure helpers here are tested without a browser.
import { http } from "~/utils/api";
import { isHttpError, type Http } from "~/utils/http";
import type { Author } from "~/utils/product";
import { API, getList, type ListAnswer } from "~/utils/storeApi";
import { userReady } from "~/utils/userStore";

/** authorIdOf reads a route's author id: a positive integer, else null. */
export function authorIdOf(v: string | undefined): number | null {
  if (!v || !/^[1-9][0-9]{0,17}$/.test(v)) return null;
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : null;
}

export const authorHref = (id: number) => `/authors/${id}`;

export const loadAuthorWorks = (id: number, page: number, signal?: AbortSignal, h: Http = http): Promise<ListAnswer> =>
  getList(`/authors/${id}/works`, { page }, signal, h);

/** authorNameIn finds the author's name on their works (the list carries each work's authors). */
export function authorNameIn(list: { authors?: Author[] }[], id: number): string {
  for (const it of list) for (const a of it.authors ?? []) if (a.authorId === id && a.authorName) return a.authorName;
  return "";
}

export const FOLLOWED = "작가를 팔로우합니다. 새 작품과 새 회차가 나오면 알려 드려요.";
export const UNFOLLOWED = "작가 팔로우를 취소했습니다.";
export const FOLLOW_FAILED = "팔로우하지 못했습니다. 잠시 후 다시 시도해 주세요.";

export type InboxItem = {
  id: number;
  kind: "work" | "episode";
  pid: string;
  no: number;
  title: string;
  isAdult: boolean;
  releaseAt: string;
  read: boolean;
};
export type InboxAnswer = { list: InboxItem[]; curPage: number; pageCount: number; totalCount: number; unread: number; login: boolean };

const EMPTY: InboxAnswer = { list: [], curPage: 1, pageCount: 1, totalCount: 0, unread: 0, login: false };
export const INBOX_PATH = `${API}/users/inbox`;

/** loadInbox answers login false for visitors (no call made) and for an ended session. */
export async function loadInbox(page: number, signal?: AbortSignal, h: Http = http): Promise<InboxAnswer> {
  if (!(await userReady()).loginFlag) return EMPTY;
  try {
    const a = await h<Omit<InboxAnswer, "login">>(INBOX_PATH, { query: { page }, signal });
    return { ...a, login: true };
  } catch (e) {
    if (isHttpError(e) && e.status === 401) return EMPTY;
    throw e;
  }
}

/** markRead marks items (or all) read and answers the unread count after. */
export async function markRead(what: { ids: number[] } | { all: true }, h: Http = http): Promise<number> {
  const a = await h<{ unread: number }>(`${INBOX_PATH}/read`, { method: "POST", json: what });
  return a.unread;
}

/** inboxText says what happened: a new work, or which episode came out. */
export const inboxText = (it: Pick<InboxItem, "kind" | "no">) => (it.kind === "work" ? "새 작품이 공개되었습니다." : `새 회차 ${it.no}화가 공개되었습니다.`);

/** inboxHref opens the released volume in the viewer (as the push notification does). */
export const inboxHref = (it: Pick<InboxItem, "pid" | "no">) => `/viewer?pid=${encodeURIComponent(it.pid)}&no=${it.no}`;
