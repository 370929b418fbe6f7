import { describe, expect, it } from "vitest";
import { headerKind, sectionOf, TOP_TABS } from "./layout";

describe("header by path prefix", () => {
  it.each([
    ["/jumpingpass", "none"],
    ["/jumpingpass/weekly", "none"],
    ["/mypages/recent/edit", "none"],
    ["/mypages/recent", "main"],
    ["/novel", "section"],
    ["/comic/best", "section"],
    ["/webtoon/detail/wt1", "section"],
    ["/webtoons", "main"],
    ["/", "main"],
    ["/cs/faq", "main"],
  ])("%s -> %s", (p, k) => expect(headerKind(p)).toBe(k));
  it("section of a path and the top tabs", () => {
    expect(sectionOf("/comic/best")).toBe("comic");
    expect(sectionOf("/cs")).toBeNull();
    expect(TOP_TABS.map((t) => t.key)).toEqual(["series", "romance", "fanmu", "bl", "others"]);
    expect(TOP_TABS.map((t) => t.label)).toEqual(["시리즈", "로맨스", "판타지/무협", "BL", "일반"]);
  });
});
