import { describe, expect, it } from "vitest";
import { authorIdOf, authorNameIn, inboxHref, inboxText } from "./authors";

describe("author pages and the inbox", () => {
  it("takes only a positive integer as an author id", () => {
    expect(authorIdOf("10000007")).toBe(10000007);
    for (const bad of [undefined, "", "0", "-1", "1.5", "abc", "01", "1e3", "99999999999999999999"]) expect(authorIdOf(bad)).toBeNull();
  });
  it("finds the author's name on their works", () => {
    const list = [{ authors: [{ authorId: 1, authorName: "다른", isWriter: true }] }, { authors: [{ authorId: 7, authorName: "작가", isWriter: true }] }];
    expect(authorNameIn(list as never, 7)).toBe("작가");
    expect(authorNameIn(list as never, 9)).toBe("");
  });
  it("says what was released and opens it in the viewer", () => {
    expect(inboxText({ kind: "work", no: 1 })).toBe("새 작품이 공개되었습니다.");
    expect(inboxText({ kind: "episode", no: 12 })).toBe("새 회차 12화가 공개되었습니다.");
    expect(inboxHref({ pid: "a b", no: 3 })).toBe("/viewer?pid=a%20b&no=3");
  });
});
