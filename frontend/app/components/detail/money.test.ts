import { describe, expect, it } from "vitest";
import type { ConfirmOptions } from "~/components/ui/ConfirmPopup";
import { contractCases, type MoneyCases } from "~/test/cases";
import { ensureMoney, firstChargeBonus, offerCharge, rechargeHref, spendable } from "./money";

/** A shell whose confirm popups answer in turn, recording what they asked. */
function fake(answers: boolean[], wallet: { shownAmount: number; blueMileage: number } | null) {
  const asked: ConfirmOptions[] = [];
  const went: string[] = [];
  const deps = {
    shell: { confirm: async (o: ConfirmOptions) => (asked.push(o), answers.shift() ?? false) },
    navigate: (to: string) => void went.push(to),
    wallet: async () => wallet,
  };
  return { deps, asked, went };
}

describe("spending money", () => {
  it("counts mileage with the channel's money", () => {
    expect(spendable({ shownAmount: 700, blueMileage: 300 })).toBe(1000);
    expect(spendable(null)).toBe(0);
  });

  it("asks first; a no spends nothing and never looks at the wallet", async () => {
    const f = fake([false], null);
    f.deps.wallet = async () => {
      throw new Error("must not be called");
    };
    expect(await ensureMoney(f.deps, { price: 9900, title: "점핑패스", returnTo: "/jumpingpass" })).toBe(false);
    expect(f.asked).toEqual([{ title: "점핑패스", content: "9,900원이 차감됩니다. 진행할까요?", leftLabel: "취소", rightLabel: "확인" }]);
    expect(f.went).toEqual([]);
  });

  it("goes ahead when mileage and money cover the price exactly, and shows the note", async () => {
    const f = fake([true], { shownAmount: 9000, blueMileage: 900 });
    expect(await ensureMoney(f.deps, { price: 9900, title: "점핑패스 1장", note: "구매일부터 30일 동안 쓸 수 있습니다.", returnTo: "/jumpingpass" })).toBe(true);
    expect(f.asked).toHaveLength(1);
    expect(f.asked[0].content).toBe("9,900원이 차감됩니다.\n구매일부터 30일 동안 쓸 수 있습니다.\n진행할까요?");
  });

  it("offers the charge page for the missing amount, coming back to the screen", async () => {
    const f = fake([true, true], { shownAmount: 4000, blueMileage: 100 });
    expect(await ensureMoney(f.deps, { price: 9900, title: "점핑패스", returnTo: "/jumpingpass" })).toBe(false);
    expect(f.asked[1]).toEqual({ content: "잔액이 부족합니다. (보유 4,100원, 부족 5,800원)\n충전하시겠습니까?", leftLabel: "취소", rightLabel: "충전하기" });
    expect(f.went).toEqual(["/payment/recharge.asp?need=5800&return=%2Fjumpingpass"]);
  });

  it("stays when the reader declines to charge; an unknown wallet counts as empty", async () => {
    const f = fake([false], null);
    expect(await offerCharge(f.deps, 500, "/webtoon/detail/wt1?tab=V")).toBe(false);
    expect(f.asked[0].content).toContain("부족 500원");
    expect(f.went).toEqual([]);
    expect(rechargeHref(500, "/webtoon/detail/wt1?tab=V")).toBe("/payment/recharge.asp?need=500&return=%2Fwebtoon%2Fdetail%2Fwt1%3Ftab%3DV");
  });
});

describe("first-charge bonus", () => {
  it("is the writer's formula, run against contract/cases/money-by-channel.json", () => {
    const t = contractCases<MoneyCases>("money-by-channel.json").firstChargeBonus;
    expect(t.length).toBeGreaterThan(0);
    for (const c of t) expect(firstChargeBonus(c.amount, c.pct), `${c.amount} at ${c.pct}%`).toBe(c.bonus);
  });
});
