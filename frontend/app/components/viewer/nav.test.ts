import { describe, expect, it } from "vitest";
import { displayOrder, keyTurn, previewLoginFirst, sideTurn, spreads, targetVol, visiblePages, webViewerSupported } from "./nav";

describe("targetVol (direction codes)", () => {
  const nos = [3, 1, 2, 5];
  it("P previous and N next in number order", () => {
    expect(targetVol(nos, 2, "P")).toBe(1);
    expect(targetVol(nos, 2, "N")).toBe(3);
    expect(targetVol(nos, 3, "N")).toBe(5);
    expect(targetVol(nos, 1, "P")).toBeNull();
    expect(targetVol(nos, 5, "N")).toBeNull();
  });
  it("I resumes the last viewed volume, else the first", () => {
    expect(targetVol(nos, 1, "I", 5)).toBe(5);
    expect(targetVol(nos, 1, "I", 9)).toBe(1);
    expect(targetVol(nos, 1, "I")).toBe(1);
  });
  it("A goes to the list", () => expect(targetVol(nos, 1, "A")).toBeNull());
});

it("shows preview pages without a token", () => {
  expect(visiblePages(false, 8, 2)).toBe(2);
  expect(visiblePages(true, 8, 2)).toBe(8);
  expect(visiblePages(false, 1, 2)).toBe(1);
});

it("pairs pages on wide screens", () => {
  expect(spreads(5, true)).toEqual([[1, 2], [3, 4], [5]]);
  expect(spreads(3, false)).toEqual([[1], [2], [3]]);
});

it("needs IntersectionObserver and fetch", () => {
  expect(webViewerSupported({ IntersectionObserver: function () {}, fetch: function () {} })).toBe(true);
  expect(webViewerSupported({ fetch: function () {} })).toBe(false);
});

describe("previewLoginFirst: a preview in the app below 6.0.0 needs login (seed §5)", () => {
  const paid = { isFree: false, pages: 10, previewPages: 2 };
  const app = (v: string) => ({ isApp: true, appVersion: v });
  it("an app below 6.0.0 opening a paid volume's preview", () => {
    expect(previewLoginFirst(app("5.9.9"), paid)).toBe(true);
    expect(previewLoginFirst(app("3.30.0"), paid)).toBe(true);
  });
  it("not from 6.0.0 (and '-1', the newest), nor in a browser", () => {
    expect(previewLoginFirst(app("6.0.0"), paid)).toBe(false);
    expect(previewLoginFirst(app("6.1.0"), paid)).toBe(false);
    expect(previewLoginFirst(app("-1"), paid)).toBe(false);
    expect(previewLoginFirst({ isApp: false, appVersion: "" }, paid)).toBe(false);
  });
  it("not for what is no preview: a free volume, or one whose preview is all of it", () => {
    expect(previewLoginFirst(app("5.0.0"), { ...paid, isFree: true })).toBe(false);
    expect(previewLoginFirst(app("5.0.0"), { ...paid, previewPages: 10 })).toBe(false);
  });
});

describe("right-to-left page order", () => {
  it("shows a spread's first page on the right", () => {
    expect(displayOrder([1, 2], true)).toEqual([2, 1]);
    expect(displayOrder([1, 2], false)).toEqual([1, 2]);
    expect(displayOrder([3], true)).toEqual([3]);
  });
  it("leads on from the left side and back from the right", () => {
    expect(sideTurn("left", true)).toBe(1);
    expect(sideTurn("right", true)).toBe(-1);
    expect(sideTurn("left", false)).toBe(-1);
    expect(sideTurn("right", false)).toBe(1);
  });
  it("turns the arrow keys the same way", () => {
    expect(keyTurn("ArrowLeft", true)).toBe(1);
    expect(keyTurn("ArrowRight", true)).toBe(-1);
    expect(keyTurn("ArrowRight", false)).toBe(1);
    expect(keyTurn("ArrowLeft", false)).toBe(-1);
    expect(keyTurn("Enter", true)).toBe(0);
  });
});
