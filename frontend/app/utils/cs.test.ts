import { expect, it } from "vitest";
import { faqCid } from "./cs";

it("maps FAQ categories to the seed's cids", () => {
  expect(faqCid("privacy")).toBe("01000");
  expect(faqCid("payment")).toBe("02000");
  expect(faqCid("comic")).toBe("03100");
  expect(faqCid("novel")).toBe("03300");
  expect(faqCid("etc")).toBe("etc");
  expect(faqCid("03100")).toBe("03100");
  expect(faqCid(undefined)).toBeUndefined();
  expect(faqCid("nope")).toBeUndefined();
});
