import { describe, expect, it } from "vitest";
import { ledgerLabel } from "./blueincome";

describe("blueincome", () => {
  it("names ledger rows in Korean and tells automatic and scheduled top-ups from charges", () => {
    expect(ledgerLabel("charge", "charge:at_0e2e1529289391df09163c46")).toBe("자동 충전");
    expect(ledgerLabel("charge", "charge:sch_1000001_202611")).toBe("정기 충전");
    expect(ledgerLabel("charge", "charge:ord_1")).toBe("블루머니 충전");
    expect(ledgerLabel("purchase", "purchase:9")).toBe("소장 구매");
    expect(ledgerLabel("first_charge_bonus", "charge:ord_1")).toBe("첫 충전 보너스");
    expect(ledgerLabel("something_new", "")).toBe("기타");
    expect(ledgerLabel(undefined, undefined)).toBe("기타");
  });
});
