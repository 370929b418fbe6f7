import { describe, expect, it } from "vitest";
import { isListApi, isSavedMedia, NOT_SHELL } from "./routes";

const O = "https://store.example";
const u = (p: string) => new URL(p, O);

describe("what the service worker answers", () => {
  it("keeps the lists' API GETs: home, tabs, areas, keywords, rankings, genres", () => {
    for (const p of ["/home/api/v1/home?section=all", "/home/api/v1/webtoon/genre/romance?sort=popular&size=12", "/home/api/v1/comic/best?page=1", "/home/api/v1/novel/tab/21", "/home/api/v1/keywords/3?page=1", "/home/api/v1/genres", "/home/api/v1/rankings/genres"])
      expect(isListApi(u(p), "GET", O), p).toBe(true);
  });
  it("never member answers, writes, details or another origin", () => {
    expect(isListApi(u("/home/api/v1/users/recent?page=1"), "GET", O)).toBe(false);
    expect(isListApi(u("/home/api/v1/wallet"), "GET", O)).toBe(false);
    expect(isListApi(u("/home/api/v1/products/p1"), "GET", O)).toBe(false);
    expect(isListApi(u("/home/api/v1/homework"), "GET", O)).toBe(false);
    expect(isListApi(u("/home/api/v1/home"), "POST", O)).toBe(false);
    expect(isListApi(new URL("https://other.example/home/api/v1/home"), "GET", O)).toBe(false);
  });
  it("answers saved pages only where the viewer marked them, on media paths", () => {
    expect(isSavedMedia(u("/media/v/p1/3/abc/2?w=720&t=tok&sfo=1"), O)).toBe(true);
    expect(isSavedMedia(u("/content/p1/3/1.html?sfo=1"), O)).toBe(true);
    expect(isSavedMedia(u("/media/v/p1/3/abc/2?w=720"), O)).toBe(false);
    expect(isSavedMedia(u("/home/api/v1/home?sfo=1"), O)).toBe(false);
  });
  it("navigations to the API and server pages are never the cached shell", () => {
    const shell = (p: string) => !NOT_SHELL.some((r) => r.test(p));
    for (const p of ["/", "/webtoon/best", "/viewer", "/comic/detail/p1", "/logout/"]) expect(shell(p), p).toBe(true);
    for (const p of ["/api/v-1/user/login_auto.asp", "/home/api/v1/home", "/protocol/x", "/sw.js", "/media/v/1"]) expect(shell(p), p).toBe(false);
  });
});
