import { describe, expect, it } from "vitest";
import { mainButton, type RecentViewVol } from "./mainButton";

const first: RecentViewVol = { no: 1, isPreView: false, isContinue: false, needLogin: false, title: "1화" };
const reading: RecentViewVol = { no: 7, isPreView: true, isContinue: true, needLogin: false, title: "7화" };

describe("mainButton (seed recentViewVol)", () => {
  it("opens the first volume for a reader who has not read the work", () => {
    expect(mainButton(null, first, "화")).toEqual({ no: 1, label: "첫 화 보기", continues: false });
    expect(mainButton(undefined, { ...first, title: "1권" }, "권")).toEqual({ no: 1, label: "첫 권 보기", continues: false });
  });
  it("continues the member's volume over the edge's first one", () => {
    expect(mainButton(reading, first, "화")).toEqual({ no: 7, label: "7화 이어보기", continues: true });
  });
  it("follows the member's answer when it is not a continue", () => {
    expect(mainButton({ ...first, no: 2, title: "2화" }, first, "화")).toEqual({ no: 2, label: "첫 화 보기", continues: false });
  });
  it("has no button when nothing is released", () => {
    expect(mainButton(null, null, "화")).toBeNull();
  });
});
