import { describe, expect, it } from "vitest";
import { checkEarlyAccess, COUNT_MESSAGE, earlyOf, PRICE_MESSAGE } from "./earlyAccess";

describe("checkEarlyAccess", () => {
  it("makes the body with both fields for a valid setting", () => {
    expect(checkEarlyAccess("3", "300")).toEqual({ ok: true, payload: { earlyCount: 3, earlyPrice: 300 } });
    expect(checkEarlyAccess(" 1 ", "100")).toEqual({ ok: true, payload: { earlyCount: 1, earlyPrice: 100 } });
    expect(checkEarlyAccess("50", "1,000,000")).toEqual({ ok: true, payload: { earlyCount: 50, earlyPrice: 1_000_000 } });
  });

  it("turns early access off with price 0, whatever the price field says", () => {
    expect(checkEarlyAccess("0", "500")).toEqual({ ok: true, payload: { earlyCount: 0, earlyPrice: 0 } });
    expect(checkEarlyAccess("", "")).toEqual({ ok: true, payload: { earlyCount: 0, earlyPrice: 0 } });
    expect(checkEarlyAccess("0", "abc")).toEqual({ ok: true, payload: { earlyCount: 0, earlyPrice: 0 } });
  });

  it.each(["-1", "51", "1.5", "2e1", "abc", "３"])("refuses the count %j (0-50 whole numbers)", (count) => {
    expect(checkEarlyAccess(count, "300")).toEqual({ ok: false, field: "earlyCount", message: COUNT_MESSAGE });
  });

  it.each([
    ["", "no price with a count"],
    ["0", "price 0 with a count"],
    ["99", "below 100"],
    ["1000100", "above 1,000,000"],
    ["250", "not a multiple of 100"],
    ["300.5", "not whole"],
    ["-300", "negative"],
    ["삼백", "not a number"],
  ])("refuses the price %j with a count (%s)", (price) => {
    expect(checkEarlyAccess("2", price)).toEqual({ ok: false, field: "earlyPrice", message: PRICE_MESSAGE });
  });

  it("says the writer's bounds in Korean", () => {
    expect(COUNT_MESSAGE).toContain("0부터 50까지");
    expect(PRICE_MESSAGE).toContain("100원부터 1,000,000원까지, 100원 단위로");
  });
});

describe("earlyOf", () => {
  it("reads the omitted zero fields of a work document as 0", () => {
    expect(earlyOf({})).toEqual({ earlyCount: 0, earlyPrice: 0 });
    expect(earlyOf({ earlyCount: 2, earlyPrice: 400 })).toEqual({ earlyCount: 2, earlyPrice: 400 });
  });
});
