import { expect, it } from "vitest";
import { applyLike } from "./reviewRules";

it("a like toggles and counts, never below 0", () => {
  expect(applyLike({ isMyLike: false, likeCnt: 3 })).toEqual({ isMyLike: true, likeCnt: 4 });
  expect(applyLike({ isMyLike: true, likeCnt: 4 })).toEqual({ isMyLike: false, likeCnt: 3 });
  expect(applyLike({ isMyLike: true, likeCnt: 0 })).toEqual({ isMyLike: false, likeCnt: 0 });
});
