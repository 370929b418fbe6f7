// Episode comments (issue 36): the edge's head and pages, the writer's
// calls, and the rules the panel applies while an answer is on its way.
import { http } from "~/utils/api";
import { API } from "~/utils/storeApi";

export type Comment = {
  id: number;
  parentId?: number;
  userName: string;
  body: string;
  isSpoiler: boolean;
  isBuyer: boolean;
  likeCnt: number;
  replyCnt: number;
  createdAt: string;
  page: number;
  replies?: Comment[];
};
export type PageRef = { index: number; version: number; count: number };
export type Head = {
  pid: string;
  vol: number;
  version: number;
  count: number;
  hearts: number;
  note: string;
  pinned?: Comment;
  best: Comment[];
  newest: Comment[];
  pages: PageRef[];
};
export type Page = { index: number; version: number; comments: Comment[] };
export type State = { myLikes: number[]; reported: number[]; mine: number[]; isMyHeart: boolean };

/** The longest comment the writer takes (contract.CommentMaxRunes). */
export const MAX_CHARS = 500;

const base = (pid: string, vol: number) => `${API}/products/${encodeURIComponent(pid)}/episodes/${vol}`;

export const getHead = (pid: string, vol: number, signal?: AbortSignal) => http<{ data: Head }>(`${base(pid, vol)}/comments`, { signal }).then((a) => a.data);
export const getPage = (pid: string, vol: number, index: number, signal?: AbortSignal) =>
  http<{ data: Page }>(`${base(pid, vol)}/comments`, { query: { page: index }, signal }).then((a) => a.data);
export const getState = (pid: string, vol: number) => http<State>(`${base(pid, vol)}/comments/state`);

/** newKey is a post's Idempotency-Key: a retry of the same post sends the same one. */
export function newKey(): string {
  const c = globalThis.crypto;
  if (c?.randomUUID) return `cmt-${c.randomUUID()}`;
  return `cmt-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

export const postComment = (pid: string, vol: number, key: string, body: string, isSpoiler: boolean, parentId?: number) =>
  http<{ id: number; isBuyer: boolean }>(`${base(pid, vol)}/comments`, {
    method: "POST",
    headers: { "Idempotency-Key": key },
    json: parentId ? { body, isSpoiler, parentId } : { body, isSpoiler },
    expect: [201],
  });
export const likeComment = (id: number, on: boolean) =>
  http<{ isMyLike: boolean; likeCnt: number }>(`${API}/comments/${id}/like`, { method: on ? "POST" : "DELETE" });
export const reportComment = (id: number) => http(`${API}/comments/${id}/report`, { method: "POST", json: { reason: "부적절한 댓글" } });
export const deleteComment = (id: number) => http(`${API}/comments/${id}`, { method: "DELETE" });
export const heartEpisode = (pid: string, vol: number, on: boolean) =>
  http<{ isMyHeart: boolean; heartCnt: number }>(`${base(pid, vol)}/heart`, { method: on ? "POST" : "DELETE" });

/** checkBody is the writer's length rule, said before the call: null when the text may be sent. */
export function checkBody(text: string): string | null {
  if (!text.trim()) return "댓글 내용을 입력해 주세요.";
  const n = [...text].length;
  if (n > MAX_CHARS) return `댓글은 ${MAX_CHARS}자까지 쓸 수 있습니다. (${n}자)`;
  return null;
}

/** toggleLike flips a comment's like at once (the answer then sets the count). */
export function toggleLike(c: Comment, liked: Set<number>): { comment: Comment; liked: Set<number> } {
  const next = new Set(liked);
  const on = !next.has(c.id);
  if (on) next.add(c.id);
  else next.delete(c.id);
  return { comment: { ...c, likeCnt: Math.max(0, c.likeCnt + (on ? 1 : -1)) }, liked: next };
}

/**
 * withOwn puts the member's own comments the edge has not published yet on
 * top of the newest list (the head catches up within a second), without
 * showing one twice or showing one they deleted.
 */
export function withOwn(newest: Comment[], own: Comment[], removed: Set<number>): Comment[] {
  const seen = new Set(newest.map((c) => c.id));
  return [...own.filter((c) => !seen.has(c.id)), ...newest].filter((c) => !removed.has(c.id));
}

/** replaceIn sets the comment (or reply) of id in a list to f of it. */
export function replaceIn(list: Comment[], id: number, f: (c: Comment) => Comment): Comment[] {
  return list.map((c) => (c.id === id ? f(c) : c.replies?.some((r) => r.id === id) ? { ...c, replies: c.replies.map((r) => (r.id === id ? f(r) : r)) } : c));
}
