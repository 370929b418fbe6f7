import { describe, expect, it } from "vitest";
import { spreads, targetVol, visiblePages, webViewerSupported } from "./nav";

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
