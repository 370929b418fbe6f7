import { describe, expect, it } from "vitest";
import { checkBody, newKey, replaceIn, toggleLike, withOwn, type Comment, MAX_CHARS } from "./comments";

const c = (id: number, likeCnt = 0, replies?: Comment[]): Comment => ({
  id,
  userName: "ab***",
  body: `댓글 ${id}`,
  isSpoiler: false,
  isBuyer: false,
  likeCnt,
  replyCnt: replies?.length ?? 0,
  createdAt: "2026-11-28T00:00:00Z",
  page: 0,
  replies,
});

describe("comment rules", () => {
  it("says what is wrong with a body before sending it", () => {
    expect(checkBody("  \n ")).toBe("댓글 내용을 입력해 주세요.");
    expect(checkBody("가".repeat(MAX_CHARS))).toBeNull();
    expect(checkBody("가".repeat(MAX_CHARS + 1))).toBe(`댓글은 ${MAX_CHARS}자까지 쓸 수 있습니다. (${MAX_CHARS + 1}자)`);
    // counted in characters, not UTF-16 units
    expect(checkBody("😀".repeat(MAX_CHARS))).toBeNull();
  });
  it("makes a new key per post", () => {
    expect(newKey()).not.toBe(newKey());
    expect(newKey()).toMatch(/^cmt-[!-~]+$/);
  });
  it("flips a like once and never below zero", () => {
    const a = toggleLike(c(1, 0), new Set());
    expect(a.comment.likeCnt).toBe(1);
    expect(a.liked.has(1)).toBe(true);
    const b = toggleLike(a.comment, a.liked);
    expect(b.comment.likeCnt).toBe(0);
    expect(toggleLike(c(1, 0), new Set([1])).comment.likeCnt).toBe(0);
  });
  it("shows own comments first until the head has them, never twice, never deleted ones", () => {
    expect(withOwn([c(2), c(1)], [c(3)], new Set()).map((x) => x.id)).toEqual([3, 2, 1]);
    expect(withOwn([c(3), c(2)], [c(3)], new Set()).map((x) => x.id)).toEqual([3, 2]);
    expect(withOwn([c(3), c(2)], [], new Set([2])).map((x) => x.id)).toEqual([3]);
  });
  it("replaces a reply inside its parent", () => {
    const l = replaceIn([c(1, 0, [c(5)])], 5, (r) => ({ ...r, likeCnt: 9 }));
    expect(l[0].replies?.[0].likeCnt).toBe(9);
  });
});
