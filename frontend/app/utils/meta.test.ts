import { describe, expect, it } from "vitest";
import { appTitle, pageTitle, PRODUCT_NAME } from "./meta";

describe("app title", () => {
  it("is the page's own title without the product name", () => {
    expect(appTitle(pageTitle("검색"))).toBe("검색");
    expect(appTitle(pageTitle())).toBe(PRODUCT_NAME);
    expect(appTitle("")).toBe(PRODUCT_NAME);
  });
});
