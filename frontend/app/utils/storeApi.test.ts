import { describe, expect, it } from "vitest";
import { detailState } from "./storeApi";

describe("detailState: the detail header codes (seed §4)", () => {
  it("200 is ok", () => expect(detailState(200)).toBe("ok"));
  it("201 and 203 are service off", () => {
    expect(detailState(201)).toBe("serviceOff");
    expect(detailState(203)).toBe("serviceOff");
  });
  it("202 is payment off", () => expect(detailState(202)).toBe("paymentOff"));
  it("any other code counts as ok (the page shows what it got)", () => {
    for (const c of [0, 204, 299, 400]) expect(detailState(c)).toBe("ok");
  });
});
