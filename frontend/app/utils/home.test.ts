import { describe, expect, it } from "vitest";
import { homeTab, loadHomeTab, tabUrl } from "./home";
import type { Http } from "./http";

const item = (pid: string) => ({ pid, title: pid }) as never;

function fakeHttp(answers: Record<string, unknown>) {
  const calls: { path: string; query: unknown }[] = [];
  const http = (async (path: string, opts?: { query?: unknown }) => {
    calls.push({ path, query: opts?.query });
    if (path in answers) return answers[path];
    throw new Error("unexpected " + path);
  }) as Http;
  return { http, calls };
}

describe("home tabs", () => {
  it("reads ?tab=; missing or unknown is the series tab", () => {
    expect(homeTab("?tab=romance")).toBe("romance");
    expect(homeTab(new URLSearchParams("tab=fanmu"))).toBe("fanmu");
    expect(homeTab("?tab=bl")).toBe("bl");
    expect(homeTab("?tab=others")).toBe("others");
    expect(homeTab("")).toBe("series");
    expect(homeTab("?tab=nope")).toBe("series");
    expect(tabUrl("series")).toBe("/");
    expect(tabUrl("romance")).toBe("/?tab=romance");
  });

  it("the series tab is the whole home", async () => {
    const home = { header: { code: 200, message: "" }, area: "all", banners: [], sections: [] };
    const { http, calls } = fakeHttp({ "/home/api/v1/home": home });
    expect(await loadHomeTab(http, "series")).toBe(home);
    expect(calls).toEqual([{ path: "/home/api/v1/home", query: { section: "all" } }]);
  });

  it("another tab is one shelf per area of that category, empty areas left out", async () => {
    const { http, calls } = fakeHttp({
      "/home/api/v1/webtoon/genre/romance": { list: [item("w1"), item("w2")] },
      "/home/api/v1/comic/genre/romance": { list: [] },
      "/home/api/v1/novel/genre/romance": { list: [item("n1")] },
    });
    const got = await loadHomeTab(http, "romance");
    expect(calls.map((c) => c.path)).toEqual([
      "/home/api/v1/webtoon/genre/romance",
      "/home/api/v1/comic/genre/romance",
      "/home/api/v1/novel/genre/romance",
    ]);
    expect(calls[0].query).toEqual({ sort: "popular", size: 12 });
    expect(got.area).toBe("romance");
    expect(got.banners).toEqual([]);
    expect(got.sections.map((s) => [s.key, s.title, s.moreUrl, s.list.map((i) => i.pid)])).toEqual([
      ["webtoon-romance", "웹툰 로맨스", "/webtoon/genre/romance", ["w1", "w2"]],
      ["novel-romance", "소설 로맨스", "/novel/genre/romance", ["n1"]],
    ]);
  });
});
